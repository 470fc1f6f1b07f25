"""Windows, triggers, evictors, functions, accumulation modes and outputs of the operator."""
from __future__ import annotations

import pytest

from toolkit.engine.flink import (
    MAX_TIMESTAMP,
    AfterWatermark,
    AggregateFunction,
    CollectValues,
    Count,
    CountEvictor,
    CountSum,
    CountSumResult,
    CountTrigger,
    DeltaEvictor,
    DeltaTrigger,
    EventTimeSessionWindows,
    GlobalWindow,
    GlobalWindows,
    LateRecord,
    ProcessWindowFunction,
    ReduceFunction,
    SlidingEventTimeWindows,
    Sum,
    TimeWindow,
    Trigger,
    TriggerResult,
    TumblingEventTimeWindows,
    WindowOperator,
    WindowOperatorTestHarness,
    after_count,
    get_window_start_with_offset,
)
from toolkit.engine.flink.windows import java_hash_set_order, long_to_int_with_bit_mixing

# ------------------------------------------------------------------ windows

@pytest.mark.parametrize("ts, offset, size, start", [
    (0, 0, 5, 0), (4, 0, 5, 0), (5, 0, 5, 5), (-1, 0, 5, -5), (-5, 0, 5, -5), (-6, 0, 5, -10),
    (-13, -2, 7, -16), (3, 2, 7, 2), (1, 2, 7, -5), (10**12 + 7, 3, 1000, 10**12 + 3),
])
def test_window_start_with_offset(ts, offset, size, start):
    assert get_window_start_with_offset(ts, offset, size) == start
    assert start <= ts < start + size


def test_time_window_rules():
    w = TimeWindow(0, 5)
    assert w.max_timestamp() == 4
    assert w.intersects(TimeWindow(5, 10)) and TimeWindow(5, 10).intersects(w)   # touching windows merge
    assert not w.intersects(TimeWindow(6, 10))
    assert w.cover(TimeWindow(3, 9)) == TimeWindow(0, 9)
    assert GlobalWindow() is GlobalWindow.get() and GlobalWindow().max_timestamp() == MAX_TIMESTAMP


def test_java_hash_codes():
    # MathUtils.longToIntWithBitMixing (SplitMix64 finaliser, low 32 bits), checked by hand
    x = 15 & (2**64 - 1)
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) % 2**64
    x = (x ^ (x >> 31)) % 2**32
    assert long_to_int_with_bit_mixing(15) == (x - 2**32 if x >= 2**31 else x)
    # iteration order is by bucket, so it does not depend on insertion order
    ws = [TimeWindow(1, 8), TimeWindow(6, 11), TimeWindow(10, 15), TimeWindow(-40, -27)]
    assert java_hash_set_order(ws) == java_hash_set_order(ws[::-1])


def test_sliding_assigns_latest_start_first():
    assert SlidingEventTimeWindows(10, 3, 1).assign_windows(None, 7, 0) == [
        TimeWindow(7, 17), TimeWindow(4, 14), TimeWindow(1, 11), TimeWindow(-2, 8)]


# ------------------------------------------------------------------ accumulation modes

def _early_late_run(mode):
    op = WindowOperator(TumblingEventTimeWindows(10), trigger=AfterWatermark(early=after_count(2)),
                        allowed_lateness=5, function=CollectValues(), accumulation=mode)
    h = WindowOperatorTestHarness(op)
    h.process_element("a", 1, 1)
    h.process_element("a", 2, 2)      # early firing (every 2 elements)
    h.process_element("a", 3, 3)
    h.process_watermark(9)            # on-time pane
    h.process_element("a", 4, 4)      # late element: fires at once (no late sub-trigger)
    h.process_watermark(14)           # cleanup at 9 + 5
    assert op.state_size() == (0, 0)
    return [(r.kind, r.value, r.pane, r.timing) for r in h.results()]


def test_accumulating_mode():
    assert _early_late_run("accumulating") == [
        ("fire", [1, 2], 0, "early"), ("fire", [1, 2, 3], 1, "on_time"), ("fire", [1, 2, 3, 4], 2, "late")]


def test_discarding_mode():
    assert _early_late_run("discarding") == [
        ("fire", [1, 2], 0, "early"), ("fire", [3], 1, "on_time"), ("fire", [4], 2, "late")]


def test_accumulating_and_retracting_mode():
    assert _early_late_run("accumulating_and_retracting") == [
        ("fire", [1, 2], 0, "early"),
        ("retract", [1, 2], 0, "on_time"), ("fire", [1, 2, 3], 1, "on_time"),
        ("retract", [1, 2, 3], 1, "late"), ("fire", [1, 2, 3, 4], 2, "late")]


