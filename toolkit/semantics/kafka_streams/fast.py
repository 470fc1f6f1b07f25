"""The sweep's fast path for Kafka Streams rows (``path="fast"``): ``TimeWindows`` (tumbling and
hopping) with ``emit`` update (record cache on or off), final and suppress (``untilWindowCloses``,
unbounded buffer), computed from integer columns (``toolkit.semantics.kafka_streams.time_windows``)
into the partial of :func:`toolkit.semantics.kafka_streams.figures.evaluate_task`, figure for
figure: the same batch answer (every pair), first and last results, latency, timing, state steps.

Where it does not apply (sliding and session windows, ``UnlimitedWindows``, a suppression with a
time limit or a bounded buffer) the row takes the replay's code (path ``kafka_streams``): see
:func:`fast_applies`. Property tests hold the two equal (``tests/kafka_streams/test_kafka_fast.py``).
"""
from __future__ import annotations

import numpy as np

from toolkit.engine.kafka_streams.emit import Emit
from toolkit.engine.kafka_streams.partitioner import key_bytes, partition_for_key
from toolkit.engine.kafka_streams.windows import TimeWindows
from toolkit.metrics.fates import DROPPED, LATE_ACCEPTED, ON_TIME
from toolkit.semantics.kafka_streams._kernel import state_rows, stream_times
from toolkit.semantics.kafka_streams.time_windows import Emissions, Pairs, emissions, pairs
from toolkit.settings import Setting, SettingError, Sliding, Tumbling

#: the ``path`` of a Kafka Streams row on the fast path
FAST = "fast"


def fast_applies(s: Setting) -> bool:
    """Whether the fast path gives ``s``'s figures exactly: ``TimeWindows`` (tumbling, hopping),
    any record cache, emit update or final, or suppress until the window closes with an unbounded
    buffer."""
    if not isinstance(s.window, (Tumbling, Sliding)):
        return False
    if s.emit == "suppress":
        return s.suppress_time_limit is None and s.suppress_max_records is None and s.suppress_max_bytes is None
    return s.emit in ("update", "final")


def key_codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of the keys and the distinct keys."""
    import pandas as pd

    codes, uniq = pd.factorize(np.asarray(keys, dtype=object))
    return codes.astype(np.int64), np.asarray(uniq, dtype=object)


def code_tasks(codes: np.ndarray, uniq: np.ndarray, repartition: bool, tasks: int, partitions: np.ndarray) -> np.ndarray:
    """The stream task of every record (``sweep.record_tasks``), hashing each distinct key once."""
    if not repartition:
        return np.asarray(partitions, dtype=np.int64).copy()
    per_key = np.array([partition_for_key(k, int(tasks)) for k in uniq.tolist()], dtype=np.int64)
    return per_key[codes] if len(codes) else np.zeros(0, np.int64)


def _cache(s: Setting, uniq: np.ndarray, start_time: int) -> tuple | None:
    """The kernel's record-cache arguments, or None when no cache sits in front of the store."""
    from toolkit.engine.kafka_streams.topology import caching
    from toolkit.semantics.kafka_streams.figures import ENGINE_EMIT, cache_config

    c = cache_config(s)
    if not caching(Emit(ENGINE_EMIT[s.emit]), c):
        return None
    assert c is not None
    sizes = np.array([c.sizes.entry(len(key_bytes(k)), False, False) for k in uniq], dtype=np.int64)
    return c.max_bytes, c.commit_interval, start_time, sizes


def fast_task(a: dict, pos: np.ndarray, task: np.ndarray, n_tasks: int, s: Setting, end_time: int, *,
              start_time: int | None = None, codes: np.ndarray | None = None, uniq: np.ndarray | None = None) -> dict:
    """:func:`toolkit.semantics.kafka_streams.figures.evaluate_task`'s partial on the fast path
    (``codes``/``uniq``: the keys already factorized, else from ``a["keys"]``)."""
    from toolkit.semantics.kafka_streams.figures import ENGINE_EMIT

    ts, arr = a["ts"], a["arr"]
    n = len(ts)
    if n and int(ts.min()) < 0:
        bad = int(np.flatnonzero(ts < 0)[0])
        raise SettingError("event_time", f"event_time: Kafka Streams has no negative timestamps; {int((ts < 0).sum())} "
                           f"records are negative (first at position {bad}: {int(ts[bad])} ms)")
    if codes is None or uniq is None:
        codes, uniq = key_codes(a["keys"])
    w = s.window
    windows = TimeWindows(w.size, w.slide if isinstance(w, Sliding) else w.size, s.grace, s.retention)
    after, before = stream_times(ts, task, n_tasks)
    p = pairs(ts, codes, task, after, windows)
    start = (int(arr[0]) if n else 0) if start_time is None else int(start_time)
    cache = _cache(s, uniq, start)
    em = emissions(p, n, ts, arr, task, after, windows, n_tasks, ENGINE_EMIT[s.emit], s.emit_interval, cache)
    # state is what the store and its cache hold, whatever the cache forwards: the cache-off update rows
    state_rows = em if s.emit == "update" and cache is None else emissions(
        p, n, ts, arr, task, after, windows, n_tasks, "on_window_update", s.emit_interval, None)
    acc = np.bincount(p.rec[p.accepted], minlength=n)
    last_end = ts // windows.advance * windows.advance + windows.size
    codes_f = np.where(acc == 0, DROPPED, np.where(after >= last_end, LATE_ACCEPTED, ON_TIME))
    lateness = np.where(before > ts, before - ts, 0)
    scalars = {"records": n, "on_time": int((codes_f == ON_TIME).sum()),
               "late_accepted": int((codes_f == LATE_ACCEPTED).sum()), "dropped": int((codes_f == DROPPED).sum()),
               "dropped_records_sensor": int(len(p.rec) - p.accepted.sum()), "cache_evictions": em.evictions,
               **_result_scalars(p, em, after, windows.size)}
    return {"scalars": scalars, "record_lateness_max": int(lateness.max()) if n else 0,
            "latency": _latency(p, em, arr, windows.size), "state": _state(p, state_rows, pos, arr, task, after,
                                                                         windows),
            "span": (int(arr[0]), int(arr[-1])) if n else None}


