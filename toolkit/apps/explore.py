"""ipywidgets apps: ``toolkit.explore(log)`` and ``toolkit.explore_sweep(results)``.

``explore`` reruns :func:`toolkit.replay` whenever a control changes (debounced, with a busy
indicator) and redraws the charts and the summary table. Its controls are generated from the
engines' declarations (:mod:`toolkit.apps.controls`): every setting the chosen engine reads.
``explore_sweep`` browses a finished sweep: pick the axes, the metric and filters.

Renderers: ``renderer="altair"`` shows the Altair charts themselves through Altair's active
renderer; in a notebook that is the offline JupyterChart widget toolkit enables
(:mod:`toolkit.viz.rendering`: interactive, no CDN), and each tab keeps one widget whose
chart is replaced on every replay. ``renderer="svg"`` draws a static SVG in Python with
vl-convert. The default is ``"altair"`` when the JupyterChart renderer is active (in a
notebook), ``"svg"`` elsewhere.
"""
from __future__ import annotations

import html
import threading
import time
from typing import Any, Callable

import ipywidgets as w  # the package's __init__ names the extra when it is missing
import pandas as pd

import toolkit.viz as viz
from toolkit.apps import controls as ctl
from toolkit.apps.controls import CUSTOM
from toolkit.settings import Option, SettingError
from toolkit.viz import _format as fmt
from toolkit.viz.tables import count_row

WINDOW_TYPES = ["tumbling", "sliding", "session", "dynamic_session"]
ALL = "\u2217all"  # filter value meaning "no filter"

CONTROL_WIDTH_PX = 420
"""The width of each control (its description and its box) in the explorer's left column: beside the
longest description (23 characters) a box shows 26 characters whole ("Spark Structured Streaming")."""

WINDOW_CONTROLS = ("window", "size", "slide", "gap_column")
"""The window's own controls (kind, size or gap, slide, gap column): the ``window`` setting."""

START: dict[str, Any] = {"delay": "500ms"}
"""Where the explorer starts when not told, beside the declared defaults: a watermark delay, so
that lateness shows at once."""

CANONICAL_COLUMNS = ("event_time", "arrival_time", "key", "partition", "row")
"""Log columns that are not a per-record session gap (the value column may be one)."""


def gap_columns(log: Any) -> list[str]:
    """The log's numeric columns that can hold a per-record session gap (``dynamic_session:COLUMN``):
    every numeric column but the canonical times, partition and row."""
    if getattr(log, "is_spark", False) and getattr(log, "spark_df", None) is not None:
        numeric = ("int", "bigint", "smallint", "tinyint", "double", "float", "decimal")
        cols = [c for c, t in log.spark_df.dtypes if t.split("(")[0] in numeric]
    else:
        table = getattr(log, "table", None)
        if table is None:
            return []
        cols = [c for c in table.columns if pd.api.types.is_numeric_dtype(table[c])
                and not pd.api.types.is_bool_dtype(table[c])]
    return [c for c in cols if c not in CANONICAL_COLUMNS]


def _check_renderer(renderer: str | None) -> str:
    """The renderer to use: ``None`` picks ``"altair"`` when charts are offline widgets, else ``"svg"``."""
    if renderer is None:
        return "altair" if viz.rendering.uses_widgets() else "svg"
    if renderer not in ("svg", "altair"):
        raise ValueError(f"renderer must be 'svg' or 'altair', got {renderer!r}")
    return renderer


def _entry(bundle: Any) -> dict:
    """An Output-widget entry from a mime bundle (or a ``(data, metadata)`` pair)."""
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    return {"output_type": "display_data", "data": dict(data, **{"text/plain": "<chart>"}), "metadata": {}}


def chart_output(chart: Any, renderer: str = "svg") -> dict:
    """One Output-widget entry for ``chart``: an SVG drawn by vl-convert, or Altair's own mime bundle."""
    if renderer == "svg":
        import vl_convert

        return _entry({"image/svg+xml": vl_convert.vegalite_to_svg(chart.to_dict())})
    if renderer == "altair":
        return _entry(chart._repr_mimebundle_())
    _check_renderer(renderer)
    raise AssertionError("unreachable")


