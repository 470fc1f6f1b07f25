"""``WindowConfig`` and ``build_operator``: one configuration, the scenario format both ways,
and the one choice of operator class."""
from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.engine.flink import (
    CollectValues,
    Count,
    CountEvictor,
    CountSum,
    CountTrigger,
    EventTimeSessionWindows,
    EventTimeTrigger,
    GlobalWindows,
    ReduceFunction,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    WindowConfig,
    WindowOperator,
    build_operator,
)
from toolkit.engine.flink.config import (
    assigner_from_dict,
    assigner_to_dict,
    evictor_from_dict,
    evictor_to_dict,
    function_from_name,
    function_to_name,
    trigger_from_dict,
    trigger_to_dict,
)
from toolkit.engine.flink.operator_fast import SessionEventTimeOperator, TimeWindowEventTimeOperator
from toolkit.engine.flink.scenarios import read
from toolkit.engine.flink.scenarios.jsonl import as_bool


def test_window_config_round_trips_every_window_fixture(window_case: Path):
    cfg = read(window_case)[0]
    try:
        wc = WindowConfig.from_dict(cfg)
    except ValueError:
        return                      # a configuration real Flink rejects too
    d = wc.to_dict()
    assert WindowConfig.from_dict(d).to_dict() == d
    assert d["assigner"]["type"] == cfg["assigner"]["type"]
    assert d["allowed_lateness"] == (cfg.get("allowed_lateness") or 0)
    assert d["function"] == (cfg.get("function") or "process")
    assert (d["trigger"] or {}).get("type", "default") == ((cfg.get("trigger") or {}).get("type", "default"))
    ev = None if cfg.get("evictor") is None else {**cfg["evictor"], "after": as_bool(cfg["evictor"].get("after"), False)}
    assert d["evictor"] == ev    # flags as the oracle reads them ("after": "true" is true)


@pytest.mark.parametrize("kwargs, cls", [
    (dict(assigner=TumblingEventTimeWindows(10), function=Count()), TimeWindowEventTimeOperator),
    (dict(assigner=SlidingEventTimeWindows(10, 5)), TimeWindowEventTimeOperator),
    (dict(assigner=EventTimeSessionWindows(5), function=ReduceFunction(max)), SessionEventTimeOperator),
    (dict(assigner=EventTimeSessionWindows(5), accumulation="discarding"), SessionEventTimeOperator),
    (dict(assigner=TumblingEventTimeWindows(10), trigger=EventTimeTrigger(), track_records=True),
     TimeWindowEventTimeOperator),
    (dict(assigner=TumblingEventTimeWindows(10), function=CollectValues()), WindowOperator),
    (dict(assigner=TumblingEventTimeWindows(10), evictor=CountEvictor(2)), WindowOperator),
    (dict(assigner=TumblingEventTimeWindows(10), trigger=CountTrigger(2)), WindowOperator),
    (dict(assigner=TumblingEventTimeWindows(10), accumulation="accumulating_and_retracting"), WindowOperator),
    (dict(assigner=TumblingEventTimeWindows(10), exact_timer_order=True), WindowOperator),
    (dict(assigner=TumblingProcessingTimeWindows(10)), WindowOperator),
    (dict(assigner=GlobalWindows(end_of_stream=True)), WindowOperator),
])
def test_build_operator_picks_the_class(kwargs, cls):
    op = build_operator(**kwargs)
    assert type(op) is cls
    assert type(WindowConfig(**kwargs).build()) is cls
    assert type(WindowOperator(**kwargs)) is WindowOperator      # called directly: the general path


def test_specialised_classes_refuse_a_configuration_they_do_not_implement():
    with pytest.raises(ValueError, match="does not apply"):
        TimeWindowEventTimeOperator(TumblingEventTimeWindows(10), function=CollectValues())
    with pytest.raises(ValueError, match="does not apply"):
        SessionEventTimeOperator(TumblingEventTimeWindows(10))


def test_window_config_is_validated_frozen_and_replaceable():
    with pytest.raises(ValueError, match="cannot be negative"):
        WindowConfig(TumblingEventTimeWindows(10), allowed_lateness=-1)
    with pytest.raises(ValueError, match="accumulation"):
        WindowConfig(TumblingEventTimeWindows(10), accumulation="retracting!")
    wc = WindowConfig(TumblingEventTimeWindows(10))
    with pytest.raises(AttributeError):
        wc.allowed_lateness = 5          # type: ignore[misc]
    assert wc.replace(allowed_lateness=5).allowed_lateness == 5 and wc.allowed_lateness == 0
    with pytest.raises(ValueError, match="cannot be negative"):
        wc.replace(allowed_lateness=-5)


@pytest.mark.parametrize("d", [
    {"type": "tumbling", "size": 10, "offset": 3}, {"type": "sliding", "size": 10, "slide": 5, "offset": 0},
    {"type": "session", "gap": 7}, {"type": "tumbling_processing_time", "size": 10, "offset": 0},
    {"type": "global", "end_of_stream_trigger": True}, {"type": "dynamic_session", "gap_field": "gap"},
])
def test_assigner_dicts_round_trip(d):
    assert assigner_to_dict(assigner_from_dict(d)) == d


def test_parts_round_trip_and_refuse_what_the_format_cannot_express():
    for t in ({"type": "count", "count": 3}, {"type": "purging", "inner": {"type": "event_time"}},
              {"type": "continuous_event_time", "interval": 5}, {"type": "never"}):
        assert trigger_to_dict(trigger_from_dict(t)) == t
    assert trigger_from_dict(None) is None and trigger_from_dict({"type": "default"}) is None
    for e in ({"type": "count", "max": 2, "after": True}, {"type": "time", "keep": 5, "after": False}, None):
        assert evictor_to_dict(evictor_from_dict(e)) == e
    for name in ("count_sum", "count", "sum", "values"):
        assert function_to_name(function_from_name(name)) == name
    for name in ("process", "aggregate", "reduce"):
        assert function_to_name(function_from_name(name, scenario=True)) == name
    assert type(function_from_name(None)) is CountSum
    with pytest.raises(ValueError, match="unknown function"):
        function_from_name("median")
    with pytest.raises(ValueError, match="no name"):
        function_to_name(ReduceFunction(max))

    assert WindowConfig(TumblingEventTimeWindows(10)).to_dict()["function"] == "aggregate"
    assert WindowConfig(TumblingEventTimeWindows(10), function=CollectValues()).to_dict()["function"] == "process"
    with pytest.raises(ValueError, match="no function"):
        WindowConfig(TumblingEventTimeWindows(10), function=Count()).to_dict()

    class MyWindows(TumblingEventTimeWindows):
        pass

    assert assigner_to_dict(MyWindows(10)) is None
    with pytest.raises(ValueError, match="cannot express the assigner"):
        WindowConfig(MyWindows(10)).to_dict()
    with pytest.raises(ValueError, match="expected an integer"):
        assigner_from_dict({"type": "tumbling", "size": 1.5})
    with pytest.raises(ValueError, match="expected an integer"):
        assigner_from_dict({"type": "session", "gap": True})
