"""Kafka's own window-specification tests (TimeWindowsTest, SlidingWindowsTest, SessionWindowsTest)
and the partitioner's (UtilsTest.testMurmur2, the murmur2 partitions a Kafka integration test lists),
re-expressed for ``toolkit.engine.kafka_streams``. Kafka's ``IllegalArgumentException`` is our
``UserError`` (a ``ValueError``) whose message names the argument."""
from __future__ import annotations

import pytest

from toolkit.engine.kafka_streams import SessionWindows, SlidingWindows, TimeWindows, murmur2, partition_for_key
from toolkit.engine.kafka_streams.topology import assign_tasks
from toolkit.errors import UserError

ANY_SIZE = 123
ANY_OTHER_SIZE = 456
ANY_GRACE = 1024


# ---- TimeWindowsTest -------------------------------------------------------------------------
def test_TimeWindowsTest_shouldSetWindowSize():
    assert TimeWindows.of_size_with_no_grace(ANY_SIZE).size == ANY_SIZE
    assert TimeWindows.of_size_and_grace(ANY_SIZE, ANY_GRACE).size == ANY_SIZE


def test_TimeWindowsTest_shouldSetWindowAdvance():
    assert TimeWindows.of_size_with_no_grace(ANY_SIZE).advance_by(4).advance == 4


@pytest.mark.parametrize("size", [0, -1], ids=["windowSizeMustNotBeZero", "windowSizeMustNotBeNegative"])
def test_TimeWindowsTest_windowSizeMustBePositive(size):
    with pytest.raises(UserError, match="size"):
        TimeWindows.of_size_with_no_grace(size)


@pytest.mark.parametrize("advance", [0, -1, ANY_SIZE + 1], ids=[
    "advanceIntervalMustNotBeZero", "advanceIntervalMustNotBeNegative", "advanceIntervalMustNotBeLargerThanWindowSize"])
def test_TimeWindowsTest_advanceInterval(advance):
    with pytest.raises(UserError, match="advance"):
        TimeWindows.of_size_with_no_grace(ANY_SIZE).advance_by(advance)


def test_TimeWindowsTest_gracePeriodShouldEnforceBoundaries():
    TimeWindows.of_size_and_grace(3, 0)
    with pytest.raises(UserError, match="grace"):
        TimeWindows.of_size_and_grace(3, -1)


def test_TimeWindowsTest_shouldComputeWindowsForHoppingWindows():
    matched = TimeWindows.of_size_with_no_grace(12).advance_by(5).windows_for(21)
    assert len(matched) == 12 // 5 + 1
    assert matched == [(10, 22), (15, 27), (20, 32)]


def test_TimeWindowsTest_shouldComputeWindowsForBarelyOverlappingHoppingWindows():
    assert TimeWindows.of_size_with_no_grace(6).advance_by(5).windows_for(7) == [(5, 11)]


def test_TimeWindowsTest_shouldComputeWindowsForTumblingWindows():
    assert TimeWindows.of_size_with_no_grace(12).windows_for(21) == [(12, 24)]


def test_TimeWindowsTest_equalsAndHashcode():
    a, b = TimeWindows.of_size_with_no_grace(3), TimeWindows.of_size_with_no_grace(3)
    assert a == b and hash(a) == hash(b)
    assert TimeWindows.of_size_and_grace(3, 4).advance_by(2) == TimeWindows.of_size_and_grace(3, 4).advance_by(2)
    assert TimeWindows.of_size_with_no_grace(3) != TimeWindows.of_size_with_no_grace(4)
    assert TimeWindows.of_size_with_no_grace(4).advance_by(2) != TimeWindows.of_size_with_no_grace(4).advance_by(1)
    assert TimeWindows.of_size_and_grace(3, 1) != TimeWindows.of_size_and_grace(3, 2)


def test_windows_for_never_starts_before_zero():
    """Kafka clips at 0: a hopping window that would start before 0 does not exist."""
    assert TimeWindows.of_size_with_no_grace(10).advance_by(5).windows_for(3) == [(0, 10)]


# ---- SlidingWindowsTest ----------------------------------------------------------------------
def test_SlidingWindowsTest_shouldSetTimeDifference():
    assert SlidingWindows.of_time_difference_and_grace(ANY_SIZE, 3).time_difference == ANY_SIZE


def test_SlidingWindowsTest_timeDifferenceMustNotBeNegative():
    with pytest.raises(UserError, match="time_difference"):
        SlidingWindows.of_time_difference_and_grace(-1, 5)


def test_zero_time_difference_is_refused():
    """Kafka accepts 0 but fails on the first record (TimeWindow needs start != end): refused up front."""
    with pytest.raises(UserError, match="time_difference"):
        SlidingWindows.of_time_difference_with_no_grace(0)


def test_SlidingWindowsTest_shouldSetGracePeriod():
    assert SlidingWindows.of_time_difference_and_grace(10, ANY_SIZE).grace == ANY_SIZE


def test_SlidingWindowsTest_gracePeriodMustNotBeNegative():
    with pytest.raises(UserError, match="grace"):
        SlidingWindows.of_time_difference_and_grace(10, -1)


def test_SlidingWindowsTest_equalsAndHashcode():
    assert SlidingWindows.of_time_difference_and_grace(3, 5) == SlidingWindows.of_time_difference_and_grace(3, 5)
    assert SlidingWindows.of_time_difference_and_grace(3, 5) != SlidingWindows.of_time_difference_and_grace(4, 5)
    assert SlidingWindows.of_time_difference_and_grace(3, 5) != SlidingWindows.of_time_difference_and_grace(3, 6)


