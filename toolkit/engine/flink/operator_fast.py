"""Specialised window operators: the general ``WindowOperator``'s steps for one common
configuration each, with the assigner, the trigger and the timer callbacks inlined into
closures that the constructor installs as ``process_element`` / ``process_watermark``.

Rule: a specialised class gives exactly the output of the general path (same results in the
same order, same state after every step, same timers); only the speed differs. The
conformance test runs every fixture through both, a property test compares them step by step.
The rules stay named once in ``operator.py`` (``cleanup_time``, ``is_element_late``,
``check_merge_not_late``, ``merge_panes``, ``WindowOperator._merge_state_windows``); a loop
keeps an inline copy only where the benchmark (``python -m toolkit bench engine``) shows it
pays, marked with a comment. The late-record test is written
``x <= wm if (x := timestamp + lateness) <= MAXT else is_element_late(...)``: the rule's
Java ``long`` wrap is only needed past ``MAX_TIMESTAMP``, and a quarter of the benchmark's
session records are late, so the call is avoided in the common case.

- ``TimeWindowEventTimeOperator``: tumbling or sliding event-time windows,
  ``EventTimeTrigger``, an incremental function (aggregate or reduce), accumulating or
  discarding.
- ``SessionEventTimeOperator``: ``EventTimeSessionWindows`` under the same conditions.

Int64 edges: a record whose windows would need Java's ``long`` wrap (a tumbling or
sliding window within one window of Long.MIN/MAX, ``ts - offset`` past the range, a session
``ts + gap`` past Long.MAX) is handed to the general ``WindowOperator.process_element``, and
from then on watermarks go through the general ``process_watermark`` too (sessions: every
later record as well). The general path has the wrap rules; the state is the same, so the
switch is exact. Tumbling windows without offset detect this only when a new window is made
(no cost per record); the others compare the timestamp with precomputed safe bounds.

Both use the ``heapq`` timer queue (ties across keys fire in registration order; the
event-time trigger's output per key does not depend on it). Which class applies is decided
once, in ``config.operator_class``.
"""
from __future__ import annotations

from heapq import heappop, heappush

from .assigners import EventTimeSessionWindows, SlidingEventTimeWindows, TumblingEventTimeWindows
from .functions import AggregateFunction, Count, CountSum, ReduceFunction
from .merging import MergingWindowSet
from .operator import (
    _ABSENT,
    WindowOperator,
    _Pane,
    check_merge_not_late,
    cleanup_time,
    is_element_late,
    merge_panes,
)
from .triggers import EventTimeTrigger
from .windows import MAX_TIMESTAMP, MIN_TIMESTAMP, TimeWindow, java_hash_set_order

__all__ = ["TimeWindowEventTimeOperator", "SessionEventTimeOperator"]


def _check_fits(op: WindowOperator, assigner_types: tuple) -> None:
    """Guard for direct construction (``config.operator_class`` is what chooses a class)."""
    if (type(op.assigner) not in assigner_types or type(op.trigger) is not EventTimeTrigger
            or getattr(op.assigner, "_stagger_offset", 0) != 0
            or op._full or op._retracting or not isinstance(op.function, (AggregateFunction, ReduceFunction))
            or op._pwf_clear is not None):
        raise ValueError(f"{type(op).__name__} does not apply to this configuration; "
                         "use config.build_operator(...) to get the right operator class")


def _incremental_steps(fn):
    """``(create, add)`` of an aggregate or reduce function: a reduce starts from a marker."""
    if isinstance(fn, AggregateFunction):
        return fn.create_accumulator, fn.add
    reduce = fn.reduce
    first = object()

    def create():
        return first

    def add(value, acc):
        return value if acc is first else reduce(acc, value)

    return create, add