def test_retractions_cover_every_merged_session():
    op = WindowOperator(EventTimeSessionWindows(5), allowed_lateness=10, function=Count(),
                        accumulation="accumulating_and_retracting")
    h = WindowOperatorTestHarness(op)
    h.process_element("a", 1, 1)
    h.process_element("a", 9, 1)
    h.process_watermark(13)
    h.process_element("a", 5, 1)      # bridges [1,6) and [9,14)
    got = [(r.kind, r.window, r.value, r.pane) for r in h.results()]
    assert got[:2] == [("fire", TimeWindow(1, 6), 1, 0), ("fire", TimeWindow(9, 14), 1, 0)]
    assert sorted(got[2:4]) == [("retract", TimeWindow(1, 6), 1, 0), ("retract", TimeWindow(9, 14), 1, 0)]
    assert got[4] == ("fire", TimeWindow(1, 14), 3, 1)


# ------------------------------------------------------------------ triggers, evictors, functions

def test_delta_trigger_and_delta_evictor():
    """DeltaTrigger(5): the first element is the reference; fire when value - reference > 5
    (then it becomes the reference): fires at 7 and 13. DeltaEvictor(5) before the function
    drops elements with last - e >= 5."""
    op = WindowOperator(GlobalWindows(), trigger=DeltaTrigger(5, lambda old, new: new - old),
                        evictor=DeltaEvictor(5, lambda e, last: last - e), function=CollectValues())
    h = WindowOperatorTestHarness(op)
    for v in (1, 3, 7, 10, 13):
        h.process_element("k", v, v)
    assert [r.value for r in h.results()] == [[3, 7], [10, 13]]
    assert op.state_size() == (1, 2)


def test_evict_after_the_function_and_record_ids():
    op = WindowOperator(TumblingEventTimeWindows(10), evictor=CountEvictor(1), evict_after=True,
                        allowed_lateness=5, function=CollectValues(), track_records=True)
    h = WindowOperatorTestHarness(op)
    h.process_element("a", 1, 1, record_id="r1")
    h.process_element("a", 2, 2, record_id="r2")
    h.process_watermark(9)
    h.process_element("a", 3, 3, record_id="r3")
    assert [(r.value, r.record_ids) for r in h.results()] == [([1, 2], ["r1", "r2"]), ([2, 3], ["r2", "r3"])]


def test_record_ids_of_incremental_functions_since_creation_or_purge():
    op = WindowOperator(TumblingEventTimeWindows(10), trigger=AfterWatermark(early=after_count(2)),
                        function=Count(), accumulation="discarding", track_records=True)
    h = WindowOperatorTestHarness(op)
    for i in range(3):
        h.process_element("a", i, i)       # ids 0, 1, 2 assigned by the operator
    h.process_watermark(9)
    assert [(r.value, r.record_ids) for r in h.results()] == [(2, [0, 1]), (1, [2])]


def test_functions_reduce_aggregate_and_process_combined():
    class Avg(AggregateFunction):
        def create_accumulator(self):
            return (0, 0)

        def add(self, v, acc):
            return (acc[0] + v, acc[1] + 1)

        def get_result(self, acc):
            return acc[0] / acc[1]

        def merge(self, a, b):
            return (a[0] + b[0], a[1] + b[1])

    tag = ProcessWindowFunction(lambda key, ctx, els: (key, ctx.window.start, ctx.current_watermark, els[0]))
    for fn, expected in [
        (Sum(), 6), (ReduceFunction(max), 3), (Avg(), 2.0), (CountSum(), CountSumResult(3, 6)),
        (Avg(process=tag), ("a", 0, 9, 2.0)), (ReduceFunction(lambda a, b: a + b, process=tag), ("a", 0, 9, 6)),
        (CollectValues(), [1, 2, 3]),
    ]:
        for evictor in (None, CountEvictor(10)):
            h = WindowOperatorTestHarness(WindowOperator(TumblingEventTimeWindows(10), function=fn, evictor=evictor))
            for v in (1, 2, 3):
                h.process_element("a", v, v)
            h.process_watermark(9)
            assert [r.value for r in h.results()] == [expected], (fn, evictor)


def test_user_trigger_by_subclassing():
    class BigValue(Trigger):
        """Fires and purges on a value > 100; otherwise waits for the window's end."""

        def on_element(self, element, timestamp, window, ctx):
            if element > 100:
                return TriggerResult.FIRE_AND_PURGE
            ctx.register_event_time_timer(window.max_timestamp())
            return TriggerResult.CONTINUE

        def on_event_time(self, time, window, ctx):
            return TriggerResult.FIRE

        def clear(self, window, ctx):
            ctx.delete_event_time_timer(window.max_timestamp())

    h = WindowOperatorTestHarness(WindowOperator(TumblingEventTimeWindows(10), trigger=BigValue(), function=CollectValues()))
    for v in (1, 500, 2):
        h.process_element("a", 3, v)
    h.process_watermark(9)
    assert [(r.value, r.timing) for r in h.results()] == [([1, 500], "early"), ([2], "on_time")]


