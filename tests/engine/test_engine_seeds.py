"""The seeds' worked examples, through the public API (expected outputs derived by hand
from Flink's rules; the same inputs are also oracle fixtures seed01-seed04)."""
from __future__ import annotations

from toolkit.engine.flink import (
    MAX_TIMESTAMP,
    MIN_TIMESTAMP,
    CollectValues,
    EventTimeSessionWindows,
    TimeWindow,
    TumblingEventTimeWindows,
    WindowOperator,
    WindowOperatorTestHarness,
)


def _summary(output):
    out = []
    for o in output:
        if o.kind == "late":
            out.append(("late", o.key, o.timestamp, o.value, o.watermark))
        else:
            out.append((o.kind, o.key, o.window, o.value, o.pane, o.timing, o.watermark))
    return out


def test_size3_windows_records_14_10_12_watermark_is_event_time_minus_1():
    """Record 14 -> watermark 13 closes every window ending <= 14: [9,12) for record 10 is
    late (max ts 11 <= 13) and goes to the side output; 12 belongs to [12,15) (max ts 14 > 13),
    which is still open. Watermarks 9 and 11 are below 13 and change nothing."""
    h = WindowOperatorTestHarness(WindowOperator(TumblingEventTimeWindows(3), function=CollectValues()))
    for ts in (14, 10, 12):
        h.process_element("a", ts, ts)
        h.process_watermark(ts - 1)
    assert _summary(h.output) == [("late", "a", 10, 10, 13)]
    assert h.operator.current_watermark == 13
    h.end_input()
    assert _summary(h.output)[1:] == [("fire", "a", TimeWindow(12, 15), [14, 12], 0, "at_end", MAX_TIMESTAMP)]
    assert h.results()[0].timestamp == 14


def test_5000ms_windows_boundaries():
    """0 and 4999 are in [0,5000), 5000 starts [5000,10000); watermark 5000 >= 4999 fires the
    first, 9999 fires the second (a window fires when watermark >= end - 1)."""
    h = WindowOperatorTestHarness(WindowOperator(TumblingEventTimeWindows(5000), function=CollectValues()))
    for ts, v in ((0, 1), (4999, 2), (5000, 3)):
        h.process_element("A", ts, v)
    h.process_watermark(4998)
    assert h.output == []
    h.process_watermark(5000)
    h.process_watermark(9998)
    h.process_watermark(9999)
    assert _summary(h.output) == [
        ("fire", "A", TimeWindow(0, 5000), [1, 2], 0, "on_time", 5000),
        ("fire", "A", TimeWindow(5000, 10000), [3], 0, "on_time", 9999),
    ]
    assert h.state_size() == (0, 0)


def test_allowed_lateness_1000_refires_up_to_5998_and_is_late_from_5999():
    """Window [0,5000): max ts 4999, cleanup 5999. Each record accepted while
    4999 <= watermark < 5999 re-fires it at once with all elements (accumulating); at 5999 the
    state is dropped without a firing and later records for it go to the side output."""
    h = WindowOperatorTestHarness(
        WindowOperator(TumblingEventTimeWindows(5000), allowed_lateness=1000, function=CollectValues()))
    h.process_element("A", 1000, 1)
    h.process_element("A", 4000, 2)
    h.process_watermark(5000)
    h.process_element("A", 4500, 3)
    h.process_watermark(5500)
    h.process_element("A", 3000, 4)
    h.process_watermark(5998)
    h.process_element("A", 4100, 5)
    h.process_watermark(5999)
    assert h.state_size() == (0, 0)
    h.process_element("A", 4800, 6)
    h.process_element("A", 5100, 7)
    h.process_watermark(20000)
    w = TimeWindow(0, 5000)
    assert _summary(h.output) == [
        ("fire", "A", w, [1, 2], 0, "on_time", 5000),
        ("fire", "A", w, [1, 2, 3], 1, "late", 5000),
        ("fire", "A", w, [1, 2, 3, 4], 2, "late", 5500),
        ("fire", "A", w, [1, 2, 3, 4, 5], 3, "late", 5998),
        ("late", "A", 4800, 6, 5999),
        ("fire", "A", TimeWindow(5000, 10000), [7], 0, "on_time", 20000),
    ]


def test_late_record_merges_two_sessions():
    """Gap 5, lateness 10: sessions [1,6) and [9,14) both fire at watermark 13. The late record
    5 ([5,10), max ts 9 <= 13 but cleanup 19 > 13, so accepted) bridges them into [1,14),
    whose max ts 13 <= watermark: the event-time trigger fires it at once (a late pane that
    refines both earlier panes)."""
    h = WindowOperatorTestHarness(
        WindowOperator(EventTimeSessionWindows(5), allowed_lateness=10, function=CollectValues()))
    h.process_element("a", 1, 1)
    h.process_element("a", 9, 9)
    h.process_watermark(13)
    h.process_element("a", 5, 5)
    out = _summary(h.output)
    assert out[:2] == [
        ("fire", "a", TimeWindow(1, 6), [1], 0, "on_time", 13),
        ("fire", "a", TimeWindow(9, 14), [9], 0, "on_time", 13),
    ]
    kind, key, window, values, pane, timing, wm = out[2]
    assert (kind, key, window, sorted(values), pane, timing, wm) == ("fire", "a", TimeWindow(1, 14), [1, 5, 9], 1, "late", 13)
    # Flink's element order: the state of the merged window that comes first in Java's HashSet
    # order ([1,6) here), then the other one, then the new record
    assert values == [1, 9, 5]
    assert h.late_records() == []
    h.process_watermark(23)          # cleanup at 13 + 10
    assert h.state_size() == (0, 0)


def test_no_watermark_yet_is_long_min():
    h = WindowOperatorTestHarness(WindowOperator(TumblingEventTimeWindows(10)))
    assert h.operator.current_watermark == MIN_TIMESTAMP
