"""The offline report drawn by headless Chromium (Selenium) for the 5-minute sample and for a
year-long log (issue 30): every chart draws, no time axis repeats a tick label, the table of all
configurations fits a 1,280 px window, the latency tail's words sit beside the chart they name and
every latency axis speaks their unit, and each chart
is screenshot for a person to look at (the folder is printed)."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

import toolkit
from toolkit.incidents import stall

from helpers.spans import year_log

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]

# every SVG axis of every drawn chart: its title and the labels Vega left visible
AXES_JS = """
return Array.from(document.querySelectorAll('div.chart[data-rendered=yes]')).map(function (chart) {
  return Array.from(chart.querySelectorAll('g.role-axis')).map(function (axis) {
    var title = axis.querySelector('g.role-axis-title text');
    var labels = Array.from(axis.querySelectorAll('g.role-axis-label text'))
      .filter(function (t) { return t.getAttribute('opacity') !== '0'; })
      .map(function (t) { return t.textContent; });
    return [chart.id, title ? title.textContent : '', labels];
  });
}).flat();
"""


# the first line of each row label of the robustness heatmaps (the chart after the "incidents" heading)
INCIDENT_ROWS_JS = """
var h = document.getElementById('incidents'), n = h.nextElementSibling;
while (n && !(n.classList && n.classList.contains('chart'))) { n = n.nextElementSibling; }
return Array.from(n.querySelectorAll('g.role-axis-label')).filter(function (g) {
  return g.closest('g.role-axis').getAttribute('aria-label').indexOf('Y-axis') === 0; })
  .map(function (g) { return Array.from(g.querySelectorAll('text')).map(function (t) {
    return t.querySelector('tspan') ? t.querySelector('tspan').textContent : t.textContent; }); }).flat();
"""


# the sweep's table: its width and the width the page gives it
TABLE_FIT_JS = """
var t = document.querySelector('table.sortable');
return t ? [Math.round(t.getBoundingClientRect().width), t.parentElement.clientWidth] : null;
"""


# the latency tail's paragraph, the section its link leads to, and that section's own words
LATENCY_JS = """
var p = document.querySelector('p.latency-tail'), a = p ? p.querySelector('a') : null;
var h = a ? document.getElementById(a.getAttribute('href').slice(1)) : null, t = '';
for (var n = h ? h.nextElementSibling : null; n && n.tagName !== 'H2'; n = n.nextElementSibling) {
  if (n.tagName === 'P') { t += n.textContent; } }
