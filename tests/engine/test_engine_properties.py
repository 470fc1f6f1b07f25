"""Property tests on random keyed streams with random (also stale) watermarks."""
from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings, strategies as st

from toolkit.engine.flink import (
    CollectValues,
    ContinuousEventTimeTrigger,
    Count,
    CountSum,
    EventTimeSessionWindows,
    EventTimeTrigger,
    LateRecord,
    ReduceFunction,
    SlidingEventTimeWindows,
    Sum,
    TumblingEventTimeWindows,
    WindowOperator,
    build_operator,
)
from toolkit.engine.flink.operator_fast import SessionEventTimeOperator, TimeWindowEventTimeOperator
from toolkit.engine.flink.windows import get_window_start_with_offset

events = st.lists(
    st.one_of(
        st.tuples(st.just("r"), st.sampled_from("abc"), st.integers(-20, 60)),
        st.tuples(st.just("w"), st.integers(-25, 80)),
    ),
    max_size=40,
)


@st.composite
def assigners(draw):
    kind = draw(st.sampled_from(["tumbling", "sliding", "session"]))
    if kind == "tumbling":
        size = draw(st.integers(1, 12))
        return TumblingEventTimeWindows(size, draw(st.integers(-size + 1, size - 1)))
    if kind == "sliding":
        slide = draw(st.integers(1, 6))
        return SlidingEventTimeWindows(draw(st.integers(1, 15)), slide, draw(st.integers(-slide + 1, slide - 1)))
    return EventTimeSessionWindows(draw(st.integers(1, 8)))


class RecordingTrigger(EventTimeTrigger):
    """The event-time trigger, noting every timer it sees (a subclass: the operator then
    takes its general path with Flink's exact timer heap)."""

    def __init__(self, log):
        self.log = log

    def on_event_time(self, time, window, ctx):
        self.log.append(time)
        return super().on_event_time(time, window, ctx)


def _run(op, evs, per_call=None):
    out = []
    for i, e in enumerate(evs):
        if e[0] == "r":
            op.process_element(e[1], e[2], e[2] * 100 + i, record_id=i)
        else:
            if per_call is not None:
                per_call.append(len(out))
            op.process_watermark(e[1])
        out.extend(op.drain())
        assert op.state_size() == op._recount_state()     # the O(1) counters stay exact
    op.end_input()
    out.extend(op.drain())
    assert op.state_size() == op._recount_state()
    return out


def _assert_no_state(op):
    assert op.state_size() == (0, 0)
    assert op.num_event_time_timers() == 0 and op.num_processing_time_timers() == 0
    assert op.num_keyed_state_entries() == 0
    state = op._internal_state()
    assert state["panes"] == {} and state["nrec"] == {}


@settings(max_examples=150, deadline=None)
@given(assigners(), st.integers(0, 10), events)
def test_every_record_is_fired_or_late_and_no_state_is_left(assigner, lateness, evs):
    log: list = []
    op = WindowOperator(assigner, trigger=RecordingTrigger(log), allowed_lateness=lateness,
                        function=CollectValues(), track_records=True)
    marks: list = []
    out = _run(op, evs, marks)
    fired_ids = {i for r in out if r.kind == "fire" for i in r.record_ids}
    late_ids = {r.record_id for r in out if isinstance(r, LateRecord)}
    # (sliding windows smaller than their slide leave gaps: a record there has no window at all;
    # as in Flink it is reported late iff ts + lateness <= watermark, else dropped silently)
    all_ids = {i for i, e in enumerate(evs) if e[0] == "r"}
    with_windows = {i for i in all_ids if assigner.assign_windows(None, evs[i][2], 0)}
    assert with_windows <= fired_ids | late_ids <= all_ids
    assert not fired_ids & late_ids
    _assert_no_state(op)
    # timers fire in timestamp order (the end-of-input MAX watermark included)
    assert log == sorted(log)


class RecordingCET(ContinuousEventTimeTrigger):
    def __init__(self, interval, log):
        super().__init__(interval)
        self.log = log

    def on_event_time(self, time, window, ctx):
        self.log.append((time, ctx.current_watermark))
        return super().on_event_time(time, window, ctx)


@settings(max_examples=150, deadline=None)
@given(assigners(), st.integers(0, 10), st.integers(1, 5), events)
def test_timers_fire_in_timestamp_order(assigner, lateness, interval, evs):
    """With the continuous event-time trigger (timers registered while timers fire, many
    equal timestamps), the timers fired by one watermark fire in timestamp order, each at or
    below that watermark. (A timer registered below the current watermark, as the continuous
    trigger does for a late record, fires at the next advance, after higher ones: as in Flink.)"""
    log: list = []
    op = WindowOperator(assigner, trigger=RecordingCET(interval, log), allowed_lateness=lateness, function=Count())
    out = _run(op, evs)
    by_watermark = defaultdict(list)
    for t, wm in log:
        by_watermark[wm].append(t)
    assert all(ts == sorted(ts) for ts in by_watermark.values())
    assert all(t <= wm for t, wm in log)
    assert all(r.watermark >= r.timestamp or r.timing == "early" or r.kind == "late" for r in out
               if not isinstance(r, LateRecord))
    _assert_no_state(op)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["tumbling", "sliding"]), st.integers(1, 10), st.integers(1, 5), st.integers(0, 10), events)
