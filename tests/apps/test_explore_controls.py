"""The explorer's controls: every setting the explorer has a control for reaches the replay
(stagger, a per-record session gap column, downstream stages), the engine list is
``toolkit.settings.semantics_names()`` with each engine's own controls, and no description is cut."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.apps import explore as ex
from toolkit.settings import semantics_names, SettingError


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


def test_the_engine_control_lists_settings_semantics_with_each_engines_own_controls(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg")
    assert [v for _, v in app.controls["semantics"].options] == list(semantics_names())
    every = set().union(*ex.ENGINE_CONTROLS.values())
    for sem in semantics_names():
        app.controls["semantics"].value = sem
        own = set(ex.engine_controls(sem, list(app.controls)))
        assert own <= _shown(app) and not (every - own) & _shown(app), sem
    assert ex.engine_controls("spark", list(app.controls)) == (
        "trigger_interval", "output_mode", "multiple_watermark_policy")
    assert ex.engine_controls("kafka_streams", list(app.controls)) == ("grace", "emit", "tasks")


def test_an_engine_the_table_does_not_list_gets_the_controls_its_settings_accept(monkeypatch, log):
    monkeypatch.delitem(ex.ENGINE_CONTROLS, "spark")
    got = ex.engine_controls("spark", list(toolkit.explore(log, debounce_ms=0, renderer="svg").controls))
    assert {"trigger_interval", "output_mode", "multiple_watermark_policy"} <= set(got)
    assert not {"lateness", "idleness", "stagger", "stages", "grace", "emit", "tasks", "beam_trigger",
                "timestamp_combiner", "accumulation"} & set(got)
    monkeypatch.delitem(ex.ENGINE_CONTROLS, "beam")
    got = ex.engine_controls("beam", list(toolkit.explore(log, debounce_ms=0, renderer="svg").controls))
    assert {"beam_trigger", "timestamp_combiner", "accumulation", "lateness"} <= set(got)
    assert not {"stagger", "stages", "trigger_interval", "grace", "beam_trigger_preset"} & set(got)


def test_no_description_is_cut(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg")
    width = app.controls["semantics"].style.description_width
    assert width.endswith("ch")
    for c in app.controls.values():
        assert c.style.description_width == width and len(c.description) + 1 <= int(width[:-2])
        assert c.layout.width == f"{ex.CONTROL_WIDTH_PX}px"
    sweep = toolkit.explore_sweep(pd.DataFrame({"delay_ms": [0, 1000] * 2, "lateness_ms": [0, 0, 1000, 1000],
                                                "source_parallelism": [1, 1, 2, 2], "dropped": [3, 2, 1, 0],
                                                "completeness_first": [0.9, 0.95, 0.97, 0.99],
                                                "latency_p99_ms": [1000, 2000, 1000, 2000]}), renderer="svg")
    sw = sweep.controls["x"].style.description_width
    for c in list(sweep.controls.values()) + list(sweep.filters.values()):
        assert len(c.description) + 1 <= int(c.style.description_width[:-2]) == int(sw[:-2])
        assert c.layout.width == f"{ex.CONTROL_WIDTH_PX}px"
