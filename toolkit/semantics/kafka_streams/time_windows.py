"""``TimeWindows`` results as integer columns, for the sweep's fast path: what the figures read of
a run of ``topology.run_windowed_aggregation`` (every emission's window, record index and count),
without keys as objects, value sums or per-emission rows of Python objects.

Rules (those of ``time_window_aggregate``, ``record_cache``, ``suppress``; ``time_window_columnar``
shows the closed forms without the cache): each task's stream time ``S`` is the running max of its
records' timestamps in arrival order; pair (record, window) of ``windows_for(ts)`` is accepted iff
``end > S - grace``. A *group* is a window of one key in one task: the batch answer's windows are
the groups of all pairs, their counts the pairs. What leaves the aggregation, per emit mode:

- ``update`` without the record cache: every accepted pair, with its group's running count;
- ``update`` with the record cache: the rows ``_kernel.cache_flushes`` forwards (commits and
  evictions, the end of input once more, index -1);
- ``suppress`` (``untilWindowCloses``, unbounded buffer): the suppression receives the update rows
  above; its stream time is the running max, per task, of their timestamps (the window's max
  record time at that count); a window leaves at the first received row after which
  ``end <= observed - grace``, never before its own last update (none can come after: the
  aggregation has closed it), with its last count; never reached: at the end (index -1);
- ``final`` (``onWindowClose``, never cached): a window leaves, whole, at the first throttle check
  of its task (``_kernel.throttle_checks``) with ``S - grace >= end``, unless the store has
  expired it (``start < store_time - retention``, ``store_time`` the task's largest accepted start
  so far); never reached: at the end, if the store still holds it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from toolkit.engine.kafka_streams.emit import ON_WINDOW_CLOSE, SUPPRESS_UNTIL_WINDOW_CLOSES
from toolkit.engine.kafka_streams.windows import TimeWindows
from toolkit.semantics.kafka_streams._kernel import group_pairs, stream_times


@dataclass
class Pairs:
    """Every (record, window) pair in processing order (record, then window start) and its group."""

    rec: np.ndarray  # the record of each pair
    group: np.ndarray  # the group (task, key, window) of each pair, 0..groups-1
    accepted: np.ndarray  # bool: the window took the record
    count: np.ndarray  # the group's running count of accepted pairs (at accepted pairs)
    g_task: np.ndarray  # per group
    g_code: np.ndarray
    g_start: np.ndarray
    g_true: np.ndarray  # pairs of the group (the batch answer's count)
    g_acc: np.ndarray  # accepted pairs of the group


def pairs(ts: np.ndarray, codes: np.ndarray, task: np.ndarray, after: np.ndarray, w: TimeWindows) -> Pairs:
    """The pairs of records ``ts`` (key ``codes``, ``task``, task stream time ``after``)."""
    n = len(ts)
    size, adv = w.size, w.advance
    first = (np.maximum(0, ts - size + adv) // adv) * adv
    nwin = (ts // adv * adv - first) // adv + 1
    if adv == size:  # tumbling: one window per record
        rec, start = np.arange(n, dtype=np.int64), first
    else:
        rec = np.repeat(np.arange(n, dtype=np.int64), nwin)
        offs = np.arange(len(rec), dtype=np.int64) - np.repeat(np.cumsum(nwin) - nwin, nwin)
        start = first[rec] + offs * adv
    accepted = start + size > (after - w.grace)[rec]
    hi = task[rec] * (int(codes.max()) + 1 if n else 1) + codes[rec]
    lo = start // adv
    span = int(lo.max() - lo.min()) + 1 if n else 1
    if (int(hi.max()) + 1 if n else 1) * span < 2**62:
        group, count, g_first, g_true, g_acc = group_pairs(hi * span + (lo - (lo.min() if n else 0)), accepted)
    else:
        group, count, g_first, g_true, g_acc = _group_by_sort(hi, lo, accepted)
    return Pairs(rec, group, accepted, count, task[rec[g_first]], codes[rec[g_first]], start[g_first],
                 g_true.astype(np.int64), g_acc.astype(np.int64))


def _group_by_sort(hi: np.ndarray, lo: np.ndarray, accepted: np.ndarray) -> tuple:
    """:func:`_kernel.group_pairs` by sorting, for (hi, lo) too wide for one int64 key."""
    m = len(hi)
    order = np.lexsort((np.arange(m), lo, hi))
    h, lw = hi[order], lo[order]
    new = np.r_[True, (h[1:] != h[:-1]) | (lw[1:] != lw[:-1])] if m else np.zeros(0, bool)
    gid_sorted = np.cumsum(new) - 1
    group = np.empty(m, np.int64)
    group[order] = gid_sorted
    acc_sorted = accepted[order].astype(np.int64)
    cum = np.cumsum(acc_sorted)
    heads = np.flatnonzero(new)
    count = np.empty(m, np.int64)
    count[order] = cum - (cum - acc_sorted)[heads][gid_sorted]
    g_true = np.diff(np.r_[heads, m]).astype(np.int64)
    g_acc = np.add.reduceat(acc_sorted, heads) if len(heads) else np.zeros(0, np.int64)
    return group, count, order[heads], g_true, g_acc


@dataclass
class Emissions:
    """What leaves the aggregation (and its suppression): per row its group, record index (-1:
    the end of input) and count, in emission order; ``final``: the rows are final results."""

    group: np.ndarray
    index: np.ndarray
    count: np.ndarray
    final: bool
    evictions: int = 0


def updates(p: Pairs, n: int, arr: np.ndarray, n_tasks: int, cache: tuple | None) -> Emissions:
    """The update rows: every accepted pair, or, with ``cache = (max_bytes, commit_interval,
    start_time, bytes per key code)``, the record cache's flushes."""
    acc = np.flatnonzero(p.accepted)
    if cache is None:
        return Emissions(p.group[acc], p.rec[acc], p.count[acc], False)
    from toolkit.semantics.kafka_streams._kernel import cache_flushes

    max_bytes, interval, start, key_bytes = cache
    pair_start = np.r_[0, np.cumsum(np.bincount(p.rec[acc], minlength=n))].astype(np.int64)
    g, i, c, ev = cache_flushes(n, arr, pair_start, p.group[acc], p.count[acc], p.g_task, key_bytes[p.g_code],
                                n_tasks, int(max_bytes), int(interval), int(start))
    return Emissions(g, i, c, False, int(ev))