# ---- SessionWindowsTest ----------------------------------------------------------------------
def test_SessionWindowsTest_shouldSetWindowGap():
    assert SessionWindows.of_inactivity_gap_with_no_grace(42).inactivity_gap == 42
    assert SessionWindows.of_inactivity_gap_and_grace(42, ANY_GRACE).inactivity_gap == 42


def test_SessionWindowsTest_gracePeriodShouldEnforceBoundaries():
    SessionWindows.of_inactivity_gap_and_grace(3, 0)
    with pytest.raises(UserError, match="grace"):
        SessionWindows.of_inactivity_gap_and_grace(3, -1)


def test_SessionWindowsTest_noGraceAPIShouldNotSetGracePeriod():
    for gap in (3, ANY_SIZE, ANY_OTHER_SIZE):
        assert SessionWindows.of_inactivity_gap_with_no_grace(gap).grace == 0


def test_SessionWindowsTest_withGraceAPIShouldSetGracePeriod():
    assert SessionWindows.of_inactivity_gap_and_grace(ANY_SIZE, ANY_GRACE).grace == ANY_GRACE


@pytest.mark.parametrize("gap", [0, -1], ids=["windowSizeMustNotBeZero", "windowSizeMustNotBeNegative"])
def test_SessionWindowsTest_windowSize(gap):
    with pytest.raises(UserError, match="inactivity_gap"):
        SessionWindows.of_inactivity_gap_with_no_grace(gap)


def test_SessionWindowsTest_equalsAndHashcode():
    assert SessionWindows.of_inactivity_gap_with_no_grace(3) == SessionWindows.of_inactivity_gap_with_no_grace(3)
    assert SessionWindows.of_inactivity_gap_and_grace(3, 1) != SessionWindows.of_inactivity_gap_and_grace(3, 2)
    assert SessionWindows.of_inactivity_gap_with_no_grace(3) != SessionWindows.of_inactivity_gap_with_no_grace(4)


def test_retention_below_the_minimum_is_refused():
    """WindowStoreMaterializer / SlidingWindowStoreMaterializer's checks on withRetention."""
    with pytest.raises(UserError, match="retention"):
        TimeWindows.of_size_and_grace(10, 5).with_retention(14)
    with pytest.raises(UserError, match="retention"):
        SlidingWindows.of_time_difference_and_grace(10, 5).with_retention(24)
    with pytest.raises(UserError, match="retention"):
        SessionWindows.of_inactivity_gap_and_grace(10, 5).with_retention(14)


def test_non_integer_durations_are_refused_by_name():
    with pytest.raises(UserError, match="size"):
        TimeWindows(1.5, 1)
    with pytest.raises(UserError, match="grace"):
        SessionWindows(10, "5s")


# ---- the partitioner -------------------------------------------------------------------------
def test_UtilsTest_testMurmur2():
    cases = {b"21": -973932308, b"foobar": -790332482, b"a-little-bit-long-string": -985981536,
             b"a-little-bit-longer-string": -1486304829,
             b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971, b"abc": 479470107}
    for data, expected in cases.items():
        assert murmur2(data) == expected


def test_KTableKTableForeignKeyInnerJoinMultiIntegrationTest_precomputedMurmur2Partitions():
    """The partitions that test lists for keys "0".."9" over 3 partitions ("pre-computed using the
    default Murmur2 hash")."""
    assert [partition_for_key(str(i), 3) for i in range(10)] == [2, 0, 2, 2, 1, 0, 1, 0, 0, 2]


def test_to_positive_clears_the_sign_bit_not_abs():
    from toolkit.engine.kafka_streams import to_positive

    assert to_positive(-1) == 0x7FFFFFFF
    assert to_positive(-(2**31)) == 0
    assert to_positive(5) == 5


def test_assign_by_partition_and_its_errors():
    import numpy as np

    keys = np.array(["a", "b", "c"], dtype=object)
    task, n = assign_tasks(keys, np.array([0, 2, 1]), None, "partition")
    assert task.tolist() == [0, 2, 1] and n == 3
    with pytest.raises(UserError, match="tasks=2"):
        assign_tasks(keys, np.array([0, 2, 1]), 2, "partition")
    with pytest.raises(UserError, match="assign"):
        assign_tasks(keys, None, 2, "hash")
    with pytest.raises(UserError, match="tasks"):
        assign_tasks(keys, None, 0, "key")
    task, n = assign_tasks(keys, None, 3, "key")
    assert task.tolist() == [partition_for_key(k, 3) for k in keys] and n == 3


def test_bad_inputs_name_the_column_or_option():
    from toolkit.engine.kafka_streams import run_windowed_aggregation

    w = TimeWindows.of_size_with_no_grace(10)
    with pytest.raises(UserError, match="event_time"):
        run_windowed_aggregation(["a"], [-5], windows=w)
    with pytest.raises(UserError, match="key"):
        run_windowed_aggregation([None], [5], windows=w)
    with pytest.raises(UserError, match="arrival"):
        run_windowed_aggregation(["a", "b"], [5, 6], arrival=[2, 1], windows=w)
    with pytest.raises(UserError, match="emit"):
        run_windowed_aggregation(["a"], [5], windows=w, emit="on_close")
    with pytest.raises(UserError, match="windows"):
        run_windowed_aggregation(["a"], [5], windows="tumbling:10")