def _first_last(em: Emissions, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """The row of each group's first and last result (-1: none)."""
    m = len(em.group)
    first = np.full(groups, -1, np.int64)
    last = np.full(groups, -1, np.int64)
    first[em.group[::-1]] = np.arange(m)[::-1]
    last[em.group] = np.arange(m)
    return first, last


def _result_scalars(p: Pairs, em: Emissions, after: np.ndarray, size: int) -> dict:
    """Counts of the batch answer and of the results (first, last, timing)."""
    first, last = _first_last(em, len(p.g_true))
    fired = first >= 0
    c_first = em.count[first[fired]]
    at_end = em.index < 0
    end = p.g_start[em.group] + size
    late = 0 if em.final else int((~at_end & (after[np.maximum(em.index, 0)] >= end)).sum()) if len(em.group) else 0
    m = len(em.group)
    return {"true_pairs": int(p.g_true.sum()), "pairs_first": int(c_first.sum()),
            "pairs_final": int(em.count[last[fired]].sum()), "exact": int((c_first == p.g_true[fired]).sum()),
            "windows": len(p.g_true), "fired_windows": int(fired.sum()), "at_end_firings": int(at_end.sum()),
            "firings": m, "late_firings": late, "retractions": 0, "updates": 0 if em.final else m, "tombstones": 0,
            "finals": m if em.final else 0}


def _latency(p: Pairs, em: Emissions, arr: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Value counts of first result time - window end (results at the end of input left out)."""
    first, _ = _first_last(em, len(p.g_true))
    rows = first[first >= 0]
    rows = rows[em.index[rows] >= 0]
    lat = arr[em.index[rows]] - (p.g_start[em.group[rows]] + size)
    lv, lc = np.unique(lat, return_counts=True)
    return lv.astype(np.int64), lc.astype(np.int64)


def _state(p: Pairs, rows: Emissions, pos: np.ndarray, arr: np.ndarray, task: np.ndarray, after: np.ndarray,
           w: TimeWindows) -> tuple:
    """State deltas ``(pos, time, d_windows, d_records)`` from the update rows ``rows``: a window
    opens at its first row, each row adds its count's growth, and it closes (all its records) at
    the first record of its task whose stream time reaches ``end + grace``."""
    g, idx, cnt = rows.group, rows.index, rows.count
    _, last = _first_last(rows, len(p.g_true))
    dw, dr = state_rows(g, cnt, len(p.g_true))
    groups = np.flatnonzero(last >= 0)
    close = _first_record(after, task, p.g_start[groups] + w.size + w.grace, p.g_task[groups])
    ok = close >= 0
    i = np.r_[idx, close[ok]]
    d_w = np.r_[dw, -np.ones(int(ok.sum()), np.int64)]
    d_r = np.r_[dr, -cnt[last[groups[ok]]]]
    keep = i >= 0
    i, d_w, d_r = i[keep], d_w[keep], d_r[keep]
    n = len(pos)
    recs = np.flatnonzero(np.bincount(i, minlength=n))  # records with a step
    sw = np.bincount(i, weights=d_w, minlength=n)[recs].astype(np.int64)
    sr = np.bincount(i, weights=d_r, minlength=n)[recs].astype(np.int64)
    order = np.argsort(pos[recs], kind="stable")
    return pos[recs][order].astype(np.int64), arr[recs][order].astype(np.int64), sw[order], sr[order]


def _first_record(after: np.ndarray, task: np.ndarray, thr: np.ndarray, w_task: np.ndarray) -> np.ndarray:
    """Per threshold: the first record of its task whose stream time is ``>= thr`` (-1: none)."""
    out = np.full(len(thr), -1, np.int64)
    for t in np.unique(w_task):
        recs = np.flatnonzero(task == t)
        sel = np.flatnonzero(w_task == t)
        k = np.searchsorted(after[recs], thr[sel], side="left")
        ok = k < len(recs)
        out[sel[ok]] = recs[k[ok]]
    return out

