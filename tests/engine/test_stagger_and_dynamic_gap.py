"""Flink's ``WindowStagger`` and the ``withDynamicGap`` session factories, with Flink's own test
methods re-expressed (WindowStaggerTest, TumblingEventTimeWindowsTest /
TumblingProcessingTimeWindowsTest ``testWindowAssignmentWithStagger``,
EventTimeSessionWindowsTest / ProcessingTimeSessionWindowsTest ``testDynamicGapProperties``,
DynamicEventTimeSessionWindowsTest). Rules read from Flink 2.3's classes."""
from __future__ import annotations

import random

import pytest

from toolkit.engine.flink import (
    Count,
    DynamicEventTimeSessionWindows,
    DynamicProcessingTimeSessionWindows,
    EventTimeSessionWindows,
    ProcessingTimeSessionWindows,
    TimeWindow,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    WindowOperator,
    WindowStagger,
    build_operator,
)


def test_window_stagger() -> None:
    size = 5000
    assert WindowStagger.ALIGNED.get_stagger_offset(500, size) == 0
    assert WindowStagger.NATURAL.get_stagger_offset(5500, size) == 500
    for _ in range(50):
        assert 0 <= WindowStagger.RANDOM.get_stagger_offset(0, size) < size


def test_tumbling_event_time_window_assignment_with_stagger() -> None:
    a = TumblingEventTimeWindows.of(5000, 0, WindowStagger.NATURAL)
    assert a.assign_windows("String", 150, 150) == [TimeWindow(150, 5150)]
    assert a.assign_windows("String", 5099, 150) == [TimeWindow(150, 5150)]
    assert a.assign_windows("String", 5300, 150) == [TimeWindow(5150, 10150)]


def test_tumbling_processing_time_window_assignment_with_stagger() -> None:
    a = TumblingProcessingTimeWindows.of(5000, 0, WindowStagger.NATURAL)
    assert a.assign_windows("String", None, 150) == [TimeWindow(150, 5150)]
    assert a.assign_windows("String", None, 5049) == [TimeWindow(150, 5150)]
    assert a.assign_windows("String", None, 5150) == [TimeWindow(5150, 10150)]


def test_stagger_is_resolved_once_per_operator_instance() -> None:
    a = TumblingEventTimeWindows(1000, 0, WindowStagger.NATURAL)
    outs = []
    for first_pt in (250, 700):
        op = build_operator(a, function=Count())
        assert type(op) is WindowOperator        # the staggered assigner takes the general path
        op.set_processing_time(first_pt)
        op.process_element("k", 2000, 1)
        op.end_input()
        outs.append([(r.window.start, r.window.end) for r in op.drain()])
    assert outs == [[(1250, 2250)], [(1700, 2700)]]
    assert a._stagger_offset is None             # the user's assigner object is untouched


def test_random_stagger_is_seeded_and_in_range() -> None:
    a = TumblingEventTimeWindows(1000, 0, WindowStagger.RANDOM, rng=random.Random(7))
    (w,) = a.assign_windows(None, 5000, 0)
    expect = int(random.Random(7).random() * 1000)
    assert w.start % 1000 == expect and w.end - w.start == 1000


def test_aligned_stagger_changes_nothing_and_keeps_the_fast_operator() -> None:
    a = TumblingEventTimeWindows(1000, 200, WindowStagger.ALIGNED)
    assert a.assign_windows(None, 1500, 99) == [TimeWindow(1200, 2200)]
    assert type(build_operator(a, function=Count())) is not WindowOperator
    with pytest.raises(ValueError, match="stagger must be a WindowStagger"):
        TumblingEventTimeWindows(1000, 0, "natural")


def test_dynamic_gap_properties() -> None:
    def extractor(element):
        return 5000

    a = EventTimeSessionWindows.with_dynamic_gap(extractor)
    assert isinstance(a, DynamicEventTimeSessionWindows) and a.is_event_time and a.is_merging
    p = ProcessingTimeSessionWindows.with_dynamic_gap(extractor)
    assert isinstance(p, DynamicProcessingTimeSessionWindows) and not p.is_event_time and p.is_merging


def test_dynamic_event_time_session_window_assignment() -> None:
    a = EventTimeSessionWindows.with_dynamic_gap(lambda e: 5000)
    assert a.assign_windows("gap5000", 0, 0) == [TimeWindow(0, 5000)]
    assert a.assign_windows("gap5000", 4999, 0) == [TimeWindow(4999, 9999)]
    assert a.assign_windows("gap5000", 5000, 0) == [TimeWindow(5000, 10000)]


def test_dynamic_processing_time_session_window_assignment() -> None:
    a = ProcessingTimeSessionWindows.with_dynamic_gap(lambda e: 5000)
    assert a.assign_windows("x", None, 0) == [TimeWindow(0, 5000)]
    assert a.assign_windows("x", None, 4999) == [TimeWindow(4999, 9999)]


@pytest.mark.parametrize("gap", [0, -1])
def test_dynamic_gap_must_be_positive(gap) -> None:
    a = EventTimeSessionWindows.with_dynamic_gap(lambda e: gap)
    with pytest.raises(ValueError, match="0 < gap"):
        a.assign_windows("x", 10, 0)