class _Charts:
    """Output entries for the charts of one app: with the JupyterChart renderer, one widget per
    output name whose chart is replaced (the bundled Vega scripts reach the browser once)."""

    def __init__(self, renderer: str):
        self.renderer = renderer
        self.widgets: dict[str, Any] = {}

    def entry(self, name: str, chart: Any) -> dict:
        if self.renderer == "altair" and viz.rendering.uses_widgets():
            widget = viz.rendering.widget_for(chart, self.widgets.get(name))
            self.widgets[name] = widget
            return _entry(widget._repr_mimebundle_())
        return chart_output(chart, self.renderer)


class _App:
    """An app made of widgets: ``app.widget`` is the root box; the app displays as that widget."""

    widget: w.Widget

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


class Explorer(_App):
    """Controls for a replay; the charts and summary follow every change (see :func:`explore`)."""

    CHARTS = ("records", "lateness", "firings", "watermarks", "state", "drops")

    def __init__(self, log: Any, *, debounce_ms: int = 400, renderer: str | None = None, max_points: int = 2000,
                 replay_fn: Callable[..., Any] | None = None, semantics: str | None = None,
                 window: str = "tumbling:1s", parallelism: int | None = None, incident: Any = None,
                 incidents: list | None = None, **settings: Any):
        from toolkit import semantics as engines

        if parallelism is not None:  # the old spelling
            settings.setdefault("source_parallelism", parallelism)
        self._start(log, debounce_ms, renderer, max_points, replay_fn)
        self.options: dict[str, Option] = ctl.declared(engines.all_semantics())
        """Every setting a registered engine reads, by name: one control each."""
        self._read_with = {o.read_when[0] for o in self.options.values() if o.read_when}
        """the settings whose value shows or hides others (``Option.read_when``)"""
        values = self._starting_values(log, settings)
        self.controls: dict[str, w.ValueWidget] = {"semantics": self._engine_control(semantics)}
        self.controls.update(self._window_controls(log, window))
        self.pickers: dict[str, str] = {}
        """picker control -> the setting whose text box it fills"""
        self.errors: dict[str, w.HTML] = {}
        """setting -> the line under its text box that says the parser's error"""
        self._setting_controls(values, most=max(1, len(getattr(log, "partitions", [0]))))
        self._incident_control(log, incident, incidents)
        self._dress_controls()
        self._build_layout()
        self._show_controls()
        self.refresh()

    # ------------------------------------------------------------------ building
    def _start(self, log: Any, debounce_ms: int, renderer: str | None, max_points: int,
               replay_fn: Callable[..., Any] | None) -> None:
        """The app's state before any control: the log, the renderer, the replay and its bookkeeping."""
        import toolkit

        self.renderer = renderer = _check_renderer(renderer)
        self._charts = _Charts(renderer)
        self.log = log
        self.debounce_ms = int(debounce_ms)
        self.max_points = int(max_points)
        self._replay = replay_fn or toolkit.replay
        self.result: Any = None
        self.tabs: w.Tab
        self.error: str | None = None
        self.runs = 0
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._generation = 0
        self._idle = threading.Event()
        self._idle.set()
        self._following = False  # a picker is following its text box (it must not write the box back)

    def _incident_control(self, log: Any, incident: Any, incidents: list | None) -> None:
        """A box for a bad day (``toolkit.incidents``' spelling) with suggestions: ``incidents``,
        else examples fitted to the log (:func:`incident_examples`). Empty: the recorded log."""
        examples = [str(x) for x in incidents] if incidents is not None else incident_examples(log)
        self.recorded = log
        self._variants: dict[str, Any] = {}
        self.controls["incident"] = w.Combobox(value="" if incident is None else str(incident), options=examples,
                                               ensure_option=False, description="incident",
                                               placeholder="none: the recorded log")
        self.errors["incident"] = w.HTML(value="")
        if incident is not None:
            self._variant()  # a bad spelling raises here, naming the incident

    def _variant(self) -> Any:
        """The log the replay reads: the recorded one, or the incident in the box applied to it."""
        from toolkit.incidents import parse_incident

        text = self.controls["incident"].value.strip()
        if not text or text.lower() == "none":
            return self.recorded
        if text not in self._variants:
            self._variants = {text: parse_incident(text).apply(self.recorded)}  # the latest one only
        return self._variants[text]

    def _starting_values(self, log: Any, given: dict[str, Any]) -> dict[str, Any]:
        """Each setting's first value: the one given, else :data:`START`'s, else the declared
        default. A name no registered engine declares is refused, naming it."""
        unknown = [n for n in given if n not in self.options]
        if unknown:
            raise SettingError(unknown[0], f"the explorer has no setting {unknown[0]!r}; its settings: semantics, "
                               f"window, {', '.join(self.options)}")
        start = dict(START)
        if not getattr(log, "has_arrival_time", True):
            start["interval"] = "0ms"  # no processing time: a watermark after every record (row order)
        return {n: given.get(n, start.get(n, o.default)) for n, o in self.options.items()}

    def _engine_control(self, semantics: str | None) -> w.Dropdown:
        """The engine picker: every registered engine, by its title."""
        from toolkit import semantics as engines

        name = engines.aliases().get(semantics, semantics) if semantics is not None else engines.names()[0]
        engines.get(name)  # an unknown one is refused, naming semantics
        return w.Dropdown(options=[(e.title, e.name) for e in engines.all_semantics()], value=name,
                          description="engine")

    def _window_controls(self, log: Any, window: str) -> dict[str, w.ValueWidget]:
        """The window's controls: kind, size (or gap), slide and the per-record gap column."""
        kind, _, rest = str(window).partition(":")
        if kind not in WINDOW_TYPES:
            raise SettingError("window", f"window type must be one of {', '.join(WINDOW_TYPES)}, got {window!r}")
        self.gap_columns = gap_columns(log)
        column = ""
        if kind == "dynamic_session":
            column, rest = rest, "1s"
            if column not in self.gap_columns:
                raise SettingError("window", f"window {window!r}: the log has no numeric column {column!r}; "
                                   f"its numeric columns: {', '.join(self.gap_columns) or 'none'} "
                                   "(load the log with keep=[COLUMN])")
        size, _, slide = rest.partition("/")
        size = size or "1s"
        slide = slide or (size if kind != "sliding" else "500ms")
        kinds = [t for t in WINDOW_TYPES if t != "dynamic_session" or self.gap_columns]
        columns = self.gap_columns or [""]
        return {
            "window": w.Dropdown(options=kinds, value=kind, description="window"),
            "size": w.Text(value=size, description="size / gap", continuous_update=False),
            "slide": w.Text(value=slide, description="slide", continuous_update=False),
            "gap_column": w.Dropdown(options=columns, value=column or columns[0], description="gap column"),
        }

    def _setting_controls(self, values: dict[str, Any], most: int) -> None:
        """One control per declared setting (a bad starting value raises its parser's error), a
        picker before a text box that has one, and an error line under every text box."""
        for name, o in self.options.items():
            control = ctl.make_control(o, values[name], most=most)
            if isinstance(control, w.Textarea):
                control.layout.height = "auto"
            picker = ctl.make_picker(name, str(control.value), o.parse) if ctl.is_box(control) else None
            if picker is not None:
                self.controls[f"{name}_preset"] = picker
                self.pickers[f"{name}_preset"] = name
            self.controls[name] = control
            if ctl.is_box(control):
                self.errors[name] = w.HTML(value="", layout=w.Layout(width=f"{CONTROL_WIDTH_PX}px", display="none"))

    def _dress_controls(self) -> None:
        """One description width for every control (the longest description fits: none is cut)
        and the column's width (less the widgets' margins: nothing overflows it)."""
        style = description_style([c.description for c in self.controls.values()])
        for c in self.controls.values():
            c.style.description_width = style["description_width"]
            c.layout.width = f"{CONTROL_WIDTH_PX}px"

    def _build_layout(self) -> None:
        """The column of controls (each error line under its box) beside the figures, and the tabs."""
        self.busy = w.HTML(value="")
        # the figures take the room the controls leave, and scroll inside themselves if they must:
        # the controls keep their full width (a flex item shrinks by default, which cut them off)
        self.summary = w.HTML(value="", layout=w.Layout(flex="1 1 auto", min_width="0", overflow="auto"))
        self.outputs = {name: w.Output() for name in self.CHARTS}
        tabs = w.Tab(children=[self.outputs[n] for n in self.CHARTS])
        for i, n in enumerate(self.CHARTS):
            tabs.set_title(i, n)
        self.tabs = tabs
        self.drawn: set[str] = set()
        tabs.observe(self._on_tab, names="selected_index")
        column: list[w.Widget] = []
        for name, control in self.controls.items():
            control.observe(lambda change, name=name: self._on_change(name, change), names="value")
            column.append(control)
            if name in self.errors:
                column.append(self.errors[name])
        left = w.VBox(column + [self.busy],
                      layout=w.Layout(width=f"{CONTROL_WIDTH_PX + 20}px", min_width=f"{CONTROL_WIDTH_PX + 20}px",
                                      flex=f"0 0 {CONTROL_WIDTH_PX + 20}px"))
        self.widget = w.VBox([w.HBox([left, self.summary]), tabs])

    # ------------------------------------------------------------------ settings
    @property
    def engine(self) -> Any:
        """The chosen engine (``toolkit.semantics``' registered object)."""
        from toolkit import semantics as engines

        return engines.get(self.controls["semantics"].value)

    def _applies(self, name: str) -> bool:
        """Whether setting ``name`` applies to the chosen window kind (``stagger``: tumbling only)
        and to the values of the setting it is read with (``Option.read_when``: a strategy's own
        parameters)."""
        kinds = ctl.look(name).windows
        when = self.options[name].read_when if name in self.options else None
        if when is not None and when[0] in self.controls and self.controls[when[0]].value not in when[1]:
            return False
        return not kinds or self.controls["window"].value in kinds

    def _show_controls(self) -> None:
        """Show the chosen engine's settings (those the chosen window has) and hide the rest."""
        c = self.controls
        mine = set(ctl.reads(self.engine, self.options))
        for name in self.options:
            shown = name in mine and self._applies(name)
            c[name].layout.display = "" if shown else "none"
            if name in self.errors:
                self.errors[name].layout.display = "" if shown and self.errors[name].value else "none"
        for picker, name in self.pickers.items():
            c[picker].layout.display = c[name].layout.display
        kind = c["window"].value
        c["slide"].layout.display = "" if kind == "sliding" else "none"
        c["size"].layout.display = "none" if kind == "dynamic_session" else ""
        c["size"].description = "gap" if kind == "session" else "size"
        c["gap_column"].layout.display = "" if kind == "dynamic_session" else "none"

    def _show_engine_controls(self, semantics: str) -> None:  # the old name
        self._show_controls()

    def _window(self) -> str:
        """The window setting the window's controls spell."""
        c = {k: self.controls[k].value for k in WINDOW_CONTROLS}
        if c["window"] == "sliding":
            return f"sliding:{c['size']}/{c['slide']}"
        if c["window"] == "dynamic_session":
            return f"dynamic_session:{c['gap_column']}"
        return f"{c['window']}:{c['size']}"

    def settings(self) -> dict[str, Any]:
        """The replay settings the controls describe (what ``toolkit.replay`` receives): the
        chosen engine (``semantics``), the window, and each setting the engine reads that is
        not at its declared default (the engine's delay setting always)."""
        engine = self.engine
        out: dict[str, Any] = {"semantics": engine.name, "window": self._window()}
        for name in ctl.reads(engine, self.options):
            if not self._applies(name):
                continue
            o = self.options[name]
            v = ctl.read(o, self.controls[name])
            if name == engine.delay_setting or not ctl.is_default(o, v):
                out[name] = v
        return out

    # ------------------------------------------------------------------ running
    def _on_change(self, name: str, change: dict) -> None:
        if name in self.pickers:
            if change["new"] != CUSTOM and not self._following:  # writes the text box, whose change replays
                self.controls[self.pickers[name]].value = change["new"]
            return
        if name == "incident":
            self._check_incident()
            self.schedule()
            return
        if name in self.errors:
            self._check_text(name)
        if name in ("window", "semantics") or name in self._read_with:
            self._show_controls()
        self.schedule()

    def _check_incident(self) -> None:
        """Read the incident box (``toolkit.incidents.parse_incident``); its error shows under it."""
        try:
            self._variant()
        except (SettingError, ValueError) as exc:
            self.errors["incident"].value = (f"<div style='color:#b00020;line-height:1.35;padding:2px 0 6px 0'>"
                                             f"{html.escape(str(exc))}</div>")
            self.errors["incident"].layout.display = ""
        else:
            self.errors["incident"].value = ""
            self.errors["incident"].layout.display = "none"

    def _check_text(self, name: str) -> None:
        """Parse a typed setting with its declared parser: the error shows under the box (the
        replay then says it too and keeps the last result); its picker follows the text."""
        o = self.options[name]
        try:
            spelled: str | None = ctl._text_of(o.parse(ctl.read(o, self.controls[name]), name))
        except (SettingError, ValueError) as exc:
            said = str(exc) if name in str(exc) else f"{name}: {exc}"
            self.errors[name].value = (f"<div style='color:#b00020;line-height:1.35;padding:2px 0 6px 0'>"
                                       f"{html.escape(said)}</div>")
            spelled = None
        else:
            self.errors[name].value = ""
        self._show_controls()
        picker = f"{name}_preset"
        if picker not in self.pickers:
            return
        want = ctl.preset_of(name, spelled, o.parse)
        if self.controls[picker].value != want:  # the picker follows without writing the text back
            self._following = True
            try:
                self.controls[picker].value = want
            finally:
                self._following = False

    def schedule(self) -> None:
        """Replay after ``debounce_ms`` without further change (at once when ``debounce_ms`` is 0)."""
        with self._lock:
            self._generation += 1
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._idle.clear()
            self.busy.value = "<span style='color:#b35900'>&#9203; waiting for changes to settle&hellip;</span>"
            if self.debounce_ms <= 0:
                generation = self._generation
            else:
                generation = None
                self._timer = threading.Timer(self.debounce_ms / 1000, self._run, args=(self._generation,))
                self._timer.daemon = True
                self._timer.start()
        if generation is not None:
            self._run(generation)

    def refresh(self) -> None:
        """Replay now with the current settings (synchronously)."""
        with self._lock:
            self._generation += 1
            generation = self._generation
            self._idle.clear()
        self._run(generation)

    def wait(self, timeout: float = 60.0) -> bool:
        """Block until no replay is pending or running (for scripts and tests)."""
        return self._idle.wait(timeout)

    def _run(self, generation: int) -> None:
        settings = self.settings()
        self.busy.value = "<span style='color:#b35900'>&#9203; replaying&hellip;</span>"
        t0 = time.perf_counter()
        current = self.CHARTS[self.tabs.selected_index or 0]
        try:
            log = self._variant()
            self.log = log  # the charts draw the log that was replayed
            result = self._replay(log, **settings)
            entry = self._draw(result, current)
        except Exception as exc:  # shown to the user; the previous charts stay
            with self._lock:
                if generation == self._generation:
                    self.error = str(exc)
                    name = getattr(exc, "setting", None)
                    said = (name in self.errors and self.errors[name].value
                            and self.controls[name].layout.display != "none")
                    text = (f"the {ctl.label(name)} above; the last good replay stays" if said  # not said twice
                            else html.escape(str(exc)))
                    self.busy.value = f"<span style='color:#b00020'>error: {text}</span>"
                    self._idle.set()
            return
        elapsed = time.perf_counter() - t0
        with self._lock:
            if generation != self._generation:
                return  # a newer change is pending: drop this stale result
            self.runs += 1
            self.result = result
            self.error = None
            self.drawn = {current}
            for name, out in self.outputs.items():
                out.outputs = (entry,) if name == current else ()
            self.summary.value = self._summary_html(result, settings, elapsed)
            self.busy.value = f"<span style='color:#2e7d32'>&#10003; replayed in {fmt.seconds(elapsed)}</span>"
            self._idle.set()

    def chart(self, name: str, result: Any = None) -> Any:
        """The Altair chart of tab ``name`` for ``result`` (default: the latest replay)."""
        result = result if result is not None else self.result
        if name == "records":
            return viz.event_time_scatter(self.log, result, max_points=self.max_points, interactive=False)
        if name == "lateness":
            delay = result.settings.get("delay") if isinstance(result.settings, dict) else None
            return viz.lateness_histogram(self.log, result, delay_ms=delay if isinstance(delay, int) else None)
        if name == "firings":
            return viz.firing_timeline(result, max_points=self.max_points)
        if name == "watermarks":
            return viz.watermark_lag(result, max_points=self.max_points)
        if name == "state":
            return viz.state_over_time(result, max_points=self.max_points)
        if name == "drops":
            return viz.drops_by_partition(self.log, result) & viz.drops_by_key(self.log, result)
        raise ValueError(f"no chart {name!r}; charts: {', '.join(self.CHARTS)}")

    def _draw(self, result: Any, name: str) -> dict:
        return self._charts.entry(name, self.chart(name, result))

    def _on_tab(self, change: dict) -> None:
        """Charts are drawn when their tab is shown (only the visible one follows each replay)."""
        name = self.CHARTS[change["new"] or 0]
        with self._lock:
            result, drawn = self.result, self.drawn
        if result is None or name in drawn:
            return
        entry = self._draw(result, name)
        with self._lock:
            if self.result is result:
                self.outputs[name].outputs = (entry,)
                self.drawn = drawn | {name}


    def _summary_html(self, result: Any, settings: dict, elapsed: float) -> str:
        """The replay's figures in three compact columns (so the chart tabs stay in view)."""
        s = result.summary()
        rows = []
        for name, v in s.items():
            if name in ("settings", "deployable"):  # figures only: the code is toolkit.deploy's
                continue
            counted = count_row(name, v, s)  # the fates as shares of the valid records
            shown = viz.sweep.name_of(name) if name in viz.sweep.METRIC_NAMES else fmt.label(name).replace("_", " ")
            rows.append(((counted[0] or shown), counted[1]) if counted else (shown, fmt.cell(name, v)))
        idle = "idleness" in settings or "idleness" not in ctl.reads(self.engine, self.options)
        caption = "replay: " + fmt.settings_text(settings) + ("" if idle else ", no idleness")
        if self.log is not self.recorded:  # a bad day: what the incident did, in its own words
            caption += "; " + "; ".join(str(line) for line in getattr(self.log, "incidents", []))
        # a long setting (a Beam trigger) wraps in the caption instead of widening the table
        return f"<div style='overflow-wrap:anywhere'>{fmt.kv_grid(rows, columns=2, caption=caption)}</div>"


