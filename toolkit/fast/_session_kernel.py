"""The compiled step of ``toolkit.fast.sessions``: Flink's session ``WindowOperator`` with the
``EventTimeTrigger`` per key, over a precomputed watermark timeline (numba).

Imported lazily by ``toolkit.fast.sessions`` (numba is heavy to import and compiles on first
use; the compiled code is cached on disk, see ``_CACHE``).

Rules (``toolkit.engine.flink.operator_fast.SessionEventTimeOperator``, step for step): a record of
timestamp ``t`` and gap ``g`` proposes ``[t, t + g)``; the live sessions of its key that
intersect it (``start <= t + g and end >= t``: touching counts) merge with it into their
cover; with none, the proposed window alone is late when ``cleanupTime <= W`` (``W`` the
operator watermark current at the record) and the record is dropped (side output when
``isElementLate``). A merge whose ``max_ts + lateness`` wraps (Java ``long``) to ``<= W`` is
the engine's error. The record then joins the session: the session fires at once (a record
caused firing) when ``max_ts <= W``, otherwise its timer at ``max_ts`` is pending. A pending
timer fires at the first watermark change ``>= max_ts``; the cleanup timer at
``cleanupTime = max_ts + lateness`` (saturated) drops the session. Timers are evaluated
lazily, per key, before each of the key's records, in timestamp order (what the engine's
timer queue does), then up to the last change, then the end-of-input MAX watermark.
Pane bookkeeping (index, "passed", emitted panes to retract) merges like ``merge_panes``.
"""
from __future__ import annotations

import numpy as np

from toolkit.fast._jit import njit_cached

MAXT = np.iinfo(np.int64).max
MINT = np.iinfo(np.int64).min

# session slot columns
S_START, S_END, S_CNT, S_PANE, S_PASSED, S_PENDING, S_EMITTED, S_REP, S_UHEAD, S_UTAIL, S_MHEAD, S_MTAIL, S_PRISTINE = range(13)
S_COLS = 13
# firing columns
F_REC, F_START, F_END, F_CNT, F_PANE, F_TIMING, F_TICK, F_TIME, F_WM, F_RETRACT, F_MEMOFF, F_KEY, F_CAUSE = range(13)
F_COLS = 13
# timing codes
T_ON_TIME, T_LATE, T_AT_END = 0, 1, 2
# fates (3: accepted, never fired: without an end of input, or left behind, see S_PRISTINE)
FATE_ON_TIME, FATE_LATE, FATE_DROPPED, FATE_PENDING = 0, 1, 2, 3
# per true session (WA) and scalars (SC)
WA_FIRST, WA_LAST, WA_FIRINGS, WA_FINAL = range(4)
WA_COLS = 4
SC_ON_TIME, SC_LATE, SC_AREA_R, SC_AREA_W = range(4)
SC_COLS = 4
# errors
E_NONE, E_MERGE_LATE, E_RETIRE, E_GAP = 0, 1, 2, 3

# compiled once and cached on disk (toolkit.fast._jit); toolkit.fast.sessions serialises the
# first compile per machine
_jit = njit_cached


@_jit
def _sat_add(a, b):
    """``a + b`` saturated at Long.MAX_VALUE (``b >= 0``): Flink's guarded ``cleanupTime``."""
    if a > MAXT - b:
        return MAXT
    return a + b


@_jit
def _wrap_add(a, b):
    """``a + b`` in Java ``long`` arithmetic (``b >= 0``): the merge check and isElementLate."""
    if b > 0 and a > MAXT - b:
        return (a - (MAXT - b) - 1) + MINT
    return a + b


