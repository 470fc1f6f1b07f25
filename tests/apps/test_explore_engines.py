"""The explorer's engine control: flipping ``semantics`` replays the same log under another
engine's rules and shows only that engine's own controls."""
from __future__ import annotations

import numpy as np
import pytest

import toolkit
from toolkit.apps.explore import ENGINE_CONTROLS
from toolkit.log import EventLog
from toolkit.settings import SEMANTICS, SettingError


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


def test_flipping_the_engine_replays_with_its_rules_and_its_controls(log):
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", window="tumbling:1s", delay="500ms", lateness="1s")
    assert [v for _, v in app.controls["semantics"].options] == list(SEMANTICS)
    flink = app.result.summary()
    assert app.result.setting.semantics == "flink" and app.result.setting.lateness == 1000
    assert set(ENGINE_CONTROLS["flink"]) <= _shown(app) and not set(ENGINE_CONTROLS["spark"]) & _shown(app)

    app.controls["semantics"].value = "spark"
    assert app.error is None and app.result.setting.semantics == "spark"
    assert set(ENGINE_CONTROLS["spark"]) <= _shown(app) and not set(ENGINE_CONTROLS["flink"]) & _shown(app)
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


@pytest.mark.skipif("kafka_streams" not in SEMANTICS, reason="Kafka Streams semantics are not wired on this branch")
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
