"""Java ``long`` arithmetic at the int64 edges, rule by rule (Flink 2.3's code: the wrapping
sums and differences of ``TimeWindow``, the assigners, ``ContinuousEventTimeTrigger``,
``TimeEvictor`` and ``WindowOperator``). The 160 ``i64_*`` window fixtures (real Flink's
outputs, ``tests/fixtures/window/gen_int64.py``) check them end to end; this file names them.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.engine.flink import (
    Count,
    EventTimeSessionWindows,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
    build_operator,
)
from toolkit.engine.flink.evictors import TimeEvictor, TimestampedValue
from toolkit.engine.flink.operator import WindowOperator, cleanup_time, is_element_late
from toolkit.engine.flink.triggers import ContinuousEventTimeTrigger
from toolkit.engine.flink.windows import TimeWindow, get_window_start_with_offset, window_end, wrap_long

MAX = 2**63 - 1
MIN = -(2**63)


def test_window_start_wraps_like_java() -> None:
    # within one window of Long.MIN the start wraps to near Long.MAX (Java: ts - (rem + size))
    # Java: rem = (MIN + 1) % 10 = -7 < 0, start = ts - (rem + 10) = MIN - 2, wrapped: MAX - 1
    assert get_window_start_with_offset(MIN + 1, 0, 10) == MAX - 1
    # ts - offset past Long.MAX wraps before the remainder is taken
    assert get_window_start_with_offset(MAX, -1, 10) == MAX - (wrap_long(MAX + 1) % 10)
    # in range: the plain floor rule
    assert get_window_start_with_offset(-13, 0, 5) == -15
    assert get_window_start_with_offset(7, 3, 5) == 3


def test_window_end_wraps_and_max_timestamp_of_a_min_end_is_max() -> None:
    assert window_end(MAX - 2, 10) == MIN + 7
    w = TimeWindow(2**63 - 2**40, window_end(2**63 - 2**40, 2**40))
    assert w.end == MIN and w.max_timestamp() == MAX
    assert TimeWindow(MAX - 2, MIN + 7).max_timestamp() == MIN + 6


def test_tumbling_window_past_long_max() -> None:
    (w,) = TumblingEventTimeWindows(10).assign_windows(None, MAX - 3, 0)
    assert w.start == MAX - 7 and w.end == wrap_long(MAX + 3) and w.max_timestamp() < 0


def test_sliding_lower_bound_below_long_min_and_the_endless_loop() -> None:
    ws = SlidingEventTimeWindows(10, 5).assign_windows(None, MIN + 1, 0)
    # Flink: the start wraps to MAX - 1 and the lower bound ts - size to MAX - 8; its loop
    # then gives two windows whose ends wrap again
    assert [(w.start, w.end) for w in ws] == [(MAX - 1, MIN + 8), (MAX - 6, MIN + 3)]
    big = SlidingEventTimeWindows(MAX, MAX // 2, -1)
    with pytest.raises(RuntimeError, match="never ends"):
        big.assign_windows(None, -1, 0)


def test_session_gap_past_long_max() -> None:
    (w,) = EventTimeSessionWindows(1000).assign_windows(None, MAX - 10, 0)
    assert w.start == MAX - 10 and w.end == wrap_long(MAX + 990)


def test_cleanup_time_and_late_record_wrap() -> None:
    assert cleanup_time(MAX - 5, 10) == MAX            # overflow: no cleanup timer
    assert cleanup_time(5, 10) == 15
    assert is_element_late(MAX - 1, 10, MIN + 100)      # ts + lateness wraps negative: late
    assert not is_element_late(5, 10, 14)


def test_continuous_trigger_next_fire_time_wraps() -> None:
    class Ctx:
        current_watermark = MIN

        def __init__(self):
            self.state: dict = {}
            self.timers: list = []

        def get_state(self, name, default=None):
            return self.state.get(name, default)

        def set_state(self, name, value):
            self.state[name] = value

        def clear_state(self, name):
            self.state.pop(name, None)

        def register_event_time_timer(self, t):
            self.timers.append(t)

    ctx = Ctx()
    t = ContinuousEventTimeTrigger(2**40)
    w = TimeWindow(0, MAX)
    t.on_element(None, MAX - 5, w, ctx)
    # ts - ts % i + i wraps to Long.MIN: the next fire time is Long.MIN (Flink: min(wrapped, max_ts))
    assert ctx.state["fire_time"] == wrap_long(MAX - 5 - (MAX - 5) % 2**40 + 2**40) == MIN


def test_time_evictor_cutoff_wraps() -> None:
    els = [TimestampedValue(1, MIN + 1), TimestampedValue(2, MIN + 2)]
    TimeEvictor(10).evict(els, None, None)
    # max - keep wraps to near Long.MAX: every element is <= the cutoff and is evicted
    assert els == []
    els = [TimestampedValue(1, 5), TimestampedValue(2, 9)]
    TimeEvictor(3).evict(els, None, None)
    assert [e.value for e in els] == [2]


@pytest.mark.parametrize("assigner", [TumblingEventTimeWindows(10), TumblingEventTimeWindows(10, 3),
                                      SlidingEventTimeWindows(10, 5), EventTimeSessionWindows(7)])
def test_fast_operators_hand_edge_records_to_the_general_path(assigner) -> None:
    """The specialised operators give the general path's output for edge timestamps too."""
    stream = [("a", 5), ("b", MAX - 2), ("a", MAX), ("a", MIN + 1), ("b", -1), ("a", 12), ("b", MAX - 1)]
    outs = []
    for make in (lambda: build_operator(assigner, function=Count()),
                 lambda: WindowOperator(assigner, function=Count())):
        op = make()
        got = []
        for i, (k, ts) in enumerate(stream):
            op.process_element(k, ts, 1)
            if i == 3:
                op.process_watermark(MIN + 50)
            if i == 5:
                op.process_watermark(10)
            got += op.drain()
        op.end_input()
        got += op.drain()
        outs.append([(r.key, getattr(r.window, "start", None), getattr(r.window, "end", None), r.value)
                     for r in got if hasattr(r, "window")])
    assert type(build_operator(assigner, function=Count())) is not WindowOperator
    assert outs[0] == outs[1] and outs[0]


