"""Bad configurations fail when the configuration is built, with a clear message."""
from __future__ import annotations

import pytest

from toolkit.engine.flink import (
    ContinuousEventTimeTrigger,
    CountEvictor,
    CountTrigger,
    DeltaTrigger,
    DynamicEventTimeSessionWindows,
    EndOfStreamTrigger,
    EventTimeSessionWindows,
    EventTimeTrigger,
    GlobalWindows,
    NeverTrigger,
    ProcessingTimeSessionWindows,
    PurgingTrigger,
    SlidingEventTimeWindows,
    TimeEvictor,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    WindowOperator,
    trigger_from_name,
)
from toolkit.engine.flink.scenarios.window import build_operator


@pytest.mark.parametrize("make, match", [
    (lambda: TumblingEventTimeWindows(0), "size must be > 0"),
    (lambda: TumblingEventTimeWindows(-5), "size must be > 0"),
    (lambda: TumblingProcessingTimeWindows(0), "size must be > 0"),
    (lambda: TumblingEventTimeWindows(10, 10), r"abs\(offset\) < size"),
    (lambda: TumblingEventTimeWindows(10, -11), r"abs\(offset\) < size"),
    (lambda: SlidingEventTimeWindows(0, 5), "size must be > 0"),
    (lambda: SlidingEventTimeWindows(10, 0), "slide must be > 0"),
    (lambda: SlidingEventTimeWindows(10, -2), "slide must be > 0"),
    (lambda: SlidingEventTimeWindows(10, 5, 5), r"abs\(offset\) < slide"),
    (lambda: EventTimeSessionWindows(0), "gap must be > 0"),
    (lambda: ProcessingTimeSessionWindows(-1), "gap must be > 0"),
    (lambda: TumblingEventTimeWindows(2.5), "integer number of milliseconds"),
    (lambda: CountTrigger(2.5), "must be an integer"),
    (lambda: ContinuousEventTimeTrigger(0), "interval must be > 0"),
    (lambda: CountEvictor(True), "must be an integer"),
    (lambda: TimeEvictor("3"), "must be an integer"),
    (lambda: trigger_from_name("eventtime"), "unknown trigger 'eventtime'"),
    (lambda: WindowOperator(TumblingEventTimeWindows(10), allowed_lateness=-1), "allowed lateness cannot be negative"),
    (lambda: WindowOperator(TumblingEventTimeWindows(10), accumulation="retracting"), "accumulation must be one of"),
    (lambda: WindowOperator(EventTimeSessionWindows(5), trigger=DeltaTrigger(1.0, lambda a, b: b - a)),
     "merging window assigner .* cannot be used with a trigger that does not support merging"),
    (lambda: WindowOperator(EventTimeSessionWindows(5), trigger=PurgingTrigger(DeltaTrigger(1.0, lambda a, b: 0))),
     "does not support merging"),
    (lambda: WindowOperator(DynamicEventTimeSessionWindows(lambda v: 3), trigger=NeverTrigger()), "does not support merging"),
    (lambda: WindowOperator(TumblingEventTimeWindows(10), trigger=EndOfStreamTrigger()), "works only with GlobalWindows"),
    (lambda: WindowOperator(GlobalWindows(), trigger=EventTimeTrigger()), "works only with time windows.*ClassCastException"),
    (lambda: WindowOperator(TumblingEventTimeWindows(10), function=lambda x: x), "function must be"),
    (lambda: WindowOperator("tumbling"), "assigner must be a WindowAssigner"),
])
def test_bad_config_raises_at_configuration_time(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("config, match", [
    ({"assigner": {"type": "tumbling", "size": 0}}, "size must be > 0"),
    ({"assigner": {"type": "sliding", "size": 10, "slide": 0}}, "slide must be > 0"),
    ({"assigner": {"type": "session", "gap": -1}}, "gap must be > 0"),
    ({"assigner": {"type": "tumbling", "size": 10}, "allowed_lateness": -5}, "cannot be negative"),
    ({"assigner": {"type": "tumbling", "size": 10}, "trigger": {"type": "eventtime"}}, "unknown trigger type: 'eventtime'"),
    ({"assigner": {"type": "hopping", "size": 10}}, "unknown assigner type"),
    ({"assigner": {"type": "tumbling", "size": 10}, "evictor": {"type": "delta"}}, "unknown evictor type"),
    ({"assigner": {"type": "tumbling", "size": 10}, "function": "sum"}, "unknown function"),
    ({"assigner": {"type": "session", "gap": 3}, "trigger": {"type": "never"}}, "does not support merging"),
    ({"assigner": {"type": "tumbling", "size": 10}, "trigger": {"type": "purging"}}, "needs an inner trigger"),
])
def test_bad_scenario_config_raises(config, match):
    with pytest.raises(ValueError, match=match):
        build_operator(config)


def test_dynamic_gap_must_be_positive_when_the_element_arrives():
    op = WindowOperator(DynamicEventTimeSessionWindows(lambda v: v))
    with pytest.raises(ValueError, match="0 < gap"):
        op.process_element("a", 1, 0)


def test_scenario_command_reports_a_bad_config(tmp_path, capsys):
    from toolkit.cli import main

    p = tmp_path / "bad.jsonl"
    p.write_text('{"assigner":{"type":"tumbling","size":0}}\n{"watermark":1}\n')
    assert main(["scenario", str(p)]) == 2
    assert "size must be > 0" in capsys.readouterr().err
