"""``TimeWindows`` aggregation evaluated on whole columns (numpy), equal to ``time_window_aggregate``.

The per-record rules of ``time_window_aggregate`` have a closed form once each task's stream time
is known (a running max over the task's records in arrival order):

- record ``i`` lands in the windows ``windows_for(ts_i)``; pair (i, window) is accepted iff
  ``end > S_i - grace``; the rest are the dropped-records sensor's counts.
- emit on update: every accepted pair, in arrival order then window start, carries the running
  count, sum and max timestamp of its (task, key, window) group. Sums are accumulated in the same
  order as the per-record loop (one vector step per rank within a group), so they are bit-equal.
- emit on close: the throttle's check records are fixed by arrival times alone (the first record,
  then the first with ``arrival >= last check + emit_interval``); window ``w`` is emitted, whole,
  at the first check of its task with ``S - grace >= end`` (the range bookkeeping of Kafka's
  ``lower``/``upper``/``shouldRangeFetch`` only ever skips ranges without windows), unless the
  time-ordered store has expired it by then: ``start < store_time - retention``, ``store_time`` the
  largest accepted window start of the task up to that record.
- suppress(untilWindowCloses): its stream time equals the task's (the record that raised it was
  accepted), it runs only after records that forwarded an update, and releases ``end <= S - grace``
  with no store expiry.
Within one emission: window start, then key bytes; the end-of-input flush: task, start, key bytes.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from toolkit.engine.kafka_streams.emit import ON_WINDOW_CLOSE, SUPPRESS_UNTIL_WINDOW_CLOSES, Emit
from toolkit.engine.kafka_streams.partitioner import factorize, key_bytes
from toolkit.engine.kafka_streams.windows import TimeWindows


def task_stream_time(ts: np.ndarray, task: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per record: its task's stream time after it (running max) and before it (-1 at first)."""
    n = len(ts)
    order = np.argsort(task, kind="stable")
    t_sorted = task[order]
    x = ts[order]
    # segmented running max: shift each task's values above every earlier task's
    span = int(x.max() - x.min()) + 1 if n else 1
    rank = np.cumsum(np.r_[0, (np.diff(t_sorted) != 0)]) if n else np.zeros(0, dtype=np.int64)
    shifted = (x - (x.min() if n else 0)) + rank.astype(np.int64) * span
    after_sorted = np.maximum.accumulate(shifted) - rank * span + (x.min() if n else 0)
    before_sorted = np.empty(n, dtype=np.int64)
    if n:
        before_sorted[0] = -1
        before_sorted[1:] = after_sorted[:-1]
        first = np.r_[True, t_sorted[1:] != t_sorted[:-1]]
        before_sorted[first] = -1
    after = np.empty(n, dtype=np.int64)
    before = np.empty(n, dtype=np.int64)
    after[order] = after_sorted
    before[order] = before_sorted
    return after, before


def _factorize(keys: np.ndarray) -> tuple[np.ndarray, list, np.ndarray]:
    """Key codes, the distinct keys, and each code's rank in key-bytes order."""
    codes, uniq = factorize(keys)
    by_bytes = sorted(range(len(uniq)), key=lambda c: key_bytes(uniq[c]))
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[by_bytes] = np.arange(len(uniq))
    return codes, uniq, rank


