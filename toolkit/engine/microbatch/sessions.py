"""The stateful ``session_window()`` aggregation over micro-batches (append and complete mode).

Rules (Spark's ``MergingSessionsExec`` / ``SessionWindowStateStoreSaveExec``):

* A row is the session ``[ts, ts + gap)`` (``gap`` fixed or per row). With a per-row gap, a row
  whose gap is null, zero or negative belongs to no session: Spark's analyzer filters it out
  right after ``session_window`` (it is no late row: ``numRowsDroppedByWatermark`` does not count
  it), but it was read by the batch and its event time moves the watermark. The late filter of batch
  ``b`` drops a row iff ``ts + gap <= late_watermark(b)`` (the previous executed batch's
  watermark).
* The accepted rows of a key merge with that key's sessions in state: sorted by start, a
  session absorbs the next one when ``next.start <= end`` (touching sessions merge), taking the
  larger end.
* A session is emitted once, with its final count and sum, and evicted in the first batch whose
  watermark reaches its end (``end <= watermark(b)``); a later row cannot reopen it.
* Complete mode keeps the late filter (it runs in the session restore step, whatever the mode)
  but evicts nothing: a session never closes, so a later row can still merge into it, and
  every batch emits every session in state with its running count and sum.
* ``numRowsDroppedByWatermark`` counts distinct (key, session start, session end) among a batch's
  dropped rows (rows of a key with the same event time and gap are pre-merged).
"""
from __future__ import annotations

from bisect import bisect_left

import numpy as np

from toolkit.engine.microbatch.aggregation import Emissions, _group, check_complete_rows
from toolkit.engine.microbatch.batches import Batches