class TimeWindowEventTimeOperator(WindowOperator):
    """Tumbling/sliding event-time windows + ``EventTimeTrigger`` + an incremental function.

    Windows are shared ``TimeWindow`` objects from a small cache (with their max timestamp
    and cleanup time); a window's timers are registered when it gets its first element
    (later registrations of the same timers are no-ops in Flink)."""

    def __init__(self, assigner, **kwargs):
        kwargs["exact_timer_order"] = False
        super().__init__(assigner, **kwargs)
        _check_fits(self, (TumblingEventTimeWindows, SlidingEventTimeWindows))
        self.process_element, self.process_watermark = self._make_loops()

    # The loops it returns are closures over these locals (no self lookups, the trigger and
    # timer callbacks inlined), long on purpose: bench engine's stream, 200,000 records, 3
    # alternated rounds, CPU: tumbling 436-487 k records/s against 131-156 k for the general
    # WindowOperator (exact_timer_order=True), 2026-11-27 on a shared 2-core machine
    def _make_loops(self):
        op = self
        assigner = self.assigner
        tumbling = type(assigner) is TumblingEventTimeWindows
        size = assigner.size
        off = assigner._eff_offset if tumbling else assigner.offset
        slide = size if tumbling else assigner.slide
        lateness = self.allowed_lateness
        contents = self._contents
        nrec = self._nrec
        timers = self._et
        heap, live = timers.heap, timers.live
        add_timer = timers.add
        fn = self.function
        create, add = _incremental_steps(fn)
        is_count = type(fn) is Count
        is_count_sum = type(fn) is CountSum
        track = self.track_records
        ids = self._ids
        keyed = self.keyed
        discarding = self._discarding
        emit = self._emit
        clear = self._clear_contents
        late = self._late
        ctx = self._ctx
        wcache: dict = {}               # window start -> (window, max timestamp, cleanup time)
        MAXT = MAX_TIMESTAMP
        MISSING = _ABSENT
        general_pe = WindowOperator.process_element.__get__(op)
        general_pw = WindowOperator.process_watermark.__get__(op)
        edge = [False]                  # a window needed the long wrap: watermarks go the general way
        # timestamps whose windows need no wrap (sliding, and tumbling with an offset)
        lo = MIN_TIMESTAMP + size + slide + max(off, 0)
        hi = MAXT - size - slide + min(off, 0)

        def window_at(start):
            if start < MIN_TIMESTAMP or start + size > MAXT:
                return None             # Java's long arithmetic wraps here: the general path
            if len(wcache) > 65536:
                wcache.clear()
            mt = start + size - 1
            entry = wcache[start] = (TimeWindow(start, start + size), mt, cleanup_time(mt, lateness))
            return entry

        def at_edge(key, timestamp, value, record_id):
            edge[0] = True
            general_pe(key, timestamp, value, record_id)

        def add_to_window(key, window, mt, cleanup, wm, value, record_id):
            """One element into one window that is not late (the trigger inlined)."""
            sk = (key, window)
            acc = contents.get(sk, MISSING)
            op._buffered += 1
            if acc is MISSING:
                contents[sk] = add(value, create())
                nrec[sk] = 1
                if track:
                    ids[sk] = [record_id]
                if mt > wm:
                    add_timer(mt, key, window)             # EventTimeTrigger.onElement
                if cleanup != MAXT and cleanup != mt:
                    add_timer(cleanup, key, window)        # the cleanup timer
            else:
                # the built-in Count/CountSum inlined (their add, exactly)
                if is_count:
                    contents[sk] = acc + 1
                elif is_count_sum:
                    acc[0] += 1
                    acc[1] += value
                else:
                    contents[sk] = add(value, acc)
                nrec[sk] += 1
                if track:
                    ids[sk].append(record_id)
            if mt <= wm:
                # EventTimeTrigger.onElement: the watermark is past the window: FIRE now
                emit(key, window, sk, contents[sk], False)
                if discarding:
                    clear(sk)

        def process_element_sliding(key, timestamp, value, record_id=None):
            if not keyed:
                key = None
            if track and record_id is None:
                record_id = op._next_id
                op._next_id += 1
            if timestamp < lo or timestamp > hi:
                return at_edge(key, timestamp, value, record_id)
            wm = op._wm
            start = timestamp - (timestamp - off) % slide
            skipped = True
            lower = timestamp - size
            while start > lower:
                entry = wcache.get(start)
                if entry is None:
                    entry = window_at(start)
                start -= slide
                window, mt, cleanup = entry
                if cleanup <= wm:
                    continue
                skipped = False
                add_to_window(key, window, mt, cleanup, wm, value, record_id)
            if skipped and (x <= wm if (x := timestamp + lateness) <= MAXT else is_element_late(timestamp, lateness, wm)):
                late(key, timestamp, value, record_id)

        def process_element_tumbling(key, timestamp, value, record_id=None):
            # add_to_window inlined: calling it measured 5-10 % slower (bench engine, tumbling;
            # 5 alternating runs on a shared machine)
            if not keyed:
                key = None
            if track and record_id is None:
                record_id = op._next_id
                op._next_id += 1
            wm = op._wm
            start = timestamp - (timestamp - off) % size
            entry = wcache.get(start)
            if entry is None:
                entry = window_at(start)
                if entry is None:
                    return at_edge(key, timestamp, value, record_id)
            window, mt, cleanup = entry
            if cleanup <= wm:
                if (x <= wm if (x := timestamp + lateness) <= MAXT else is_element_late(timestamp, lateness, wm)):
                    late(key, timestamp, value, record_id)
                return
            sk = (key, window)
            acc = contents.get(sk, MISSING)
            op._buffered += 1
            if acc is MISSING:
                contents[sk] = add(value, create())
                nrec[sk] = 1
                if track:
                    ids[sk] = [record_id]
                if mt > wm:
                    add_timer(mt, key, window)
                if cleanup != MAXT and cleanup != mt:
                    add_timer(cleanup, key, window)
            else:
                if is_count:
                    contents[sk] = acc + 1
                elif is_count_sum:
                    acc[0] += 1
                    acc[1] += value
                else:
                    contents[sk] = add(value, acc)
                nrec[sk] += 1
                if track:
                    ids[sk].append(record_id)
            if mt <= wm:
                emit(key, window, sk, contents[sk], False)
                if discarding:
                    clear(sk)

        def process_watermark(watermark):
            """``process_watermark`` with ``EventTimeTrigger.onEventTime`` and the cleanup inlined
            (the heap is read directly: ``HeapqTimers`` with lazy deletion)."""
            if watermark <= op._wm:
                return
            if edge[0]:
                return general_pw(watermark)
            op._wm = watermark
            ctx.current_watermark = watermark
            panes = op._panes
            while heap:
                ts, seq, key, window = heap[0]
                if ts > watermark:
                    break
                heappop(heap)
                tk = (ts, key, window)
                if live.get(tk) != seq:
                    continue
                del live[tk]
                sk = (key, window)
                mt = window[1] - 1
                if ts == mt:
                    acc = contents.get(sk, MISSING)
                    if acc is not MISSING:
                        emit(key, window, sk, acc, True)
                        if discarding:
                            clear(sk)
                if ts == cleanup_time(mt, lateness):
                    clear(sk)
                    live.pop((mt, key, window), None)   # EventTimeTrigger.clear
                    panes.pop(sk, None)

        if tumbling and off:
            def process_element_tumbling_offset(key, timestamp, value, record_id=None):
                if timestamp < lo or timestamp > hi:    # ts - offset may wrap
                    if not keyed:
                        key = None
                    return at_edge(key, timestamp, value, record_id)
                return process_element_tumbling(key, timestamp, value, record_id)

            return process_element_tumbling_offset, process_watermark
        return (process_element_tumbling if tumbling else process_element_sliding), process_watermark