def explore(log: Any, **options: Any) -> Explorer:
    """An ipywidgets app over ``log``: one control per setting of the chosen engine, generated
    from the engines' declarations (``toolkit.semantics``: each engine's ``shared`` common
    settings, ``toolkit.settings.COMMON_OPTIONS``, and its own ``options``; the widget follows
    each declaration's ``control``, :mod:`toolkit.apps.controls`). The engine control lists every
    registered engine, one added later included; flip it to see the same log under another
    engine's rules (the controls it does not read hide, and keep their values). The window is
    drawn from several controls: type (tumbling, sliding, session, and ``dynamic_session`` with a
    picker of the log's numeric columns for the per-record gap) and size. Flink shows its
    watermark (delay, strategy, interval, idleness, source parallelism), its window operator
    (allowed lateness, trigger with a picker of common triggers, evictor, function,
    accumulation, stagger for tumbling windows) and next stages; Spark its trigger interval,
    output mode and watermark policy; Kafka Streams grace, tasks, repartition, emit and
    retention, and no delay; Beam a trigger picker (``toolkit.apps.controls.BEAM_TRIGGERS``) with a box for any
    ``beam_trigger``, timestamp combiner, accumulation and Flink's watermark controls. A typed
    setting is read by its parser, whose error shows under its box. The replay reruns on change
    (debounced by ``debounce_ms``, default 400, with a busy indicator) and the charts and summary
    follow; a setting an engine refuses is shown as its error, and the last good replay stays.
    The **incident** box replays a bad day instead of the recorded log: a ``toolkit.incidents``
    spelling, typed or picked from ``incidents`` (default: a stall, a restart and a silence
    fitted to the log, :func:`incident_examples`); its parser's error shows under it, empty is
    the recorded log again, and ``incident=`` starts with one.

    Options: ``debounce_ms``, ``renderer`` ("altair" or "svg"; default "altair" in a notebook),
    ``max_points``, ``replay_fn``, and the starting ``semantics``, ``window`` ("tumbling:1s",
    "sliding:10s/5s", "session:30s", "dynamic_session:gap_ms") and any setting an engine declares
    (``delay``, ``lateness``, ``trigger``, ``stages``, ``trigger_interval``, ``grace``,
    ``beam_trigger``, ...), in ``toolkit.settings``' spellings; a bad one raises its parser's
    error. The app's ``result`` is the latest replay.
    """
    return Explorer(log, **options)