def session_gaps(gap, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(gap per row as int64 ms, whether the row has a session): a fixed gap or a per-row array
    in which None/NaN (null), zero and negative gaps give no session."""
    g = np.asarray(gap)
    if g.ndim == 0:
        return np.full(n, int(g), dtype=np.int64), np.full(n, int(g) > 0)
    if g.dtype.kind == "O":
        null = np.fromiter((x is None or (isinstance(x, float) and x != x) for x in g), bool, len(g))
        g = np.where(null, 0, g).astype(np.float64)
    else:
        null = np.isnan(g) if g.dtype.kind == "f" else np.zeros(len(g), dtype=bool)
    gi = np.where(null, 0, g).astype(np.int64)
    return gi, ~null & (gi > 0)


def aggregate_sessions(key: np.ndarray, event_time: np.ndarray, gap, value: np.ndarray,
                       record_batch: np.ndarray, batches: Batches, complete: bool = False):
    """Run the session aggregation; return (accepted per record, session id per record (-1 when
    dropped or without a session), emissions, session table, dropped-group count per batch,
    has-a-session per record).

    ``gap``: ms, one for all rows or one per row (None/NaN: null). The session table (dict of
    arrays, one entry per session) has key, start, end, count, sum, first_batch and emit_batch
    (``len(batches)`` when no batch emits it; always in complete mode, which never evicts)."""
    k = np.asarray(key, dtype=np.int64)
    ts = np.asarray(event_time, dtype=np.int64)
    v = np.asarray(value)
    rb = np.asarray(record_batch, dtype=np.int64)
    n = len(ts)
    g, has_session = session_gaps(gap, n)
    n_exec = len(batches)
    end_row = ts + g
    accepted = has_session & (end_row > batches.late_watermark[rb])
    dropped_groups = np.zeros(n_exec, dtype=np.int64)
    d = has_session & ~accepted
    if d.any():
        _, firsts = _group(rb[d], k[d], ts[d], end_row[d])
        np.add.at(dropped_groups, rb[d][firsts], 1)
    sid, sessions, snap = _merge_sessions(k, ts, end_row, v, rb, accepted, batches.watermark, n_exec, complete)
    table = _session_table(sessions, sid, v, accepted, batches.watermark, n_exec, complete)
    if complete:
        em = _snapshot_emissions(snap, batches, table["sum"].dtype)
    else:
        e = table["emit_batch"] < n_exec
        em = Emissions(table["key"][e], table["start"][e], table["end"][e], table["count"][e], table["sum"][e],
                       table["emit_batch"][e], np.ones(int(e.sum()), dtype=bool), np.zeros(int(e.sum()), dtype=np.int64))
    return accepted, sid, em, table, dropped_groups, has_session


def _merge_sessions(k: np.ndarray, ts: np.ndarray, end_row: np.ndarray, v: np.ndarray, rb: np.ndarray,
                    accepted: np.ndarray, wm: np.ndarray, n_exec: int,
                    complete: bool) -> tuple[np.ndarray, tuple[list, ...], list[tuple]]:
    """The accepted rows, per key and batch in order, merged with the key's sessions in state
    (a session absorbs the next one when ``next.start <= end``); outside complete mode a session
    whose end the watermark reached in an earlier batch is closed (evicted) first. Returns the
    session id per record, the closed sessions (key, start, end, first batch, rows) and, in
    complete mode, the snapshots (key, start, end, count, sum, first batch, last batch + 1)."""
    n = len(ts)
    wm_list = wm.tolist()  # bisect on a list: the loop asks once per session and batch
    sid = np.full(n, -1, dtype=np.int64)
    s_key: list[int] = []
    s_start: list[int] = []
    s_end: list[int] = []
    s_first: list[int] = []
    s_rows: list[list[int]] = []
    snap: list[tuple] = []  # complete mode: (key, start, end, count, sum, first batch, last batch + 1)
    out_rows = 0  # complete mode: result rows so far

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
    vo = v[order].tolist()
    ol = order.tolist()
    i = 0
    m = len(ol)
    while i < m:
        key_ = ko[i]
        state: list[list] = []  # [start, end, rows, first_batch, key]
        prev_b = 0  # the key's previous batch, read only once state holds a session
        while i < m and ko[i] == key_:
            b = bo[i]
            state_kept = []
            if complete and state:  # the state after the key's previous batch holds until this one
                snap.extend((key_, s[0], s[1], len(s[2]), s[5], prev_b, b) for s in state)
                out_rows += len(state) * (b - prev_b)
                check_complete_rows(out_rows)  # before the snapshots outgrow memory
            for s in state:
                if not complete and bisect_left(wm_list, s[1]) < b:
                    close(s)  # evicted (and emitted) by an earlier batch
                else:
                    state_kept.append(s)
            items = state_kept
            while i < m and ko[i] == key_ and bo[i] == b:
                items.append([to[i], eo[i], [ol[i]], b, key_, vo[i]])
                i += 1
            items.sort(key=lambda s: (s[0], s[1]))
            merged: list[list] = []
            for s in items:
                if merged and s[0] <= merged[-1][1]:
                    cur = merged[-1]
                    cur[1] = max(cur[1], s[1])
                    cur[2].extend(s[2])  # in place: a long-lived (complete-mode) session is not copied per batch
                    cur[3] = min(cur[3], s[3])
                    cur[5] = cur[5] + s[5]
                else:
                    merged.append(s)  # state sessions and new rows' lists are owned here: no copy
            state = merged
            prev_b = b
        if complete:
            snap.extend((key_, s[0], s[1], len(s[2]), s[5], prev_b, n_exec) for s in state)
            out_rows += len(state) * (n_exec - prev_b)
            check_complete_rows(out_rows)
        for s in state:
            close(s)
    return sid, (s_key, s_start, s_end, s_first, s_rows), snap


def _session_table(sessions: tuple[list, ...], sid: np.ndarray, v: np.ndarray, accepted: np.ndarray, wm: np.ndarray,
                   n_exec: int, complete: bool) -> dict[str, np.ndarray]:
    """The session table: key, start, end, count, sum (of the accepted rows' values),
    first_batch, emit_batch (the first batch whose watermark reaches the end; ``n_exec`` in
    complete mode, which never evicts)."""
    s_key, s_start, s_end, s_first, s_rows = sessions
    ns = len(s_key)
    start = np.asarray(s_start, dtype=np.int64)
    end = np.asarray(s_end, dtype=np.int64)
    count = np.asarray([len(r) for r in s_rows], dtype=np.int64)
    total = np.zeros(ns, dtype=v.dtype if v.dtype.kind in "iuf" else np.float64)
    if ns:
        np.add.at(total, sid[accepted], v[accepted])
    emit = (np.full(ns, n_exec, dtype=np.int64) if complete
            else np.searchsorted(wm, end, side="left").astype(np.int64))
    return {"key": np.asarray(s_key, dtype=np.int64), "start": start, "end": end, "count": count, "sum": total,
            "first_batch": np.asarray(s_first, dtype=np.int64), "emit_batch": emit}


def _snapshot_emissions(snap: list[tuple], batches: Batches, sum_dtype) -> Emissions:
    """Complete mode: each session snapshot (valid from batch ``b0`` to before ``b1``) emitted by every such batch."""
    if not snap:
        z = np.zeros(0, dtype=np.int64)
        return Emissions(z, z, z, z, np.zeros(0, dtype=sum_dtype), z, np.zeros(0, dtype=bool), z)
    cols = list(zip(*snap))
    key, start, end, count = (np.asarray(c, dtype=np.int64) for c in cols[:4])
    total = np.asarray(cols[4], dtype=sum_dtype)
    b0, b1 = np.asarray(cols[5], dtype=np.int64), np.asarray(cols[6], dtype=np.int64)
    reps = b1 - b0
    check_complete_rows(int(reps.sum()))
    i = np.repeat(np.arange(len(b0)), reps)
    at = np.concatenate([[0], np.cumsum(reps)[:-1]]).astype(np.int64)
    b = b0[i] + (np.arange(int(reps.sum()), dtype=np.int64) - at[i])
    gid, _ = _group(key[i], start[i])
    order = np.lexsort((b, gid))
    pane = np.empty(len(b), dtype=np.int64)
    new = np.ones(len(b), dtype=bool)
    new[1:] = gid[order][1:] != gid[order][:-1]
    idx = np.arange(len(b), dtype=np.int64)
    pane[order] = idx - np.maximum.accumulate(np.where(new, idx, 0))
    return Emissions(key[i], start[i], end[i], count[i], total[i], b, end[i] <= batches.watermark[b], pane)
