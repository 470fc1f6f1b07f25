"""``ContinuousEventTimeTrigger`` on ``GlobalWindows``: Flink accepts it (fixtures ``gcet*``
from the window oracle reproduce line for line); under the ``Long.MAX_VALUE`` watermark it
fires every interval up to Long.MAX, which ends only when the grid lands on it."""
from __future__ import annotations

import pytest

from toolkit.engine.flink import GlobalWindows, WindowOperator
from toolkit.engine.flink.triggers import ContinuousEventTimeTrigger, PurgingTrigger, global_end_of_input_firings
from toolkit.engine.flink.windows import MAX_TIMESTAMP


def _op(interval, purging=False):
    t = ContinuousEventTimeTrigger(interval)
    return WindowOperator(GlobalWindows(), trigger=PurgingTrigger(t) if purging else t)


def test_fires_every_interval_up_to_the_watermark():
    op = _op(10)
    op.process_element("a", 3, 1)
    op.process_element("a", 14, 2)
    op.process_watermark(35)   # fire times 10, 20, 30 (first: 3 - 3 % 10 + 10)
    fires = [r for r in op.drain() if r.kind == "fire"]
    assert [(r.watermark, r.value.count) for r in fires] == [(35, 2)] * 3
    assert op.num_event_time_timers() == 2   # the next fire time (40) and Long.MAX


def test_purging_variant_empties_the_window_each_time():
    op = _op(10, purging=True)
    op.process_element("a", 3, 1)
    op.process_watermark(12)
    op.process_element("a", 15, 5)
    op.process_watermark(25)
    assert [r.value.sum for r in op.drain()] == [1, 5]


def test_end_of_input_on_a_grid_that_reaches_long_max_fires_a_bounded_number_of_times():
    interval = MAX_TIMESTAMP // 7        # 7 * interval == Long.MAX (fixture gcet_end00)
    op = _op(interval)
    op.process_element("a", 0, 1)
    op.end_input()
    out = op.drain()
    assert len(out) == 7 and all(r.timing == "at_end" for r in out)


@pytest.mark.parametrize("interval", [5, 2**62])
def test_end_of_input_that_would_never_finish_is_an_error(interval):
    """interval 5 from 0: ~1.8e18 firings; 2**62: the fire times wrap past Long.MAX and
    Flink's loop never ends. The engine refuses instead of hanging."""
    op = _op(interval)
    op.process_element("a", 0, 1)
    with pytest.raises(ValueError, match="final_watermark: false"):
        op.end_input()


def test_end_of_input_firing_count_rule():
    assert global_end_of_input_firings(0, MAX_TIMESTAMP // 7) == 7
    assert global_end_of_input_firings(MAX_TIMESTAMP // 7, MAX_TIMESTAMP // 7) == 6
    assert global_end_of_input_firings(0, 2**62) is None
    assert global_end_of_input_firings(MAX_TIMESTAMP - 3, 1) == 3
