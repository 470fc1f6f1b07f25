"""Time axes follow the data's span (issue 30, item 1): every chart of toolkit.viz with a time axis,
drawn over a 5-minute log, a day that crosses midnight and a year, has calendar ticks inside the
data's own extent, distinct labels that carry the date when the span crosses midnight, and a
title naming the unit. Checked in the Vega-Lite spec (Python) and in the SVG that Vega draws
(vl-convert, offline, no browser)."""
from __future__ import annotations

import re
from html import unescape

import numpy as np
import pytest

import toolkit
from toolkit import viz
from toolkit.viz._time import format_instant, time_ticks

from helpers.spans import SPANS

MAX_POINTS = 600  # enough to draw every chart's shape; keeps the SVG renders quick


@pytest.fixture(scope="module", params=list(SPANS))
def drawn(request):
    make, setting = SPANS[request.param]
    log = make()
    r = toolkit.replay(log, **setting)
    charts = {
        "event_time_scatter": viz.event_time_scatter(log, r, max_points=MAX_POINTS),
        "event_time_scatter y=event_time": viz.event_time_scatter(log, r, y="event_time", max_points=MAX_POINTS),
        "watermark_lag": viz.watermark_lag(r, max_points=MAX_POINTS),
        "firing_timeline": viz.firing_timeline(r, max_points=MAX_POINTS),
        "firing_timeline y=window_end": viz.firing_timeline(r, y="window_end", max_points=MAX_POINTS),
        "state_over_time": viz.state_over_time(r, max_points=MAX_POINTS),
        "drops_over_time": viz.drops_over_time(log, r),
    }
    return request.param, log, {name: c.to_dict() for name, c in charts.items()}


def _time_encodings(spec: dict):
    """(encoding, rows of its layer's data) of every temporal x/y channel of a spec."""
    data = spec.get("datasets", {})

    def walk(node, rows):
        if isinstance(node, dict):
            if isinstance(node.get("data"), dict) and "name" in node["data"]:
                rows = data.get(node["data"]["name"], rows)
            for ch in ("x", "y"):
                enc = (node.get("encoding") or {}).get(ch)
                if isinstance(enc, dict) and enc.get("type") == "temporal":
                    yield ch, enc, rows or []
            for k, v in node.items():
                if k != "datasets":
                    yield from walk(v, rows)
        elif isinstance(node, list):
            for v in node:
                yield from walk(v, rows)

    yield from walk(spec, None)


def test_every_time_axis_has_distinct_ticks_inside_the_data(drawn):
    span, log, specs = drawn
    days = np.unique(log.table["arrival_time"].to_numpy() // 86_400_000).size
    for name, spec in specs.items():
        encodings = list(_time_encodings(spec))
        assert encodings, f"{span}, {name}: no time axis"
        shared: dict = {}  # the layers drawn on one scale: the data of all of them
        for ch, enc, rows in encodings:
            shared.setdefault((ch, enc["title"]), []).extend(r[enc["field"]] for r in rows
                                                              if r.get(enc["field"]) is not None)
        for ch, enc, rows in encodings:
            where = f"{span}, {name}, {ch} ({enc['field']})"
            lo, hi = enc["scale"]["domain"]
            assert enc["scale"]["type"] == "utc" and enc["scale"]["nice"] is False, where
            values = shared[(ch, enc["title"])]
            assert values and lo <= min(values) and max(values) <= hi, where  # every point inside
            if name != "drops_over_time":  # the domain is the data's own (drops: every bin of the log)
                # the data's extent (drawn: maybe a sample), widened by a few pixels so that no point is cut
                assert hi - lo <= (max(values) - min(values)) * 1.07 + 2, where
            ticks = enc["axis"]["values"]
            labels = [format_instant(v, enc["axis"]["format"]) for v in ticks]
            assert len(ticks) >= 2 and all(lo <= v <= hi for v in ticks), (where, labels)
            assert len(set(labels)) == len(labels), (where, labels)
            if days > 1 and "%d" not in enc["axis"]["format"]:  # across midnight: each label has its date
                assert enc["axis"]["format"] in ("%b", "%b %Y", "%Y"), (where, labels)
            assert "UTC" in enc["title"] and re.search(r"h:min|date|month|year", enc["title"]), (where, enc["title"])


def test_time_axes_read_as_the_span_asks(drawn):
    span, _, specs = drawn
    formats = {enc["axis"]["format"] for spec in specs.values() for _, enc, _ in _time_encodings(spec)}
    expected = {"5 minutes": {"%H:%M", "%H:%M:%S"}, "1 day": {"%b %d %H:%M"}, "1 year": {"%b", "%b %Y"}}[span]
    assert formats <= expected, formats


def _svg_axes(svg: str) -> list[tuple[str, list[str]]]:
    """(title, visible labels) of each axis Vega drew, in the SVG's order."""
    out = []
    for group in re.findall(r'<g class="mark-group role-axis"(.*?)</g></g></g>', svg, flags=re.S):
        labels = re.findall(r'role-axis-label".*?</g>', group, flags=re.S)
        texts = re.findall(r'opacity="1"[^>]*>([^<]*)</text>', labels[0]) if labels else []
        title = re.findall(r'role-axis-title".*?<text[^>]*>([^<]*)</text>', group, flags=re.S)
        out.append((unescape(title[0]) if title else "", [unescape(t) for t in texts]))
    return out


def test_rendered_svg_labels_are_the_ticks_and_distinct(drawn):
    import vl_convert

    span, _, specs = drawn
    for name, spec in specs.items():
        svg = vl_convert.vegalite_to_svg(spec)
        axes = _svg_axes(svg)
        expected = {}
        for _, enc, _ in _time_encodings(spec):
            expected[enc["title"]] = [format_instant(v, enc["axis"]["format"]) for v in enc["axis"]["values"]]
        drawn_time_axes = [(t, labels) for t, labels in axes if t in expected]
        assert drawn_time_axes, f"{span}, {name}: no time axis in the SVG ({[t for t, _ in axes]})"
        for title, labels in drawn_time_axes:
            assert len(labels) >= 2 and len(set(labels)) == len(labels), (span, name, title, labels)
            assert set(labels) <= set(expected[title]), (span, name, title, labels)  # no label outside the data


@pytest.mark.parametrize("lo, hi, first, last", [
    ("2023-11-14T22:13:20", "2023-11-14T22:18:20", "22:14", "22:18"),
    ("2023-11-14T22:13:20.000", "2023-11-14T22:13:20.045", "22:13:20.000", "22:13:20.040"),
    ("2023-11-15T10:00", "2023-11-16T10:00", "Nov 15 12:00", "Nov 16 06:00"),
    ("2023-01-01T05:00", "2023-12-29T05:00", "Feb", "Dec"),
    ("2013-01-01T05:00", "2014-01-01T00:00", "Mar 2013", "Jan 2014"),
    ("2001-01-01", "2040-01-01", "2005", "2040"),
])
def test_ticks_from_milliseconds_to_years(lo, hi, first, last):
    ms = [int(np.datetime64(t, "ms").astype(np.int64)) for t in (lo, hi)]
    ticks = time_ticks(*ms, size=640)
    labels = ticks.labels()
    assert (labels[0], labels[-1]) == (first, last), labels
    assert len(set(labels)) == len(labels) and 2 <= len(labels) <= 12
    assert all(ms[0] <= v <= ms[1] for v in ticks.values)
