"""The explorer's controls, generated from the engines' declarations: every setting reaches the
replay (stagger, a per-record session gap column, downstream stages, Flink's trigger, evictor,
function, accumulation and strategy), the engine list is the registry with each engine's declared
settings, a typed setting's parse error shows under its box, and no description is cut."""
from __future__ import annotations

import ipywidgets as w
import numpy as np
import pandas as pd
import pytest

import toolkit
import toolkit.semantics as engines
from toolkit.apps import controls as ctl, explore as ex
from toolkit.settings import SettingError, semantics_names


@pytest.fixture(scope="module")
def log():
    n = 400
    rng = np.random.default_rng(3)
    arrival = 1_700_000_000_123 + np.arange(n, dtype=np.int64) * 50
    event = arrival - rng.integers(0, 800, n)
    frame = pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": ["a", "b"] * (n // 2),
                          "partition": np.arange(n) % 2, "value": np.ones(n, dtype=np.int64),
                          "gap_ms": rng.integers(200, 3000, n), "label": ["x"] * n})
    return toolkit.load_log(frame, keep=["gap_ms", "label"])


def _shown(app):
    return {name for name, c in app.controls.items() if c.layout.display != "none"}


def test_stagger_reaches_the_replay_for_tumbling_windows_only(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", window="tumbling:1s")
    assert "stagger" in _shown(app) and app.controls["stagger"].options[:3] == ("aligned", "natural", "random")
    app.controls["stagger"].value = "natural"
    assert app.error is None and app.result.setting.stagger == "natural"
    want = toolkit.replay(log, window="tumbling:1s", delay="500ms", stagger="natural")
    assert app.result.summary()["firings"] == want.summary()["firings"]
    app.controls["window"].value = "session"
    assert "stagger" not in _shown(app) and "stagger" not in app.settings()
    assert app.error is None and app.result.setting.stagger == "aligned"


def test_dynamic_session_gap_column_is_picked_from_the_numeric_columns(log):
    assert ex.gap_columns(log) == ["value", "gap_ms"]  # not the times, partition, row or a text column
    app = toolkit.explore(log, debounce_ms=0, renderer="svg")
    assert "dynamic_session" in app.controls["window"].options and "gap_column" not in _shown(app)
    app.controls["window"].value = "dynamic_session"
    assert "gap_column" in _shown(app) and "size" not in _shown(app)
    app.controls["gap_column"].value = "gap_ms"
    assert app.error is None and str(app.result.setting.window) == "dynamic_session:gap_ms"
    want = toolkit.replay(log, window="dynamic_session:gap_ms", delay="500ms")
    assert app.result.summary() == want.summary()
    start = toolkit.explore(log, debounce_ms=0, renderer="svg", window="dynamic_session:gap_ms")
    assert start.controls["gap_column"].value == "gap_ms" and start.error is None
    with pytest.raises(SettingError, match="no numeric column 'label'"):
        toolkit.explore(log, window="dynamic_session:label")


def test_a_log_without_gap_columns_offers_no_dynamic_session():
    plain = toolkit.EventLog.from_arrays([0, 10, 20], [0, 10, 20], key="k")
    assert ex.gap_columns(plain) == ["value"] or "dynamic_session" not in toolkit.explore(
        plain, debounce_ms=0, renderer="svg").controls["window"].options


def test_downstream_stages_reach_the_replay_and_a_bad_one_is_said(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg")
    assert "stages" in _shown(app)
    app.controls["stages"].value = "window=tumbling:5s lateness=1s | window=tumbling:10s"
    assert app.error is None and len(app.result.setting.stages) == 2
    assert str(app.result.setting.stages[0]) == "window=tumbling:5s;lateness=1s"
    app.controls["stages"].value = "window=tumbling:5s latenes=1s"
    assert app.error is not None and "stages" in app.error and "latenes" in app.error
    assert len(app.result.setting.stages) == 2  # the last good replay stays
    app.controls["stages"].value = ""
    assert app.error is None and app.result.setting.stages == ()


def test_the_engine_control_lists_the_registry_and_each_engine_shows_what_it_declares(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg")
    assert [v for _, v in app.controls["semantics"].options] == list(semantics_names())
    assert [t for t, _ in app.controls["semantics"].options] == [e.title for e in engines.all_semantics()]
    for engine in engines.all_semantics():
        app.controls["semantics"].value = engine.name
        declared = (set(engine.shared) | set(engine.option_names())) - {"window"}
        for_strategy = {n for n in declared if app.options[n].read_when}  # hidden: strategy bounded
        settings = _shown(app) & set(app.options)
        assert settings == declared - for_strategy, engine.name  # a tumbling window: stagger applies
        assert {p for p, name in app.pickers.items() if name in declared} <= _shown(app)
        assert app.error is None, (engine.name, app.error)
    assert "delay" not in ctl.reads(engines.get("kafka_streams"), app.options)  # Kafka Streams has no delay


def test_each_declared_control_gets_its_widget(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg")
    kinds = {"choice": w.Dropdown, "int": (w.BoundedIntText, w.Dropdown), "bool": w.Checkbox,
             "text": (w.Text, w.Textarea), "duration": (w.SelectionSlider, w.Text)}
    for name, o in app.options.items():
        assert isinstance(app.controls[name], kinds[o.control]), name
        if o.control == "choice":
            assert set(o.choices) <= {v for v in app.controls[name].options}, name
        assert app.controls[name].tooltip == o.help
    assert app.controls["lateness"].options == tuple(ctl.LATENESS) and app.controls["idleness"].value == "off"
    assert isinstance(app.controls["retention"], w.Text)  # a duration without presets: typed, parsed
    assert app.controls["tasks"].options[0] == ("as partitions", None)


def test_flink_shows_its_window_operator_and_watermark_strategy(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", delay="200ms")
    assert {"strategy", "trigger", "trigger_preset", "evictor", "accumulation", "function", "split_discovery",
            "partitions_as_sources"} <= _shown(app)
    base = app.result.summary()

    app.controls["trigger_preset"].value = "count:10"  # the picker writes the box, which replays
    assert app.controls["trigger"].value == "count:10" and app.error is None
    assert str(app.result.setting.trigger) == "count:10" and app.settings()["trigger"] == "count:10"
    want = toolkit.replay(log, window="tumbling:1s", delay="200ms", trigger="count:10")
    assert app.result.summary() == want.summary() and want.summary()["firings"] != base["firings"]

    app.controls["trigger"].value = "continuous:500ms"  # typed: the picker turns to custom
    assert app.controls["trigger_preset"].value == "custom" and str(app.result.setting.trigger) == "continuous:500ms"
    app.controls["trigger"].value = "cont:2"  # a bad one: the parser's error under the box, naming trigger
    said = app.errors["trigger"]
    assert "trigger" in said.value and "unknown trigger" in said.value and said.layout.display != "none"
    assert app.error is not None and str(app.result.setting.trigger) == "continuous:500ms"
    app.controls["trigger_preset"].value = "default"
    assert app.error is None and not said.value and said.layout.display == "none"

    app.controls["evictor"].value = "count:2"
    app.controls["function"].value = "values"
    app.controls["accumulation"].value = "discarding"
    app.controls["strategy"].value = "legacy"
    s = app.result.setting
    assert (str(s.evictor), s.function, s.accumulation, s.strategy) == ("count:2", "values", "discarding", "legacy")
    want = toolkit.replay(log, window="tumbling:1s", delay="200ms", evictor="count:2", function="values",
                          accumulation="discarding", strategy="legacy")
    assert app.result.summary() == want.summary() and app.error is None
    app.controls["partitions_as_sources"].value = False
    assert app.result.setting.partitions_as_sources is False and app.error is None


def test_a_strategy_shows_its_own_parameters_and_they_reach_the_replay(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", delay="200ms")
    params = {"step", "marker", "quantile", "quantile_window", "min_delay", "max_delay"}
    assert not params & _shown(app)  # bounded: none of them
    app.controls["strategy"].value = "adaptive"
    assert _shown(app) & params == {"quantile", "quantile_window", "min_delay", "max_delay"}
    app.controls["quantile"].value = "0.9"
    app.controls["max_delay"].value = "1s"
    s = app.result.setting
    assert (s.strategy, s.quantile, s.max_delay) == ("adaptive", 0.9, 1000) and app.error is None
    want = toolkit.replay(log, window="tumbling:1s", delay="200ms", strategy="adaptive", quantile=0.9, max_delay="1s")
    assert app.result.summary() == want.summary()
    assert app.settings()["quantile"] == "0.9" and "step" not in app.settings()
    app.controls["quantile"].value = "2"  # out of range: the setting's error, naming quantile
    assert "quantile" in str(app.error) and app.result.setting.quantile == 0.9
    app.controls["strategy"].value = "idle_advance"
    assert _shown(app) & params == {"step"} and "quantile" not in app.settings()
    app.controls["step"].value = "500ms"
    assert app.result.setting.step == 500 and app.error is None


def test_a_bad_starting_setting_or_an_unknown_one_is_refused_naming_it(log):
    with pytest.raises(SettingError, match="trigger"):
        toolkit.explore(log, trigger="cont:2")
    with pytest.raises(SettingError) as err:
        toolkit.explore(log, latenes="1s")
    assert err.value.setting == "latenes" and "lateness" in str(err.value)
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", trigger="purging:count:10", evictor="time:1s",
                          function="values", stagger="random:7", parallelism=2)
    assert app.controls["trigger_preset"].value == "purging:count:10"
    assert app.controls["stagger"].value == "random:7" and app.controls["source_parallelism"].value == 2
    assert app.error is None and app.result.setting.stagger == "random:7"


def test_no_description_is_cut(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg")
    width = app.controls["semantics"].style.description_width
    assert width.endswith("ch")
    for c in app.controls.values():
        assert c.style.description_width == width and len(c.description) + 1 <= int(width[:-2])
        assert c.layout.width == f"{ex.CONTROL_WIDTH_PX}px"
    for picker in [*app.pickers, "semantics"]:  # an entry shows whole in its box (26 characters)
        assert max(len(text) for text, _ in app.controls[picker].options) <= 26, picker
    sweep = toolkit.explore_sweep(pd.DataFrame({"delay_ms": [0, 1000] * 2, "lateness_ms": [0, 0, 1000, 1000],
                                                "source_parallelism": [1, 1, 2, 2], "dropped": [3, 2, 1, 0],
                                                "completeness_first": [0.9, 0.95, 0.97, 0.99],
                                                "latency_p99_ms": [1000, 2000, 1000, 2000]}), renderer="svg")
    sw = sweep.controls["x"].style.description_width
    for c in list(sweep.controls.values()) + list(sweep.filters.values()):
        assert len(c.description) + 1 <= int(c.style.description_width[:-2]) == int(sw[:-2])
        assert c.layout.width == f"{ex.CONTROL_WIDTH_PX}px"
