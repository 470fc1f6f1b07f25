"""ipywidgets apps: ``toolkit.explore(log)`` and ``toolkit.explore_sweep(results)``.

``explore`` reruns :func:`toolkit.replay` whenever a control changes (debounced, with a busy
indicator) and redraws the charts and the summary table. ``explore_sweep`` browses a
finished sweep: pick the axes, the metric and filters.

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

import ipywidgets as w
import pandas as pd

import toolkit.viz as viz
from toolkit.durations import parse_duration
from toolkit.viz import _format as fmt

WINDOW_TYPES = ["tumbling", "sliding", "session", "dynamic_session"]
DELAYS = ["0ms", "50ms", "100ms", "200ms", "500ms", "1s", "2s", "5s", "10s"]
LATENESS = ["0ms", "100ms", "500ms", "1s", "2s", "5s", "10s", "30s"]
INTERVALS = ["0ms", "50ms", "100ms", "200ms", "500ms", "1s"]
ALL = "\u2217all"  # filter value meaning "no filter"
IDLENESS = ["off", "500ms", "1s", "2s", "5s", "10s", "30s", "1min"]
TRIGGER_INTERVALS = ["100ms", "200ms", "500ms", "1s", "2s", "5s", "10s"]
STAGES_HINT = "e.g. window=tumbling:5s"
CUSTOM = "custom"  # the Beam trigger picker's entry for a trigger typed in the text box
BEAM_TRIGGERS: tuple[tuple[str, str], ...] = (
    ("at the watermark (default)", "default"),
    ("late: every late record", "after_watermark(late=after_count:1)"),
    ("early every 1 s, late each", "after_watermark(early=after_processing_time:1s,late=after_count:1)"),
    ("early every 10, late each", "after_watermark(early=after_count:10,late=after_count:1)"),
    ("every 10 records", "repeatedly(after_count:10)"),
    ("every 5 s (processing time)", "repeatedly(after_processing_time:5s)"),
    ("custom (type it below)", CUSTOM),
)
"""The Beam trigger picker: (label, ``beam_trigger`` spelling). Picking one writes its spelling
into the ``beam_trigger`` text box, where any trigger ``toolkit.settings.parse_beam_trigger``
accepts can be typed; "early every 1 s" is ``after_processing_time`` (processing time = arrival)."""
BEAM_TRIGGER_HINT = "e.g. after_watermark(early=after_count:5)"

ENGINE_CONTROLS: dict[str, tuple[str, ...]] = {
    "flink": ("lateness", "interval", "idleness", "source_parallelism", "stagger", "stages"),
    "spark": ("trigger_interval", "output_mode", "multiple_watermark_policy"),
    "kafka_streams": ("grace", "emit", "tasks"),
    # lateness, interval, idleness and source parallelism are shared with Flink (Beam's watermark is Flink's)
    "beam": ("beam_trigger_preset", "beam_trigger", "timestamp_combiner", "accumulation", "lateness", "interval",
             "idleness", "source_parallelism"),
}
"""The controls only one engine has, shown only while that engine (``semantics``) is chosen;
the others (window, size, slide, gap column, delay) are every engine's. An engine of
``toolkit.settings.SEMANTICS`` not listed here (one added later) gets the engine-specific
controls its settings accept (:func:`engine_controls`)."""

CONTROL_WIDTH_PX = 380
"""The width of each control (its description and its box) in the explorer's left column."""

COMMON_CONTROLS = ("semantics", "window", "size", "slide", "gap_column", "delay")
"""The controls every engine has."""

PICKERS = ("beam_trigger_preset",)
"""Controls that only fill in another control (the Beam trigger picker writes ``beam_trigger``):
never a setting of their own."""

NO_DELAY = ("kafka_streams",)
"""Engines without a watermark delay (Kafka Streams closes windows by stream time and grace)."""

CANONICAL_COLUMNS = ("event_time", "arrival_time", "key", "partition", "row")
"""Log columns that are not a per-record session gap (the value column may be one)."""


