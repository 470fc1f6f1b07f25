"""The stateful ``session_window()`` aggregation over micro-batches (append mode only).

Rules (Spark's ``MergingSessionsExec`` / ``SessionWindowStateStoreSaveExec``):

* A row is the session ``[ts, ts + gap)`` (``gap`` fixed or per row). The late filter of batch
  ``b`` drops a row iff ``ts + gap <= late_watermark(b)`` (the previous executed batch's
  watermark).
* The accepted rows of a key merge with that key's sessions in state: sorted by start, a
  session absorbs the next one when ``next.start <= end`` (touching sessions merge), taking the
  larger end.
* A session is emitted once, with its final count and sum, and evicted in the first batch whose
  watermark reaches its end (``end <= watermark(b)``); a later row cannot reopen it.
* ``numRowsDroppedByWatermark`` counts distinct (key, session start, session end) among a batch's
  dropped rows (rows of a key with the same event time and gap are pre-merged).
"""
from __future__ import annotations

from bisect import bisect_left

import numpy as np

from toolkit.engine.microbatch.aggregation import Emissions, _group
from toolkit.engine.microbatch.batches import Batches


def aggregate_sessions(key: np.ndarray, event_time: np.ndarray, gap: np.ndarray, value: np.ndarray,
                       record_batch: np.ndarray, batches: Batches):
    """Run the session aggregation; return (accepted per record, session id per record (-1 when
    dropped), emissions, session table, dropped-group count per batch).

    The session table (dict of arrays, one entry per session) has key, start, end, count, sum,
    first_batch and emit_batch (``len(batches)`` when no batch emits it)."""
    k = np.asarray(key, dtype=np.int64)
    ts = np.asarray(event_time, dtype=np.int64)
    g = np.broadcast_to(np.asarray(gap, dtype=np.int64), ts.shape)
    v = np.asarray(value)
    rb = np.asarray(record_batch, dtype=np.int64)
    n = len(ts)
    n_exec = len(batches)
    end_row = ts + g
    accepted = end_row > batches.late_watermark[rb]
    dropped_groups = np.zeros(n_exec, dtype=np.int64)
    d = ~accepted
    if d.any():
        _, firsts = _group(rb[d], k[d], ts[d], end_row[d])
        np.add.at(dropped_groups, rb[d][firsts], 1)
    wm = batches.watermark
    wm_list = wm.tolist()  # bisect on a list: the loop asks once per session and batch
    sid = np.full(n, -1, dtype=np.int64)
    s_key: list[int] = []
    s_start: list[int] = []
    s_end: list[int] = []
    s_first: list[int] = []
    s_rows: list[list[int]] = []

    def close(sess: list) -> None:
        idx = len(s_key)
        s_key.append(sess[4])
        s_start.append(sess[0])
        s_end.append(sess[1])
        s_first.append(sess[3])
        s_rows.append(sess[2])
        for r in sess[2]:
            sid[r] = idx

    idx_acc = np.flatnonzero(accepted)
    order = idx_acc[np.lexsort((ts[idx_acc], rb[idx_acc], k[idx_acc]))]
    ko, bo, to, eo = k[order].tolist(), rb[order].tolist(), ts[order].tolist(), end_row[order].tolist()
    ol = order.tolist()
    i = 0
    m = len(ol)
    while i < m:
        key_ = ko[i]
        state: list[list] = []  # [start, end, rows, first_batch, key]
        while i < m and ko[i] == key_:
            b = bo[i]
            state_kept = []
            for s in state:
                if bisect_left(wm_list, s[1]) < b:
                    close(s)  # evicted (and emitted) by an earlier batch
                else:
                    state_kept.append(s)
            items = state_kept
            while i < m and ko[i] == key_ and bo[i] == b:
                items.append([to[i], eo[i], [ol[i]], b, key_])
                i += 1
            items.sort(key=lambda s: (s[0], s[1]))
            merged: list[list] = []
            for s in items:
                if merged and s[0] <= merged[-1][1]:
                    cur = merged[-1]
                    cur[1] = max(cur[1], s[1])
                    cur[2] = cur[2] + s[2]
                    cur[3] = min(cur[3], s[3])
                else:
                    merged.append([s[0], s[1], list(s[2]), s[3], s[4]])
            state = merged
        for s in state:
            close(s)
    ns = len(s_key)
    start = np.asarray(s_start, dtype=np.int64)
    end = np.asarray(s_end, dtype=np.int64)
    count = np.asarray([len(r) for r in s_rows], dtype=np.int64)
    total = np.zeros(ns, dtype=v.dtype if v.dtype.kind in "iuf" else np.float64)
    if ns:
        np.add.at(total, sid[accepted], v[accepted])
    emit = np.searchsorted(wm, end, side="left").astype(np.int64)
    table = {"key": np.asarray(s_key, dtype=np.int64), "start": start, "end": end, "count": count, "sum": total,
             "first_batch": np.asarray(s_first, dtype=np.int64), "emit_batch": emit}
    e = emit < n_exec
    em = Emissions(table["key"][e], start[e], end[e], count[e], total[e], emit[e],
                   np.ones(int(e.sum()), dtype=bool), np.zeros(int(e.sum()), dtype=np.int64))
    return accepted, sid, em, table, dropped_groups
