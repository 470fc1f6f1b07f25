"""Every notebook, run in a real JupyterLab in headless Chromium without a network: charts draw.

For each notebook: open it, run all cells, and for every chart output (an Altair widget, a
Vega mime bundle, an SVG, or HTML that embeds Vega) check that an SVG or a canvas was drawn,
and that no "Error loading script", "Error displaying widget", JavaScript error or traceback
shows anywhere in the notebook. In a notebook that creates ``toolkit.explore(...)`` one
control is moved and the drawn chart must change, and a window trigger is picked and a bad one
typed (the parser's error said under the box); an explorer on Beam has its trigger picked,
its timestamp combiner and accumulation changed and a bad trigger typed (said under the box). No widget description may be cut off. Every chart must be an interactive Vega view,
and in the quickstart hovering must show a Vega tooltip. Screenshots of the notebook and of
each chart output are written under the pytest tmp dir; a failure prints their folder.

Deselect with ``-m "not browser"``. A notebook that starts Spark runs when Java is there
(skipped without it, failed under ``WATERMARK_LAB_REQUIRE_SPARK=1``, as under nbval).
"""
from __future__ import annotations

import json
import re
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
STARTS_SPARK = re.compile(r"spark_session\(|execution\s*=\s*[\"']spark[\"']")
ERRORS = ("Error loading script", "Error displaying widget", "JavaScript Error", "Traceback",
          "model not found")
DRAW_TIMEOUT_S = 90

pytestmark = pytest.mark.browser


def _code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def _param(path: Path):
    marks = [pytest.mark.spark] if STARTS_SPARK.search(_code(path)) else []
    return pytest.param(path, id=path.stem, marks=marks)


# --- JavaScript run in the page (JupyterLab exposes its app as window.jupyterapp) -------------

OPEN = """
const [path, done] = [arguments[0], arguments[arguments.length - 1]];
(async () => {
  const t0 = Date.now();
  while (!window.jupyterapp) {
    if (Date.now() - t0 > 120000) throw new Error('JupyterLab did not start');
    await new Promise(r => setTimeout(r, 200));
  }
  const app = window.jupyterapp;
  await app.started; await app.restored;
  const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
  await panel.context.ready; await panel.sessionContext.ready;
  app.shell.activateById(panel.id);
  window.__panel = panel;
  while (!panel.sessionContext.session || !panel.sessionContext.session.kernel
         || panel.sessionContext.session.kernel.status !== 'idle') {
    if (Date.now() - t0 > 120000) throw new Error('the kernel did not start');
    await new Promise(r => setTimeout(r, 200));
  }
  return 'ok';
})().then(done, e => done('error: ' + e));
"""

# started here, awaited by polling window.__ran: a run that outlasts the driver's 120 s HTTP read
# timeout (a Spark notebook on a loaded machine) must not fail the test
RUN_ALL = """
const done = arguments[arguments.length - 1];
window.__ran = null;
window.jupyterapp.commands.execute('notebook:run-all-cells')
  .then(ok => { window.__ran = String(ok); }, e => { window.__ran = 'error: ' + e; });
done('started');
"""
RUN_ALL_TIMEOUT_S = 600

INSPECT = """
const panel = window.__panel, rows = [];
panel.content.widgets.forEach((cell, ci) => {
  if (cell.model.type !== 'code') return;
  const outputs = cell.model.outputs;
  for (let j = 0; j < outputs.length; j++) {
    const o = outputs.get(j).toJSON();
    const data = o.data || {};
    const keys = Object.keys(data);
    const html = String(data['text/html'] || '');
    const child = cell.outputArea.widgets[j];
    const node = child ? child.node : null;
    const chart = keys.some(k => /vnd\\.vega|widget-view|image\\/svg/.test(k)) || /vegaEmbed|altair-viz/.test(html);
    let drawn = 0;
    if (node) for (const el of node.querySelectorAll('svg, canvas')) {
      const r = el.getBoundingClientRect();
      if (r.width >= 40 && r.height >= 40) drawn++;
    }
    const views = node ? node.querySelectorAll('.vega-embed').length : 0;
    // a chart wider than the notebook is cut, behind a scrollbar
    let wide = 0;
    if (node) for (const el of node.querySelectorAll('.vega-embed')) {
      const box = node.getBoundingClientRect(), r = el.getBoundingClientRect();
      if (r.right > box.right + 2) wide = Math.max(wide, Math.round(r.right - box.right));
    }
    rows.push({cell: ci, output: j, type: o.output_type, keys, chart, drawn, views, wide,
               text: node ? node.innerText.slice(0, 1500) : '', node});
  }
});
return rows;
"""