@_jit
def _fire(slot, by_timer, at_end, tick, time, wmv, S, sums, F, fsum, nf, fate, nxt_u, nxt_m, members, mem_pos, key, cause,
          sid, WA, scal):
    """Emit the session in ``slot`` (its whole contents: accumulating); ``cause``: the record
    that caused the firing, -1 for a timer. Per true session ``sid[record]`` (an engine session
    lies in one): first and last firing, firings, records fired. Returns (nf, mem_pos)."""
    pane = S[slot, S_PANE]
    if at_end:
        timing = T_AT_END
    elif by_timer and S[slot, S_PASSED] == 0:
        timing = T_ON_TIME
    else:
        timing = T_LATE
    S[slot, S_PASSED] = 1
    F[nf, F_REC] = S[slot, S_REP]
    F[nf, F_START] = S[slot, S_START]
    F[nf, F_END] = S[slot, S_END]
    F[nf, F_CNT] = S[slot, S_CNT]
    F[nf, F_PANE] = pane
    F[nf, F_TIMING] = timing
    F[nf, F_TICK] = tick
    F[nf, F_TIME] = time
    F[nf, F_WM] = wmv
    F[nf, F_RETRACT] = S[slot, S_EMITTED]
    F[nf, F_MEMOFF] = mem_pos
    F[nf, F_KEY] = key
    F[nf, F_CAUSE] = cause
    fsum[nf] = sums[slot]
    S[slot, S_EMITTED] = 1
    if len(members) > 0:
        r = S[slot, S_MHEAD]
        while r >= 0:
            members[mem_pos] = r
            mem_pos += 1
            r = nxt_m[r]
    w = sid[S[slot, S_REP]]
    if WA[w, WA_FIRST] < 0:
        WA[w, WA_FIRST] = nf
    WA[w, WA_LAST] = nf
    WA[w, WA_FIRINGS] += 1
    code = FATE_ON_TIME if pane == 0 else FATE_LATE
    r = S[slot, S_UHEAD]
    walked = 0
    while r >= 0:
        fate[r] = code
        walked += 1
        r = nxt_u[r]
    WA[w, WA_FINAL] += walked
    scal[code] += walked
    S[slot, S_UHEAD] = -1
    S[slot, S_UTAIL] = -1
    S[slot, S_PANE] = pane + 1
    return nf + 1, mem_pos


@_jit
def _remove(slot, m, S, sums):
    """Swap-remove session ``slot`` of the ``m`` live ones; returns the new count."""
    last = m - 1
    if slot != last:
        for c in range(S_COLS):
            S[slot, c] = S[last, c]
        sums[slot] = sums[last]
    return last


@_jit
def _advance(W, m, S, sums, lateness, wm, tick_time, F, fsum, nf, fate, nxt_u, nxt_m, members, mem_pos, CL, ncl, key, cand,
             sid, WA, scal):
    """Fire the pending timers ``<= W`` in timestamp order, then drop the sessions whose
    cleanup time is ``<= W`` (when it equals ``max_ts`` it is the same timer: after the
    firing). Returns (m, nf, mem_pos, ncl, next event)."""
    nc = 0
    for q in range(m):
        if S[q, S_PENDING] == 1 and S[q, S_END] - 1 <= W:
            # insertion by max timestamp (live sessions are disjoint: no ties)
            i = nc
            while i > 0 and S[cand[i - 1], S_END] > S[q, S_END]:
                cand[i] = cand[i - 1]
                i -= 1
            cand[i] = q
            nc += 1
    for i in range(nc):
        q = cand[i]
        mt = S[q, S_END] - 1
        k = np.searchsorted(wm, mt)
        S[q, S_PENDING] = 0
        nf, mem_pos = _fire(q, True, False, k, tick_time[k], wm[k], S, sums, F, fsum, nf, fate, nxt_u, nxt_m,
                            members, mem_pos, key, -1, sid, WA, scal)
    ne = MAXT
    q = 0
    while q < m:
        mt = S[q, S_END] - 1
        c = _sat_add(mt, lateness)
        if c <= W and (c != MAXT or c == mt):
            CL[ncl, 0] = np.searchsorted(wm, c)
            CL[ncl, 1] = S[q, S_CNT]
            ncl += 1
            m = _remove(q, m, S, sums)
        else:
            if S[q, S_PENDING] == 1 and mt < ne:
                ne = mt
            if c != MAXT and c < ne:
                ne = c
            q += 1
    return m, nf, mem_pos, ncl, ne


