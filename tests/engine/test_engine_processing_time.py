"""Processing-time assigners and triggers. The oracle cannot drive processing time, so each
expectation below is derived by hand from Flink's source and stated in the test."""
from __future__ import annotations

from toolkit.engine.flink import (
    AfterWatermark,
    CollectValues,
    ContinuousProcessingTimeTrigger,
    DynamicProcessingTimeSessionWindows,
    ProcessingTimeSessionWindows,
    SlidingProcessingTimeWindows,
    TimeWindow,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    WindowOperator,
    WindowOperatorTestHarness,
    after_processing_time,
)


def _fires(h):
    return [(r.window, r.value, r.processing_time, r.timing, r.pane) for r in h.fired()]


def test_tumbling_processing_time_windows_use_arrival_time_not_event_time():
    """TumblingProcessingTimeWindows assigns by the operator's processing time
    (start = now - now % size); ProcessingTimeTrigger registers a processing-time timer at
    max_timestamp = 9 and fires when processing time reaches it; the cleanup time of a
    processing-time window is max_timestamp itself (the same timer), so the window is gone
    right after. Event timestamps (here 1000, -5) play no part and nothing is ever late."""
    h = WindowOperatorTestHarness(WindowOperator(TumblingProcessingTimeWindows(10), function=CollectValues()))
    h.set_processing_time(3)
    h.process_element("a", 1000, "x")
    h.set_processing_time(8)
    h.process_element("a", -5, "y")
    assert h.fired() == []
    h.set_processing_time(12)          # passes the timer at 9
    h.process_element("a", 0, "z")     # now in [10, 20)
    assert _fires(h) == [(TimeWindow(0, 10), ["x", "y"], 12, "on_time", 0)]
    assert h.state_size() == (1, 1)
    h.process_watermark(10**9)         # watermarks do not fire processing-time windows
    h.end_input()                      # nor does the end of input (Flink drops pending processing-time timers)
    assert len(h.fired()) == 1
    assert h.late_records() == []


def test_sliding_processing_time_windows():
    """Size 10, slide 5 at processing time 7: windows [5,15) and [0,10) (latest start first);
    timers at 9 and 14."""
    h = WindowOperatorTestHarness(WindowOperator(SlidingProcessingTimeWindows(10, 5), function=CollectValues()))
    h.set_processing_time(7)
    h.process_element("k", 0, 1)
    h.set_processing_time(9)
    h.set_processing_time(14)
    assert _fires(h) == [(TimeWindow(0, 10), [1], 9, "on_time", 0), (TimeWindow(5, 15), [1], 14, "on_time", 0)]


def test_continuous_processing_time_trigger_fires_every_interval_and_at_the_end():
    """ContinuousProcessingTimeTrigger(4) in [0,20) (max ts 19): first element at 5 ->
    fire time min(5 - 5 % 4 + 4, 19) = 8. At each fire time: FIRE and schedule
    min(t + 4, 19): 8 -> 12 -> 16 -> 19. At 19 the trigger fires and re-registers 19, then
    the cleanup (processing-time cleanup = max ts 19) clears the window and its timers."""
    op = WindowOperator(TumblingProcessingTimeWindows(20), trigger=ContinuousProcessingTimeTrigger(4),
                        function=CollectValues())
    h = WindowOperatorTestHarness(op)
    h.set_processing_time(5)
    h.process_element("a", 0, 1)
    h.set_processing_time(8)
    h.process_element("a", 0, 2)
    h.set_processing_time(13)
    h.set_processing_time(30)
    w = TimeWindow(0, 20)
    assert _fires(h) == [
        (w, [1], 8, "early", 0),
        (w, [1, 2], 13, "early", 1),
        (w, [1, 2], 30, "on_time", 2),  # the timer at 16 fires while advancing to 30: the first
        (w, [1, 2], 30, "late", 3),     # timer firing with max ts <= processing time; then 19
    ]
    assert op.state_size() == (0, 0) and op.num_processing_time_timers() == 0 and op.num_keyed_state_entries() == 0