def incident_examples(log: Any) -> list[str]:
    """Bad days fitted to ``log`` for the explorer's incident box: a stall of its busiest partition
    and a silence of another for a fifth of the span from a third in, drained at twice the
    partition's mean rate; a restart two thirds in that re-reads a fifth of the span; nothing for
    a log without arrival times or with one record."""
    from toolkit.settings import format_duration

    t = getattr(log, "table", None)
    if t is None or "arrival_time" not in t or len(t) < 2:
        return []
    arrival = t["arrival_time"].to_numpy()
    span = int(arrival.max() - arrival.min())
    if span < 10:
        return []
    counts = t["partition"].value_counts()
    busiest, quiet = int(counts.index[0]), int(counts.index[-1])
    rate = max(1, int(2 * counts.iloc[0] * 1000 / span))
    whole = max(1, int(2 * len(t) * 1000 / span))

    def d(ms: float) -> str:  # whole seconds below 10 min, whole minutes below 10 h, else hours
        unit = 1000 if ms < 600_000 else 60_000 if ms < 36_000_000 else 3_600_000
        return format_duration(max(1, round(ms / unit)) * unit)

    return [f"stall:partition={busiest},at={d(span / 3)},duration={d(span / 5)},drain={rate}/s",
            f"restart:at={d(2 * span / 3)},downtime={d(span / 30)},replay_from={d(span / 5)},source_rate={whole}/s",
            f"silence:partition={quiet},at={d(span / 2)},duration={d(span / 10)}"]