return [p ? p.textContent : '', h ? h.id : '', t];
"""

#: the unit of each report's p99 latency in words, and where its tail shows
LATENCY = {"sample": ("s", "watermarks"), "year": ("h", "firings")}


def _latency_problems(chrome, name: str, folder: Path) -> list[str]:
    """The latency words name the chart beside them, and every latency axis speaks their unit (issue
    30 item 4: "p99 result latency 10 h 50 min" beside an axis of 440-660 min)."""
    words, anchor, beside = chrome.execute_script(LATENCY_JS)
    unit, where = LATENCY[name]
    out = []
    if not words.startswith("The latency tail: ") or anchor != where or words.split(": see the report's")[0] + ": this chart shows it" not in beside:
        out.append(f"{name}: latency words {words!r} lead to #{anchor} (want #{where}) whose text is {beside[:200]!r}")
    said = re.search(r"first fired [\d.]+ (\w+)", words)
    if said is None or said.group(1) != unit:
        out.append(f"{name}: the p99 in words is not in {unit}: {words[:160]!r}")
    for chart, title, _labels in chrome.execute_script(AXES_JS):
        m = re.search(r"(?:latency|after the window's end) \((\w+)\)", title)
        if m and m.group(1) != unit:
            out.append(f"{name}, {chart}: axis {title!r} beside words in {unit}")
    node = chrome.find_element("css selector", "p.latency-tail")
    chrome.execute_script("arguments[0].scrollIntoView()", node)
    chrome.save_screenshot(str(folder / f"{name}-latency-words.png"))
    chrome.execute_script(f"document.getElementById('{where}').scrollIntoView()")
    chrome.save_screenshot(str(folder / f"{name}-latency-chart.png"))
    return out


def _reports(folder: Path) -> dict[str, Path]:
    sample = toolkit.load_log(ROOT / "data" / "sample.csv", max_invalid_fraction=0.001)
    year = year_log()
    return {
        "sample": toolkit.report(sample, out=folder / "sample.html", settings=dict(window="tumbling:1s", delay="500ms",
                                                                                  lateness="1s"),
                                 grid=dict(window=["tumbling:1s"], delay=["0", "250ms", "1s", "5s"], lateness=["0", "1s"]),
                                 incidents=[stall(partition=2, at="1min", duration="2min", drain="200/s"),
                                            "restart:at=3min,downtime=10s,replay_from=1min,source_rate=1000/s"]),
        "year": toolkit.report(year, out=folder / "year.html", settings=dict(window="tumbling:1h", delay="10min",
                                                                              lateness="1h"),
                               grid=dict(window=["tumbling:1h"], delay=["0", "10min", "1h", "3h"], lateness=["0", "1h"])),
    }


def test_report_time_axes_read_right_in_chromium(chrome, artifacts):
    folder = artifacts / "report"
    folder.mkdir(parents=True, exist_ok=True)
    problems = []
    for name, page in _reports(folder).items():
        chrome.get(page.resolve().as_uri())
        deadline = time.monotonic() + 120
        while chrome.execute_script("return document.body.dataset.charts || ''") == "" and time.monotonic() < deadline:
            time.sleep(0.5)
        state = chrome.execute_script("return [document.body.dataset.charts, document.body.dataset.chartCount]")
        if state[0] != "ok":
            problems.append(f"{name}: charts {state}: {chrome.find_element('id', 'report-errors').text[:500]}")
        time.sleep(1.0)  # let the last charts finish painting
        chrome.save_screenshot(str(folder / f"{name}-top.png"))
        for i, node in enumerate(chrome.find_elements("css selector", "div.chart[data-rendered=yes]")):
            chrome.execute_script("arguments[0].scrollIntoView()", node)
            node.screenshot(str(folder / f"{name}-chart{i:02d}.png"))
        if name == "sample":  # the bad days' section: its heatmaps drew, one row per log
            section = chrome.find_element("id", "incidents")
            chrome.execute_script("arguments[0].scrollIntoView()", section)
            chrome.save_screenshot(str(folder / "sample-incidents.png"))
            rows = chrome.execute_script(INCIDENT_ROWS_JS)
            if rows != ["recorded log", "partition 2 stalled at 0:01:00 for 2 min, drained at 200", "the job restarted at "
                        "0:03:00 after 10 s down, re-reading"] * 2:
                problems.append(f"sample: the incident heatmaps' rows are {rows}")
        problems += _latency_problems(chrome, name, folder)
        chrome.set_window_size(1280, 1000)  # the configuration table fits a 1,280 px window
        fit = chrome.execute_script(TABLE_FIT_JS)
        chrome.execute_script("document.getElementById('sweep-table').scrollIntoView()")
        chrome.save_screenshot(str(folder / f"{name}-sweep-table-1280.png"))
        chrome.set_window_size(1400, 1000)
        if fit is None or fit[0] > fit[1]:
            problems.append(f"{name}: the configuration table is {fit} px wide (table, page) at 1280 px")
        time_axes = [(c, t, labels) for c, t, labels in chrome.execute_script(AXES_JS) if "UTC" in t]
        if len(time_axes) < 6:
            problems.append(f"{name}: only {len(time_axes)} time axes drawn")
        for chart, title, labels in time_axes:
            if len(labels) < 2 or len(set(labels)) != len(labels):
                problems.append(f"{name}, {chart}, {title!r}: labels {labels}")
    print(f"report screenshots: {folder}")
    assert not problems, "\n".join(problems)
