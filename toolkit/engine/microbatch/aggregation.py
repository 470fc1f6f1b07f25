"""The stateful ``window()`` aggregation (tumbling and sliding) over micro-batches, columnar.

Rules (Spark's ``StateStoreSaveExec`` with a watermark on the window column):

* ``window(ts, size, slide, startTime)`` puts a row in every ``[s, s + size)`` with
  ``s = startTime + k * slide`` (epoch-aligned when ``startTime`` is 0) and ``s <= ts < s + size``;
  a negative ``startTime`` gives the same windows as ``startTime + slide``.
* The late filter of batch ``b`` uses the previous executed batch's watermark: a (row, window)
  pair is dropped iff ``window end <= late_watermark(b)`` (equality drops). A sliding-window row
  can lose some of its windows and keep others.
* Append mode emits a window once, in the first batch whose watermark reaches its end
  (``end <= watermark(b)``), with the final count and sum, then evicts it.
* Update mode emits, in every batch, each (key, window) that accepted a row in that batch with
  its running count and sum; windows the batch's watermark closes are evicted after.
* Complete mode has no late filter and no eviction (``StateStoreSaveExec`` filters late rows
  and evicts only in append and update mode): every row is accepted, and every batch emits
  every window in state with its running count and sum; the metric stays 0.
* ``numRowsDroppedByWatermark`` counts the distinct (key, window) groups among the dropped pairs
  of a batch (the late filter runs after the partial aggregation), not rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from toolkit.engine.microbatch.batches import Batches
from toolkit.engine.microbatch.config import MicroBatchConfigError

#: complete mode re-emits every window in every batch; more output rows than this is refused
MAX_COMPLETE_ROWS = 20_000_000


def check_complete_rows(total: int) -> None:
    """Refuse a complete-mode run whose output (windows x batches) would not fit in memory."""
    if total > MAX_COMPLETE_ROWS:
        raise MicroBatchConfigError(
            f"output_mode: complete mode re-emits every window in every micro-batch: {total:,} result rows for "
            f"this log (limit {MAX_COMPLETE_ROWS:,}); use output_mode='append' or 'update', or a longer trigger_interval")


@dataclass(frozen=True)
class Pairs:
    """Every (record, window) pair: record position, window start, executed batch, accepted."""

    record: np.ndarray
    start: np.ndarray
    batch: np.ndarray
    accepted: np.ndarray


def window_pairs(event_time: np.ndarray, size: int, slide: int, offset: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(record position, window start) of every window each record belongs to (``offset``: startTime)."""
    ts = np.asarray(event_time, dtype=np.int64)
    n = len(ts)
    per = -(-size // slide)
    last = ts - (ts - np.int64(offset)) % np.int64(slide)  # the latest window start at or before ts
    rec = np.repeat(np.arange(n, dtype=np.int64), per)
    start = np.repeat(last, per) - np.tile(np.arange(per, dtype=np.int64) * slide, n)
    keep = start + size > np.repeat(ts, per)
    return rec[keep], start[keep]


@dataclass(frozen=True)
class WindowGroups:
    """A window's (record, window) pairs (``window_pairs`` order) and their (key, window) groups.

    ``record``, ``start``, ``key`` per pair; ``group`` per pair: the rank of its (key code,
    start) among the distinct ones (ascending key code, then start); ``group_key`` and
    ``group_start`` per group; ``true_count`` per group: its pairs (the batch answer)."""

    record: np.ndarray
    start: np.ndarray
    key: np.ndarray
    group: np.ndarray
    group_key: np.ndarray
    group_start: np.ndarray

    @property
    def n_groups(self) -> int:
        return len(self.group_key)

    @property
    def true_count(self) -> np.ndarray:
        return np.bincount(self.group, minlength=self.n_groups).astype(np.int64)


@dataclass(frozen=True)
class Emissions:
    """Emitted rows (columnar): key code, window start/end, count, sum, batch, timing, pane."""

    key: np.ndarray
    start: np.ndarray
    end: np.ndarray
    count: np.ndarray
    sum: np.ndarray
    batch: np.ndarray
    final: np.ndarray  # True when the window is closed (evicted) by this batch's watermark
    pane: np.ndarray


def _group(*cols: np.ndarray, order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(group id per row, index of each group's first row in sorted order) for equal tuples;
    ``order``: the rows already sorted by ``cols`` (stably), when known."""
    n = len(cols[0])
    if order is None:
        order = np.lexsort(tuple(reversed(cols)))
    new = np.zeros(n, dtype=bool)
    if n:
        new[0] = True
        for c in cols:
            s = c[order]
            new[1:] |= s[1:] != s[:-1]
    gid_sorted = np.cumsum(new) - 1
    gid = np.empty(n, dtype=np.int64)
    gid[order] = gid_sorted
    return gid, order[new]


def _subset_groups(group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """(rank of each row's group among the groups present, which of the ``n_groups`` are present):
    the groups of a subset of rows, numbered in the order of the whole set's groups."""
    used = np.zeros(n_groups, dtype=bool)
    used[group] = True
    rank = np.cumsum(used) - 1
    return rank[group], used


def aggregate_windows(key: np.ndarray, event_time: np.ndarray, value: np.ndarray, record_batch: np.ndarray,
                      batches: Batches, size: int, slide: int, output_mode: str, offset: int = 0,
                      groups: WindowGroups | None = None, batch_order: np.ndarray | None = None):
    """Run the aggregation; return (pairs, emissions, window table, dropped-group count per batch).

    ``key``: int codes; ``record_batch``: executed batch id of every record. The window table
    (dict of arrays, one entry per window that accepted a row) has key, start, end, count,
    sum, first_batch (first batch that accepted a row) and emit_batch (append mode: the batch
    that emits it; ``len(batches)`` when none does). ``groups``: this window's pairs and their
    (key, window) groups computed beforehand from the same keys and event times
    (:class:`WindowGroups`, ``MicroBatchLog.windows``; computed here when None); ``batch_order``: those pairs ordered
    by (group, data batch) (``MicroBatchLog.window_batch_order``), which update mode then need not sort.
    """
    if groups is None:
        rec, start = window_pairs(event_time, size, slide, offset)
        k = np.asarray(key, dtype=np.int64)[rec]
    else:
        rec, start, k = groups.record, groups.start, groups.key
    pb = record_batch[rec]
    complete = output_mode == "complete"
    accepted = np.ones(len(rec), dtype=bool) if complete else start + size > batches.late_watermark[pb]
    pairs = Pairs(rec, start, pb, accepted)
    n_exec = len(batches)
    # the metric: distinct (batch, key, window) among dropped pairs
    d = ~accepted
    dropped_groups = np.zeros(n_exec, dtype=np.int64)
    if d.any():
        _, firsts = _group(pb[d], k[d], start[d])
        np.add.at(dropped_groups, pb[d][firsts], 1)
    a = accepted
    ka, sa, ba, ra = k[a], start[a], pb[a], rec[a]
    va = np.asarray(value)[ra]
    if groups is None:
        wid, wfirst = _group(ka, sa)
        w_key, w_start = ka[wfirst], sa[wfirst]
    else:  # the accepted pairs' windows, in the same (key, start) order
        wid, used = _subset_groups(groups.group[a], groups.n_groups)
        w_key, w_start = groups.group_key[used], groups.group_start[used]
    nw = len(w_key)
    w_count = np.bincount(wid, minlength=nw).astype(np.int64)
    w_sum = np.zeros(nw, dtype=va.dtype if va.dtype.kind in "iuf" else np.float64)
    np.add.at(w_sum, wid, va)
    w_first = np.full(nw, n_exec, dtype=np.int64)
    np.minimum.at(w_first, wid, ba)
    w_end = w_start + np.int64(size)
    emit = (np.full(nw, n_exec, dtype=np.int64) if complete  # never evicted
            else np.searchsorted(batches.watermark, w_end, side="left").astype(np.int64))
    table = {"key": w_key, "start": w_start, "end": w_end, "count": w_count, "sum": w_sum,
             "first_batch": w_first, "emit_batch": emit, "pair_window": wid, "pair_index": np.flatnonzero(a),
             "pair_batch": ba, "pair_record": ra}
    if output_mode == "append":
        e = emit < n_exec
        em = Emissions(table["key"][e], w_start[e], w_end[e], w_count[e], w_sum[e], emit[e],
                       np.ones(int(e.sum()), dtype=bool), np.zeros(int(e.sum()), dtype=np.int64))
    elif complete:
        em = _complete_emissions(table, wid, ba, va, batches)
    else:
        # (window, batch) groups, sorted by window then batch; the prepared order restricted to
        # the accepted pairs is that sort (batch ids grow with data-batch ids)
        known = None
        if groups is not None and batch_order is not None:
            known = (np.cumsum(a) - 1)[batch_order[a[batch_order]]]
        gid, gfirst = _group(wid, ba, order=known)
        ng = len(gfirst)
        g_count = np.bincount(gid, minlength=ng).astype(np.int64)
        g_sum = np.zeros(ng, dtype=w_sum.dtype)
        np.add.at(g_sum, gid, va)
        g_w = wid[gfirst]
        g_b = ba[gfirst]
        new_w = np.ones(ng, dtype=bool)
        new_w[1:] = g_w[1:] != g_w[:-1]
        seg = np.cumsum(new_w) - 1
        starts_at = np.flatnonzero(new_w)
        c_count = np.cumsum(g_count)
        c_sum = np.cumsum(g_sum)
        base_c = np.concatenate([[0], c_count])[starts_at][seg]
        base_s = np.concatenate([[0], c_sum])[starts_at][seg]
        pane = np.arange(ng, dtype=np.int64) - starts_at[seg]
        em = Emissions(table["key"][g_w], w_start[g_w], w_end[g_w], c_count - base_c, c_sum - base_s, g_b,
                       w_end[g_w] <= batches.watermark[g_b], pane)
    return pairs, em, table, dropped_groups


def _complete_emissions(table: dict, wid: np.ndarray, pair_batch: np.ndarray, value: np.ndarray,
                        batches: Batches) -> Emissions:
    """Complete mode: every batch from a window's first one on emits it with its running count and sum."""
    n_exec = len(batches)
    first = table["first_batch"]
    reps = n_exec - first  # emissions per window
    at = np.concatenate([[0], np.cumsum(reps)[:-1]]).astype(np.int64)  # each window's first emission
    total = int(reps.sum())
    check_complete_rows(total)
    w = np.repeat(np.arange(len(first), dtype=np.int64), reps)
    pane = np.arange(total, dtype=np.int64) - at[w]
    b = first[w] + pane
    pos = at[wid] + (pair_batch - first[wid])  # the emission of the batch that accepted each pair
    cnt = np.zeros(total, dtype=np.int64)
    tot = np.zeros(total, dtype=table["sum"].dtype)
    np.add.at(cnt, pos, 1)
    np.add.at(tot, pos, value)
    # running values: cumulative sums restarted at each window's first emission
    c_cnt, c_tot = np.cumsum(cnt), np.cumsum(tot)
    base_c = (c_cnt - cnt)[at][w]
    base_t = (c_tot - tot)[at][w]
    end = table["end"][w]
    return Emissions(table["key"][w], table["start"][w], end, c_cnt - base_c, c_tot - base_t, b,
                     end <= batches.watermark[b], pane)