def engine_controls(semantics: str, names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The engine-specific controls of ``semantics``: :data:`ENGINE_CONTROLS`, or, for an engine
    not listed there, those of ``names`` that ``toolkit.settings`` accepts for it (asked, not guessed)."""
    if semantics in ENGINE_CONTROLS:
        return ENGINE_CONTROLS[semantics]
    from toolkit.settings import Setting, SettingError

    probe = {"lateness": "1s", "interval": "200ms", "idleness": "1s", "source_parallelism": 2, "stagger": "natural",
             "stages": "window=tumbling:5s", "trigger_interval": "1s", "output_mode": "update",
             "multiple_watermark_policy": "max", "grace": "1s", "emit": "final", "tasks": 2,
             "beam_trigger": "after_count:2", "timestamp_combiner": "latest", "accumulation": "discarding"}
    out = []
    for name in names:
        if name in COMMON_CONTROLS or name not in probe:
            continue
        try:
            Setting.parse(semantics=semantics, window="tumbling:1s", **{name: probe[name]})
        except (SettingError, ValueError, TypeError):
            continue
        out.append(name)
    return tuple(out)


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


def _ms(text: Any) -> int:
    return parse_duration(text, name="duration")


def _with_option(options: list[str], value: Any) -> list[str]:
    """Options sorted by duration, with ``value`` added when it is not one of them."""
    value = str(value)
    if value in options:
        return list(options)
    out = list(options) + [value]
    return sorted(out, key=lambda v: -1 if v == "off" else _ms(v))


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
                 window: str = "tumbling:1s", delay: Any = "500ms", lateness: Any = "0ms",
                 interval: Any = "200ms", idleness: Any = None, source_parallelism: int = 1,
                 replay_fn: Callable[..., Any] | None = None, parallelism: int | None = None,
                 semantics: str = "flink", trigger_interval: Any = "1s", output_mode: str = "append",
                 multiple_watermark_policy: str = "min", stagger: str = "aligned", stages: Any = "",
                 grace: Any = "0ms", emit: str = "update", tasks: int = 0, beam_trigger: Any = "default",
                 timestamp_combiner: str = "end_of_window", accumulation: str = "accumulating"):
        import toolkit
        from toolkit import settings as _settings
        from toolkit import semantics as engines
        from toolkit.semantics.beam.trigger import parse_beam_trigger
        from toolkit.settings import SettingError
        from toolkit.sweeps.choose import engine_name

        def choices(option: str) -> list:  # an engine's own setting: the values it declares
            return list(next(o.choices for o in engines.owner(option).options if o.name == option))

        SEMANTICS = engines.names()

        if parallelism is not None:  # the old spelling
            source_parallelism = parallelism

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
        self._following = False  # the Beam trigger picker is following the text box

        if not getattr(log, "has_arrival_time", True) and interval == "200ms":
            interval = "0ms"  # no processing time: a watermark after every record (row order)
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
        n_parts = max(1, len(getattr(log, "partitions", [0])))
        if semantics not in SEMANTICS:
            raise SettingError("semantics", f"semantics {semantics!r}: choose one of {', '.join(SEMANTICS)}")
        staggers = list(getattr(_settings, "STAGGERS", ("aligned", "natural", "random")))
        if stagger not in staggers:
            staggers.append(str(stagger))
        windows = [t for t in WINDOW_TYPES if t != "dynamic_session" or self.gap_columns]
        beam_trigger = str(parse_beam_trigger(beam_trigger))  # a bad one is refused here, naming beam_trigger
        if timestamp_combiner not in choices("timestamp_combiner"):
            raise SettingError("timestamp_combiner", f"timestamp_combiner {timestamp_combiner!r}: choose one of "
                               f"{', '.join(choices('timestamp_combiner'))}")
        if accumulation not in ("accumulating", "discarding"):
            raise SettingError("accumulation", f"accumulation {accumulation!r}: the explorer offers accumulating "
                               "and discarding")

        def lay() -> w.Layout:  # the column's width less the widgets' margins: nothing overflows it
            return w.Layout(width=f"{CONTROL_WIDTH_PX}px")

        controls: dict[str, w.ValueWidget] = {
            "semantics": w.Dropdown(options=[(engine_name(s), s) for s in SEMANTICS], value=semantics,
                                    description="engine"),
            "window": w.Dropdown(options=windows, value=kind, description="window"),
            "size": w.Text(value=size, description="size / gap", continuous_update=False),
            "slide": w.Text(value=slide, description="slide", continuous_update=False),
            "gap_column": w.Dropdown(options=self.gap_columns or [""], value=column or (self.gap_columns or [""])[0],
                                     description="gap column"),
            "delay": w.SelectionSlider(options=_with_option(DELAYS, delay), value=str(delay), description="delay",
                                       continuous_update=False),
            "lateness": w.SelectionSlider(options=_with_option(LATENESS, lateness), value=str(lateness),
                                          description="allowed lateness", continuous_update=False),
            "interval": w.SelectionSlider(options=_with_option(INTERVALS, interval), value=str(interval),
                                          description="interval", continuous_update=False),
            "idleness": w.Dropdown(options=_with_option(IDLENESS, idleness or "off"), value=str(idleness or "off"),
                                   description="idleness"),
            "source_parallelism": w.BoundedIntText(value=int(source_parallelism), min=1, max=max(64, n_parts),
                                                   description="source parallelism"),
            "stagger": w.Dropdown(options=staggers, value=str(stagger), description="stagger"),
            "stages": w.Text(value=str(stages or ""), placeholder=STAGES_HINT, description="next stages",
                             continuous_update=False,
                             tooltip="windowed stages after the first, each fed by the previous one's results: "
                                     "window=tumbling:5s lateness=1s | window=tumbling:1min"),
            "trigger_interval": w.SelectionSlider(options=_with_option(TRIGGER_INTERVALS, trigger_interval),
                                                  value=str(trigger_interval), description="trigger interval",
                                                  continuous_update=False),
            "output_mode": w.Dropdown(options=choices("output_mode"), value=output_mode, description="output mode"),
            "multiple_watermark_policy": w.Dropdown(options=choices("multiple_watermark_policy"), value=multiple_watermark_policy,
                                                    description="watermark policy"),
            "grace": w.SelectionSlider(options=_with_option(DELAYS, grace), value=str(grace), description="grace",
                                       continuous_update=False),
            "emit": w.Dropdown(options=choices("emit"), value=emit,
                               description="emit"),
            "tasks": w.Dropdown(options=[("as partitions", 0)] + [(str(n), n) for n in (1, 2, 4, 8)], value=int(tasks),
                                description="tasks"),
            "beam_trigger_preset": w.Dropdown(options=list(BEAM_TRIGGERS), value=_preset_of(beam_trigger),
                                              description="beam trigger"),
            # three wrapped lines: a long trigger stays readable in the 380 px column
            "beam_trigger": w.Textarea(value=beam_trigger, placeholder=BEAM_TRIGGER_HINT, description="trigger spec",
                                       continuous_update=False, rows=3,
                                       tooltip="any Beam trigger: default, after_watermark(early=...,late=...), "
                                               "after_count:N, after_processing_time:5s, repeatedly(...), "
                                               "after_any(...), after_all(...), after_each(...), orfinally(main,final)"),
            "timestamp_combiner": w.Dropdown(options=choices("timestamp_combiner"), value=timestamp_combiner,
                                             description="timestamp combiner"),
            "accumulation": w.Dropdown(options=["accumulating", "discarding"], value=accumulation,
                                       description="accumulation"),
        }
        style = description_style([c.description for c in controls.values()])
        for c in controls.values():
            c.style.description_width = style["description_width"]
            c.layout = lay()
        self.controls = controls
        # the trigger text box's own verdict, under it: the parser's error, in the widget
        self.beam_trigger_error = w.HTML(value="", layout=w.Layout(width=f"{CONTROL_WIDTH_PX}px", display="none"))
        self._show_controls()
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
        for name, control in self.controls.items():
            control.observe(self._on_change, names="value")
        column: list[w.Widget] = []
        for name, control in self.controls.items():
            column.append(control)
            if name == "beam_trigger":
                column.append(self.beam_trigger_error)
        left = w.VBox(column + [self.busy],
                      layout=w.Layout(width=f"{CONTROL_WIDTH_PX + 20}px", min_width=f"{CONTROL_WIDTH_PX + 20}px",
                                      flex=f"0 0 {CONTROL_WIDTH_PX + 20}px"))
        self.widget = w.VBox([w.HBox([left, self.summary]), tabs])
        self.refresh()

    # ------------------------------------------------------------------ settings
    def _show_controls(self) -> None:
        """Show the chosen engine's own controls and those the chosen window has; hide the rest."""
        c = self.controls
        semantics, kind = c["semantics"].value, c["window"].value
        all_own = {n for names in ENGINE_CONTROLS.values() for n in names} | (set(c) - set(COMMON_CONTROLS))
        own = set(engine_controls(semantics, list(c)))
        for name in all_own:
            if name in c:
                c[name].layout.display = "" if name in own else "none"
        c["delay"].layout.display = "none" if semantics in NO_DELAY else ""
        c["slide"].layout.display = "" if kind == "sliding" else "none"
        c["size"].layout.display = "none" if kind == "dynamic_session" else ""
        c["size"].description = "gap" if kind == "session" else "size"
        c["gap_column"].layout.display = "" if kind == "dynamic_session" else "none"
        if kind != "tumbling":
            c["stagger"].layout.display = "none"
        shown = c["beam_trigger"].layout.display != "none" and bool(self.beam_trigger_error.value)
        self.beam_trigger_error.layout.display = "" if shown else "none"

    def _show_engine_controls(self, semantics: str) -> None:  # the old name
        self._show_controls()

    def settings(self) -> dict[str, Any]:
        """The replay settings the controls describe (what ``toolkit.replay`` receives): the
        chosen engine (``semantics``), the window and delay, and that engine's own controls."""
        c = {k: v.value for k, v in self.controls.items()}
        if c["window"] == "sliding":
            window = f"sliding:{c['size']}/{c['slide']}"
        elif c["window"] == "dynamic_session":
            window = f"dynamic_session:{c['gap_column']}"
        else:
            window = f"{c['window']}:{c['size']}"
        out: dict[str, Any] = {"window": window}
        if c["semantics"] not in NO_DELAY:
            out["delay"] = c["delay"]
        if c["semantics"] != "flink":
            out["semantics"] = c["semantics"]
        for name in engine_controls(c["semantics"], list(c)):
            if name not in c or name in PICKERS:
                continue
            v = c[name]
            if ((name == "idleness" and v == "off") or (name == "tasks" and not v)
                    or (name == "beam_trigger" and str(v).strip() in ("", "default"))
                    or (name == "timestamp_combiner" and v == "end_of_window")
                    or (name == "accumulation" and v == "accumulating")
                    or (name == "stagger" and (v == "aligned" or c["window"] != "tumbling"))
                    or (name == "stages" and not str(v).strip())):
                continue
            out[name] = int(v) if name in ("source_parallelism", "tasks") else (
                _one_line(v) if name == "beam_trigger" else v)
        return out

    # ------------------------------------------------------------------ running
    def _on_change(self, change: dict) -> None:
        owner = change.get("owner")
        if owner is self.controls["beam_trigger_preset"]:
            if change["new"] != CUSTOM and not self._following:  # writes the text box, whose change replays
                self.controls["beam_trigger"].value = change["new"]
            return
        if owner is self.controls["beam_trigger"]:
            self._check_beam_trigger(change["new"])
        if owner in (self.controls["window"], self.controls["semantics"]):
            self._show_controls()
        self.schedule()

    def _check_beam_trigger(self, text: str) -> None:
        """Parse the typed trigger with the settings' parser: its error shows under the box (the
        replay then says it too and keeps the last result); the picker follows the text."""
        from toolkit.semantics.beam.trigger import parse_beam_trigger
        from toolkit.settings import SettingError

        try:
            spelled = str(parse_beam_trigger(_one_line(text)))
        except SettingError as exc:
            self.beam_trigger_error.value = (f"<div style='color:#b00020;line-height:1.35;padding:2px 0 6px 0'>"
                                             f"{html.escape(str(exc))}</div>")
            spelled = None
        else:
            self.beam_trigger_error.value = ""
        self._show_controls()
        picker = self.controls["beam_trigger_preset"]
        want = _preset_of(spelled) if spelled is not None else CUSTOM
        if picker.value != want:  # the picker follows without writing the text back
            self._following = True
            try:
                picker.value = want
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
            result = self._replay(self.log, **settings)
            entry = self._draw(result, current)
        except Exception as exc:  # shown to the user; the previous charts stay
            with self._lock:
                if generation == self._generation:
                    self.error = str(exc)
                    said = (getattr(exc, "setting", None) == "beam_trigger" and self.beam_trigger_error.value
                            and self.controls["beam_trigger"].layout.display != "none")
                    text = ("the trigger spec above; the last good replay stays" if said  # not said twice
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

    @staticmethod
    def _summary_html(result: Any, settings: dict, elapsed: float) -> str:
        """The replay's figures in three compact columns (so the chart tabs stay in view)."""
        s = result.summary()
        total = max(1, int(s.get("records", 0)))
        rows = []
        for name, v in s.items():
            if name in ("settings", "deployable"):  # figures only: the code is toolkit.deploy's
                continue
            text = fmt.cell(name, v)
            if name in ("on_time", "late_accepted", "dropped"):
                text = fmt.Figure(f"{text} ({fmt.share(v / total)})")
            shown = viz.sweep.name_of(name) if name in viz.sweep.METRIC_NAMES else fmt.label(name).replace("_", " ")
            rows.append((shown, text))
        flink = settings.get("semantics", "flink") == "flink"
        caption = "replay: " + fmt.settings_text(settings) + ("" if "idleness" in settings or not flink else ", no idleness")
        # a long setting (a Beam trigger) wraps in the caption instead of widening the table
        return f"<div style='overflow-wrap:anywhere'>{fmt.kv_grid(rows, columns=2, caption=caption)}</div>"


def _one_line(text: Any) -> str:
    """The trigger text box's value without its line breaks (it wraps; a typed Enter is no part of it)."""
    return "".join(str(text).split())


def _preset_of(trigger: str | None) -> str:
    """The picker entry of a Beam trigger spelling (:data:`BEAM_TRIGGERS`), or :data:`CUSTOM`."""
    from toolkit.semantics.beam.trigger import parse_beam_trigger

    for _, spec in BEAM_TRIGGERS:
        if spec != CUSTOM and trigger is not None and str(parse_beam_trigger(spec)) == str(trigger):
            return spec
    return CUSTOM


def explore(log: Any, **options: Any) -> Explorer:
    """An ipywidgets app over ``log``: the engine (``semantics``: every value of
    ``toolkit.settings.SEMANTICS``), window type (tumbling, sliding, session, and
    ``dynamic_session`` with a picker of the log's numeric columns for the per-record gap) and
    size, delay, and the chosen engine's own controls (Flink: allowed lateness, interval,
    idleness, source parallelism, stagger for tumbling windows, next stages; Spark: trigger
    interval, output mode, watermark policy; Kafka Streams: grace, emit, tasks, and no delay;
    Beam: a trigger picker of common triggers (:data:`BEAM_TRIGGERS`) and a text box for any
    ``beam_trigger``, whose parse error shows under it, timestamp combiner, accumulation
    (accumulating, discarding), and Flink's watermark and lateness controls;
    :data:`ENGINE_CONTROLS`), in ``toolkit.settings``' names. Flip the engine to see the same
    log under another engine's rules. The replay reruns on change (debounced by
    ``debounce_ms``, default 400, with a busy indicator) and the charts and summary follow; a
    setting an engine refuses is shown as its error, and the last good replay stays.

    Options: ``debounce_ms``, ``renderer`` ("altair" or "svg"; default "altair" in a notebook),
    ``max_points`` and the initial ``semantics``, ``window`` ("tumbling:1s", "sliding:10s/5s",
    "session:30s", "dynamic_session:gap_ms"), ``delay``, ``lateness``, ``interval``, ``idleness``,
    ``source_parallelism``, ``stagger``, ``stages`` ("window=tumbling:5s lateness=1s | ..."),
    ``trigger_interval``, ``output_mode``, ``multiple_watermark_policy``, ``grace``, ``emit``,
    ``tasks``, ``beam_trigger``, ``timestamp_combiner``, ``accumulation``. The app's ``result`` is the latest replay.
    """
    return Explorer(log, **options)


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
