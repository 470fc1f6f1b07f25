"""The explorer's engine control: flipping ``semantics`` replays the same log under another
engine's rules and shows only the settings that engine declares (``shared`` and ``options``)."""
from __future__ import annotations

import numpy as np
import pytest

import toolkit
import toolkit.semantics as engines
from toolkit.apps import controls as ctl
from toolkit.log import EventLog
from toolkit.settings import SettingError, semantics_names


@pytest.fixture(scope="module")
def log():
    n = 400
    rng = np.random.default_rng(12)
    arrival = 1_700_000_000_000 + np.arange(n, dtype=np.int64) * 50
    event = arrival - rng.integers(0, 800, n)
    event[::40] -= 3000
    return EventLog.from_arrays(event, arrival, key=np.array(["a", "b"] * (n // 2), dtype=object),
                                partition=np.arange(n) % 2)


def _shown(app):
    return {name for name, c in app.controls.items() if c.layout.display != "none"}


def _reads(app, name):
    """The settings engine ``name`` declares that the explorer has a control for (a strategy's
    own parameters aside: shown with their strategy only)."""
    return {n for n in ctl.reads(engines.get(name), app.options) if not app.options[n].read_when}


def test_flipping_the_engine_replays_with_its_rules_and_its_controls(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", window="tumbling:1s", delay="500ms", lateness="1s")
    assert [v for _, v in app.controls["semantics"].options] == list(semantics_names())
    flink = app.result.summary()
    assert app.result.setting.semantics == "flink" and app.result.setting.lateness == 1000
    flink_only, spark_only = _reads(app, "flink") - _reads(app, "spark"), _reads(app, "spark") - _reads(app, "flink")
    assert _reads(app, "flink") <= _shown(app) and not spark_only & _shown(app)

    app.controls["semantics"].value = "spark"
    assert app.error is None and app.result.setting.semantics == "spark"
    assert _reads(app, "spark") <= _shown(app) and not flink_only & _shown(app)
    assert {"trigger_interval", "output_mode", "multiple_watermark_policy", "partitions_as_sources"} <= _shown(app)
    assert {"window", "size", "delay", "semantics"} <= _shown(app)
    want = toolkit.replay(log, window="tumbling:1s", delay="500ms", semantics="spark", trigger_interval="1s")
    assert app.result.summary()["dropped"] == want.summary()["dropped"] != flink["dropped"]
    assert "semantics=spark" in app.summary.value and "no idleness" not in app.summary.value

    app.controls["trigger_interval"].value = "5s"
    assert app.result.setting.trigger_interval == 5000
    app.controls["output_mode"].value = "update"
    assert app.result.setting.output_mode == "update" and app.error is None
    app.controls["window"].value = "session"  # Spark refuses update mode with sessions: said, last result kept
    assert app.error is not None and "output_mode" in app.error and app.result.setting.window.__class__.__name__ == "Tumbling"
    app.controls["output_mode"].value = "append"
    assert app.error is None and str(app.result.setting.window) == "session:1s"

    app.controls["semantics"].value = "flink"  # back: Flink's own controls kept their values
    assert app.result.setting.semantics == "flink" and app.result.setting.lateness == 1000


def test_explorer_starts_on_any_engine_and_refuses_an_unknown_one(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", semantics="spark", trigger_interval="2s")
    assert app.result.setting.semantics == "spark" and app.result.setting.trigger_interval == 2000
    with pytest.raises(SettingError, match="semantics"):
        toolkit.explore(log, semantics="flonk")


@pytest.mark.skipif("kafka_streams" not in semantics_names(), reason="Kafka Streams semantics are not wired on this branch")
def test_kafka_streams_has_grace_emit_tasks_and_no_delay(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", delay="500ms")
    app.controls["semantics"].value = "kafka_streams"
    assert app.error is None and app.result.setting.semantics == "kafka_streams"
    assert {"grace", "emit", "tasks"} <= _shown(app) and "delay" not in _shown(app) and "lateness" not in _shown(app)
    app.controls["grace"].value = "1s"
    app.controls["tasks"].value = 2
    assert (app.result.setting.grace, app.result.setting.tasks) == (1000, 2)
    app.controls["semantics"].value = "flink"
    assert app.result.setting.delay == 500 and "delay" in _shown(app)


def test_beam_has_its_trigger_combiner_and_accumulation_controls(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", delay="500ms")
    beam_only = {"beam_trigger_preset", "beam_trigger", "timestamp_combiner"}
    assert not beam_only & _shown(app)  # Flink's explorer has none of them
    app.controls["semantics"].value = "beam"
    assert app.error is None and app.result.setting.semantics == "beam"
    assert beam_only | {"lateness", "delay", "accumulation"} <= _shown(app) and "stages" not in _shown(app)
    assert not {"trigger", "trigger_preset", "evictor", "function"} & _shown(app)  # Flink's window operator's
    assert str(app.result.setting.beam_trigger) == "default" and app.result.setting.timestamp_combiner == "end_of_window"

    early = "after_watermark(early=after_count:10,late=after_count:1)"
    app.controls["beam_trigger_preset"].value = early  # the picker writes the text box, which replays
    assert app.controls["beam_trigger"].value == early and app.error is None
    assert str(app.result.setting.beam_trigger) == early
    want = toolkit.replay(log, window="tumbling:1s", delay="500ms", lateness="0ms", semantics="beam", beam_trigger=early)
    assert app.result.summary() == want.summary() and app.result.summary()["early_panes"] > 0

    app.controls["timestamp_combiner"].value = "latest"
    app.controls["accumulation"].value = "discarding"
    s = app.result.setting
    assert (s.timestamp_combiner, s.accumulation) == ("latest", "discarding")
    want = toolkit.replay(log, window="tumbling:1s", delay="500ms", semantics="beam", beam_trigger=early,
                          timestamp_combiner="latest", accumulation="discarding")
    assert app.result.summary() == want.summary()
    assert "beam_trigger=" in app.summary.value and "accumulation=discarding" in app.summary.value

    # a typed trigger: parsed by the settings' parser; the picker follows ("custom" for its own)
    app.controls["beam_trigger"].value = "repeatedly(\n  after_count:3)"  # the box wraps; line breaks are no part of it
    assert app.error is None and str(app.result.setting.beam_trigger) == "repeatedly(after_count:3)"
    assert app.controls["beam_trigger_preset"].value == "custom" and not app.errors["beam_trigger"].value
    app.controls["beam_trigger"].value = "repeatedly(after_count:10)"
    assert app.controls["beam_trigger_preset"].value == "repeatedly(after_count:10)"

    # a bad one is shown under the box, not raised; the last good replay stays
    app.controls["beam_trigger"].value = "after_cont:2"
    said = app.errors["beam_trigger"]
    assert "beam_trigger" in said.value and "after_count" in said.value and said.layout.display != "none"
    assert "the trigger spec above" in app.busy.value  # said once, under the box
    assert app.error is not None and "beam_trigger" in app.error
    assert str(app.result.setting.beam_trigger) == "repeatedly(after_count:10)"
    app.controls["beam_trigger_preset"].value = "default"  # picking a trigger clears the error
    assert app.error is None and not said.value and said.layout.display == "none"
    assert str(app.result.setting.beam_trigger) == "default"

    app.controls["semantics"].value = "flink"  # the Beam controls go away and stay out of Flink's setting
    assert not beam_only & _shown(app) and app.error is None and app.result.setting.semantics == "flink"
    assert app.result.setting.accumulation == "discarding"  # a common setting: one control, Flink's too
    assert app.result.setting.beam_trigger is None


def test_explorer_starts_on_beam_with_a_trigger_and_refuses_a_bad_one(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", semantics="beam", beam_trigger="count:2",
                          timestamp_combiner="earliest")
    s = app.result.setting
    assert (str(s.beam_trigger), s.timestamp_combiner) == ("after_count:2", "earliest")
    assert app.controls["beam_trigger"].value == "after_count:2" and app.controls["beam_trigger_preset"].value == "custom"
    with pytest.raises(SettingError, match="beam_trigger"):
        toolkit.explore(log, semantics="beam", beam_trigger="after_watermark(erly=count:2)")
    with pytest.raises(SettingError, match="timestamp_combiner"):
        toolkit.explore(log, semantics="beam", timestamp_combiner="middle")