def description_style(descriptions: list[str]) -> dict[str, str]:
    """A widget ``style`` whose description column fits the longest of ``descriptions`` (never cut
    to "source parallel..."): about one ``ch`` per character, plus room for the colon-less gap."""
    longest = max((len(d) for d in descriptions), default=8)
    return {"description_width": f"{longest + 2}ch"}


class SweepExplorer(_App):
    """Browse a finished sweep (see :func:`explore_sweep`)."""

    def __init__(self, results: pd.DataFrame, *, renderer: str | None = None, completeness: float = 0.99,
                 metric: str = "latency_p99_ms"):
        self.renderer = renderer = _check_renderer(renderer)
        self._charts = _Charts(renderer)
        if not len(results):
            raise ValueError("the sweep has no rows to explore")
        self.results = results
        self.completeness = completeness
        self.cfg = viz.config_columns(results)
        self.metrics = viz.metric_columns(results)
        varying = viz.sweep.varying(results, self.cfg)
        axes = varying + [c for c in self.metrics]
        x0 = "delay_ms" if "delay_ms" in varying else axes[0]
        y0 = "lateness_ms" if "lateness_ms" in varying else (varying[1] if len(varying) > 1 else self.metrics[0])
        names = ["x axis", "y axis", "metric"] + [viz.sweep.name_of(c) for c in varying]
        style = description_style(names)
        named = [(viz.sweep.name_of(c), c) for c in axes]
        self.controls: dict[str, w.ValueWidget] = {
            "x": w.Dropdown(options=named, value=x0, description="x axis", style=style),
            "y": w.Dropdown(options=named, value=y0, description="y axis", style=style),
            "metric": w.Dropdown(options=[(viz.sweep.name_of(m), m) for m in self.metrics],
                                 value=metric if metric in self.metrics else self.metrics[0],
                                 description="metric", style=style),
        }
        self.filters: dict[str, w.Dropdown] = {}
        for c in varying:
            values = viz.sweep._ordered(results[c])
            self.filters[c] = w.Dropdown(options=[("all", ALL)] + [(viz.sweep.value_text(c, v), v) for v in values],
                                         value=ALL, description=viz.sweep.name_of(c), style=style)
        for control in list(self.controls.values()) + list(self.filters.values()):
            control.layout = w.Layout(width=f"{CONTROL_WIDTH_PX}px")  # "first-result completeness" fits
        self.output = w.Output()
        self.table = w.HTML()
        self.message = w.HTML()
        for control in list(self.controls.values()) + list(self.filters.values()):
            control.observe(lambda change: self.update(), names="value")
        controls = w.VBox(list(self.controls.values()) + [w.HTML("<b>filters</b>")] + list(self.filters.values()))
        self.widget = w.VBox([w.HBox([controls, self.message]), self.output, self.table])
        self.update()

    def selection(self) -> pd.DataFrame:
        """The sweep rows that pass the filters."""
        df = self.results
        for c, control in self.filters.items():
            v = control.value
            if isinstance(v, str) and v == ALL:
                continue
            df = df[df[c].isna()] if fmt.is_missing(v) else df[df[c] == v]
        return df

    def update(self) -> None:
        x, y, metric = (self.controls[k].value for k in ("x", "y", "metric"))
        df = self.selection()
        if x == y:
            self.message.value = "<span style='color:#b00020'>pick two different axes</span>"
            return
        if not len(df):
            self.message.value = "<span style='color:#b00020'>no configuration passes the filters</span>"
            self.output.outputs = ()
            self.table.value = ""
            return
        if x in self.cfg and y in self.cfg:
            chart = viz.sweep_heatmap(df, metric, x=x, y=y)
            self.kind = "heatmap"
        else:
            chart = viz.sweep_scatter(df, metric, x=x, y=y)
            self.kind = "scatter"
        self.chart = chart
        self.output.outputs = (self._charts.entry("chart", chart),)
        self.message.value = f"{fmt.number(len(df))} of {fmt.number(len(self.results))} configurations"
        ascending = metric not in viz.sweep.HIGHER_IS_BETTER
        top = df.sort_values(metric, ascending=ascending, kind="stable").head(10)
        cols = [c for c in viz.sweep.varying(self.results, self.cfg)] + [m for m in dict.fromkeys(
            [metric, "completeness_first", "latency_p99_ms", "dropped"]) if m in df.columns]
        order = "lowest" if ascending else "highest"
        rows = [[fmt.Figure(viz.sweep.value_text(c, v)) for c, v in zip(cols, r)] for r in top[cols].itertuples(index=False)]
        self.table.value = fmt.table([viz.sweep.name_of(c) for c in cols], rows,
                                     caption=f"best 10 by {viz.sweep.name_of(metric)} ({order} first)")


def explore_sweep(results: pd.DataFrame, **options: Any) -> SweepExplorer:
    """An ipywidgets app over finished sweep results: pick the x and y axes (configuration columns
    give a heatmap, figures a scatter), the metric shown as colour, and filters on the other
    configuration columns; a table lists the best 10 rows. Options: ``renderer`` (as for :func:`explore`)."""
    return SweepExplorer(results, **options)


__all__ = ["explore", "explore_sweep", "Explorer", "SweepExplorer", "chart_output"]
