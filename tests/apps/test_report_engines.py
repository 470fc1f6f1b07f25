"""The report of a multi-engine sweep: the engines side by side (figures by delay, the
recommendation per engine with its code, the same setting in every engine record by record),
checked against the API's own answers, escaped, and drawn by headless Chromium."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.reports.report import build, render
from toolkit.sweeps.choose import engine_name

from helpers.chromium import chromium_path, dump_dom

XSS = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def log():
    rng = np.random.default_rng(8)
    n = 400
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 40_000, n))
    event = arrival - rng.choice([0, 150, 700, 1_800], n, p=[0.7, 0.15, 0.1, 0.05])
    key = rng.choice(["a", XSS], n)
    return toolkit.load_log(pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": key,
                                          "partition": rng.integers(0, 2, n), "value": 1}), time_unit="ms")


@pytest.fixture(scope="module")
def context(log):
    sweep = toolkit.sweep(log, semantics=["flink", "spark"], window="tumbling:1s", delay=["0", "500ms", "2s"],
                          lateness=["0", "1s"])
    return build(log, sweep=sweep, completeness=0.97)


def _engines(context):
    return next(s for s in context["sections"] if s["anchor"] == "engines")


def test_engines_section_matches_the_api(log, context):
    sec = _engines(context)
    sweep = context["sweep"]
    per = toolkit.recommend(sweep, completeness=0.97, per="semantics")
    assert [r["engine"] for r in sec["recommendations"]] == [engine_name(s) for s in per]
    for r, (name, rec) in zip(sec["recommendations"], per.items()):
        assert r["reason"] == rec["reason"] and r["setting"] == str(rec["setting"])
        assert [d["code"] for d in r["deploy"]] == list(rec["deploy"].values())
    # the leading (Flink) recommendation, in every engine, record by record
    c = toolkit.compare_engines(log, per["flink"]["setting"], semantics=["flink", "spark"])
    assert [s["setting"] for s in sec["settings"]] == [str(t.setting) for t in c.translations.values()]
    kd = c.kept_dropped
    for r in kd.itertuples(index=False):
        assert f"<td class=\"num\">{r.records:,}</td>" in sec["kept_table"]
    assert sec["examples"] == c.examples(3)
    assert len(sec["charts"]) == 1 and len(sec["compare_charts"]) == 2
    assert context["recommendation"]["headline"].startswith("Recommended for Flink: ")
    assert "none" not in context["recommendation"]["headline"]


def test_engines_section_rendered_escaped_and_drawn(context, tmp_path):
    page = render(context)
    assert "The engines side by side" in page and "The recommendation for each engine" in page
    assert "Deploy it: PySpark Structured Streaming" in page and "withWatermark" in page
    assert "Records one engine keeps (on time or late but accepted) and another drops" in page
    assert XSS not in page  # keys in the examples are escaped by the template, in specs by spec_json
    assert any(XSS in e for e in _engines(context)["examples"]), "the examples name the markup key"
    if chromium_path() is None:
        pytest.skip("chromium is not installed (CI installs the Debian package)")
    (tmp_path / "r.html").write_text(page)
    dom = dump_dom(tmp_path / "r.html", tmp_path / "profile")
    body = re.search(r"<body [^>]*data-charts[^>]*>", dom).group(0)
    assert 'data-charts="ok"' in body, re.findall(r"Chart error[^<]*", dom)
    n = int(re.search(r'data-chart-count="(\d+)"', body).group(1))
    assert n == len(re.findall(r'<div class="chart"', page))
    assert "engine and setting" in dom and "Spark Structured Streaming" in dom


def test_single_engine_report_has_no_engines_section(log):
    sweep = toolkit.sweep(log, window="tumbling:1s", delay=["0", "500ms"])
    ctx = build(log, sweep=sweep, completeness=0.9)
    assert all(s["anchor"] != "engines" for s in ctx["sections"])
    assert ctx["recommendation"]["headline"].startswith("Recommended: ")


def test_an_engine_without_a_translation_is_named_not_fatal(log, context, monkeypatch):
    from toolkit.semantics import get

    monkeypatch.setattr(type(get("spark")), "package", "")  # its package's translate module is not found
    ctx = build(log, sweep=context["sweep"], completeness=0.97)
    sec = _engines(ctx)
    assert "compare_title" not in sec and len(sec["recommendations"]) == 2
    assert "Spark Structured Streaming has no translation of settings yet" in sec["after"]
