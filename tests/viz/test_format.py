"""``toolkit.viz._format``: the one number, duration and HTML-table style of the explorers and the report."""
from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest

from toolkit.viz import _format as fmt

XSS = "<script>alert(1)</script>"


@pytest.mark.parametrize("value, text", [
    (0, "0"), (7, "7"), (-3, "-3"), (29_994, "29,994"), (np.int64(1_234_567), "1,234,567"),
    (np.uint8(200), "200"),
    (1.0, "1"), (2000.0, "2,000"), (np.float64(0.991698), "0.9917"), (0.976429, "0.9764"),
    (84.6841, "84.68"), (50.5, "50.5"), (-0.5, "-0.5"), (np.float32(0.25), "0.25"),
    (39_268.3, "39,268"), (1_015_915.4, "1,015,915"), (0.000123456, "0.0001235"),
])
def test_numbers(value, text):
    assert fmt.number(value) == text


@pytest.mark.parametrize("value", [0.999967, 0.9999999, 0.99996, 99.99996, 999.99, 1.00001])
def test_a_fraction_never_looks_whole(value):
    """A completeness of 0.99997 must not read as 1 (which would mean every record)."""
    text = fmt.number(value)
    assert not float(text.replace(",", "")).is_integer(), text
    assert float(text) == pytest.approx(value, rel=1e-4)


@pytest.mark.parametrize("value", [None, float("nan"), np.nan, pd.NA, pd.NaT, np.float32("nan")])
def test_missing_values_are_empty(value):
    assert fmt.number(value) == "" and fmt.duration(value) == "" and fmt.share(value) == ""
    assert fmt.is_missing(value) and not fmt.is_number(value)


def test_booleans_infinities_and_text():
    assert fmt.number(True) == "True" and fmt.number(np.bool_(False)) == "False"
    assert not fmt.is_number(True)
    assert fmt.number(float("inf")) == "\u221e" and fmt.number(-np.inf) == "-\u221e"
    assert fmt.number("tumbling:1s") == "tumbling:1s"


@pytest.mark.parametrize("ms, text", [
    (0, "0 ms"), (1, "1 ms"), (250, "250 ms"), (999, "999 ms"), (12.345, "12.35 ms"),
    (1000, "1 s"), (1500, "1.5 s"), (np.int64(2000), "2 s"), (39_268, "39.27 s"), (59_999.6, "60 s"),
    (60_000, "1 min"), (303_000, "5 min 3 s"), (3_600_000, "1 h"), (7_500_000, "2 h 5 min"),
    (90_000_000, "1 d 1 h"), (-1500, "-1.5 s"),
])
def test_durations_in_readable_units(ms, text):
    assert fmt.duration(ms) == text


def test_formatted_figures_are_marked_as_such():
    for text in (fmt.number(3), fmt.number(0.5), fmt.duration(1500), fmt.share(0.25), fmt.seconds(2)):
        assert isinstance(text, fmt.Figure) and isinstance(text, str)
    assert not isinstance(fmt.number("text"), fmt.Figure)


def test_seconds_and_shares():
    assert fmt.seconds(0.3412) == "341.2 ms"
    assert fmt.seconds(1.2345) == "1.234 s"
    assert fmt.share(0.1234) == "12.34%" and fmt.share(1) == "100.00%" and fmt.share(0.5, 1) == "50.0%"


def test_names_say_what_is_a_duration():
    assert fmt.is_duration("delay") and fmt.is_duration("latency_p99_ms") and fmt.is_duration("idle_timeout")
    assert not fmt.is_duration("records") and not fmt.is_duration("completeness_first")
    assert fmt.label("delay_ms") == "delay" and fmt.label("latency_p99_ms") == "latency_p99"
    assert fmt.label("records") == "records" and fmt.label("_ms") == "_ms"
    assert fmt.value("delay_ms", 2000) == "2 s" and fmt.value("records", 2000) == "2,000"
    assert fmt.value("idleness_ms", None) == "" and fmt.value("delay", "500ms") == "500ms"


def test_summary_rows():
    rows = fmt.summary_rows({"records": 29_994, "late_accepted": 249, "completeness_first": 0.991698,
                             "latency_p99_ms": 39_268, "settings": {"delay": 1}})
    assert rows == [("records", "29,994"), ("late accepted", "249"), ("completeness first", "0.9917"),
                    ("latency p99", "39.27 s")]
    assert all(isinstance(v, fmt.Figure) for _, v in rows)


def test_settings_text():
    settings = {"generator": "bounded_out_of_orderness", "delay": 2000, "interval": 200, "parallelism": 1,
                "window": {"type": "tumbling", "size": 1000, "offset": 0}, "trigger": None, "lateness": 5000,
                "evictor": {"type": "count", "max": 1000, "after": False}, "has_arrival_time": True}
    assert fmt.settings_text(settings) == (
        "generator=bounded_out_of_orderness, delay=2 s, interval=200 ms, parallelism=1, "
        "window=tumbling(size=1 s, offset=0 ms), lateness=5 s, evictor=count(max=1,000, after=False), "
        "has_arrival_time=True")


def _no_markup_from(text: str, page: str) -> None:
    assert text not in page
    assert html.escape(text) in page


def test_kv_table_escapes_and_aligns():
    page = fmt.kv_table([(XSS, 1234), ("delay_ms", 2000), ("window", f"tumbling {XSS}"), ("share", fmt.share(0.5))],
                        caption=f"settings {XSS}", durations=True)
    _no_markup_from(XSS, page)
    assert page.count("<tr>") == 4 and page.startswith("<table style=")
    assert re.search(r"<td style='text-align:right[^>]*>50.00%</td>", page)  # a formatted figure stays right-aligned
    assert re.search(r"<th[^>]*>delay</th><td style='text-align:right[^>]*>2 s</td>", page)
    assert re.search(r"<td style='text-align:right[^>]*>1,234</td>", page)
    assert re.search(r"<td style='text-align:left[^>]*>tumbling &lt;script&gt;", page)  # text is left-aligned
    assert "<caption" in page and "settings &lt;script&gt;" in page
    # without durations=True names and values stay as given
    plain = fmt.kv_table([("delay_ms", 2000)], inline=False)
    assert plain == "<table><tr><th>delay_ms</th><td class=\"num\">2,000</td></tr></table>"


def test_table_escapes_headers_cells_and_code():
    page = fmt.table([XSS, "v", "raw"], [(XSS, 0.991698, "a&b"), ("b", None, "")], inline=False, code=["raw"],
                     caption="best & worst")
    _no_markup_from(XSS, page)
    assert "<caption>best &amp; worst</caption>" in page
    assert "<td class=\"num\">0.9917</td>" in page and "<td><code>a&amp;b</code></td>" in page
    assert "<td></td><td></td></tr>" in page  # a missing number and an empty raw text: empty cells
    assert page.count("<tr>") == 3
