"""toolkit.settings: one vocabulary, validated values, parse/str round trip, grids, aliases."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from toolkit.semantics.flink.window_operator import closed_form, operator_kwargs, scenario_config
from toolkit.settings import (
    CONFIG_COLUMNS,
    EvictorSpec,
    Global,
    Session,
    Setting,
    SettingError,
    Sliding,
    TriggerSpec,
    Tumbling,
    format_duration,
    grid,
    parse_evictor,
    parse_trigger,
    parse_window,
)


def test_one_setting_from_user_spellings():
    s = Setting.parse(window="sliding:10s/5s,1s", trigger="purging:count:5", evictor="count:3,after", lateness="1min",
                      function="values", accumulation="retracting", strategy="idle_advance", delay="500ms",
                      step="100ms", interval="1s", idleness="5s", source_parallelism=2, partitions_as_sources=False,
                      second_window="tumbling:1min", second_lateness="2s")
    assert s.window == Sliding(10_000, 5_000, 1_000)
    assert s.trigger == TriggerSpec("purging", inner=TriggerSpec("count", count=5))
    assert s.evictor == EvictorSpec("count", 3, after=True)
    assert (s.lateness, s.delay, s.step, s.interval, s.idleness, s.second_lateness) == (60_000, 500, 100, 1000, 5000, 2000)
    assert s.strategy_name == "idle_advance(step=100ms)"
    assert Setting.parse(str(s)) == s


def test_defaults_and_equality():
    assert Setting.parse() == Setting() == Setting.parse(window="tumbling:1000ms", delay=0, trigger="event_time")
    assert str(Setting()) == "window=tumbling:1s"
    assert hash(Setting.parse(delay="1s")) == hash(Setting.parse(delay=1000))


def test_old_spellings_are_aliases():
    old = Setting.parse(generator="bounded_out_of_orderness", parallelism=2, idle_timeout="1s", allowed_lateness="2s",
                        max_out_of_orderness=5, assigner="tumbling:1s", accumulation="accumulating_and_retracting")
    new = Setting.parse(strategy="bounded", source_parallelism=2, idleness="1s", lateness="2s", delay=5,
                        window="tumbling:1s", accumulation="retracting")
    assert old == new
    assert Setting.parse(generator="legacy_bounded_out_of_orderness").strategy == "legacy"
    assert Setting.parse(strategy="time_lag", lag="2s").delay == 2000
    with pytest.raises(SettingError, match="either 'parallelism' or 'source_parallelism'"):
        Setting.parse(parallelism=1, source_parallelism=2)


@pytest.mark.parametrize("kwargs, setting, message", [
    ({"dealy": "1s"}, "dealy", "did you mean 'delay'"),
    ({"window": "tumbing:1s"}, "window", "did you mean 'tumbling'"),
    ({"window": "sliding:1s"}, "window", "SIZE/SLIDE"),
    ({"window": "tumbling:1s,1s"}, "window", "offset"),
    ({"accumulation": "retract"}, "accumulation", "did you mean 'retracting'"),
    ({"delay": "100y"}, "delay", "cannot read"),
    ({"delay": "36600d"}, "delay", "absurd"),
    ({"delay": "-1s"}, "delay", "must not be negative"),
    ({"strategy": "magic"}, "strategy", "choose one of bounded"),
    ({"strategy": "bounded", "step": "1s"}, "step", "belongs to the idle_advance strategy"),
    ({"strategy": "idle_advance"}, "step", "needs a step"),
    ({"strategy": "monotonous", "delay": "1s"}, "delay", "no delay"),
    ({"trigger": "count:0"}, "trigger", "positive integer"),
    ({"evictor": "count:-1"}, "evictor", "positive integer"),
    ({"source_parallelism": 0}, "source_parallelism", ">= 1"),
    ({"partitions_as_sources": "no"}, "partitions_as_sources", "True or False"),
    ({"second_lateness": "1s"}, "second_lateness", "needs a second_window"),
    ({"second_window": "hopping:1s"}, "second_window", "second_window 'hopping:1s'"),
    ({"quantile": 2, "strategy": "adaptive"}, "quantile", "within"),
])
def test_errors_name_the_setting(kwargs, setting, message):
    with pytest.raises(SettingError, match=message) as info:
        Setting.parse(**kwargs)
    assert info.value.setting == setting


def test_window_trigger_evictor_spellings_round_trip():
    for text in ("tumbling:1s", "tumbling:1s,-250ms", "sliding:10s/5s", "sliding:1min/10s,1s", "session:30s",
                 "global", "global_eos"):
        assert str(parse_window(text)) == text
    assert parse_window("tumbling:1s+250ms") == Tumbling(1000, 250)  # the sweep's old offset spelling
    assert parse_window({"type": "session", "gap": 5}) == Session(5)
    assert parse_window("global_eos") == Global(True)
    for text in ("event_time", "processing_time", "count:3", "continuous:5s", "continuous_processing:1s",
                 "purging:count:2", "never", "end_of_stream", "default"):
        assert str(parse_trigger(text)) == text
    for text in ("count:3", "time:5s", "time:1s,after"):
        assert str(parse_evictor(text)) == text
    assert parse_evictor("none") is None


@settings(max_examples=200, deadline=None)
@given(st.integers(-10**9, 10**9))
def test_durations_round_trip(ms):
    from toolkit.durations import parse_duration

    assert parse_duration(format_duration(ms), allow_negative=True) == ms


@settings(max_examples=150, deadline=None)
@given(
    window=st.sampled_from(["tumbling:1s", "sliding:10s/5s,1s", "session:30s", "global_eos"]),
    trigger=st.sampled_from([None, "count:3", "purging:continuous:2s", "end_of_stream"]),
    evictor=st.sampled_from([None, "count:2", "time:5s,after"]),
    lateness=st.integers(0, 10**6), delay=st.integers(0, 10**6), interval=st.integers(0, 10**4),
    idleness=st.one_of(st.none(), st.integers(1, 10**6)),
    strategy=st.sampled_from(["bounded", "legacy", "time_lag", "adaptive"]),
    accumulation=st.sampled_from(["accumulating", "discarding", "retracting"]),
    source_parallelism=st.integers(1, 4), partitions_as_sources=st.booleans(),
)
def test_every_setting_round_trips(**kw):
    s = Setting.parse(**kw)
    assert Setting.parse(str(s)) == s
    assert Setting.from_row(s.row()) == s


def test_grid_is_the_product_and_fits_strategies():
    g = grid(window="tumbling:1s", strategy=["bounded", "monotonous", "idle_advance"], delay=[0, "1s"], step="100ms")
    assert [str(s) for s in g] == [
        "window=tumbling:1s", "window=tumbling:1s delay=1s", "window=tumbling:1s strategy=monotonous",
        "window=tumbling:1s strategy=idle_advance step=100ms", "window=tumbling:1s strategy=idle_advance delay=1s step=100ms",
    ]
    assert len(grid(delay=["1s", 1000, "1000ms"])) == 1
    with pytest.raises(SettingError, match="empty list"):
        grid(delay=[])


def test_rows_and_scenario_configs():
    s = Setting.parse(window="tumbling:1s", evictor="count:2", lateness="2s", delay="1s", idleness="3s")
    row = s.row()
    assert list(row) == CONFIG_COLUMNS
    assert (row["window"], row["evictor"], row["lateness_ms"], row["delay_ms"], row["idleness_ms"]) == (
        "tumbling:1s", "count:2", 2000, 1000, 3000)
    assert scenario_config(s) == {"assigner": {"type": "tumbling", "size": 1000, "offset": 0}, "trigger": None,
                                   "evictor": {"type": "count", "max": 2, "after": False}, "allowed_lateness": 2000,
                                   "side_output_late": True, "function": "aggregate"}
    assert not closed_form(s) and closed_form(Setting())


def test_engine_objects_pass_through():
    from toolkit.engine.flink import CountTrigger, TumblingEventTimeWindows

    t = CountTrigger(3)
    s = Setting.parse(window=TumblingEventTimeWindows(1000, 0), trigger=t)
    assert s.window == Tumbling(1000)  # a built-in assigner becomes its value
    assert operator_kwargs(s)["trigger"] is t  # a trigger object is kept as it is
    assert s == Setting.parse(window="tumbling:1s", trigger=t) != Setting.parse(window="tumbling:1s", trigger=CountTrigger(3))