def test_last_firing_equals_batch_result_over_accepted_records(kind, size, slide, lateness, evs):
    if kind == "tumbling":
        assigner = TumblingEventTimeWindows(size)
        slide = size
    else:
        assigner = SlidingEventTimeWindows(size, slide)
    results = {}
    for fn in (CollectValues(), Count()):     # Count takes the specialised loop, CollectValues the general one
        op = build_operator(assigner, allowed_lateness=lateness, function=fn)
        assert isinstance(op, TimeWindowEventTimeOperator) == isinstance(fn, Count)
        last = {}
        for r in _run(op, evs):
            if r.kind == "fire":
                last[(r.key, r.window.start)] = r.value
        results[type(fn).__name__] = last
        _assert_no_state(op)
    # the batch answer, computed independently: a record is accepted by window w iff
    # w's cleanup time (max ts + lateness) is above the watermark when it arrives
    wm = -(2**63)
    accepted = defaultdict(list)
    for i, e in enumerate(evs):
        if e[0] == "w":
            wm = max(wm, e[1])
            continue
        ts = e[2]
        start = get_window_start_with_offset(ts, 0, slide)
        while start > ts - size:
            if start + size - 1 + lateness > wm:
                accepted[(e[1], start)].append(ts * 100 + i)
            start -= slide
    assert {k: sorted(v) for k, v in results["CollectValues"].items()} == {k: sorted(v) for k, v in accepted.items()}
    assert results["Count"] == {k: len(v) for k, v in accepted.items()}


@settings(max_examples=100, deadline=None)
@given(assigners(), st.integers(0, 10), events, st.sampled_from(["accumulating", "discarding"]),
       st.sampled_from(["count", "sum", "count_sum"]), st.booleans())
def test_specialised_and_general_paths_agree(assigner, lateness, evs, mode, fn, track):
    """EventTimeTrigger (heapq timers, specialised loop) and a subclass of it (general path,
    Flink's exact timer heap) give the same outputs, key by key."""
    runs = []
    for trig in (EventTimeTrigger(), RecordingTrigger([])):
        op = build_operator(assigner, trigger=trig, allowed_lateness=lateness, accumulation=mode,
                            function={"count": Count, "sum": Sum, "count_sum": CountSum}[fn](), track_records=track)
        per_key = defaultdict(list)
        for r in _run(op, evs):
            if isinstance(r, LateRecord):
                per_key[r.key].append(("late", r.timestamp, r.value, r.record_id, r.watermark))
            else:
                per_key[r.key].append((r.kind, r.window, r.value, r.pane, r.timing, r.watermark, r.record_ids))
        runs.append(dict(per_key))
    assert runs[0] == runs[1]


@settings(max_examples=100, deadline=None)
@given(assigners(), st.integers(0, 10), events, st.integers(1, 3))
def test_accumulation_modes_agree(assigner, lateness, evs, early):
    """Per window, with early firings every ``early`` elements: the discarding panes add up
    to the accumulating result, and fires minus retractions leave exactly the last pane.
    (Non-merging windows: a merged session is a new window, so per-window sums differ.)"""
    from hypothesis import assume

    from toolkit.engine.flink import AfterWatermark, after_count

    assume(not assigner.is_merging)
    totals = {}
    for mode in ("accumulating", "discarding", "accumulating_and_retracting"):
        op = WindowOperator(assigner, trigger=AfterWatermark(early=after_count(early)), allowed_lateness=lateness,
                            function=Count(), accumulation=mode)
        net = defaultdict(int)
        last = {}
        for r in _run(op, evs):
            if isinstance(r, LateRecord):
                continue
            net[(r.key, r.window)] += r.value if r.kind == "fire" else -r.value
            if r.kind == "fire":
                last[(r.key, r.window)] = r.value
        _assert_no_state(op)
        totals[mode] = (dict(net), last)
    acc_last = totals["accumulating"][1]
    disc_sum = totals["discarding"][0]
    assert {k: v for k, v in disc_sum.items() if v} == {k: v for k, v in acc_last.items() if v}
    assert totals["accumulating_and_retracting"][1] == acc_last
    assert {k: v for k, v in totals["accumulating_and_retracting"][0].items() if v} == \
        {k: v for k, v in acc_last.items() if v}


@settings(max_examples=100, deadline=None)
@given(assigners(), st.integers(0, 10), events, st.sampled_from(["count", "time"]), st.booleans(),
       st.sampled_from(["accumulating", "discarding"]))
