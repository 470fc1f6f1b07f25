"""Kafka Streams figures of one setting, task by task: shared by the replay and the sweep.

Figures (``summary()`` = a sweep row; :func:`evaluate_task` + :func:`combine`): the batch answer
is the same aggregation with an unlimited grace (nothing dropped). A window's *first result* is
its first non-tombstone emission; ``completeness_first`` / ``completeness_final`` count the
records in the first / last result of each true window over all true pairs; ``exact_windows``
the true windows whose first result held all their records; latency = first result's emit time
minus the window end (negative for emit on update: Kafka emits before the window ends);
``firings`` = results, ``late_firings`` = results with timing ``late``, ``retractions`` =
tombstones. State: a window is open from its first accepted record until its task's stream time
closes it (``S >= end + grace``; inclusive ends one ms later; sessions ``+ gap``) or a merge
removes it, read off the cache-off update aggregation for every emit mode.

**Sharding** (for distributed sweeps): tasks are independent. :func:`shard_key` gives each record
its task; :func:`evaluate_task` evaluates one task's records (arrival order) into a partial;
:func:`combine` merges partials exactly (counts add, latency value counts add, state deltas
at global arrival positions add). Any grouping of whole tasks gives identical figures.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.engine.kafka_streams import (
    Emit,
    SessionWindows,
    SlidingWindows,
    TimeWindows,
    UnlimitedWindows,
    run_windowed_aggregation,
)
from toolkit.engine.kafka_streams.partitioner import tasks_for_keys
from toolkit.engine.kafka_streams.record_cache import REPARTITION_TOPIC, SOURCE_TOPIC, CacheConfig, RecordSizes
from toolkit.engine.kafka_streams.suppress import SuppressBufferFull, SuppressConfig
from toolkit.errors import UserError
from toolkit.metrics.fates import DROPPED, LATE_ACCEPTED, ON_TIME
from toolkit.metrics.summary import nearest_rank
from toolkit.settings import (
    Global,
    KafkaSliding,
    Session,
    Setting,
    SettingError,
    Sliding,
    Tumbling,
)


def kafka_windows(s: Setting, grace: int | None = None) -> TimeWindows | SlidingWindows | SessionWindows | UnlimitedWindows:
    """The engine's window specification of a ``semantics="kafka_streams"`` setting."""
    g = s.grace if grace is None else grace
    # the window store's retention (Materialized.withRetention); the batch answer's unlimited
    # grace keeps everything, so it keeps the default (the smallest Kafka accepts)
    r = s.retention if grace is None else None
    w = s.window
    if isinstance(w, Tumbling):
        return TimeWindows(w.size, w.size, g, r)
    if isinstance(w, Sliding):
        return TimeWindows(w.size, w.slide, g, r)
    if isinstance(w, KafkaSliding):
        return SlidingWindows(w.time_difference, g, r)
    if isinstance(w, Session):
        return SessionWindows(w.gap, g, r)
    if isinstance(w, Global):
        return UnlimitedWindows()
    raise SettingError("window", f"window {w} has no Kafka Streams form")


def end_offset(s: Setting) -> int:
    """What to add to Kafka's ``window.end()`` for an exclusive end (1 for sliding and session windows)."""
    return 1 if isinstance(s.window, (KafkaSliding, Session)) else 0


def table_arrays(table: pd.DataFrame) -> dict:
    """A log table's columns in arrival order (ties: row order)."""
    arr = table["arrival_time"].to_numpy(np.int64)
    order = np.lexsort((table["row"].to_numpy(np.int64), arr))
    t = table.iloc[order]
    part = t["partition"].to_numpy(np.int64) if "partition" in t else np.zeros(len(t), np.int64)
    vals = t["value"].to_numpy() if "value" in t else np.ones(len(t), np.int64)
    return {"ts": t["event_time"].to_numpy(np.int64), "arr": t["arrival_time"].to_numpy(np.int64), "part": part,
            "keys": t["key"].to_numpy(dtype=object), "vals": vals, "rows": t["row"].to_numpy(np.int64), "has_arr": True}


def topic_partitions(part: np.ndarray | int, declared: Any = None) -> int:
    """How many partitions the input topic has: the largest partition id + 1, of the log's records
    (``part``: their partition ids, or the largest id itself) or, when the user declared the
    partitions the job reads (``load_log(..., partitions=...)``), of those: a Kafka topic numbers
    its partitions 0..N-1, and a partition without records is still one of them."""
    top = int(part) if np.isscalar(part) else (int(np.max(part)) if len(part) else 0)
    if declared is not None and len(declared):
        top = max(top, int(max(declared)))
    return top + 1