class SessionEventTimeOperator(WindowOperator):
    """``EventTimeSessionWindows`` + ``EventTimeTrigger`` + an incremental function.

    The general merging path (``MergingWindowSet.add_window``'s built-in branch, ``_merge``,
    the trigger and the timer callbacks) inlined step for step, with the same timer
    registrations and removals in the same order, so outputs, their order and all state are
    identical."""

    def __init__(self, assigner, **kwargs):
        kwargs["exact_timer_order"] = False
        super().__init__(assigner, **kwargs)
        _check_fits(self, (EventTimeSessionWindows,))
        self.process_element, self.process_watermark = self._make_loops()

    # The loops it returns are closures over these locals (no self lookups, the session merging
    # and timer callbacks inlined), long on purpose: bench engine's stream, 200,000 records, 3
    # alternated rounds, CPU: sessions 92-119 k records/s against 36-44 k for the general
    # WindowOperator (exact_timer_order=True), 2026-11-27 on a shared 2-core machine
    def _make_loops(self):
        op = self
        gap = self.assigner.gap
        lateness = self.allowed_lateness
        contents = self._contents
        nrec = self._nrec
        ids = self._ids
        msets = self._msets
        timers = self._et
        heap, live = timers.heap, timers.live
        add_timer = timers.add
        fn = self.function
        create, add = _incremental_steps(fn)
        is_count = type(fn) is Count
        is_count_sum = type(fn) is CountSum
        track = self.track_records
        keyed = self.keyed
        discarding = self._discarding
        emit = self._emit
        clear = self._clear_contents
        late = self._late
        merge_state_windows = self._merge_state_windows
        panes_d = self._panes
        assigner = self.assigner
        ctx = self._ctx
        MAXT = MAX_TIMESTAMP
        MISSING = _ABSENT
        TW = TimeWindow
        tuple_new = tuple.__new__
        general_pe = WindowOperator.process_element.__get__(op)
        general_pw = WindowOperator.process_watermark.__get__(op)
        safe = [MAXT - gap]             # above it ts + gap wraps; after that, the general path for good

        def retire_merged(key, merged):
            """``EventTimeTrigger.clear`` and the cleanup timer of each merged window
            (``HeapqTimers.remove`` is ``live.pop``: written so, it saves four calls a merge)."""
            for m in merged:
                mmt = m[1] - 1
                live.pop((mmt, key, m), None)
                c = cleanup_time(mmt, lateness)
                if c != MAXT:
                    live.pop((c, key, m), None)

        def merge(key, mapping, hits, new, ns):
            """A merge of ``new`` with the windows ``hits`` (>= 2, none equal to ``new``);
            returns the window the element belongs to."""
            members = sorted(hits, key=_start)
            i = 0
            for w in members:
                if w[0] > ns:
                    break
                i += 1
            members.insert(i, new)
            s0 = min(w[0] for w in members)
            e0 = max(w[1] for w in members)
            ordered = java_hash_set_order(members)
            ordered.remove(new)
            merge_result = TW(s0, e0)
            msws = [mapping.pop(w) for w in ordered]
            sw_result = msws[0]
            mapping[merge_result] = sw_result
            del msws[0]
            # WindowOperator._merge with EventTimeTrigger.onMerge / clear
            wm = op._wm
            mt = e0 - 1
            c = mt + lateness
            if c <= wm or c > MAXT:                                 # only then can the check fail
                check_merge_not_late(merge_result, lateness, wm)
            if mt > wm:
                add_timer(mt, key, merge_result)
            retire_merged(key, ordered)
            merge_state_windows(key, sw_result, msws)
            if panes_d:
                merge_panes(panes_d, key, ordered, merge_result)
            return merge_result

        def process_element(key, timestamp, value, record_id=None):
            # Hot path, long on purpose: the rules' calls are inlined here (marked "inlined"). With
            # cleanup_time, HeapqTimers.add, retire_merged, merge_panes and check_merge_not_late
            # called, this loop measured ~8 % slower (bench engine session, alternating runs,
            # shared machine).
            if not keyed:
                key = None
            if timestamp > safe[0]:
                safe[0] = MIN_TIMESTAMP - 1
                return general_pe(key, timestamp, value, record_id)
            if track and record_id is None:
                record_id = op._next_id
                op._next_id += 1
            ne = timestamp + gap
            wm = op._wm
            merged = False
            mset = msets.get(key)
            if mset is None:
                c = ne - 1 + lateness                               # cleanup_time, inlined
                if (c if c <= MAXT else MAXT) <= wm:
                    # the window alone is late: MergingWindowSet.addWindow then retireWindow
                    # leave no trace
                    if (x <= wm if (x := timestamp + lateness) <= MAXT else is_element_late(timestamp, lateness, wm)):
                        late(key, timestamp, value, record_id)
                    return
                actual = tuple_new(TW, (timestamp, ne))
                mapping = {actual: actual}
                msets[key] = MergingWindowSet(assigner, True, mapping)
            else:
                # MergingWindowSet.add_window's built-in branch, inlined: the windows of a set
                # never intersect each other, so only the ones intersecting the new one merge
                mapping = mset.mapping
                hit = None
                for w in mapping:
                    if w[0] <= ne and w[1] >= timestamp:
                        if hit is None:
                            hit = w
                        else:
                            hit = MISSING
                            break
                if hit is None:
                    c = ne - 1 + lateness                           # cleanup_time, inlined
                    if (c if c <= MAXT else MAXT) <= wm:
                        # a late window on its own: added, then retired at once (no trace)
                        if (x <= wm if (x := timestamp + lateness) <= MAXT else is_element_late(timestamp, lateness, wm)):
                            late(key, timestamp, value, record_id)
                        return
                new = tuple_new(TW, (timestamp, ne))
                if hit is None or hit == new:
                    mapping[new] = new
                    actual = new
                elif hit is MISSING:
                    actual = merge(key, mapping, [w for w in mapping if w[0] <= ne and w[1] >= timestamp],
                                   new, timestamp)
                else:
                    # one intersecting window: the merge of two, inlined (the common case)
                    h0, h1 = hit
                    if h0 <= timestamp and h1 >= ne:
                        # inside it: the set is unchanged (Flink re-puts the window)
                        mapping[hit] = mapping.pop(hit)
                        actual = hit
                    else:
                        # merge() for one window, its calls inlined (see the note above)
                        s0 = h0 if h0 < timestamp else timestamp
                        e0 = h1 if h1 > ne else ne
                        actual = tuple_new(TW, (s0, e0))
                        mapping[actual] = mapping.pop(hit)
                        mt = e0 - 1
                        c = mt + lateness
                        if c <= wm or c > MAXT:                     # only then can the check fail
                            check_merge_not_late(actual, lateness, wm)
                        if mt > wm:
                            merged = True                           # on_element's timer: a no-op
                            tk = (mt, key, actual)                  # EventTimeTrigger.onMerge
                            if tk not in live:                      # (add_timer, inlined)
                                timers.seq += 1
                                live[tk] = timers.seq
                                heappush(heap, (mt, timers.seq, key, actual))
                        mmt = h1 - 1                                # retire_merged(key, (hit,))
                        live.pop((mmt, key, hit), None)
                        c = mmt + lateness
                        if c < MAXT:
                            live.pop((c, key, hit), None)
                        if panes_d:                                 # merge_panes for one window
                            q = panes_d.pop((key, hit), None)
                            if q is not None:
                                p = panes_d.get((key, actual))
                                if p is None:
                                    p = panes_d[(key, actual)] = _Pane()
                                p.absorb(q)
            mt = actual[1] - 1
            cleanup = mt + lateness                                 # cleanup_time, inlined
            if cleanup > MAXT:
                cleanup = MAXT
            if cleanup <= wm:
                del mapping[actual]                                 # retire_window
                if not mapping:
                    del msets[key]
                if (x <= wm if (x := timestamp + lateness) <= MAXT else is_element_late(timestamp, lateness, wm)):
                    late(key, timestamp, value, record_id)
                return
            sk = (key, mapping[actual])
            acc = contents.get(sk, MISSING)
            op._buffered += 1
            if acc is MISSING:
                contents[sk] = add(value, create())
                nrec[sk] = 1
                if track:
                    ids[sk] = [record_id]
            else:
                # the built-in Count/CountSum inlined (their add, exactly)
                if is_count:
                    contents[sk] = acc + 1
                elif is_count_sum:
                    acc[0] += 1
                    acc[1] += value
                else:
                    contents[sk] = add(value, acc)
                nrec[sk] += 1
                if track:
                    rids = ids.get(sk)
                    if rids is None:
                        ids[sk] = [record_id]
                    else:
                        rids.append(record_id)
            if mt <= wm:
                # EventTimeTrigger.onElement: the watermark is past the window: FIRE now
                emit(key, actual, sk, contents[sk], False)
                if discarding:
                    clear(sk)
            elif not merged:
                tk = (mt, key, actual)                              # add_timer, inlined
                if tk not in live:
                    timers.seq += 1
                    live[tk] = timers.seq
                    heappush(heap, (mt, timers.seq, key, actual))
            # the cleanup timer (when it equals the one at mt, that one is registered already)
            if cleanup != MAXT and cleanup != mt:
                tk = (cleanup, key, actual)                         # add_timer, inlined
                if tk not in live:
                    timers.seq += 1
                    live[tk] = timers.seq
                    heappush(heap, (cleanup, timers.seq, key, actual))

        def process_watermark(watermark):
            """``process_watermark`` with ``_on_timer`` for this configuration inlined."""
            if watermark <= op._wm:
                return
            if safe[0] < MIN_TIMESTAMP:
                return general_pw(watermark)
            op._wm = watermark
            ctx.current_watermark = watermark
            while heap:
                ts, seq, key, window = heap[0]
                if ts > watermark:
                    break
                heappop(heap)
                tk = (ts, key, window)
                if live.get(tk) != seq:
                    continue
                del live[tk]
                mset = msets.get(key)
                if mset is None:
                    continue
                mapping = mset.mapping
                sw = mapping.get(window)
                if sw is None:
                    continue
                sk = (key, sw)
                mt = window[1] - 1
                if ts == mt:
                    acc = contents.get(sk, MISSING)
                    if acc is not MISSING:
                        emit(key, window, sk, acc, True)
                        if discarding:
                            clear(sk)
                c = mt + lateness                                   # cleanup_time, inlined
                if ts == (c if c <= MAXT else MAXT):
                    clear(sk)
                    live.pop((mt, key, window), None)               # EventTimeTrigger.clear
                    panes_d.pop((key, window), None)
                    del mapping[window]                             # retire_window, inlined
                    if not mapping:
                        del msets[key]

        return process_element, process_watermark


def _start(w):
    return w[0]