def test_state_size_is_exact_with_evictors(assigner, lateness, evs, kind, after, mode):
    from toolkit.engine.flink import CountEvictor, TimeEvictor

    ev = CountEvictor(2, after) if kind == "count" else TimeEvictor(3, after)
    op = WindowOperator(assigner, evictor=ev, allowed_lateness=lateness, function=Count(), accumulation=mode)
    _run(op, evs)          # checks state_size() against a recount after every step
    _assert_no_state(op)


sessions_events = st.lists(
    st.one_of(
        st.tuples(st.just("r"), st.sampled_from("abc"), st.integers(-20, 60)),
        st.tuples(st.just("w"), st.integers(-25, 80)),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12), st.one_of(st.integers(0, 12), st.sampled_from([2**62, 2**63 - 30, 2**63 - 1])),
       sessions_events, st.sampled_from(["accumulating", "discarding"]),
       st.sampled_from(["count", "sum", "count_sum", "reduce_list", "count_then_process"]), st.booleans(),
       st.booleans(), st.booleans())
def test_specialised_session_path_equals_general_path(gap, lateness, evs, mode, fn, track, side, end):
    """Event-time sessions + EventTimeTrigger + an incremental function take a specialised
    loop; with the same (heapq) timer queue, the general merging path gives the very same
    output list (order included), the same state after every step, and the same internals."""
    fns = {"count": Count, "sum": Sum, "count_sum": CountSum,
           "reduce_list": lambda: ReduceFunction(lambda a, b: (a if isinstance(a, tuple) else (a,)) + (b,)),
           "count_then_process": lambda: Count(process=CollectValues())}
    ops = []
    for make in (build_operator, WindowOperator):
        # the same (heapq) timer queue for both: exact_timer_order=False
        ops.append(make(EventTimeSessionWindows(gap), allowed_lateness=lateness, accumulation=mode,
                        function=fns[fn](), track_records=track, side_output_late=side,
                        exact_timer_order=False))
    assert type(ops[0]) is SessionEventTimeOperator and type(ops[1]) is WindowOperator
    fast, gen = ops
    for i, e in enumerate(evs):
        errors = []
        for op in ops:
            try:
                if e[0] == "r":
                    op.process_element(e[1], e[2], e[2] * 100 + i, record_id=None if i % 3 == 0 else i)
                else:
                    op.process_watermark(e[1])
                errors.append(None)
            except RuntimeError as exc:       # a merge that would end before the watermark
                errors.append(str(exc))
        assert errors[0] == errors[1]
        if errors[0] is not None:
            return
        assert fast.drain() == gen.drain()
        assert fast.state_size() == gen.state_size() == gen._recount_state() == fast._recount_state()
        assert fast._internal_state() == gen._internal_state()
        assert fast.num_event_time_timers() == gen.num_event_time_timers()
        assert fast.num_keyed_state_entries() == gen.num_keyed_state_entries()
    if end:
        for op in ops:
            op.end_input()
        assert fast.drain() == gen.drain()
        assert fast.state_size() == gen.state_size()
        assert fast._internal_state() == gen._internal_state()
        if lateness <= 12:      # (a cleanup time past Long.MAX_VALUE has no timer: state stays, as in Flink)
            assert fast.state_size() == (0, 0) and fast.num_keyed_state_entries() == 0
            assert fast._internal_state()["panes"] == {}


@settings(max_examples=150, deadline=None)
@given(assigners(), st.integers(0, 12), sessions_events, st.sampled_from(["accumulating", "discarding"]),
       st.sampled_from(["count", "sum", "count_sum"]), st.booleans(), st.booleans())
def test_every_specialised_class_equals_the_general_path_step_by_step(assigner, lateness, evs, mode, fn, track, side):
    """Tumbling, sliding and session windows: the class ``build_operator`` picks and the
    general ``WindowOperator`` (same heapq timer queue) emit the same list and hold the same
    state, timers and keyed-state entries after every step."""
    fns = {"count": Count, "sum": Sum, "count_sum": CountSum}
    ops = [make(assigner, allowed_lateness=lateness, accumulation=mode, function=fns[fn](),
                track_records=track, side_output_late=side, exact_timer_order=False)
           for make in (build_operator, WindowOperator)]
    fast, gen = ops
    assert type(fast) in (TimeWindowEventTimeOperator, SessionEventTimeOperator)
    for i, e in enumerate(evs + [("end",)]):
        for op in ops:
            if e[0] == "r":
                op.process_element(e[1], e[2], e[2] * 100 + i)
            elif e[0] == "w":
                op.process_watermark(e[1])
            else:
                op.end_input()
        assert fast.drain() == gen.drain()
        assert fast._internal_state() == gen._internal_state()
        assert fast.num_event_time_timers() == gen.num_event_time_timers()
        assert fast.num_keyed_state_entries() == gen.num_keyed_state_entries()
