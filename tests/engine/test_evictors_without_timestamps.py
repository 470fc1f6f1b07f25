"""Evictors and records without a timestamp, as Flink 2.3 handles them.

Named tests re-express Flink's ``EvictingWindowOperatorTest`` methods (global windows, a
``CountTrigger(2)``, a sum over the window's elements; Flink's harness compares the output
sorted). The rules come from Flink's ``TimeEvictor.evict``: it returns without evicting when
``hasTimestamp`` says the window's first element has no timestamp; otherwise it reads every
element's timestamp, and ``TimestampedValue.getTimestamp`` of an element without one throws.
``CountEvictor`` and ``DeltaEvictor`` read no timestamps, so records without one are evicted
exactly as records with one.
"""
from __future__ import annotations

import pytest

from toolkit.engine.flink import (
    CountEvictor,
    DeltaEvictor,
    GlobalWindows,
    Sum,
    TimeEvictor,
    WindowOperator,
    WindowOperatorTestHarness,
)
from toolkit.engine.flink.evictors import NO_TIMESTAMP_MESSAGE, TimestampedValue
from toolkit.engine.flink.triggers import CountTrigger
from toolkit.engine.flink.windows import MAX_TIMESTAMP, MIN_TIMESTAMP

# Flink's test input, in order: (key, timestamp or None)
FIRST = [("key2", 1000), ("key2", 4000), ("key1", 20), ("key1", 0), ("key1", 999),
         ("key2", 3500), ("key2", 2001), ("key2", 1001)]
SECOND = [("key1", 10999), ("key2", 1002)]
# the input of Flink's testCountTrigger and testDeltaEvictor* (other timestamps)
COUNT_FIRST = [("key2", 3000), ("key2", 3999), ("key1", 20), ("key1", 0), ("key1", 999),
               ("key2", 1998), ("key2", 1999), ("key2", 1000)]
COUNT_SECOND = [("key1", 10999), ("key2", 1000)]


def _harness(evictor, after: bool) -> WindowOperatorTestHarness:
    return WindowOperatorTestHarness(WindowOperator(
        GlobalWindows(), trigger=CountTrigger(2), evictor=evictor, evict_after=after, function=Sum()))


def _feed(h: WindowOperatorTestHarness, records, timestamps: bool, values=None) -> list:
    for i, (key, ts) in enumerate(records):
        h.process_element(key, ts if timestamps else None, 1 if values is None else values[i])
    return sorted((r.key, r.value, r.timestamp) for r in h.fired())


def test_EvictingWindowOperatorTest_testTimeEvictorNoTimestamp():
    """TimeEvictor.of(2 s, evict after) on records without timestamps evicts nothing: the sums
    grow with every firing (2, 2, 4; then 4, 6), all at Long.MAX (the global window)."""
    h = _harness(TimeEvictor(2000), after=True)
    assert _feed(h, FIRST, timestamps=False) == [
        ("key1", 2, MAX_TIMESTAMP), ("key2", 2, MAX_TIMESTAMP), ("key2", 4, MAX_TIMESTAMP)]
    h.clear_output()
    assert _feed(h, SECOND, timestamps=False) == [("key1", 4, MAX_TIMESTAMP), ("key2", 6, MAX_TIMESTAMP)]
    assert h.state_size() == (2, 10)     # nothing was ever evicted


def test_EvictingWindowOperatorTest_testTimeEvictorEvictAfter():
    """The same input with timestamps (Flink's testTimeEvictorEvictAfter): now the evictor
    keeps only the last 2 s after each firing, so the sums are 2, 2, 3; then 4, 5."""
    h = _harness(TimeEvictor(2000), after=True)
    assert _feed(h, FIRST, timestamps=True) == [
        ("key1", 2, MAX_TIMESTAMP), ("key2", 2, MAX_TIMESTAMP), ("key2", 3, MAX_TIMESTAMP)]
    h.clear_output()
    assert _feed(h, SECOND, timestamps=True) == [("key1", 4, MAX_TIMESTAMP), ("key2", 5, MAX_TIMESTAMP)]


def test_a_later_element_without_a_timestamp_fails_as_in_flink():
    """First element with a timestamp, a later one without: getMaxTimestamp reads it and
    Flink's TimestampedValue.getTimestamp throws IllegalStateException."""
    h = _harness(TimeEvictor(2000), after=False)
    h.process_element("k", 5, 1)
    with pytest.raises(RuntimeError, match="Record has no timestamp"):
        h.process_element("k", None, 1)
    # the other way round the evictor returns at once, whatever follows
    h = _harness(TimeEvictor(2000), after=False)
    h.process_element("k", None, 1)
    h.process_element("k", 5, 1)
    assert [r.value for r in h.fired()] == [2]


def test_time_evictor_reads_only_the_first_element_for_has_timestamp():
    els = [TimestampedValue(1, MIN_TIMESTAMP, None, False), TimestampedValue(2, 10)]
    TimeEvictor(0).evict(els, None, None)
    assert [e.value for e in els] == [1, 2]
    els = [TimestampedValue(1, 3), TimestampedValue(2, 10)]
    TimeEvictor(1).evict(els, None, None)       # cutoff 10 - 1: only 10 stays
    assert [e.value for e in els] == [2]
    assert "assignTimestampsAndWatermarks" in NO_TIMESTAMP_MESSAGE


def test_EvictingWindowOperatorTest_testCountTrigger_without_timestamps():
    """CountEvictor.of(4) before the function (Flink's testCountTrigger, whose global window
    ignores the timestamps): the same sums with and without timestamps."""
    for timestamps in (True, False):
        h = _harness(CountEvictor(4), after=False)
        assert _feed(h, COUNT_FIRST, timestamps) == [
            ("key1", 2, MAX_TIMESTAMP), ("key2", 2, MAX_TIMESTAMP), ("key2", 4, MAX_TIMESTAMP)]
        h.clear_output()
        assert _feed(h, COUNT_SECOND, timestamps) == [("key1", 4, MAX_TIMESTAMP), ("key2", 4, MAX_TIMESTAMP)]


def test_EvictingWindowOperatorTest_testDeltaEvictorEvictAfter_without_timestamps():
    """DeltaEvictor.of(2, new.f1 - old.f1, evict after) (Flink's testDeltaEvictorEvictAfter):
    values decide, timestamps do not; the sums are 5, 15, 2; then 16, 22 either way."""
    values = [1, 4, 1, 1, 5, 5, 6, 1]
    for timestamps in (True, False):
        ev = DeltaEvictor(2, lambda element, last: last - element)
        h = _harness(ev, after=True)
        # Flink's sum reducer adds the f1 values; here the values are the f1 values
        assert _feed(h, COUNT_FIRST, timestamps, values) == [
            ("key1", 2, MAX_TIMESTAMP), ("key2", 5, MAX_TIMESTAMP), ("key2", 15, MAX_TIMESTAMP)]
        h.clear_output()
        assert _feed(h, COUNT_SECOND, timestamps, [9, 10]) == [("key1", 16, MAX_TIMESTAMP), ("key2", 22, MAX_TIMESTAMP)]