SENT = Path(__file__).resolve().parent.parent / "fixtures" / "replay"
SENT_CASES = sorted(p.stem for p in SENT.glob("sent*.csv"))


@pytest.mark.parametrize("case", SENT_CASES)
def test_a_log_with_one_sentinel_timestamp_replays_like_flink(case: str) -> None:
    """Long.MAX, Long.MIN + 1 (alone in its partition), year 9999, -1: the replay's interleaving
    run through real Flink's window job gives exactly the replay's output, and every record has
    one fate (``gen_sentinels.py``)."""
    import collections
    import json
    import warnings

    from toolkit.log import load_log
    from toolkit.replays import replay
    from toolkit.semantics.flink.export import oracle_lines

    settings = json.loads((SENT / f"{case}.settings.json").read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the loader warns about the far-away time, as it should
        log = load_log(SENT / f"{case}.csv")
    result = replay(log, **settings)
    assert result.scenario_lines() == (SENT / f"{case}.jsonl").read_text().splitlines()
    expected = [json.loads(l) for l in (SENT / f"{case}.out.jsonl").read_text().splitlines() if l.strip()]

    def per_key(lines):
        g = collections.defaultdict(list)
        for line in lines:
            g[line["key"]].append(json.dumps(line, sort_keys=True))
        return dict(g)

    assert per_key(oracle_lines(result)) == per_key(expected)
    assert len(result.fates) == len(result.fates["row"].unique()) == len(log.table)


def test_a_long_min_sentinel_does_not_wrap_its_partition_watermark() -> None:
    """Flink's bounded generator starts its max at Long.MIN + delay + 1: a record at Long.MIN + 1
    leaves the watermark at Long.MIN (it used to wrap round to near Long.MAX)."""
    import numpy as np

    from toolkit.engine.flink.pipeline import watermark_timeline
    from toolkit.engine.flink.watermarks import BoundedOutOfOrderness

    ts = np.array([1000, MIN + 1, 1200], dtype=np.int64)
    arr = np.array([1100, 1150, 1300], dtype=np.int64)
    part = np.array([0, 1, 0], dtype=np.int64)
    fast = watermark_timeline(ts, arr, part, BoundedOutOfOrderness(200), interval=100)
    general = watermark_timeline(ts, arr, part, BoundedOutOfOrderness(200), interval=100, force_general=True)
    assert fast.watermark.tolist() == general.watermark.tolist() == []


# --- the end-of-input hang (ContinuousProcessingTimeTrigger on event-time windows) ---------


def test_continuous_processing_time_trigger_on_event_time_windows_finishes() -> None:
    """9 records, event-time windows whose ends fall behind the processing time: the timer at
    the window's max timestamp FIREs once and registers nothing more (Flink 2.3's
    ``onProcessingTime``: ``if (time == window.maxTimestamp()) return FIRE``), so the replay
    ends; pending processing-time timers never fire at the end (Flink quiesces the service)."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent('''
        import pandas as pd, toolkit
        rows = [(1000 + 300 * i, 1100 + 300 * i + (i % 3) * 50, "ab"[i % 2], 0, 1) for i in range(9)]
        log = toolkit.load_log(pd.DataFrame(rows, columns=["event_time", "arrival_time", "key", "partition", "value"]))
        r = toolkit.replay(log, window="tumbling:1s", trigger="continuous_processing:500ms", delay="0", interval="200ms")
        e = r.emissions
        print(sorted(zip(e.key.tolist(), e.window_start.astype(int).tolist(), e.emit_time.astype(int).tolist())))
        print({k: int(v) for k, v in r.fates.fate.value_counts().items()})
    ''')
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    lines = out.splitlines()
    # window [1000, 2000): every 500 ms of processing time, then once at its max timestamp 1999
    # (the clock passes each timer's own time, as a running job's does); window [3000, 4000)
    # fires at 3500, and its timer at 3999 is still pending when the input ends (last tick
    # 3700): never fired, the last records are dropped
    assert eval(lines[0]) == [("a", 1000, 1500), ("a", 1000, 1999), ("a", 2000, 2500), ("a", 2000, 2999),
                              ("b", 1000, 1500), ("b", 1000, 1999), ("b", 2000, 2999), ("b", 3000, 3500)]
    assert sum(eval(lines[1]).values()) == 9


def test_continuous_processing_time_trigger_rule_at_the_max_timestamp() -> None:
    from toolkit.engine.flink.triggers import FIRE, ContinuousProcessingTimeTrigger

    class Ctx:
        current_processing_time = 5000

        def __init__(self):
            self.state: dict = {}
            self.timers: list = []

        def get_state(self, name, default=None):
            return self.state.get(name, default)

        def set_state(self, name, value):
            self.state[name] = value

        def clear_state(self, name):
            self.state.pop(name, None)

        def register_processing_time_timer(self, t):
            self.timers.append(t)

    ctx = Ctx()
    t = ContinuousProcessingTimeTrigger(500)
    w = TimeWindow(1000, 2000)
    t.on_element(None, 1500, w, ctx)
    assert ctx.timers == [1999]                       # min(5000 - 0 + 500, 1999): the cap
    assert t.on_processing_time(1999, w, ctx) == FIRE
    assert ctx.timers == [1999]                       # nothing re-registered
