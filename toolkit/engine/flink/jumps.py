"""Which periodic watermark calls can change something, and closed-form jumps over the others.

Between records, :func:`toolkit.engine.flink.pipeline.watermark_timeline`'s general loop runs only
the calls that can change something: :func:`next_wakeup` follows an idleness countdown to its
expiry; for a watermark that moves with processing time, :func:`next_jump` finds the first call
at which the operator watermark reaches one of the window operator's timers
(:func:`window_timer_targets`), when :func:`can_jump` says the calls in between have a closed
form.
"""
from __future__ import annotations

import numpy as np

from toolkit.engine.flink.sources import SourceSubtask
from toolkit.engine.flink.timeline import TimerTargets
from toolkit.engine.flink.valve import StatusWatermarkValve
from toolkit.engine.flink.watermarks import (
    AdaptiveGenerator,
    BoundedOutOfOrdernessGenerator,
    PunctuatedGenerator,
    WithIdlenessGenerator,
)

# generators whose periodic output depends on their events only, not on processing time
_PT_FREE = (BoundedOutOfOrdernessGenerator, AdaptiveGenerator, PunctuatedGenerator)


def can_jump(gens: list, valve: StatusWatermarkValve) -> bool:
    """Calls without records can be jumped over in closed form: every generator that may still
    emit has a closed form and no idleness countdown to start or reset, and no unaligned
    channel chases an operator watermark that other channels move meanwhile (where it aligns
    has no closed form: those calls are run one by one until it has aligned)."""
    for g in gens:
        if g.quiescent():
            continue
        if not g.closed_form or (isinstance(g, WithIdlenessGenerator) and not g.settled()):
            return False
    live = [ac for ac in valve.active]
    unaligned = any(ac and not al for ac, al in zip(live, valve.aligned))
    return not (unaligned and any(ac and al for ac, al in zip(live, valve.aligned)))


def _subtask_reach(st: SourceSubtask, x: int, t: int, first: int, interval: int) -> int | None:
    """The first call after ``t`` (no records) at which subtask ``st`` has forwarded a watermark
    ``>= x``: now if it has, else once every split that still emits is there (the
    multiplexer's min over the active splits); None = never."""
    if st.emitter.current >= x:
        return t + 1
    best = None
    for p, g in st.generators.items():
        if g.quiescent():
            continue
        if st.states[p].watermark >= x:
            best = t + 1 if best is None else best
            continue
        k = g.first_call_reaching(x, t, first, interval)
        if k is None:
            return None
        best = k if best is None else max(best, k)
    return best


def _reach(subtasks: list[SourceSubtask], valve: StatusWatermarkValve, x: int, t: int, first: int,
           interval: int) -> int | None:
    """The first call after ``t`` (no records, no status or alignment change before it) at
    which the operator watermark is ``>= x``.

    Every watermark below is non-decreasing over such calls, so the operator (the min over
    the active aligned channels) is ``>= x`` exactly when each of those channels is: the
    latest of their :func:`_subtask_reach` (None: never)."""
    best = None
    for c, st in enumerate(subtasks):
        if not (valve.active[c] and valve.aligned[c]):
            continue
        k = t + 1 if valve.watermarks[c] >= x else _subtask_reach(st, x, t, first, interval)
        if k is None:
            return None
        best = k if best is None else max(best, k)
    return best


def next_jump(subtasks, valve, targets: TimerTargets, op_wm: int, t: int, nxt: int | None, k_last: int,
               first: int, interval: int) -> int:
    """The next call after ``t`` that can change something when no record comes before it:
    the call just before the next records' call (they see its watermark), the last call (its
    firings are not at the end of input), the last call before an idleness expiry (its
    emission is the last before the split goes idle; the expiry call is then the next one
    after it), the call at which an idle subtask becomes active again (its watermark passes
    the one it forwarded) or an unaligned channel aligns (passes the operator's), and the
    first call at which the operator watermark reaches the next timer target above ``op_wm``."""
    cands = [k_last if nxt is None else max(nxt - 1, t + 1)]
    for c, st in enumerate(subtasks):
        for g in st.generators.values():
            if isinstance(g, WithIdlenessGenerator) and not g.quiescent():
                cands.append(max(t + 1, g.expiry_call(first, interval) - 1))
        k = None
        if not valve.active[c]:
            k = _subtask_reach(st, st.emitter.current + 1, t, first, interval)
        elif not valve.aligned[c]:  # the only active channels are unaligned: the output stands still
            k = _subtask_reach(st, valve.last_output, t, first, interval)
        if k is not None:
            cands.append(k)
    x = targets.next_above(op_wm)
    if x is not None:
        k = _reach(subtasks, valve, x, t, first, interval)
        if k is not None:
            cands.append(k)
    return min(cands)


def window_timer_targets(
    event_time: np.ndarray,
    *,
    size: int | None = None,
    slide: int | None = None,
    offset: int = 0,
    gaps: np.ndarray | int | None = None,
    lateness: int = 0,
) -> TimerTargets:
    """The event-time timers a window operator can set for these records (Flink's rules):
    ``maxTimestamp = end - 1`` of every window a record is assigned to, and the cleanup time
    ``maxTimestamp + lateness`` (``lateness > 0``).

    Tumbling (``size``, ``offset``) or sliding (``size``, ``slide``, ``offset``) windows: a
    record's windows start at ``lastStart - j * slide`` for ``lastStart = ts - (ts - offset
    + slide) % slide`` and ``start > ts - size``, runs on the slide grid (never one entry per
    window). Session windows (``gaps``: one gap, or one per record): a merged session's end
    is ``max ts + gap`` of one of its records, so the candidates are ``ts + gap - 1``."""
    ts = np.asarray(event_time, dtype=np.int64)
    out = TimerTargets()
    if gaps is not None:
        g = np.broadcast_to(np.asarray(gaps, dtype=np.int64), ts.shape)
        base = out.add_values(ts + g - 1)
    else:
        if size is None:
            raise ValueError("window_timer_targets needs a window size or session gaps")
        sl = size if slide is None else int(slide)
        # Flink TimeWindow.getWindowStartWithOffset: ts - (ts - offset + slide) % slide
        last_start = ts - (ts - offset + sl) % sl
        n_win = -(-size // sl)  # windows per record at most; the oldest may not cover ts
        j_hi = (last_start - offset) // sl
        first_start = last_start - (n_win - 1) * sl
        j_lo = j_hi - (n_win - 1) + (first_start <= ts - size).astype(np.int64)
        base = out.add_grid(offset + size - 1, sl, j_lo, j_hi)
    if lateness > 0:
        base = base.union(base.shifted(lateness))
    return base


def next_wakeup(gens: list, t: int, first: int, interval: int) -> int:
    """Index of the next periodic call after call ``t`` (no records in between) at which a
    generator can change: a running idleness countdown of a generator whose own output does
    not depend on processing time changes nothing until the call that finds it expired
    (``now - start > timeout``, Flink's ``IdlenessTimer``); anything else needs every call."""
    if interval <= 0:
        return t + 1
    best: int | None = None
    for g in gens:
        if g.quiescent():
            continue
        if not (isinstance(g, WithIdlenessGenerator) and type(g.inner) in _PT_FREE
                and g.counter == g.last_counter and g.start_nanos != 0):
            return t + 1
        # first call time T with T * 1e6 + offset - start > max_idle
        t_min = (g.start_nanos + g.max_idle_nanos - g.offset) // 1_000_000 + 1
        k = max(t + 1, -(-(t_min - first) // interval))
        best = k if best is None else min(best, k)
    return t + 1 if best is None else best
