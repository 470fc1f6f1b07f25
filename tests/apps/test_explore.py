"""The explorers, driven by changing widget values programmatically."""
from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.log import EventLog
from toolkit.viz import _format as fmt

from helpers.fakes import fake_sweep


@pytest.fixture(scope="module")
def log():
    n = 400
    rng = np.random.default_rng(11)
    arrival = np.arange(n, dtype=np.int64) * 10
    event = arrival - rng.integers(0, 300, n)
    event[::50] -= 1500  # a few far-behind records: dropped unless lateness covers them
    return EventLog.from_arrays(event, arrival, key=np.array(["a", "b", "c", "d"] * (n // 4), dtype=object),
                                partition=np.arange(n) % 2)


def _svg(app, name):
    app.tabs.selected_index = app.CHARTS.index(name)  # charts are drawn when their tab is shown
    (entry,) = app.outputs[name].outputs
    return entry["data"]["image/svg+xml"]


def test_explorer_replays_when_controls_change(log):
    app = toolkit.explore(log, debounce_ms=0, delay="0ms", lateness="0ms", window="tumbling:100ms", interval="50ms")
    assert app.runs == 1
    first = app.result.summary()
    assert app.result.settings["delay"] == 0
    assert first["dropped"] > 0
    assert app.drawn == {"records"} and app.outputs["drops"].outputs == ()
    summary0, svg0, drops0 = app.summary.value, _svg(app, "records"), _svg(app, "drops")
    assert app.drawn == {"records", "drops"}
    assert f"{first['dropped']:,}" in summary0 and "delay=0ms" in summary0
    assert f">{first['dropped']:,} ({fmt.share(first['dropped'] / first['records'])})</td>" in summary0
    assert "no idleness" in summary0 and "first-result completeness" in summary0 and "_ms" not in summary0

    app.controls["lateness"].value = "2s"  # every far-behind record is now accepted late
    assert app.runs == 2
    s = app.result.summary()
    assert app.result.settings["lateness"] == 2000
    assert s["dropped"] == 0 and s["late_accepted"] >= 8
    assert app.summary.value != summary0 and "lateness=2s" in app.summary.value
    assert app.drawn == {"drops"}  # the visible tab follows the replay
    assert _svg(app, "drops") != drops0

    app.controls["delay"].value = "500ms"
    assert app.result.settings["delay"] == 500
    assert app.result.summary()["on_time"] > s["on_time"]
    assert _svg(app, "records") != svg0

    app.controls["window"].value = "sliding"
    app.controls["size"].value = "200ms"
    app.controls["slide"].value = "100ms"
    assert app.controls["slide"].layout.display == ""
    assert app.settings()["window"] == "sliding:200ms/100ms"
    assert app.result.settings["window"] == "sliding:200ms/100ms"

    app.controls["window"].value = "session"
    app.controls["size"].value = "50ms"
    assert app.controls["slide"].layout.display == "none"
    assert app.result.settings["window"] == "session:50ms"

    app.controls["source_parallelism"].value = 2
    app.controls["idleness"].value = "1s"
    assert app.result.settings["source_parallelism"] == 2
    assert app.result.settings["idleness"] == 1000
    assert "replayed in" in app.busy.value


def test_explorer_shows_errors_and_keeps_the_last_result(log):
    app = toolkit.explore(log, debounce_ms=0, window="tumbling:100ms")
    good = app.result
    app.controls["size"].value = "-5s"
    assert app.result is good
    assert app.error and "error:" in app.busy.value
    app.controls["size"].value = "200ms"
    assert app.error is None and app.result.settings["window"] == "tumbling:200ms"


def test_explorer_debounces_rapid_changes(log):
    calls = []
    gate = threading.Event()

    def slow_replay(lg, **settings):
        calls.append(settings)
        gate.wait(5)
        return toolkit.replay(lg, **settings)

    gate.set()
    app = toolkit.explore(log, debounce_ms=150, window="tumbling:100ms", delay="0ms", replay_fn=slow_replay)
    assert len(calls) == 1
    for value in ("50ms", "100ms", "200ms", "500ms"):
        app.controls["delay"].value = value
    assert "waiting" in app.busy.value  # the busy indicator shows at once
    assert app.wait(30)
    assert len(calls) == 2, calls  # four quick changes, one replay
    assert calls[-1]["delay"] == "500ms" and app.result.settings["delay"] == 500
    assert "replayed in" in app.busy.value


def test_explore_sweep_changes_chart_with_controls():
    sw = pd.concat([fake_sweep(), fake_sweep().assign(interval_ms=50)], ignore_index=True)
    app = toolkit.explore_sweep(sw)
    assert app.kind == "heatmap"
    spec = app.chart.to_dict()
    assert spec["facet"]["field"] == "setting"  # interval varies: one panel each
    app.controls["metric"].value = "dropped"
    spec = app.chart.to_dict()
    assert spec["title"]["text"] == "dropped by delay and allowed lateness"
    rect = spec["spec"]["layer"][0]
    assert rect["encoding"]["color"]["field"] == "fill"  # the cells' own colours (see sweep_heatmap)
    app.filters["interval_ms"].value = 50
    assert len(app.selection()) == 10
    assert "facet" not in app.chart.to_dict()
    assert "10 of 20 configurations" in app.message.value
    app.controls["x"].value = "latency_p99_ms"
    app.controls["y"].value = "completeness_first"
    assert app.kind == "scatter"
    enc = app.chart.to_dict()["encoding"]
    assert (enc["x"]["field"], enc["y"]["field"], enc["color"]["field"]) == ("latency_p99_ms", "completeness_first",
                                                                             "dropped")
    (entry,) = app.output.outputs
    assert entry["data"]["image/svg+xml"].startswith("<svg")
    assert "best 10 by dropped (lowest first)" in app.table.value
    assert ">250 ms<" in app.table.value and "%<" in app.table.value  # durations and percentages
    app.controls["x"].value = "completeness_first"
    assert "pick two different axes" in app.message.value


def test_apps_display_as_jupyter_widgets(log):
    app = toolkit.explore(log, debounce_ms=0, window="tumbling:100ms")
    bundle = app._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == app.widget.model_id
    sw = toolkit.explore_sweep(fake_sweep())
    assert "application/vnd.jupyter.widget-view+json" in sw._repr_mimebundle_()


def test_explorer_can_show_altair_charts_themselves(log):
    app = toolkit.explore(log, debounce_ms=0, window="tumbling:100ms", renderer="altair")
    (entry,) = app.outputs["records"].outputs
    assert "text/html" in entry["data"] or any("vegalite" in k for k in entry["data"])
    with pytest.raises(ValueError, match="renderer must be 'svg' or 'altair'"):
        toolkit.explore(log, debounce_ms=0, renderer="png")


def test_explorer_on_a_log_without_arrival_times():
    log = EventLog.from_arrays([5, 1, 12, 7, 30, 2])
    app = toolkit.explore(log, debounce_ms=0, window="tumbling:10ms", delay="0ms")
    assert app.error is None and app.controls["interval"].value == "0ms"
    assert app.result.summary()["records"] == 6
    for name in app.CHARTS:
        app.tabs.selected_index = app.CHARTS.index(name)
        (entry,) = app.outputs[name].outputs
        assert entry["data"]["image/svg+xml"].startswith("<svg")


def test_explore_sweep_escapes_strings_in_its_table():
    xss = "<script>alert(1)</script>"
    sw = fake_sweep()
    sw.loc[sw["delay_ms"] >= 250, "window"] = xss  # a varying configuration column holding markup
    app = toolkit.explore_sweep(sw, metric="completeness_first")
    assert "window" in app.table.value and xss not in app.table.value
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in app.table.value
    assert fmt.number(sw["completeness_first"].max()) in app.table.value
