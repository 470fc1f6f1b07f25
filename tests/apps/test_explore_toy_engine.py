"""An engine registered later gets its explorer controls from its declarations alone: nothing in
``toolkit/apps/explore.py`` names it (issue 24: an engine is two folders)."""
from __future__ import annotations

import ipywidgets as w
import numpy as np
import pytest

import toolkit
import toolkit.semantics as engines
from toolkit.log import EventLog
from toolkit.semantics.flink import Flink
from toolkit.settings import Option, SettingError


def _knob(value, name):
    if str(value) not in ("low", "high"):
        raise SettingError(name, f"{name} {value!r}: choose one of low, high")
    return str(value)


class Toy(Flink):
    """Flink's replay with a narrower surface: a window, a delay, a trigger, and one knob of its own."""

    name = "toy"
    title = "Toy engine"
    shared = ("window", "delay", "trigger")
    options = (Option("knob", "low", _knob, "a setting only the toy engine has", control="choice",
                      choices=("low", "high")),)


@pytest.fixture()
def toy():
    engine = engines.register(Toy())
    try:
        yield engine
    finally:
        engines.unregister(engine.name)


@pytest.fixture(scope="module")
def log():
    n = 200
    rng = np.random.default_rng(5)
    arrival = np.arange(n, dtype=np.int64) * 20
    return EventLog.from_arrays(arrival - rng.integers(0, 400, n), arrival, key=np.array(["a", "b"] * (n // 2), dtype=object),
                                partition=np.arange(n) % 2)


def test_a_registered_engine_gets_its_controls_from_its_declarations(toy, log):
    calls = []

    def replay(lg, **settings):  # the toy's own knob is no field of toolkit's Setting: the replay ignores it
        calls.append(dict(settings))
        settings.pop("knob", None)
        return toolkit.replay(lg, **settings)

    app = toolkit.explore(log, semantics="toy", debounce_ms=0, renderer="svg", replay_fn=replay, knob="high")
    assert ("Toy engine", "toy") in app.controls["semantics"].options
    shown = {n for n, c in app.controls.items() if c.layout.display != "none"}
    assert shown & set(app.options) == {"delay", "trigger", "knob"}
    assert {"window", "size", "trigger_preset"} <= shown and not {"lateness", "stages", "evictor"} & shown
    assert isinstance(app.controls["knob"], w.Dropdown) and app.controls["knob"].options == ("low", "high")
    assert app.error is None and calls[-1] == {"semantics": "toy", "window": "tumbling:1s", "delay": "500ms",
                                               "knob": "high"}
    app.controls["trigger"].value = "count:5"
    assert calls[-1]["trigger"] == "count:5" and app.error is None
    assert str(app.result.setting.trigger) == "count:5" and app.result.setting.semantics == "toy"
    app.controls["semantics"].value = "flink"  # the toy's knob hides and leaves Flink's settings
    assert app.controls["knob"].layout.display == "none" and "knob" not in calls[-1]


def test_an_unregistered_engine_is_gone_from_the_explorer(toy, log):
    engines.unregister(toy.name)
    app = toolkit.explore(log, debounce_ms=0, renderer="svg")
    assert "toy" not in [v for _, v in app.controls["semantics"].options] and "knob" not in app.controls
    engines.register(toy)
