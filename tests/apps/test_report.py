"""The offline HTML report: content, escaping, and rendering in headless Chromium."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.reports.report import render, spec_json
from toolkit.viz import _format as fmt

from helpers.chromium import chromium_path, dump_dom

DATA = Path(__file__).resolve().parents[2] / "data"

XSS = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def xss_log(tmp_path_factory):
    """A small CSV log whose file name and one key are markup; that key's records arrive late."""
    n = 300
    rng = np.random.default_rng(5)
    arrival = 1_700_000_000_000 + np.arange(n) * 10
    event = arrival - rng.integers(0, 20, n)
    key = np.array(["a", "b"] * (n // 2), dtype=object)
    late = np.arange(20, n, 25)
    event[late] -= 400          # 12 records 400 ms behind: dropped with small delays
    key[late] = XSS
    frame = pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": key, "partition": np.arange(n) % 2,
                          "value": 1})
    path = tmp_path_factory.mktemp("xss") / "<b>bold.csv"
    frame.to_csv(path, index=False)
    return toolkit.load_log(str(path))


class ReportFile(type(Path())):
    """The report's path, remembering the log it was made from."""

    def __new__(cls, path, log):
        obj = super().__new__(cls, path)
        obj.xss_log = log
        return obj


@pytest.fixture(scope="module")
def report_file(xss_log, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    sweep = toolkit.sweep(xss_log, window="tumbling:100ms", delay=["0ms", "50ms", "500ms"], lateness=["0ms", "1s"],
                          interval="50ms", execution="local")
    replay = toolkit.replay(xss_log, window="tumbling:100ms", delay="0ms", lateness="0ms", interval="50ms")
    path = toolkit.report(xss_log, replay=replay, sweep=sweep, out=out, title="Report <i>title</i>",
                          completeness=0.9)
    return ReportFile(path, xss_log)


def test_spec_json_cannot_close_its_script_block():
    text = spec_json({"data": {"values": [{"key": "</script><script>alert(1)</script>", "x": "a&b"}]}})
    assert "<" not in text and ">" not in text and "&" not in text
    assert "\\u003c/script\\u003e" in text
    import json

    assert json.loads(text)["data"]["values"][0]["key"] == "</script><script>alert(1)</script>"
    assert json.loads(spec_json({"v": [float("nan"), float("inf"), 1.5]})) == {"v": [None, None, 1.5]}


def _without_bundle(html: str) -> str:
    """The page minus the inlined Vega bundle (whose code holds HTML snippets of its own)."""
    start = html.index("<script>")
    end = html.index("</script>", start)
    assert "window.vegaEmbed=" in html[start:end]
    return html[:start] + html[end:]


def test_report_is_self_contained(report_file):
    full = report_file.read_text()
    html = _without_bundle(full)
    # no external resource: no script/link/img with a src or href, Vega is inlined
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=", html, re.I)
    assert not re.search(r"<link[^>]*href=", html, re.I)
    assert "window.vegaEmbed=" in full and "https://cdn" not in html
    assert html.count('<div class="chart"') == 14
    assert html.count('type="application/json"') == 14


def test_user_strings_are_escaped(report_file):
    html = report_file.read_text()
    assert XSS not in html
    assert "<b>bold" not in html and "<i>title</i>" not in html
    assert "&lt;b&gt;bold.csv" in html           # the file name, as text
    assert "Report &lt;i&gt;title&lt;/i&gt;" in html          # the title
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in html  # the key inside chart data


def test_report_sections_and_recommendation(report_file, xss_log):
    html = report_file.read_text()
    for anchor in ("summary", "recommendation", "explore", "tradeoff", "heatmaps", "records", "lateness",
                   "watermarks", "firings", "state", "drops", "sweep-table"):
        assert f'id="{anchor}"' in html
    sweep = toolkit.sweep(xss_log, window="tumbling:100ms", delay=["0ms", "50ms", "500ms"],
                          lateness=["0ms", "1s"], interval="50ms", execution="local")
    rec = toolkit.recommend(sweep, completeness=0.9)
    assert rec["config"] is not None
    import html as htmllib

    assert htmllib.escape(rec["reason"], quote=False) in html


def test_report_shows_figures_in_the_shared_style(report_file, xss_log):
    """Durations in readable units, other figures as toolkit.viz._format writes them (as the explorer does)."""
    html = report_file.read_text()
    sweep = toolkit.sweep(xss_log, window="tumbling:100ms", delay=["0ms", "50ms", "500ms"], lateness=["0ms", "1s"],
                          interval="50ms", execution="local")
    full = toolkit.recommend(sweep, completeness=0.9)
    rec = full["config"]
    assert (f"Recommended: delay {fmt.duration(rec['delay_ms'])}, "
            f"allowed lateness {fmt.duration(rec['lateness_ms'])}</strong>") in html
    assert "(<code>window=tumbling:100ms interval=50ms</code>)" in html
    for v in sweep["completeness_first"]:  # percentages, sortable by the raw value
        assert f'data-v="{float(v):.17g}">{fmt.share(v)}</td>' in html
    assert '<tr><th>valid records</th><td class="num">300</td></tr>' in html
    # the recommended row is highlighted in the sortable sweep table; the deploy code is shown
    assert html.count('<tr class="recommended"') == 1 and '<table class="sortable">' in html
    assert "Deploy it: Flink DataStream API (Java)" in html and "forBoundedOutOfOrderness(" in html
    assert "Deploy it: Flink SQL" not in html  # Flink SQL deploys semantics="flink_sql" settings
    # the recommendation table: the swept settings and those not at their default, nothing else
    box = html.split('<div class="rec">')[1].split("</div>")[0]
    for shown in ("<th>window</th>", "<th>delay</th>", "<th>allowed lateness</th>", "<th>watermark interval</th>"):
        assert shown in box
    for hidden in ("<th>evictor</th>", "<th>accumulation</th>", "<th>source parallelism</th>"):
        assert hidden not in box
    assert "9223372036854775807" not in html.split("<script")[0] and "&lt;NA&gt;" not in html


def test_report_computes_replay_and_sweep_when_missing(xss_log, tmp_path):
    from toolkit.reports.report import build

    ctx = build(xss_log, grid={"delay": ["0ms", "500ms"], "lateness": ["0ms"], "window": "tumbling:100ms",
                               "interval": "50ms"})
    assert len(ctx["sweep"]) == 2
    rec = toolkit.recommend(ctx["sweep"])
    # the replay is the recommended setting's
    assert ctx["replay"].settings["delay"] == int(rec["config"]["delay_ms"])
    assert ctx["replay"].settings["window"] == "tumbling:100ms" and ctx["replay"].setting == rec["setting"]
    assert "<html" in render(ctx)


# moves the sliders of the first chart (the sweep view) and records its header before and after
SLIDE = """<script>
(function poll() {
  if (document.body.dataset.charts !== "ok") { setTimeout(poll, 100); return; }
  var div = document.getElementById("chart-c0");
  function read() {
    return Array.from(div.querySelectorAll("text")).map(function (n) { return n.textContent; })
      .filter(function (t) { return t.indexOf("delay ") === 0; }).join("|");
  }
  document.body.dataset.before = read();
  // the radio buttons read the values; click the third delay and the first allowed lateness, as a user would
  var labels = Array.from(div.querySelectorAll("label")).map(function (l) { return l.textContent; });
  document.body.dataset.labels = labels.join("|");
  var radios = div.querySelectorAll("input[type=radio]");
  radios[2].click();
  radios[3].click();
  setTimeout(function () { document.body.dataset.after = read(); }, 500);
})();
</script>"""


@pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed (CI installs the Debian package)")
def test_report_renders_offline_in_headless_chromium(report_file, tmp_path):
    html = report_file.read_text()
    # instrument a copy: record any alert() instead of showing it
    probe = "<script>window.alert = function (m) { document.documentElement.setAttribute('data-alerted', String(m)); };</script>"
    page = tmp_path / "page.html"
    head, _, tail = html.replace("<head>", "<head>" + probe, 1).rpartition("</body>")  # the bundle holds "</body>" too
    page.write_text(head + SLIDE + "</body>" + tail)
    dom = dump_dom(page, tmp_path / "profile")
    body = re.search(r"<body [^>]*data-charts[^>]*>", dom).group(0)
    assert 'data-charts="ok"' in body, re.findall(r"Chart error[^<]*", dom)
    assert 'data-chart-count="14"' in body
    assert "<p>Chart error" not in dom
    assert len(re.findall(r'<div class="chart[^"]*"[^>]*data-rendered="yes"', dom)) == 14
    assert dom.count("<svg") >= 14
    assert not re.search(r"<html[^>]*data-alerted", dom)
    # the key appears as SVG text (a bar label of the drops-by-key chart), not as an element
    assert re.search(r"<text[^>]*>&lt;script&gt;alert\(1\)&lt;/script&gt;</text>", dom)
    assert XSS not in dom
    # the sweep view stays interactive: moving its sliders (as a user would) changes the selection
    sweep = toolkit.sweep(report_file.xss_log, window="tumbling:100ms", delay=["0ms", "50ms", "500ms"],
                          lateness=["0ms", "1s"], interval="50ms", execution="local")
    rec = toolkit.recommend(sweep, completeness=0.9)["config"]
    assert (f'data-before="delay {fmt.duration(rec["delay_ms"])}, allowed lateness {fmt.duration(rec["lateness_ms"])}"'
            in body)
    assert 'data-after="delay 500 ms, allowed lateness 0 ms"' in body
    assert "0 ms|50 ms|500 ms|0 ms|1 s" in body  # the controls show values, not step numbers
    assert (rec["delay_ms"], rec["lateness_ms"]) != (500, 0)  # so the header did change


def test_chart_frontier_and_recommendation_agree_with_the_sweep(xss_log):
    import toolkit.viz as viz

    sweep = toolkit.sweep(xss_log, window="tumbling:100ms", delay=["0ms", "20ms", "50ms", "500ms"],
                          lateness=["0ms", "1s"], interval="50ms", execution="local")
    assert viz.pareto(sweep).index.tolist() == toolkit.frontier(sweep).index.tolist()
    spec = viz.latency_completeness(sweep, completeness_target=0.9).to_dict()  # recommendation="auto"
    rec = toolkit.recommend(sweep, completeness=0.9)
    diamond = [ly for ly in spec["layer"] if isinstance(ly["mark"], dict) and ly["mark"].get("shape") == "diamond"]
    (row,) = spec["datasets"][diamond[0]["data"]["name"]]
    assert row["x_value"] == rec["row"]["latency_p99_ms"]  # in ms: every latency here is under 10 s
    assert row["completeness_first"] == rec["row"]["completeness_first"]
    assert row["reason"] == rec["reason"]


@pytest.mark.spark
def test_report_of_a_spark_backed_log_sweeps_on_spark_and_leaves_out_record_charts(spark, tmp_path):
    n = 400
    arrival = 1_700_000_000_000 + np.arange(n) * 10
    event = arrival - (np.arange(n) % 9) * 20
    path = tmp_path / "log.csv"
    pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": np.arange(n) % 4, "partition": 0,
                  "value": 1}).to_csv(path, index=False)
    log = toolkit.load_log(str(path), spark=spark)
    assert log.is_spark
    out = toolkit.report(log, grid={"delay": ["0ms", "200ms"], "lateness": ["0ms"], "window": "tumbling:100ms",
                                    "interval": "50ms"}, out=tmp_path / "r.html")
    html = out.read_text()
    assert "This log is Spark-backed: its 400 records stay distributed" in html
    assert 'id="explore"' in html and 'id="drops"' not in html and "Replay of one setting" not in html
    assert html.count('<div class="chart"') == 6  # sliders, trade-off, 4 heatmaps


def test_report_says_why_records_were_dropped(tmp_path):
    """The drops section gives the top causes in words (``toolkit.replays.explain.drop_causes``,
    whose suggestions tests/replays/test_explain_exact.py replays) and the drops-over-time chart."""
    import html as htmllib

    from toolkit.replays.explain import drop_causes

    log = toolkit.load_log(DATA / "sample.csv", time_unit="ms", max_invalid_fraction=0.001)
    r = toolkit.replay(log, window="tumbling:1s", delay="500ms", lateness="1s", interval="200ms")
    causes = drop_causes(r)
    assert causes and "drops" in causes[0]
    out = toolkit.report(log, replay=r, sweep=toolkit.sweep(log, window="tumbling:1s", delay=["500ms", "2s"],
                                                            interval="200ms", execution="local"),
                         out=tmp_path / "r.html")
    html = out.read_text()
    section = html[html.index('id="drops"'):]
    assert "Where records were dropped, and why" in section
    for cause in causes:
        assert htmllib.escape(cause, quote=False).replace("'", "&#39;") in section