def _first_at_least(values: np.ndarray, task_of: np.ndarray, wanted: np.ndarray, w_task: np.ndarray,
                    n_tasks: int) -> np.ndarray:
    """Per wanted item: the position (in ``values``) of its task's first value ``>= wanted``
    (``values`` nondecreasing within each task), or -1."""
    out = np.full(len(wanted), -1, np.int64)
    for t in range(n_tasks):
        sel = np.flatnonzero(w_task == t)
        pos = np.flatnonzero(task_of == t)
        if not len(sel) or not len(pos):
            continue
        k = np.searchsorted(values[pos], wanted[sel], side="left")
        ok = k < len(pos)
        out[sel[ok]] = pos[k[ok]]
    return out


def suppressed(up: Emissions, p: Pairs, ts: np.ndarray, w: TimeWindows, n_tasks: int) -> Emissions:
    """``suppress(untilWindowCloses(unbounded()))`` after the update rows ``up``."""
    acc = np.flatnonzero(p.accepted)
    # the window's max record time at each accepted pair, kept at (group, count)
    t_run, _ = stream_times(ts[p.rec[acc]], p.group[acc], len(p.g_true))
    offset = np.zeros(len(p.g_true) + 1, np.int64)
    offset[1:] = np.cumsum(p.g_acc)
    by_count = np.empty(len(acc), np.int64)
    by_count[offset[p.group[acc]] + p.count[acc] - 1] = t_run
    em_ts = by_count[offset[up.group] + up.count - 1] if len(up.group) else np.zeros(0, np.int64)
    em_task = p.g_task[up.group]
    observed, _ = stream_times(em_ts, em_task, n_tasks)
    fired = np.flatnonzero(p.g_acc > 0)
    at = _first_at_least(observed, em_task, p.g_start[fired] + w.size + w.grace, p.g_task[fired], n_tasks)
    last = np.full(len(p.g_true), -1, np.int64)
    last[up.group] = np.arange(len(up.group))  # the last row of each window
    at = np.where(at >= 0, np.maximum(at, last[fired]), -1)
    index = np.where(at >= 0, up.index[np.maximum(at, 0)], -1) if len(at) else np.zeros(0, np.int64)
    order = np.lexsort((fired, np.where(at >= 0, at, np.iinfo(np.int64).max)))
    return Emissions(fired[order], index[order], p.g_acc[fired][order], True, up.evictions)


def finals(p: Pairs, n: int, arr: np.ndarray, task: np.ndarray, after: np.ndarray, w: TimeWindows, n_tasks: int,
           emit_interval: int) -> Emissions:
    """``emitStrategy(onWindowClose())``: one final row per window the store still holds."""
    from toolkit.semantics.kafka_streams._kernel import throttle_checks

    acc = np.flatnonzero(p.accepted)
    fired = np.flatnonzero(p.g_acc > 0)
    top = np.full(n, -1, np.int64)  # store time: the task's largest accepted window start so far
    np.maximum.at(top, p.rec[acc], p.g_start[p.group[acc]])
    store_time, _ = stream_times(top, task, n_tasks)
    ci = np.flatnonzero(throttle_checks(arr, task, n_tasks, int(emit_interval)))
    end = p.g_start[fired] + w.size
    k = _first_at_least((after - w.grace)[ci], task[ci], end, p.g_task[fired], n_tasks)
    reached = k >= 0
    at = np.where(reached, ci[np.maximum(k, 0)] if len(ci) else -1, -1)
    ret = w.retention_ms
    kept = np.where(reached, p.g_start[fired] >= store_time[np.maximum(at, 0)] - ret if n else False, False)
    final_store = np.full(n_tasks, -1, np.int64)
    np.maximum.at(final_store, task, store_time)
    kept |= ~reached & (p.g_start[fired] >= final_store[p.g_task[fired]] - ret)
    sel = np.flatnonzero(kept)
    order = sel[np.argsort(np.where(reached[sel], at[sel], np.iinfo(np.int64).max), kind="stable")]
    return Emissions(fired[order], at[order], p.g_acc[fired][order], True)


def emissions(p: Pairs, n: int, ts: np.ndarray, arr: np.ndarray, task: np.ndarray, after: np.ndarray, w: TimeWindows,
              n_tasks: int, strategy: str, emit_interval: int, cache: tuple | None) -> Emissions:
    """What leaves under emit ``strategy`` (see the module doc; ``cache`` as :func:`updates`)."""
    if strategy == ON_WINDOW_CLOSE:
        return finals(p, n, arr, task, after, w, n_tasks, emit_interval)
    up = updates(p, n, arr, n_tasks, cache)
    if strategy == SUPPRESS_UNTIL_WINDOW_CLOSES:
        return suppressed(up, p, ts, w, n_tasks)
    return up