# long on purpose: one compiled loop nest over the key groups, held to bench sessions (a): 7.1 M
# record-configurations per CPU-second (200,000 records x 100 configurations, 2026-11-27, load 10
# on 2 cores); a split into @_jit helpers is to be measured against that figure first
@_jit
def simulate(group_start, ts, gap, val, seg, arrival, wm, tick_time, end_time, with_end, lateness, member_cap, sid, nw):
    """Run every key group (records ``group_start[g]:group_start[g+1]``, in arrival order within
    the key: the arrays are grouped by key) through the session operator. Outputs are indexed
    by that order; see ``toolkit.fast.sessions.SessionRun``."""
    n = len(ts)
    K = len(wm)
    fate = np.full(n, FATE_DROPPED, dtype=np.int8)
    side = np.zeros(n, dtype=np.int8)
    dw = np.zeros(n, dtype=np.int64)
    DW = np.empty(n, dtype=np.int64)
    WA = np.zeros((nw, WA_COLS), dtype=np.int64)
    WA[:, WA_FIRST] = -1
    scal = np.zeros(SC_COLS, dtype=np.int64)
    rec_seg = np.zeros(K + 1, dtype=np.int64)
    ndw = 0
    # at most one firing per record: a record fires its session at once, or registers the
    # one timer that may fire it later, or neither
    F = np.empty((n + 1, F_COLS), dtype=np.int64)
    fsum = np.empty(n + 1, dtype=val.dtype)
    CL = np.empty((n + 1, 2), dtype=np.int64)
    err = np.zeros(5, dtype=np.int64)
    members = np.zeros(member_cap, dtype=np.int64)
    nxt_u = np.full(n, -1, dtype=np.int64)
    nxt_m = np.full(n, -1, dtype=np.int64)
    cap = 16  # live sessions of one key; doubled when needed
    S = np.zeros((cap, S_COLS), dtype=np.int64)
    sums = np.zeros(cap, dtype=val.dtype)
    hits = np.zeros(cap, dtype=np.int64)
    cand = np.zeros(cap, dtype=np.int64)
    nf = 0
    ncl = 0
    mem_pos = 0
    w_last = wm[K - 1] if K > 0 else MINT
    for g in range(len(group_start) - 1):
        m = 0
        next_ev = MAXT
        for j in range(group_start[g], group_start[g + 1]):
            s = seg[j]
            W = wm[s - 1] if s > 0 else MINT
            if m > 0 and W >= next_ev:
                m, nf, mem_pos, ncl, next_ev = _advance(W, m, S, sums, lateness, wm, tick_time, F, fsum, nf, fate,
                                                        nxt_u, nxt_m, members, mem_pos, CL, ncl, g, cand, sid, WA, scal)
            t = ts[j]
            gp = gap[j]
            if gp <= 0:
                err[0] = E_GAP
                err[1] = j
                err[2] = gp
                return fate, side, dw, F[:nf], fsum[:nf], CL[:ncl], members[:mem_pos], err, DW[:ndw], rec_seg, WA, scal
            ne = t + gp
            nh = 0
            for q in range(m):
                if S[q, S_START] <= ne and S[q, S_END] >= t:
                    hits[nh] = q
                    nh += 1
            merged = False
            if nh == 0:
                c = _sat_add(ne - 1, lateness)
                if c <= W:
                    # the window alone is late: added and retired at once; the record is skipped
                    if _wrap_add(t, lateness) <= W:
                        side[j] = 1
                    continue
                if m == S.shape[0]:
                    S2 = np.zeros((2 * m, S_COLS), dtype=np.int64)
                    S2[:m] = S[:m]
                    S = S2
                    sums2 = np.zeros(2 * m, dtype=val.dtype)
                    sums2[:m] = sums[:m]
                    sums = sums2
                    hits = np.zeros(2 * m, dtype=np.int64)
                    cand = np.zeros(2 * m, dtype=np.int64)
                slot = m
                m += 1
                S[slot, S_START] = t
                S[slot, S_END] = ne
                S[slot, S_CNT] = 0
                S[slot, S_PANE] = 0
                S[slot, S_PASSED] = 0
                S[slot, S_PENDING] = 0
                S[slot, S_EMITTED] = 0
                S[slot, S_REP] = j
                S[slot, S_UHEAD] = -1
                S[slot, S_UTAIL] = -1
                S[slot, S_MHEAD] = -1
                S[slot, S_MTAIL] = -1
                S[slot, S_PRISTINE] = 1
                sums[slot] = 0
                dw[j] = 1
            elif nh == 1 and S[hits[0], S_START] <= t and S[hits[0], S_END] >= ne:
                slot = hits[0]                      # inside a session: nothing changes, except...
                if S[slot, S_START] == t and S[slot, S_END] == ne and S[slot, S_PRISTINE] == 0:
                    # ...Flink's MergingWindowSet when the proposed window equals a session window
                    # that came from a merge (only possible with dynamic gaps): it maps the window
                    # to itself as its state window, so the session's contents are left behind
                    # (kept in state, never fired or cleaned) and it starts empty; panes and
                    # timers belong to the window and carry on
                    S[slot, S_CNT] = 0
                    sums[slot] = 0
                    S[slot, S_UHEAD] = -1
                    S[slot, S_UTAIL] = -1
                    S[slot, S_MHEAD] = -1
                    S[slot, S_MTAIL] = -1
                    S[slot, S_PRISTINE] = 1
                    dw[j] = 1
            else:
                ns = t
                nend = ne
                for i in range(nh):
                    q = hits[i]
                    if S[q, S_START] < ns:
                        ns = S[q, S_START]
                    if S[q, S_END] > nend:
                        nend = S[q, S_END]
                mt = nend - 1
                if _wrap_add(mt, lateness) <= W:
                    err[0] = E_MERGE_LATE
                    err[1] = j
                    err[2] = ns
                    err[3] = nend
                    err[4] = W
                    return fate, side, dw, F[:nf], fsum[:nf], CL[:ncl], members[:mem_pos], err, DW[:ndw], rec_seg, WA, scal
                slot = hits[0]
                for i in range(nh - 1, 0, -1):
                    q = hits[i]
                    S[slot, S_CNT] += S[q, S_CNT]
                    sums[slot] += sums[q]
                    if S[q, S_PANE] > S[slot, S_PANE]:
                        S[slot, S_PANE] = S[q, S_PANE]
                    if S[q, S_PASSED] == 1:
                        S[slot, S_PASSED] = 1
                    S[slot, S_EMITTED] += S[q, S_EMITTED]
                    if S[q, S_UHEAD] >= 0:
                        if S[slot, S_UHEAD] < 0:
                            S[slot, S_UHEAD] = S[q, S_UHEAD]
                        else:
                            nxt_u[S[slot, S_UTAIL]] = S[q, S_UHEAD]
                        S[slot, S_UTAIL] = S[q, S_UTAIL]
                    if S[q, S_MHEAD] >= 0:
                        if S[slot, S_MHEAD] < 0:
                            S[slot, S_MHEAD] = S[q, S_MHEAD]
                        else:
                            nxt_m[S[slot, S_MTAIL]] = S[q, S_MHEAD]
                        S[slot, S_MTAIL] = S[q, S_MTAIL]
                    m = _remove(q, m, S, sums)
                S[slot, S_START] = ns
                S[slot, S_END] = nend
                S[slot, S_PRISTINE] = 0             # the state window is an older, smaller one
                if mt > W:
                    S[slot, S_PENDING] = 1          # EventTimeTrigger.onMerge
                    merged = True
                else:
                    S[slot, S_PENDING] = 0          # the merged windows' timers are deleted
                dw[j] = 1 - nh
            mt = S[slot, S_END] - 1
            c = _sat_add(mt, lateness)
            if c <= W:
                err[0] = E_RETIRE
                err[1] = j
                return fate, side, dw, F[:nf], fsum[:nf], CL[:ncl], members[:mem_pos], err, DW[:ndw], rec_seg, WA, scal
            S[slot, S_CNT] += 1
            sums[slot] += val[j]
            fate[j] = FATE_PENDING
            rec_seg[s] += 1
            scal[SC_AREA_R] += end_time - arrival[j]
            if dw[j] != 0:
                DW[ndw] = j
                ndw += 1
                scal[SC_AREA_W] += dw[j] * (end_time - arrival[j])
            if S[slot, S_UHEAD] < 0:
                S[slot, S_UHEAD] = j
            else:
                nxt_u[S[slot, S_UTAIL]] = j
            S[slot, S_UTAIL] = j
            if S[slot, S_MHEAD] < 0:
                S[slot, S_MHEAD] = j
            else:
                nxt_m[S[slot, S_MTAIL]] = j
            S[slot, S_MTAIL] = j
            if mt <= W:
                # EventTimeTrigger.onElement: the watermark is past the window: FIRE now
                nf, mem_pos = _fire(slot, False, False, -1, arrival[j], W, S, sums, F, fsum, nf, fate, nxt_u, nxt_m,
                                    members, mem_pos, g, j, sid, WA, scal)
            elif not merged:
                S[slot, S_PENDING] = 1
            if S[slot, S_PENDING] == 1 and mt < next_ev:
                next_ev = mt
            if c != MAXT and c < next_ev:
                next_ev = c
        # the key's timers at the changes after its last record, then the end of input
        if m > 0 and w_last >= next_ev:
            m, nf, mem_pos, ncl, next_ev = _advance(w_last, m, S, sums, lateness, wm, tick_time, F, fsum, nf, fate,
                                                    nxt_u, nxt_m, members, mem_pos, CL, ncl, g, cand, sid, WA, scal)
        if with_end:
            while True:
                best = -1
                bmt = MAXT
                for q in range(m):
                    if S[q, S_PENDING] == 1:
                        mt = S[q, S_END] - 1
                        if best < 0 or mt < bmt:
                            best = q
                            bmt = mt
                if best < 0:
                    break
                S[best, S_PENDING] = 0
                nf, mem_pos = _fire(best, True, True, K, end_time, MAXT, S, sums, F, fsum, nf, fate, nxt_u, nxt_m,
                                    members, mem_pos, g, -1, sid, WA, scal)
    return fate, side, dw, F[:nf], fsum[:nf], CL[:ncl], members[:mem_pos], err, DW[:ndw], rec_seg, WA, scal