def test_count_trigger_leftovers_are_dropped_by_cleanup():
    op = WindowOperator(TumblingEventTimeWindows(10), trigger=CountTrigger(2), function=CollectValues())
    h = WindowOperatorTestHarness(op)
    for v in (1, 2, 3):
        h.process_element("a", v, v)
    h.process_watermark(9)
    assert [(r.value, r.timing) for r in h.results()] == [([1, 2], "early")]
    assert op.state_size() == (0, 0) and op.num_keyed_state_entries() == 0


# ------------------------------------------------------------------ outputs

def test_late_side_output_and_dropped_counter():
    for side in (True, False):
        op = WindowOperator(TumblingEventTimeWindows(10), side_output_late=side)
        h = WindowOperatorTestHarness(op)
        h.set_processing_time(77)
        h.process_watermark(20)
        h.process_element("a", 5, 1, record_id=9)
        if side:
            assert h.late_records() == [LateRecord("a", 5, 1, 9, 20, 77)] and op.num_late_records_dropped == 0
        else:
            assert h.late_records() == [] and op.num_late_records_dropped == 1


def test_result_fields_and_non_keyed_operator():
    op = WindowOperator(TumblingEventTimeWindows(10), keyed=False)
    h = WindowOperatorTestHarness(op)
    h.set_processing_time(1000)
    h.process_element("a", 1, 2)
    h.process_element("b", 3, 5)
    h.set_processing_time(1200)
    h.process_watermark(12)
    (r,) = h.results()
    assert (r.kind, r.key, r.window, r.timestamp, r.value, r.pane, r.timing, r.watermark, r.processing_time) == (
        "fire", None, TimeWindow(0, 10), 9, CountSumResult(2, 7), 0, "on_time", 12, 1200)
    assert (r.start, r.end, r.max_timestamp) == (0, 10, 9)


def test_cleanup_time_overflow_guard():
    """max_timestamp + lateness overflows: cleanup is MAX_TIMESTAMP, no cleanup timer, the
    window keeps its state and re-fires for any later record."""
    op = WindowOperator(TumblingEventTimeWindows(10), allowed_lateness=MAX_TIMESTAMP, function=Count())
    h = WindowOperatorTestHarness(op)
    h.process_element("a", 1, 1)
    h.process_watermark(10**15)
    h.process_element("a", 2, 1)
    assert [(r.value, r.timing) for r in h.results()] == [(1, "on_time"), (2, "late")]
    assert op.state_size() == (1, 2)


def test_at_end_timing_and_drain():
    op = WindowOperator(SlidingEventTimeWindows(10, 5), function=Count())
    op.process_element("a", 7, 1)
    op.process_watermark(9)
    op.end_input()
    out = op.drain()
    assert [(r.window, r.timing, r.watermark) for r in out] == [
        (TimeWindow(0, 10), "on_time", 9), (TimeWindow(5, 15), "at_end", MAX_TIMESTAMP)]
    assert op.drain() == []


def test_after_watermark_late_firings():
    """late=after_count(2): after the on-time pane, every second late element fires; at the
    cleanup (9 + 10) a leftover late element is dropped without a firing. late=
    after_processing_time(5): the first late element of a pane schedules a firing 5 ms of
    processing time later; the cleanup deletes a pending one."""
    from toolkit.engine.flink import after_processing_time

    op = WindowOperator(TumblingEventTimeWindows(10), trigger=AfterWatermark(late=after_count(2)),
                        allowed_lateness=10, function=CollectValues())
    h = WindowOperatorTestHarness(op)
    h.process_element("a", 1, 1)
    h.process_watermark(9)
    for v in (2, 3, 4):
        h.process_element("a", v, v)
    h.process_watermark(19)
    assert [(r.value, r.pane, r.timing) for r in h.results()] == [([1], 0, "on_time"), ([1, 2, 3], 1, "late")]
    assert op.state_size() == (0, 0)

    op = WindowOperator(TumblingEventTimeWindows(10), trigger=AfterWatermark(late=after_processing_time(5)),
                        allowed_lateness=10, function=CollectValues())
    h = WindowOperatorTestHarness(op)
    h.set_processing_time(0)
    h.process_element("a", 1, 1)
    h.process_watermark(9)
    h.set_processing_time(2)
    h.process_element("a", 2, 2)
    h.set_processing_time(4)
    h.process_element("a", 3, 3)
    h.set_processing_time(7)
    h.set_processing_time(8)
    h.process_element("a", 4, 4)
    h.process_watermark(19)
    h.set_processing_time(20)
    assert [(r.value, r.pane, r.timing, r.processing_time) for r in h.results()] == [
        ([1], 0, "on_time", 0), ([1, 2, 3], 1, "late", 7)]
    assert op.state_size() == (0, 0) and op.num_processing_time_timers() == 0