RUNNING = """
const panel = window.__panel;
const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
return {status: kernel ? kernel.status : 'none',
        pending: panel.content.widgets.filter(c => c.model.type === 'code' && c.node.querySelector(
          '.jp-InputArea-prompt') && /\\[\\*\\]/.test(c.node.querySelector('.jp-InputArea-prompt').innerText)).length};
"""

# a fingerprint of the charts drawn in a node: SVG markup and canvas pixels
FINGERPRINT = """
const node = arguments[0];
const parts = [];
for (const el of node.querySelectorAll('svg, canvas')) {
  parts.push(el.tagName === 'CANVAS' ? el.toDataURL() : el.outerHTML);
}
return parts.join('|');
"""

# the handle of the slider labelled arguments[1] in the app arguments[0]
FIND_SLIDER = """
const [node, label] = arguments;
for (const box of node.querySelectorAll('.widget-slider')) {
  const lab = box.querySelector('label');
  // textContent: innerText is empty while JupyterLab skips rendering a cell scrolled out of view
  if (lab && lab.textContent.trim() === label) return box.querySelector('.noUi-handle');
}
return null;
"""
EXPLORER_SLIDER = "allowed lateness"


# widget descriptions ("source parallelism") cut by their description width: clipped text or an
# ellipsis shows as a label whose content is wider than its box
CUT_LABELS = """
const out = [];
for (const lab of document.querySelectorAll('.jp-OutputArea .widget-label, .jp-OutputArea .widget-label-basic')) {
  if (!lab.offsetParent) continue;  // hidden (another engine's control)
  if (lab.scrollWidth > lab.clientWidth + 1) out.push(lab.innerText.trim());
}
// a column of controls wider than its box (cut controls, a scrollbar under them)
for (const box of document.querySelectorAll('.jp-OutputArea .widget-vbox')) {
  if (!box.offsetParent || !box.querySelector(':scope > .widget-inline-hbox')) continue;
  if (box.scrollWidth > box.clientWidth + 1) out.push('a column of controls (' + box.scrollWidth + ' px in '
                                                     + box.clientWidth + ' px)');
}
return out;
"""


def _wait(predicate, timeout: float, step: float = 0.5):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(step)


