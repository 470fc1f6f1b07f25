"""Advice that keeps what it says (issue 30, item 5): every "a delay (grace, allowed lateness)
of X (now Y)" the toolkit prints, on the sample log and on a year-long log, is replayed with X:
the record it is about is kept, and X is not the current setting Y (X is rounded up to what it
shows, never down: 3 h + 1 ms reads "3 h 1 min", never "3 h")."""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pandas as pd
import pytest

import toolkit
from toolkit.durations import readable, readable_up
from toolkit.semantics import all_semantics
from toolkit.settings import Setting

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample.csv"

#: a compare example: the row, the engine that drops it, its knob, X and Y
EXAMPLE = re.compile(r"Row (?P<row>[\d,]+) .*? and dropped by (?P<engine>[^:]+?): .*\bAn? (?P=engine) "
                     r"(?P<knob>\w+) of (?P<x>[^()]+?) \(now (?P<y>[^()]+?)\) keeps it\.", re.S)
#: a sentence of explain() / drop_causes(): the knob, X and Y
ADVICE = re.compile(r"(?P<knob>delay|allowed lateness) of (?:at least )?(?P<x>[^()]+?) \(now (?P<y>[^()]+?)\)")


def ms(text: str) -> int:
    """``1 h 5 min`` / ``14.27 s`` / ``1,234 d`` as ms (pandas reads it without the spaces)."""
    return round(pd.Timedelta(text.replace(",", "").replace(" ", "")) / pd.Timedelta("1ms"))


@cache
def logs() -> dict:
    """The sample, and a year of departures (tests/helpers/spans.py's model, 8,000 records: the
    same span and silences in a fifth of the time)."""
    from toolkit.log import synth

    return {"sample": toolkit.load_log(str(SAMPLE), max_invalid_fraction=0.01),
            "year": synth.generate("year", 8000, seed=2013, rate=8000 / (365 * 18 * 3600))}


SETTINGS = {"sample": "window=tumbling:1s delay=500ms lateness=1s", "year": "window=tumbling:1h delay=10min"}


@cache
def fates(name: str, setting: Setting) -> pd.Series:
    return toolkit.replay(logs()[name], setting).fates.set_index("row")["fate"]


def test_readable_up_never_shows_less_than_the_value() -> None:
    assert readable_up(3 * 3_600_000 + 1) == "3 h 1 min" and readable(3 * 3_600_000 + 1) == "3 h"
    for v in (1, 999, 1001, 14_266, 59_999, 60_001, 3_864_527, 86_400_001, 10**10 + 7):
        assert ms(readable_up(v)) >= v, v


@pytest.mark.parametrize("name", ["sample", "year"])
def test_every_compare_example_keeps_its_record_with_the_advised_setting(name: str) -> None:
    c = toolkit.compare_engines(logs()[name], SETTINGS[name], semantics="flink,spark,kafka_streams")
    titles = {e.title: e.name for e in all_semantics()}
    found = [m for e in c.examples(3) for m in [EXAMPLE.search(e)] if m]
    assert found, "some engine drops what another keeps"
    for m in found:
        engine, knob, x, y = titles[m["engine"]], m["knob"], ms(m["x"]), ms(m["y"])
        now = c.settings[engine]
        assert x != y and y == getattr(now, knob), m.group(0)
        row = int(m["row"].replace(",", ""))
        assert fates(name, now.replace(**{knob: x}))[row] != "dropped", m.group(0)


@pytest.mark.parametrize("name", ["sample", "year"])
def test_every_explanation_and_drop_cause_keeps_its_records(name: str) -> None:
    log = logs()[name]
    setting = Setting.parse(SETTINGS[name])
    r = toolkit.replay(log, setting)
    dropped = r.fates.loc[r.fates["fate"] == "dropped", "row"]
    d = r.drops(fates=("dropped",)).sort_values("delay_to_keep_ms", ascending=False)
    rows = [int(d["row"].iloc[0]), int(d["row"].iloc[-1])]  # the farthest and the nearest to being kept
    cases = [(text, [row]) for row in rows for text in [r.explain(row).text]]
    cases.append((r.drop_causes()[-1], dropped.tolist()))  # "All N: a delay of X (now Y) ... keeps every one"
    checked = 0
    for text, which in cases:
        for m in ADVICE.finditer(text):
            knob = "delay" if m["knob"] == "delay" else "lateness"
            x, y = ms(m["x"]), ms(m["y"])
            assert x != y and y == getattr(setting, knob), m.group(0)
            kept = fates(name, setting.replace(**{knob: x}))
            assert (kept.loc[which] != "dropped").all(), m.group(0)
            checked += 1
    assert checked >= 3
