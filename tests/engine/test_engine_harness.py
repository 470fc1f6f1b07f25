"""Harness accessors (as Flink's ``KeyedOneInputStreamOperatorTestHarness``): timers and keyed
state entries, the same for every operator class the builder can pick."""
from __future__ import annotations

import pytest

from toolkit.engine.flink import (
    CollectValues,
    ContinuousEventTimeTrigger,
    Count,
    CountTrigger,
    EventTimeSessionWindows,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    WindowOperator,
    WindowOperatorTestHarness,
    build_operator,
)
from toolkit.engine.flink.operator_fast import SessionEventTimeOperator, TimeWindowEventTimeOperator

# (builder, function): the class build_operator picks for Count, and the general path
PATHS = [
    pytest.param(build_operator, Count, id="specialised"),
    pytest.param(WindowOperator, Count, id="general-count"),
    pytest.param(build_operator, CollectValues, id="general-values"),
]


def _harness(make, fn, assigner, **kw) -> WindowOperatorTestHarness:
    return WindowOperatorTestHarness(make(assigner, function=fn(), **kw))


@pytest.mark.parametrize("make, fn", PATHS)
def test_tumbling_two_keys_two_windows_then_firing_then_cleanup(make, fn):
    h = _harness(make, fn, TumblingEventTimeWindows(10), allowed_lateness=5)
    if make is build_operator and fn is Count:
        assert type(h.operator) is TimeWindowEventTimeOperator
    assert (h.num_event_time_timers(), h.num_processing_time_timers(), h.num_keyed_state_entries()) == (0, 0, 0)
    for key in ("a", "b"):
        h.process_element(key, 3)       # window [0, 10)
        h.process_element(key, 14)      # window [10, 20)
        h.process_element(key, 15)
    # per (key, window): the trigger's timer at 9 / 19 and the cleanup timer at 14 / 24
    assert h.num_event_time_timers() == 8
    assert h.num_keyed_state_entries() == 4
    assert h.num_processing_time_timers() == 0
    h.process_watermark(9)              # [0, 10) fires for both keys; its state stays until cleanup
    assert len(h.fired()) == 2
    assert h.num_event_time_timers() == 6 and h.num_keyed_state_entries() == 4
    h.process_watermark(14)             # cleanup of [0, 10)
    assert h.num_event_time_timers() == 4 and h.num_keyed_state_entries() == 2
    h.process_watermark(24)
    assert (h.num_event_time_timers(), h.num_keyed_state_entries()) == (0, 0)


@pytest.mark.parametrize("make, fn", PATHS)
def test_zero_lateness_registers_one_timer_per_window(make, fn):
    """Cleanup time == window end - 1: one timer serves both."""
    h = _harness(make, fn, SlidingEventTimeWindows(10, 5))
    h.process_element("a", 7)           # windows [0, 10) and [5, 15)
    assert h.num_event_time_timers() == 2 and h.num_keyed_state_entries() == 2
    h.end_input()
    assert (h.num_event_time_timers(), h.num_keyed_state_entries()) == (0, 0)


@pytest.mark.parametrize("make, fn", PATHS)
def test_session_merge_leaves_one_window_and_one_window_set(make, fn):
    h = _harness(make, fn, EventTimeSessionWindows(5))
    if make is build_operator and fn is Count:
        assert type(h.operator) is SessionEventTimeOperator
    h.process_element("a", 0)           # [0, 5)
    h.process_element("a", 10)          # [10, 15)
    h.process_element("b", 0)
    # contents: 3 state windows; merging-window sets: one per key; one timer per window
    assert h.num_keyed_state_entries() == 3 + 2
    assert h.num_event_time_timers() == 3
    h.process_element("a", 4)           # [4, 9) merges with [0, 5) -> [0, 9)
    assert h.num_keyed_state_entries() == 3 + 2
    assert h.num_event_time_timers() == 3
    h.process_element("a", 7)           # [7, 12) bridges [0, 9) and [10, 15) -> [0, 15)
    assert h.num_keyed_state_entries() == 2 + 2
    assert h.num_event_time_timers() == 2
    h.process_watermark(14)
    assert [r.window for r in h.fired()] == [(0, 5), (0, 15)]
    assert (h.num_event_time_timers(), h.num_keyed_state_entries()) == (0, 0)


def test_trigger_state_and_processing_time_timers_are_counted():
    h = WindowOperatorTestHarness(WindowOperator(TumblingEventTimeWindows(10), trigger=CountTrigger(5)))
    h.process_element("a", 1)
    # window contents + the count trigger's counter; the cleanup timer
    assert h.num_keyed_state_entries() == 2 and h.num_event_time_timers() == 1
    h.end_input()
    assert (h.num_event_time_timers(), h.num_keyed_state_entries()) == (0, 0)

    h = WindowOperatorTestHarness(WindowOperator(TumblingProcessingTimeWindows(10)))
    h.set_processing_time(0)
    h.process_element("a", 1)
    assert h.num_processing_time_timers() == 1 and h.num_event_time_timers() == 0
    h.set_processing_time(9)
    assert (h.num_processing_time_timers(), h.num_keyed_state_entries()) == (0, 0)

    h = WindowOperatorTestHarness(WindowOperator(TumblingEventTimeWindows(10),
                                                 trigger=ContinuousEventTimeTrigger(4)))
    h.process_element("a", 1)
    # the continuous trigger's next firing time, the end-of-window timer... as Flink registers them
    assert h.num_event_time_timers() >= 2 and h.num_keyed_state_entries() == 2
    h.end_input()
    assert (h.num_event_time_timers(), h.num_keyed_state_entries()) == (0, 0)