def test_processing_time_sessions_merge():
    """ProcessingTimeSessionWindows(5): elements at processing times 1 and 4 get [1,6) and
    [4,9), which merge into [1,9) (timer at 8); an element at 10 starts [10,15)."""
    h = WindowOperatorTestHarness(WindowOperator(ProcessingTimeSessionWindows(5), function=CollectValues()))
    h.set_processing_time(1)
    h.process_element("a", 0, "p")
    h.set_processing_time(4)
    h.process_element("a", 0, "q")
    h.set_processing_time(7)
    assert h.fired() == []
    h.set_processing_time(8)
    h.set_processing_time(10)
    h.process_element("a", 0, "r")
    h.set_processing_time(14)
    assert [(w, sorted(v), pt) for w, v, pt, _, _ in _fires(h)] == [
        (TimeWindow(1, 9), ["p", "q"], 8), (TimeWindow(10, 15), ["r"], 14)]


def test_dynamic_processing_time_sessions():
    """The gap comes from each element: [2, 2+3) at processing time 2, then [3, 3+1) at 3 lies
    inside it (merge result [2,5), no state to merge); the timer at max ts 4 fires at 4. An
    element at 4 then starts [4, 6): a processing-time window fires when processing time
    reaches max ts, i.e. end - 1."""
    h = WindowOperatorTestHarness(WindowOperator(DynamicProcessingTimeSessionWindows(lambda v: v), function=CollectValues()))
    h.set_processing_time(2)
    h.process_element("a", 0, 3)
    h.set_processing_time(3)
    h.process_element("a", 0, 1)
    h.set_processing_time(4)
    h.process_element("a", 0, 2)
    h.set_processing_time(100)
    assert [(w, sorted(v), pt) for w, v, pt, *_ in _fires(h)] == [(TimeWindow(2, 5), [1, 3], 4), (TimeWindow(4, 6), [2], 100)]


def test_after_watermark_early_firings_after_a_processing_time_delay():
    """AfterWatermark(early=after_processing_time(5)) on [0,10): the first element of a pane
    (processing time 0) schedules an early firing at 0 + 5; the next pane starts with the
    element at 6 (firing due at 11) but the watermark reaches max ts 9 first: the on-time pane
    fires and the pending early timer is deleted."""
    op = WindowOperator(TumblingEventTimeWindows(10), trigger=AfterWatermark(early=after_processing_time(5)),
                        function=CollectValues())
    h = WindowOperatorTestHarness(op)
    h.set_processing_time(0)
    h.process_element("a", 1, 1)
    h.set_processing_time(3)
    h.process_element("a", 2, 2)
    h.set_processing_time(5)
    h.set_processing_time(6)
    h.process_element("a", 3, 3)
    h.set_processing_time(8)
    h.process_watermark(9)
    h.set_processing_time(20)
    w = TimeWindow(0, 10)
    assert _fires(h) == [(w, [1, 2], 5, "early", 0), (w, [1, 2, 3], 8, "on_time", 1)]
    assert op.state_size() == (0, 0) and op.num_processing_time_timers() == 0


def test_continuous_processing_time_trigger_on_global_windows():
    """Allowed (as in Flink: the trigger is typed for any window): every interval of
    processing time after the first element; GlobalWindow's max ts never caps it."""
    from toolkit.engine.flink import GlobalWindows

    h = WindowOperatorTestHarness(WindowOperator(GlobalWindows(), trigger=ContinuousProcessingTimeTrigger(10),
                                                 function=CollectValues()))
    h.set_processing_time(3)
    h.process_element("a", 0, 1)          # first fire time: 3 - 3 % 10 + 10 = 10
    h.set_processing_time(10)
    h.process_element("a", 0, 2)
    h.set_processing_time(35)             # 20 and 30
    assert [(r.value, r.processing_time, r.timing) for r in h.fired()] == [
        ([1], 10, "early"), ([1, 2], 35, "early"), ([1, 2], 35, "early")]