@contextmanager
def _tall_viewport(driver):
    """A viewport as tall as the notebook (a headless window cannot grow past its screen), so
    that the whole notebook and every output fit in one screenshot each."""
    height = driver.execute_script(
        "const nb = window.__panel.content; return (nb.viewportNode || nb.node).scrollHeight;") or 1000
    metrics = {"width": 1400, "height": min(int(height) + 600, 16000), "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        driver.execute_script("const nb = window.__panel.content; (nb.outerNode || nb.node).scrollTop = 0;")
        time.sleep(1.5)
        yield
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        time.sleep(0.5)


def _screenshots(driver, rows, folder: Path) -> None:
    """The whole notebook, and each chart output on its own."""
    folder.mkdir(parents=True, exist_ok=True)
    with _tall_viewport(driver):
        driver.save_screenshot(str(folder / "notebook.png"))
        for row in rows:
            if row["chart"] and row["node"] is not None:
                try:
                    row["node"].screenshot(str(folder / f"cell{row['cell']:02d}-output{row['output']}.png"))
                except Exception:  # a node of zero size cannot be captured; the assertion says why
                    pass


def _problems(rows) -> list[str]:
    out = []
    for r in rows:
        where = f"cell {r['cell']} output {r['output']}"
        if r["type"] == "error":
            out.append(f"{where}: the cell raised: {r['text'][:500]}")
        for err in ERRORS:
            if err in r["text"]:
                out.append(f"{where}: shows {err!r}: {r['text'][:500]}")
        if r["chart"] and r["drawn"] and not r["views"] and "image/svg+xml" not in r["keys"]:
            out.append(f"{where}: a chart drawn without an interactive Vega view (.vega-embed)")
        if r["chart"] and r.get("wide"):
            out.append(f"{where}: a chart {r['wide']} px wider than the notebook (cut off, behind a scrollbar)")
        if r["chart"] and r["drawn"] == 0:
            out.append(f"{where}: a chart output ({', '.join(r['keys'])}) with no SVG or canvas drawn: "
                       f"{r['text'][:300]!r}")
    return out


# Every chart draws through the same widget; tooltips are probed on this notebook's dense scatter
# (hovering blindly over sparse charts would be slow and could miss their few marks).
TOOLTIP_NOTEBOOK = "01_quickstart"
TOOLTIP_SHOWN = """
const t = document.getElementById('vg-tooltip-element');
return !!(t && t.classList.contains('visible') && t.innerText.trim());
"""


def _tooltip_shows(driver, rows) -> bool:
    """Hover over the charts (a grid of points on each plot) until Vega shows a tooltip."""
    from selenium.webdriver.common.action_chains import ActionChains

    for row in rows:
        if not row["views"]:
            continue
        for el in driver.execute_script(
                "return [...arguments[0].querySelectorAll('.vega-embed canvas, .vega-embed svg.marks')];",
                row["node"]):
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", el)
            w, h = el.size["width"], el.size["height"]
            # the rising diagonal first (event time against arrival time), then a coarse grid
            points = [(f / 20, 1 - f / 20) for f in range(3, 18)]
            points += [(fx / 8, fy / 6) for fy in range(1, 6) for fx in range(1, 8)]
            for fx, fy in points:
                ActionChains(driver).move_to_element_with_offset(
                    el, int(w * (fx - 0.5)), int(h * (fy - 0.5))).perform()
                if driver.execute_script(TOOLTIP_SHOWN):
                    return True
    return False


def _move_explorer_control(driver, rows, folder: Path) -> list[str]:
    """Move the explorer's allowed-lateness slider one step (keyboard); the drawn chart must change."""
    from selenium.webdriver.common.keys import Keys

    apps = [r for r in rows if r["chart"] and r["node"] is not None
            and driver.execute_script(FIND_SLIDER, r["node"], EXPLORER_SLIDER) is not None]
    if not apps:
        return [f"no explorer with an {EXPLORER_SLIDER!r} slider was found in the outputs"]
    node = apps[-1]["node"]
    driver.execute_script("arguments[0].scrollIntoView({block: 'end'});", node)
    before = driver.execute_script(FINGERPRINT, node)
    summary_before = node.text
    handle = driver.execute_script(FIND_SLIDER, node, EXPLORER_SLIDER)
    handle.click()
    handle.send_keys(Keys.ARROW_RIGHT)
    changed = _wait(lambda: (lambda fp: fp and fp != before and fp)(driver.execute_script(FINGERPRINT, node)),
                    timeout=60)
    time.sleep(1.0)
    with _tall_viewport(driver):
        node.screenshot(str(folder / "explorer-after-moving-a-slider.png"))
    text = node.text
    problems = [f"explorer shows {e!r} after the change" for e in ERRORS if e in text]
    if "error:" in text:
        problems.append(f"explorer reports an error: {text[:500]}")
    if not changed:
        moved = "the summary changed" if text != summary_before else "nothing else changed either"
        problems.append(f"explorer: the drawn chart did not change within 60 s of moving {EXPLORER_SLIDER!r} "
                        f"one step ({moved})")
    return problems


# the <select> of the dropdown labelled arguments[1] (or the <input> of that text box) in arguments[0]
FIND_FIELD = """
const [node, label] = arguments;
for (const box of node.querySelectorAll('.widget-dropdown, .widget-text, .widget-textarea')) {
  const lab = box.querySelector('label');
  if (lab && lab.innerText.trim() === label && box.offsetParent) return box.querySelector('select, input, textarea');
}
return null;
"""
BEAM_PICKER = "beam trigger"
TRIGGER_PICKER = "trigger"  # the window trigger's picker (Flink's): it fills the "trigger spec" box


def _step(driver, node, folder: Path, name: str, act, want, problems: list[str], absent=()) -> None:
    """Do ``act`` in an explorer's output ``node``, wait until its text shows every ``want`` and
    none of ``absent`` with the replay done, and screenshot it as ``name``."""
    act()
    ok = _wait(lambda: all(t in node.text for t in want) and not any(t in node.text for t in absent)
               and "replaying" not in node.text and "waiting for changes" not in node.text, timeout=90)
    time.sleep(1.0)
    with _tall_viewport(driver):
        node.screenshot(str(folder / f"{name}.png"))
    if not ok:
        problems.append(f"{name}: {want} not shown within 90 s: {node.text[:600]!r}")


def _outputs_with_field(driver, rows, label: str) -> list[dict]:
    """The chart outputs that show a field labelled ``label``. Each is scrolled into view first:
    JupyterLab does not lay out an output scrolled away, and its labels then have no text."""
    def shows(node) -> bool:
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", node)
        return driver.execute_script(FIND_FIELD, node, label) is not None

    return [r for r in rows if r["chart"] and r["node"] is not None and shows(r["node"])]


def _type(box, text: str) -> None:
    """Type ``text`` in a text box; its value is sent when it loses focus."""
    from selenium.webdriver.common.keys import Keys

    box.clear()
    box.send_keys(text, Keys.TAB)


def _move_beam_controls(driver, rows, folder: Path) -> list[str]:
    """In an explorer on Beam: pick a trigger, change the timestamp combiner and accumulation (the
    summary must name each), type a bad trigger (its error must show under the box, the charts
    stay), then pick the default again (the error goes). Screenshots after each step."""
    from selenium.webdriver.support.ui import Select

    apps = _outputs_with_field(driver, rows, BEAM_PICKER)
    if not apps:
        return [f"no explorer with a {BEAM_PICKER!r} picker was found in the outputs"]
    node, problems = apps[-1]["node"], []

    def field(label):
        return driver.execute_script(FIND_FIELD, node, label)

    def step(name, act, want, absent=()):
        _step(driver, node, folder, f"beam-explorer-{name}", act, want, problems, absent)

    driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", node)
    step("late-firings", lambda: Select(field(BEAM_PICKER)).select_by_visible_text("late: every late record"),
         ["beam_trigger=after_watermark(late=after_count:1)", "replayed in"])
    step("latest-discarding", lambda: (Select(field("timestamp combiner")).select_by_visible_text("latest"),
                                       Select(field("accumulation")).select_by_visible_text("discarding")),
         ["timestamp_combiner=latest", "accumulation=discarding", "replayed in"])
    step("bad-trigger", lambda: _type(field("trigger spec"), "after_cont:2"),
         ["unknown beam_trigger 'after_cont:2'", "did you mean"])
    if Select(field(BEAM_PICKER)).first_selected_option.text != "custom (type it below)":
        problems.append("beam explorer: the picker did not turn to 'custom' for a typed trigger")
    step("default-again", lambda: Select(field(BEAM_PICKER)).select_by_visible_text("at the watermark (default)"),
         ["replayed in", "accumulation=discarding"], absent=["unknown beam_trigger", "error:"])
    cut = driver.execute_script(CUT_LABELS)
    if cut:
        problems.append(f"beam explorer: widgets cut off: {', '.join(map(repr, cut))}")
    return problems


def _move_window_trigger(driver, rows, folder: Path) -> list[str]:
    """In the first explorer with a window trigger picker (Flink's): pick a count trigger (the
    summary names it), type a bad trigger (the parser's error, naming trigger, shows under the
    box), then pick the default again (the error goes). Screenshots after each step."""
    from selenium.webdriver.support.ui import Select

    apps = _outputs_with_field(driver, rows, TRIGGER_PICKER)
    if not apps:
        return [f"no explorer with a {TRIGGER_PICKER!r} picker was found in the outputs"]
    node, problems = apps[0]["node"], []

    def field(label):
        return driver.execute_script(FIND_FIELD, node, label)

    def step(name, act, want, absent=()):
        _step(driver, node, folder, f"explorer-trigger-{name}", act, want, problems, absent)

    driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", node)
    step("count", lambda: Select(field(TRIGGER_PICKER)).select_by_visible_text("every 10 records"),
         ["trigger=count:10", "replayed in"])
    step("bad", lambda: _type(field("trigger spec"), "cont:2"), ["unknown trigger 'cont:2'", "trigger spec above"])
    if Select(field(TRIGGER_PICKER)).first_selected_option.text != "custom (type it below)":
        problems.append("explorer: the trigger picker did not turn to 'custom' for a typed trigger")
    step("default-again", lambda: Select(field(TRIGGER_PICKER)).select_by_visible_text("at the watermark (default)"),
         ["replayed in"], absent=["unknown trigger", "error:", "trigger=count"])
    cut = driver.execute_script(CUT_LABELS)
    if cut:
        problems.append(f"explorer: widgets cut off: {', '.join(map(repr, cut))}")
    return problems


@pytest.mark.parametrize("notebook", [_param(p) for p in NOTEBOOKS])
def test_notebook_charts_draw_in_jupyterlab(notebook: Path, jupyterlab, chrome, artifacts):
    folder = artifacts / notebook.stem
    driver = chrome
    t0 = time.monotonic()
    driver.get(jupyterlab.url("lab?reset"))
    try:
        opened = driver.execute_async_script(OPEN, f"notebooks/{notebook.name}")
        assert opened == "ok", opened
        assert driver.execute_async_script(RUN_ALL) == "started"
        ran = _wait(lambda: driver.execute_script("return window.__ran;"), timeout=RUN_ALL_TIMEOUT_S)
        assert ran is not None, f"running all cells did not finish in {RUN_ALL_TIMEOUT_S} s"
        assert not ran.startswith("error"), ran
        _wait(lambda: (lambda s: s["status"] == "idle" and s["pending"] == 0)(driver.execute_script(RUNNING)),
              timeout=300)
        # widgets draw after the kernel is done: wait until every chart output has an SVG or canvas
        rows = _wait(lambda: (lambda rs: rs if all(r["drawn"] for r in rs if r["chart"]) else None)(
            driver.execute_script(INSPECT)), timeout=DRAW_TIMEOUT_S) or driver.execute_script(INSPECT)
        time.sleep(1.0)  # let the last charts finish painting before the screenshots
        rows = driver.execute_script(INSPECT)
        _screenshots(driver, rows, folder)
        problems = _problems(rows)
        charts = [r for r in rows if r["chart"]]
        if not charts:
            problems.append("no chart output at all")
        if notebook.stem == TOOLTIP_NOTEBOOK and not problems and not _tooltip_shows(driver, charts):
            problems.append("hovering over the charts never showed a Vega tooltip")
        cut = driver.execute_script(CUT_LABELS)
        if cut:
            problems.append(f"widgets cut off: {', '.join(map(repr, cut))}")
        if "toolkit.explore(" in _code(notebook):
            problems += _move_explorer_control(driver, rows, folder)
            problems += _move_window_trigger(driver, rows, folder)
            if re.search(r"explore\([^)]*semantics=[\"']beam", _code(notebook)):
                problems += _move_beam_controls(driver, rows, folder)
        elapsed = time.monotonic() - t0
        print(f"{notebook.name}: {len(charts)} chart outputs drawn in {elapsed:.0f} s; screenshots in {folder}")
        assert not problems, (f"{notebook.name} in JupyterLab (screenshots: {folder}):\n  "
                              + "\n  ".join(problems))
    except BaseException:
        folder.mkdir(parents=True, exist_ok=True)
        try:
            driver.save_screenshot(str(folder / "at-failure.png"))
        except Exception:
            pass
        print(f"screenshots of {notebook.name}: {folder}")
        raise
    finally:
        jupyterlab.shutdown_kernels()
