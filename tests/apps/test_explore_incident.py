"""The explorer's incident box (issue 26, item 5): pick or type a bad day and the replay, charts
and summary follow the log of that day; a bad spelling says why under the box; empty is the
recorded log again."""
from __future__ import annotations

from pathlib import Path

import pytest

import toolkit
from toolkit.apps.explore import Explorer, incident_examples
from toolkit.incidents import stall

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def log():
    return toolkit.load_log(ROOT / "data" / "sample.csv", max_invalid_fraction=0.01)


def test_examples_fit_the_log_and_read_back(log):
    examples = incident_examples(log)
    assert [e.split(":")[0] for e in examples] == ["stall", "restart", "silence"]
    assert examples[0].startswith("stall:partition=1,at=101s,duration=61s,")  # the busiest partition, a third in
    for e in examples:
        toolkit.incidents.parse_incident(e).apply(log)  # each applies to this log
    assert incident_examples(toolkit.EventLog.from_arrays(event_time=[0, 1])) == []  # no arrival times


def test_picking_an_incident_replays_that_day(log):
    app = Explorer(log, debounce_ms=0, renderer="svg", incidents=[stall(partition=2, at="1min", duration="2min",
                                                                        drain="200/s")])
    calm = app.result.summary()
    assert app.controls["incident"].options == ("stall:partition=2,at=1min,duration=2min,drain=200/s",)
    app.controls["incident"].value = app.controls["incident"].options[0]
    assert app.wait()
    bad = app.result.summary()
    assert app.log is not app.recorded and bad != calm
    assert bad == toolkit.replay(stall(partition=2, at="1min", duration="2min", drain="200/s").apply(log),
                                 **app.settings()).summary()
    assert "partition 2 stalled at 0:01:00 for 2 min" in app.summary.value
    app.controls["incident"].value = "stall:partition=9,at=1min,duration=1min,drain=10/s"
    assert app.wait()
    assert "partition 9 is not in the log" in app.errors["incident"].value and app.result.summary() == bad
    app.controls["incident"].value = ""
    assert app.wait()
    assert app.log is app.recorded and app.result.summary() == calm and app.errors["incident"].value == ""


def test_a_starting_incident_with_a_bad_spelling_raises_naming_it(log):
    with pytest.raises(toolkit.settings.SettingError, match="stal"):
        Explorer(log, debounce_ms=0, renderer="svg", incident="stal:partition=1")