def shard_key(a: dict, s: Setting, declared: Any = None) -> tuple[np.ndarray, int]:
    """The task of every record (``a`` in arrival order) and the number of tasks: the unit a
    distributed sweep shards by (tasks are independent). See the module doc for the rules;
    ``declared``: the partitions the user declared (:func:`topic_partitions`)."""
    part = np.asarray(a["part"], dtype=np.int64)
    n_part = topic_partitions(part, declared)
    if s.repartition:
        n = n_part if s.tasks is None else int(s.tasks)
        return tasks_for_keys(a["keys"], n), n
    if len(part) and part.min() < 0:
        raise SettingError("repartition", "repartition=False makes each log partition a task; partitions must be >= 0")
    n = n_part if s.tasks is None else int(s.tasks)
    if n < n_part:
        raise SettingError("tasks", f"tasks={n} is fewer than the log's {n_part} partitions; with repartition=False "
                           "each partition is one task (leave tasks unset)")
    if len(part):
        per_key = pd.DataFrame({"k": a["keys"], "p": part}).drop_duplicates()
        spread = per_key["k"].duplicated(keep=False)
        if spread.any():
            k = per_key.loc[spread, "k"].iloc[0]
            ps = sorted(per_key.loc[per_key["k"] == k, "p"].tolist())
            raise SettingError("repartition", f"repartition=False needs a co-partitioned log, but key {k!r} is in "
                               f"partitions {ps[:5]}: Kafka Streams would aggregate it in several tasks separately; "
                               "use repartition=True (re-key through a repartition topic)")
    return part.copy(), n


def record_sizes(s: Setting) -> RecordSizes:
    """The record-size model (``aggregate_bytes``; the topic of a record's context)."""
    return RecordSizes(aggregate_bytes=int(s.aggregate_bytes), topic=REPARTITION_TOPIC if s.repartition else SOURCE_TOPIC)


def suppress_config(s: Setting) -> SuppressConfig | None:
    """The ``Suppressed`` of ``emit="suppress"`` (None otherwise)."""
    if s.emit != "suppress":
        return None
    return SuppressConfig(s.suppress_time_limit, s.suppress_max_records, s.suppress_max_bytes, s.suppress_when_full,
                          record_sizes(s))


def cache_config(s: Setting) -> CacheConfig | None:
    """The record cache of a setting (None: off, ``cache_max_bytes=0``); the record context's topic
    is the repartition topic, or the input topic with ``repartition=False``."""
    if not s.cache_max_bytes:
        return None
    return CacheConfig(int(s.cache_max_bytes), int(s.commit_interval), record_sizes(s))


def shared_cache(s: Setting) -> bool:
    """Whether the tasks share a record cache (one stream thread's): then no task can be evaluated
    alone, since an eviction depends on what every task's store cache holds."""
    return cache_config(s) is not None and s.emit != "final"


def _run(keys, ts, vals, arr, task, n_tasks, windows, emit: str, emit_interval: int = 1000,
         cache: CacheConfig | None = None, start_time: int | None = None, suppress: SuppressConfig | None = None) -> Any:
    try:
        return run_windowed_aggregation(keys, ts, vals, arr, task, windows=windows,
                                        emit=Emit(ENGINE_EMIT[emit], emit_interval), tasks=n_tasks, assign="partition",
                                        flush_at_end=True, cache=cache, start_time=start_time, suppress=suppress)
    except SuppressBufferFull as exc:  # shutDownWhenFull: Kafka Streams stops here, and so does the replay
        c = suppress or SuppressConfig()
        name = "suppress_max_records" if c.max_records is not None and exc.records > c.max_records else "suppress_max_bytes"
        at = f"arrival {int(arr[exc.index])} ms" if 0 <= exc.index < len(arr) else "the end of input"
        raise SettingError(name, f"{exc} (at {at}); raise {name} or use suppress_when_full=emit_early with "
                           "suppress_time_limit") from None
    except UserError as exc:
        msg = str(exc)
        name = "event_time" if msg.startswith("event_time") else "key" if msg.startswith("key") else "log"
        raise SettingError(name, msg) from None