def _running(group: np.ndarray, vals: np.ndarray, ts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Running count, sum (sequential float adds), max ts per group, pairs in the given order;
    plus the index of each group's last pair."""
    m = len(group)
    order = np.lexsort((np.arange(m), group))
    g = group[order]
    new = np.r_[True, g[1:] != g[:-1]] if m else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(new)
    sizes = np.diff(np.r_[starts, m])
    rank = np.arange(m) - np.repeat(starts, sizes)
    v = vals[order].astype(np.float64)
    t = ts[order].copy()
    s = np.empty(m, dtype=np.float64)
    s[new] = 0.0 + v[new]
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.searchsorted(rank[by_rank], np.arange(1, (rank.max() + 2) if m else 1))
    for r in range(1, len(bounds)):
        idx = by_rank[bounds[r - 1]: bounds[r]]
        if not len(idx):
            break
        s[idx] = s[idx - 1] + v[idx]
        t[idx] = np.maximum(t[idx - 1], t[idx])
    cnt = rank + 1
    out_c = np.empty(m, dtype=np.int64)
    out_s = np.empty(m, dtype=np.float64)
    out_t = np.empty(m, dtype=np.int64)
    out_c[order], out_s[order], out_t[order] = cnt, s, t
    last = order[np.r_[starts[1:] - 1, m - 1]] if m else np.zeros(0, dtype=np.int64)
    return out_c, out_s, out_t, last


def _checks(arr: np.ndarray, task: np.ndarray, interval: int) -> np.ndarray:
    """Mask of the records at which the on-close throttle lets the check run."""
    n = len(arr)
    if interval <= 0:
        return np.ones(n, dtype=bool)
    mask = np.zeros(n, dtype=bool)
    for t in np.unique(task):
        idx = np.flatnonzero(task == t)
        a = arr[idx]
        i = 0
        while i < len(a):
            mask[idx[i]] = True
            j = int(np.searchsorted(a, a[i] + interval, side="left"))
            i = max(i + 1, j)
    return mask


def run_time_windows(keys: np.ndarray, ts: np.ndarray, vals: np.ndarray, arr: np.ndarray, task: np.ndarray,
                     n_tasks: int, windows: TimeWindows, emit: Emit, flush_at_end: bool,
                     after: np.ndarray | None = None) -> dict[str, Any]:
    """Emissions (rows in emission order) and per-record accepted/dropped window counts;
    ``after`` is each record's task stream time (computed when not given)."""
    n = len(ts)
    size, adv, grace = windows.size, windows.advance, windows.grace
    if after is None:
        after, _ = task_stream_time(ts, task)
    close = after - grace
    first = (np.maximum(0, ts - size + adv) // adv) * adv
    last = (ts // adv) * adv
    nwin = (last - first) // adv + 1
    rec = np.repeat(np.arange(n), nwin)
    offs = np.arange(len(rec)) - np.repeat(np.cumsum(nwin) - nwin, nwin)
    start = first[rec] + offs * adv
    ok = start + size > close[rec]
    accepted = np.bincount(rec[ok], minlength=n).astype(np.int64)
    dropped = nwin.astype(np.int64) - accepted
    codes, uniq, key_rank = _factorize(keys)

    prec, pstart = rec[ok], start[ok]
    nkeys = max(len(uniq), 1)
    # group = (task, key, window start); starts are multiples of adv
    gid = ((task[prec] * nkeys + codes[prec]) * (int(pstart.max() // adv) + 1 if len(pstart) else 1)) + pstart // adv
    cnt, sm, mt, last_of_group = _running(gid, vals[prec], ts[prec])
    uniq_arr = np.empty(len(uniq), dtype=object)
    uniq_arr[:] = uniq

    if emit.strategy not in (ON_WINDOW_CLOSE, SUPPRESS_UNTIL_WINDOW_CLOSES):
        return {"rows": {"key": keys[prec], "start": pstart, "end": pstart + size, "count": cnt, "sum": sm,
                         "kind": np.full(len(prec), "update", dtype=object), "timestamp": mt, "index": prec,
                         "task": task[prec]},
                "accepted": accepted, "dropped": dropped}

    # one row per window, with its final aggregate (the group's last pair)
    w_rec = prec[last_of_group]
    w_start, w_task, w_code = pstart[last_of_group], task[w_rec], codes[w_rec]
    w_end = w_start + size
    if emit.strategy == ON_WINDOW_CLOSE:
        check = _checks(arr, task, emit.emit_interval)
        top = np.full(n, -1, dtype=np.int64)  # store time: largest accepted window start so far
        np.maximum.at(top, prec, pstart)
        store_time, _ = task_stream_time(top, task)
        expire = True
    else:  # suppress: runs after records that forwarded an update; no store expiry
        check = accepted > 0
        store_time = None
        expire = False
    emit_at = np.full(len(w_start), -1, dtype=np.int64)
    reached = np.zeros(len(w_start), dtype=bool)  # a check closed the window (emitted or expired)
    emitted = np.zeros(len(w_start), dtype=bool)
    for t in range(n_tasks):
        sel = np.flatnonzero(w_task == t)
        ci = np.flatnonzero(check & (task == t))
        if not len(sel) or not len(ci):
            continue
        pos = np.searchsorted(close[ci], w_end[sel], side="left")  # close is nondecreasing along a task
        has = pos < len(ci)
        at = ci[np.minimum(pos, len(ci) - 1)]
        ok_t = has.copy()
        if expire:
            ok_t[has] = w_start[sel][has] >= store_time[at[has]] - windows.retention_ms
        reached[sel] = has
        emitted[sel] = ok_t
        emit_at[sel] = np.where(ok_t, at, -1)
    rows_idx = np.flatnonzero(emitted)
    rows_idx = rows_idx[np.lexsort((key_rank[w_code[rows_idx]], w_start[rows_idx], emit_at[rows_idx]))]
    if flush_at_end:
        rest = np.flatnonzero(~reached)
        if expire and len(rest):
            final_store = np.full(n_tasks, -1, dtype=np.int64)
            np.maximum.at(final_store, task[prec], pstart)
            rest = rest[w_start[rest] >= final_store[w_task[rest]] - windows.retention_ms]
        rest = rest[np.lexsort((key_rank[w_code[rest]], w_start[rest], w_task[rest]))]
        rows_idx = np.r_[rows_idx, rest].astype(np.int64)
    li = last_of_group[rows_idx]
    idx = emit_at[rows_idx]
    return {"rows": {"key": uniq_arr[w_code[rows_idx]] if len(rows_idx) else np.empty(0, dtype=object),
                     "start": w_start[rows_idx], "end": w_end[rows_idx], "count": cnt[li], "sum": sm[li],
                     "kind": np.full(len(rows_idx), "final", dtype=object), "timestamp": mt[li], "index": idx,
                     "task": w_task[rows_idx]},
            "accepted": accepted, "dropped": dropped}