def _late(s: Setting, ts: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Records that arrived after every window they can belong to had ended in stream time."""
    w = s.window
    if isinstance(w, Global):
        return np.zeros(len(ts), dtype=bool)  # an unlimited window never ends
    if isinstance(w, (Tumbling, Sliding)):
        adv = w.slide if isinstance(w, Sliding) else w.size
        return after >= (ts // adv) * adv + w.size
    if isinstance(w, KafkaSliding):
        return after > ts + w.time_difference
    return after > ts + w.gap


def evaluate_task(a: dict, pos: np.ndarray, task: np.ndarray, n_tasks: int, s: Setting, end_time: int,
                  *, detail: bool = False, start_time: int | None = None) -> dict:
    """Evaluate the records of one or more whole tasks (``a``: their columns in arrival order,
    ``pos``: their global arrival positions, ``end_time``: the log's last arrival, ``start_time``:
    its first, where the record cache's commit clock starts) into a partial for :func:`combine`;
    with ``detail`` also the engine result and the fate codes. With a shared record cache
    (:func:`shared_cache`) the records must be those of every task."""
    ts, arr, keys = a["ts"], a["arr"], a["keys"]
    vals = np.asarray(a["vals"], dtype=np.float64)
    n = len(ts)
    windows = kafka_windows(s)
    off = end_offset(s)
    res = _run(keys, ts, vals, arr, task, n_tasks, windows, s.emit, s.emit_interval, cache_config(s), start_time,
               suppress_config(s))
    em = res.emissions
    at_end = em["at_end"]
    emit_time = np.where(at_end, end_time, em["emit_time"]).astype(np.int64)
    emit_pos = np.where(at_end, np.iinfo(np.int64).max, pos[np.maximum(em["emit_index"], 0)] if n else 0)
    # fates
    after = res.stream_time
    accepted = res.accepted_windows > 0
    codes = np.where(~accepted, DROPPED, np.where(_late(s, ts, after), LATE_ACCEPTED, ON_TIME)).astype(np.int8)
    # the batch answer: the same aggregation with unlimited grace, its last result per window
    kidx = pd.Index(pd.unique(keys))  # keys as integer codes: pandas groups ints much faster than objects
    truth_res = _run(keys, ts, vals, arr, task, n_tasks, kafka_windows(s, _UNLIMITED_GRACE), "update")
    truth = _final_table(truth_res.emissions, kidx)
    # first and last result of each window
    kafka_end = em["window_end"]
    kind = em["kind"]
    fire = kind != "tombstone"
    df = pd.DataFrame({"task": em["task"], "key": kidx.get_indexer(em["key"]), "start": em["window_start"],
                       "end": kafka_end, "count": em["count"], "t": emit_time, "at_end": at_end})[fire]
    first = df.drop_duplicates(["task", "key", "start", "end"], keep="first")
    last = df.drop_duplicates(["task", "key", "start", "end"], keep="last")
    on = ["task", "key", "start", "end"]
    f = truth.merge(first, on=on, how="left", suffixes=("_true", ""))
    lst = truth.merge(last, on=on, how="left", suffixes=("_true", ""))
    true_pairs = int(truth["count"].sum())
    pairs_first = int(f["count"].fillna(0).sum())
    pairs_final = int(lst["count"].fillna(0).sum())
    exact = int((f["count"] == f["count_true"]).sum())
    timed = f[f["count"].notna()]
    timed = timed[~timed["at_end"].astype(bool) & (timed["end"] < _NEVER)]  # an unlimited window has no end
    lat = (timed["t"].to_numpy(np.int64) - (timed["end"].to_numpy(np.int64) + off))
    lv, lc = np.unique(lat, return_counts=True)
    timing = _timing(s, em, off)
    # state is what the store and its cache hold, whatever the cache forwards: from a cache-off update run
    plain = s.emit == "update" and cache_config(s) is None
    state = _state_steps(s, res if plain else _run(keys, ts, vals, arr, task, n_tasks, windows, "update"),
                         pos, arr, task, kidx)
    part = {
        "scalars": {
            "records": n, "on_time": int((codes == ON_TIME).sum()), "late_accepted": int((codes == LATE_ACCEPTED).sum()),
            "dropped": int((codes == DROPPED).sum()), "true_pairs": true_pairs, "pairs_first": pairs_first,
            "pairs_final": pairs_final, "exact": exact, "windows": int(len(truth)),
            "fired_windows": int(f["count"].notna().sum()),
            "at_end_firings": int((at_end & fire).sum()), "firings": int(fire.sum()),
            "late_firings": int(((timing == "late") & fire).sum()), "retractions": int((~fire).sum()),
            "dropped_records_sensor": int(res.dropped_records.sum()),
            "updates": int((kind == "update").sum()), "tombstones": int((kind == "tombstone").sum()),
            "finals": int((kind == "final").sum()),
            "cache_evictions": int(res.description.get("cache_evictions", 0)),
        },
        "record_lateness_max": int(res.record_lateness_max.max()) if n else 0,
        "latency": (lv.astype(np.int64), lc.astype(np.int64)),
        "state": state,
        "span": (int(arr[0]), int(arr[-1])) if n else None,
    }
    if detail:
        part.update(result=res, codes=codes, timing=timing, emit_time=emit_time, emit_pos=emit_pos)
    return part


def _final_table(em: dict, kidx: pd.Index) -> pd.DataFrame:
    """Windows still standing after an update run (the last result of each, tombstoned ones removed)."""
    df = pd.DataFrame({"task": em["task"], "key": kidx.get_indexer(em["key"]), "start": em["window_start"], "end": em["window_end"],
                       "count": em["count"], "kind": em["kind"]})
    last = df.drop_duplicates(["task", "key", "start", "end"], keep="last")
    return last[last["kind"] != "tombstone"][["task", "key", "start", "end", "count"]].reset_index(drop=True)


def _timing(s: Setting, em: dict, off: int) -> np.ndarray:
    """``on_time`` (a final result), ``early`` / ``late`` (an update before / after the task's
    stream time reached the window end) or ``at_end``."""
    end_excl = em["window_end"] + off
    t = np.where(em["kind"] == "final", "on_time", np.where(em["stream_time"] >= end_excl, "late", "early"))
    return np.where(em["at_end"], "at_end", t).astype(object)


def _close_threshold(s: Setting, end: np.ndarray) -> np.ndarray:
    """The stream time at which a window (Kafka's end) is closed for good."""
    w = s.window
    if isinstance(w, Global):
        return np.full(len(end), np.iinfo(np.int64).max, dtype=np.int64)  # never
    if isinstance(w, (Tumbling, Sliding)):
        return end + s.grace
    if isinstance(w, KafkaSliding):
        return end + s.grace + 1
    return end + s.grace + w.gap + 1


def _state_steps(s: Setting, upd: Any, pos: np.ndarray, arr: np.ndarray, task: np.ndarray, kidx: pd.Index) -> tuple:
    """State deltas ``(pos, time, d_windows, d_records)`` from a cache-off update run (see the module doc)."""
    em = upd.emissions
    m = len(em["key"])
    if not m:
        z = np.zeros(0, np.int64)
        return z, z, z, z
    idx = em["emit_index"]
    df = pd.DataFrame({"task": em["task"], "key": kidx.get_indexer(em["key"]), "start": em["window_start"],
                       "end": em["window_end"], "count": em["count"], "tomb": em["kind"] == "tombstone", "i": idx})
    g = df.groupby(["task", "key", "start", "end"], sort=False)
    tomb = df["tomb"].to_numpy()
    cnt = df["count"].to_numpy(np.int64)
    prev_row = g.cumcount().to_numpy() > 0
    prev_tomb = g["tomb"].shift(1, fill_value=True).to_numpy(bool)  # no row before, or a tombstone: absent
    prev = np.where(prev_tomb, 0, g["count"].shift(1, fill_value=0).to_numpy(np.int64))
    opens = ~tomb & (~prev_row | prev_tomb)  # a session updated in place is tombstoned, then written again
    dw = np.where(tomb, -1, np.where(opens, 1, 0))
    dr = np.where(tomb, -prev, cnt - prev)
    steps_i = [idx]
    steps_w = [dw]
    steps_r = [dr]
    # windows not removed by a tombstone close when their task's stream time reaches the threshold
    last = df.drop_duplicates(["task", "key", "start", "end"], keep="last")
    open_ = last[~last["tomb"].to_numpy()]
    if len(open_):
        after = upd.stream_time
        thr = _close_threshold(s, open_["end"].to_numpy(np.int64))
        wt = open_["task"].to_numpy(np.int64)
        close_i = np.full(len(open_), -1, np.int64)
        for t in np.unique(wt):
            recs = np.flatnonzero(task == t)
            sel = wt == t
            k = np.searchsorted(after[recs], thr[sel], side="left")
            ok = k < len(recs)
            ci = np.full(int(sel.sum()), -1, np.int64)
            ci[ok] = recs[k[ok]]
            close_i[sel] = ci
        closed = close_i >= 0
        steps_i.append(close_i[closed])
        steps_w.append(np.full(int(closed.sum()), -1, np.int64))
        steps_r.append(-open_["count"].to_numpy(np.int64)[closed])
    i = np.concatenate(steps_i)
    keep = i >= 0
    i = i[keep]
    d = pd.DataFrame({"pos": pos[i], "time": arr[i], "dw": np.concatenate(steps_w)[keep],
                      "dr": np.concatenate(steps_r)[keep]}).groupby("pos", sort=True).agg(
        time=("time", "first"), dw=("dw", "sum"), dr=("dr", "sum")).reset_index()
    return (d["pos"].to_numpy(np.int64), d["time"].to_numpy(np.int64), d["dw"].to_numpy(np.int64),
            d["dr"].to_numpy(np.int64))


def combine(partials: list[dict], invalid: int = 0) -> dict:
    """The figures (``SUMMARY_COLUMNS``, then Kafka's own) of the partials of disjoint sets of
    whole tasks: exact, whatever the grouping."""
    sc: dict[str, int] = {}
    for p in partials:
        for k, v in p["scalars"].items():
            sc[k] = sc.get(k, 0) + v
    lat = [p["latency"] for p in partials]
    lv = np.concatenate([v for v, _ in lat]) if lat else np.zeros(0, np.int64)
    lc = np.concatenate([c for _, c in lat]) if lat else np.zeros(0, np.int64)
    if len(lv):
        vc = pd.Series(lc).groupby(lv).sum().sort_index()
        lv, lc = vc.index.to_numpy(np.int64), vc.to_numpy(np.int64)
    st = [p["state"] for p in partials]
    d = pd.DataFrame({"pos": np.concatenate([x[0] for x in st]), "time": np.concatenate([x[1] for x in st]),
                      "dw": np.concatenate([x[2] for x in st]), "dr": np.concatenate([x[3] for x in st])})
    if len(st) != 1 or np.any(np.diff(d["pos"].to_numpy()) <= 0):  # one partial's steps come one per pos, sorted
        d = d.groupby("pos", sort=True).agg(time=("time", "first"), dw=("dw", "sum"), dr=("dr", "sum"))
    w = np.cumsum(d["dw"].to_numpy(np.int64))
    r = np.cumsum(d["dr"].to_numpy(np.int64))
    spans = [p["span"] for p in partials if p["span"] is not None]
    lo, hi = (min(x[0] for x in spans), max(x[1] for x in spans)) if spans else (0, 0)
    t = d["time"].to_numpy(np.int64)
    if hi > lo and len(t):
        dt = np.diff(np.r_[t, hi])
        mean_w, mean_r = float((w * dt).sum() / (hi - lo)), float((r * dt).sum() / (hi - lo))
    else:
        mean_w = float(w[-1]) if len(w) else 0.0
        mean_r = float(r[-1]) if len(r) else 0.0
    tp = sc.get("true_pairs", 0)
    nt = sc.get("windows", 0)
    out = {
        "records": sc.get("records", 0) + invalid,
        "on_time": sc.get("on_time", 0), "late_accepted": sc.get("late_accepted", 0), "dropped": sc.get("dropped", 0),
        "invalid": invalid,
        "completeness_first": sc.get("pairs_first", 0) / tp if tp else 1.0,
        "completeness_final": sc.get("pairs_final", 0) / tp if tp else 1.0,
        "exact_windows": sc.get("exact", 0) / nt if nt else 1.0,
        "latency_p50_ms": nearest_rank(lv, lc, 0.50), "latency_p95_ms": nearest_rank(lv, lc, 0.95),
        "latency_p99_ms": nearest_rank(lv, lc, 0.99), "latency_max_ms": float(lv[-1]) if len(lv) else float("nan"),
        "at_end_firings": sc.get("at_end_firings", 0), "firings": sc.get("firings", 0),
        "late_firings": sc.get("late_firings", 0), "retractions": sc.get("retractions", 0),
        "peak_state_windows": int(max(w.max(), 0)) if len(w) else 0,
        "peak_state_records": int(max(r.max(), 0)) if len(r) else 0,
        "mean_state_records": mean_r, "mean_state_windows": mean_w, "windows": nt,
        "dropped_records_sensor": sc.get("dropped_records_sensor", 0),
        "record_lateness_max_ms": max((p["record_lateness_max"] for p in partials), default=0),
        "updates": sc.get("updates", 0), "tombstones": sc.get("tombstones", 0), "finals": sc.get("finals", 0),
        "cache_evictions": sc.get("cache_evictions", 0),
    }
    return out


def check_arrivals(a: dict) -> None:
    if not a["has_arr"]:
        raise SettingError("semantics", "semantics='kafka_streams' processes records in arrival order, but the log "
                           "has no arrival times; load it with an arrival-time column")
    if not len(a["ts"]):
        raise SettingError("log", "the log has no valid records to replay")


#: the engine's emit strategy of each ``emit=`` value
ENGINE_EMIT = {"update": "on_window_update", "final": "on_window_close", "suppress": "suppress"}


#: a window end that never comes (UnlimitedWindows end at Long.MAX_VALUE)
_NEVER = 2**62

#: grace of the batch answer: nothing is ever dropped
_UNLIMITED_GRACE = 2**50


