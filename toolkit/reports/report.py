"""``toolkit.report(log, ...)``: one self-contained, offline HTML report.

The page holds the log summary, one replay's figures, the sweep's recommendation and its
charts; the Vega, Vega-Lite and Vega-Embed JavaScript comes from the pinned
``vl-convert-python`` (:func:`vl_convert.javascript_bundle`) and is inlined, so the file
opens without network. The sweep stays interactive in the browser through Altair
parameters (sliders over the precomputed configurations). Every user string is escaped.
"""
from __future__ import annotations

import datetime as _dt
import functools
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

import toolkit.viz as viz
from toolkit.deployment import engines as deploy_engines
from toolkit.reports.template import TEMPLATE
from toolkit.sweeps import choose
from toolkit.sweeps.variants import INCIDENT_COLUMN, RECORDED
from toolkit.viz import _format as fmt
from toolkit.viz.tables import count_row

DEFAULT_SETTINGS: dict[str, Any] = {"window": "tumbling:1s", "delay": "500ms", "lateness": "1s", "interval": "200ms"}
"""Replay settings used when neither a replay result nor a sweep recommendation gives one."""

DEFAULT_GRID: dict[str, Any] = {"delay": ["0ms", "100ms", "250ms", "500ms", "1s", "2s", "5s"],
                                "lateness": ["0ms", "1s", "5s"]}
"""Sweep grid used when no sweep results are given (window and interval from the replay settings)."""

HEATMAP_METRICS = ["completeness_first", "completeness_final", "latency_p99_ms", "dropped"]


@functools.lru_cache(maxsize=1)
def vega_bundle() -> str:
    """Vega, Vega-Lite and Vega-Embed as one script (from vl-convert, no network), safe inside ``<script>``."""
    import vl_convert

    js = vl_convert.javascript_bundle(snippet=None)  # the default; vl-convert's stub marks it required
    return js.replace("</script", "<\\/script").replace("</SCRIPT", "<\\/SCRIPT")


def spec_json(spec: dict) -> str:
    """JSON for a ``<script type="application/json">`` block: ``<``, ``>``, ``&`` escaped as ``\\u00XX``."""
    text = json.dumps(_finite(spec), allow_nan=False, default=_json_default, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities replaced by None (JSON has no such numbers)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def build(log: Any, *, replay: Any = None, sweep: pd.DataFrame | None = None, settings: Any = None,
          grid: dict | None = None, completeness: float = 0.99, metric: str = "latency_p99_ms",
          title: str | None = None, max_points: int = 2000, max_windows_per_record: int | None = None,
          max_memory: Any = None, incidents: list | None = None, robust: float = 0.95) -> dict[str, Any]:
    """Compute what is missing (sweep, recommendation, replay) and return the report's context.
    ``max_windows_per_record`` / ``max_memory``: the limits of that sweep and replay
    (:class:`toolkit.settings.Limits`). ``incidents``: bad days the sweep it runs also evaluates
    (a given ``sweep`` brings its own); with them, the charts of the sweep are the recorded log's
    and a section shows how the settings hold up (the ``robust`` recommendation)."""
    import toolkit

    sweep, per_engine, rec, replay = _computed(log, replay, sweep, settings, grid, completeness, metric,
                                               max_windows_per_record, max_memory, incidents)
    everything, sweep = sweep, recorded_rows(sweep)
    engines = engines_of(sweep)
    spark_backed = bool(getattr(log, "is_spark", False))
    rec_row, reason = viz.recommended_row(sweep, rec)
    cfg_cols = viz.config_columns(sweep)
    varying = viz.sweep.varying(sweep, cfg_cols)
    counter = iter(range(10_000))

    def chart(c: Any) -> dict[str, Any]:
        return {"id": f"c{next(counter)}", "spec_json": spec_json(c.to_dict())}

    sections: list[dict[str, Any]] = []
    if per_engine:
        sections.append(engines_section(log, sweep, per_engine, engines, chart, completeness, metric,
                                        local=not spark_backed, max_points=max_points))
    sections += _sweep_sections(sweep, engines if per_engine else None, rec, rec_row, cfg_cols, chart, completeness,
                                metric)
    sections += _robustness_sections(everything, engines, chart, completeness, metric, robust)
    sections += _record_sections(log, replay, chart, spark_backed, max_points)
    summary = log.summary() if hasattr(log, "summary") else {}
    replay_rows = readable_rows({k: v for k, v in (replay.summary() if replay is not None else {}).items()
                                 if k != "latency_tail"})  # said in words under the table, with its chart
    latency = replay.latency_tail() if replay is not None and replay.engine is not None else None
    recommendation = None
    if rec is not None:
        # what dominates the recommended setting's latency tail: the report's replay when it is that setting's
        tail = choose.with_latency_tail(dict(rec), None if spark_backed else log, _limits(max_windows_per_record, max_memory),
                                        replay=replay).get("latency_tail")
        recommendation = _recommendation(sweep, rec, rec_row, f"{reason} {tail}" if tail and str(tail) else reason,
                                         engines if per_engine else None, cfg_cols, varying, completeness, metric)
    source = summary.get("source", "log")
    return {
        "title": title or f"Watermark Lab report: {source}",
        "version": toolkit.__version__,
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "log_source": source,
        "log_table": fmt.kv_table(_log_rows(summary), inline=False),
        "describe_html": _describe_html(log),
        "replay_words": "" if replay is None or getattr(replay, "setting", None) is None
        else choose.setting_words(replay.setting),
        "replay_settings": "" if replay is None else (str(replay.setting) if getattr(replay, "setting", None) is not None
                                                     else fmt.settings_text(replay.settings)
                                                     if isinstance(replay.settings, dict) else str(replay.settings)),
        "replay_table": fmt.kv_table(replay_rows, inline=False) if replay_rows else "",
        "replay_latency": str(latency or ""),
        "replay_latency_anchor": ANCHORS.get(latency.figure or "") if latency is not None else None,
        "recommendation": recommendation,
        "sections": sections,
        "sweep_table": _sweep_table(everything, viz.config_columns(everything),
                                    viz.sweep.varying(everything, viz.config_columns(everything)), rec_row),
        "quarantine": _quarantine_table(log),
        "replay": replay,
        "sweep": sweep,
    }


def _limits(max_windows_per_record: int | None, max_memory: Any) -> dict:
    """The limits given to ``build`` as replay keywords."""
    return {k: v for k, v in (("max_windows_per_record", max_windows_per_record), ("max_memory", max_memory))
            if v is not None}


def _computed(log: Any, replay: Any, sweep: pd.DataFrame | None, settings: Any, grid: dict | None,
              completeness: float, metric: str, max_windows_per_record: int | None,
              max_memory: Any, incidents: list | None = None) -> tuple[pd.DataFrame, dict, dict | None, Any]:
    """``(sweep, per_engine, rec, replay)``: the sweep (``DEFAULT_GRID`` around the setting when
    not given), one recommendation per engine when it has several (else ``{}``), the leading
    recommendation (the first engine's) and the replay of the setting (else of the recommended
    one; none for a Spark-backed log)."""
    import toolkit
    from toolkit.settings import Setting

    setting = Setting.parse(settings) if settings is not None else None
    if sweep is None:
        base = setting or Setting.parse(DEFAULT_SETTINGS)
        g = dict(DEFAULT_GRID, **(grid or {}))
        g.setdefault("window", str(base.window))
        g.setdefault("interval", base.interval)
        sweep = toolkit.sweep(log, max_windows_per_record=max_windows_per_record, max_memory=max_memory,
                              incidents=[None, *incidents] if incidents else None, **g)
    engines = engines_of(sweep)
    per_engine = toolkit.recommend(sweep, completeness=completeness, metric=metric, per="semantics") \
        if len(engines) > 1 else {}
    # several engines: the first engine's recommendation leads (replay, charts, highlighted row)
    rec = per_engine[engines[0]] if per_engine else \
        toolkit.recommend(sweep, completeness=completeness, metric=metric) if len(sweep) else None
    if replay is None and not bool(getattr(log, "is_spark", False)):
        setting = setting or (rec or {}).get("setting") or Setting.parse(DEFAULT_SETTINGS)
        replay = toolkit.replay(log, setting, max_windows_per_record=max_windows_per_record, max_memory=max_memory)
    return sweep, per_engine, rec, replay


def _sweep_sections(sweep: pd.DataFrame, engines: list[str] | None, rec: dict | None, rec_row: pd.Series | None,
                    cfg_cols: list[str], chart: Any, completeness: float, metric: str) -> list[dict[str, Any]]:
    """The slider view, latency vs completeness and the heatmaps over delay x allowed lateness.
    With several ``engines`` they are the leading engine's (delay x allowed lateness is its grid;
    the others' own settings, Kafka Streams' grace ..., would leave empty panels): the engines
    section compares them."""
    x, y = "delay_ms", "lateness_ms"
    own = sweep[sweep["semantics"].astype(str) == engines[0]] if engines else sweep
    whose = f" ({choose.engine_name(engines[0])})" if engines else ""
    only = (f" These are {choose.engine_name(engines[0])}'s configurations; \"The engines side by side\" "
            "compares the engines.") if engines else ""
    if not (len(own) and x in own.columns and y in own.columns):
        return []
    initial = {c: rec_row[c] for c in cfg_cols} if rec_row is not None else None
    return [
        {"anchor": "explore", "title": "Explore the sweep" + whose,
         "text": "Move the sliders to step through the swept watermark delays and allowed "
                 "lateness values; pick the heatmap's metric. The figures on the left are the "
                 "selected configuration's (computed in advance for every configuration)." + only,
         "charts": [chart(viz.sweep_sliders(own, x=x, y=y, latency=metric, initial=initial))]},
        {"anchor": "tradeoff", "title": "Latency vs completeness" + whose,
         "text": "Each point is one configuration; the blue line is the Pareto frontier, the "
                 "diamond the recommended setting, the dashed line the completeness target." + only,
         "charts": [chart(viz.latency_completeness(own, latency=metric, recommendation=rec,
                                                   completeness_target=completeness))]},
        {"anchor": "heatmaps", "title": "Sweep heatmaps" + whose,
         "charts": [chart(viz.sweep_heatmap(own, m, x=x, y=y, width=300, height=200))
                    for m in HEATMAP_METRICS if m in own.columns]},
    ]


def recorded_rows(sweep: pd.DataFrame) -> pd.DataFrame:
    """The recorded log's rows of a sweep with incidents (all rows of a plain sweep)."""
    if INCIDENT_COLUMN not in sweep.columns:
        return sweep
    return sweep[(sweep[INCIDENT_COLUMN].astype(str) == RECORDED).to_numpy()]


def _robustness_sections(sweep: pd.DataFrame, engines: list[str], chart: Any, completeness: float, metric: str,
                         robust: float) -> list[dict[str, Any]]:
    """"How the recommended setting holds up": the robust recommendation (of the leading engine,
    as the other sweep sections) in words and the setting x incident heatmaps. None without
    incident variants."""
    import toolkit

    if INCIDENT_COLUMN not in sweep.columns or sweep[INCIDENT_COLUMN].astype(str).nunique() < 2:
        return []
    own = sweep[sweep["semantics"].astype(str) == engines[0]] if len(engines) > 1 else sweep
    rec = toolkit.recommend(own, completeness=completeness, metric=metric, robust=robust)
    whose = f" ({choose.engine_name(engines[0])})" if len(engines) > 1 else ""
    return [{"anchor": "incidents", "title": "How the recommended setting holds up" + whose,
             "text": f"Each setting replayed on the recorded log and on each bad day; the recommendation asks for "
                     f"the target on the recorded log and on at least {robust:.0%} of the incident variants. "
                     + rec["reason"],
             "charts": [chart(viz.robustness(own, recommendation=rec))]}]


#: the section of each chart a latency explanation names (``toolkit.replays.latency.FIGURES``)
ANCHORS = {"Watermark lag": "watermarks", "Window firings": "firings"}


def _record_sections(log: Any, replay: Any, chart: Any, spark_backed: bool, max_points: int) -> list[dict[str, Any]]:
    """The record-level charts (a note instead for a Spark-backed log), the replay's watermark,
    firings and state, and where records were dropped and why."""
    sections: list[dict[str, Any]] = []
    if spark_backed:
        sections.append({"anchor": "records", "title": "Record-level charts",
                         "text": f"This log is Spark-backed: its {fmt.number(getattr(log, 'n_records', 0))} records stay "
                                 "distributed, so the charts of single records (event time vs processing time, "
                                 "lateness, drops by partition and key) are left out. Replay a local sample "
                                 "(log.to_pandas(limit=...)) to see them.",
                         "charts": []})
    else:
        delay = replay.settings.get("delay") if isinstance(replay.settings, dict) else None
        sections.append({"anchor": "records", "title": "Event time vs processing time",
                         "text": "Each record at its arrival (processing) time and event time, coloured by its fate "
                                 "under the replayed setting; the black step line is the operator's watermark, the "
                                 "grey ones each partition's. Drag to pan, scroll to zoom.",
                         "charts": [chart(viz.event_time_scatter(log, replay, max_points=max_points))]})
        sections.append({"anchor": "lateness", "title": "Lateness",
                         "charts": [chart(viz.lateness_histogram(log, replay,
                                                                 delay_ms=delay if isinstance(delay, int) else None))]})
    if replay is not None:
        tail = replay.latency_tail() if replay.engine is not None else None
        said = {ANCHORS.get(tail.figure or ""): tail.beside_chart()} if tail is not None and str(tail) else {}
        sections.append({"anchor": "watermarks", "title": "Watermark lag", "text": said.get("watermarks", ""),
                         "charts": [chart(viz.watermark_lag(replay, max_points=max_points))]})
        sections.append({"anchor": "firings", "title": "Window firings", "text": said.get("firings", ""),
                         "charts": [chart(viz.firing_timeline(replay, max_points=max_points))]})
        sections.append({"anchor": "state", "title": "Open state",
                         "charts": [chart(viz.state_over_time(replay, max_points=max_points))]})
    if not spark_backed:
        sections.append(_drops_section(log, replay, chart))
    return sections


def _drops_section(log: Any, replay: Any, chart: Any) -> dict[str, Any]:
    """Drops by partition and key; for a replay with drops whose engine explains them, also
    drops over time and the main causes in words (every "keeps" in them is checked by a replay rule)."""
    causes: list[str] = []
    charts = [chart(viz.drops_by_partition(log, replay)), chart(viz.drops_by_key(log, replay))]
    engine = getattr(replay, "engine", None)
    explains = engine is not None and engine.explain_refusal("drop_causes") is None
    if explains and getattr(replay, "setting", None) is not None and int((replay.fates["fate"] == "dropped").sum()):
        causes = replay.drop_causes()  # the engine's words; every "keeps" in them is checked by a replay rule
        charts.insert(0, chart(viz.drops_over_time(log, replay)))
    return {"anchor": "drops", "title": "Where records were dropped, and why",
            "text": "The main causes, biggest first, and what would have kept the records "
                    "(r.drops() lists every dropped record; r.explain(row) explains one):"
            if causes else "",
            "causes": causes, "charts": charts}


def _log_rows(summary: dict) -> list[tuple[str, Any]]:
    """The log table: source, input rows, valid and quarantined records (per reason), arrival times."""
    log_rows = [("source", str(summary.get("source", ""))), ("input rows", summary.get("input_rows")),
                ("valid records", summary.get("records")), ("quarantined rows", summary.get("invalid")),
                ("arrival times", "yes" if summary.get("has_arrival_time") else "no (replayed in row order)")]
    for reason_name, count in (summary.get("invalid_by_reason") or {}).items():
        log_rows.append((f"quarantined: {reason_name}", count))
    return log_rows


def _describe_html(log: Any) -> str:
    """``log.describe()`` as a table whose values wrap (shown open: it is what the figures rest on);
    describe is informative only, so a failure is said, not raised."""
    try:
        rows = log.describe().lines()
    except Exception as exc:  # describe is informative only; the report does not depend on it
        return fmt.kv_table([("describe failed", str(exc))], inline=False)
    return fmt.kv_table(rows, inline=False).replace("<table>", "<table class='describe'>", 1)


def _recommendation(sweep: pd.DataFrame, rec: dict, rec_row: pd.Series | None, reason: str,
                    engines: list[str] | None, cfg_cols: list[str], varying: Any, completeness: float,
                    metric: str) -> dict[str, Any]:
    """The recommendation box: a headline naming the varying settings (with several ``engines``,
    the leading engine's own), the reason, the criterion, the setting's table and its deploy code."""
    if rec_row is not None:
        if engines:  # the columns of the leading engine's own rows
            own = sweep[sweep["semantics"] == engines[0]]
            own_varying = viz.sweep.varying(own, cfg_cols)
            detail = setting_columns(own, cfg_cols)
        else:
            own_varying, detail = varying, setting_columns(sweep, cfg_cols)
        shown = [c for c in cfg_cols if c in own_varying] or cfg_cols
        headline = (f"Recommended for {choose.engine_name(engines[0])}: " if engines else "Recommended: ") + ", ".join(
            f"{viz.sweep.name_of(c)} {viz.sweep.value_text(c, rec_row[c])}" for c in shown)
        rows = [(viz.sweep.name_of(c), viz.sweep.value_text(c, rec_row[c])) for c in detail]
        rows += [(viz.sweep.name_of(m), fmt.Figure(viz.sweep.value_text(m, rec_row[m])))
                 for m in ("completeness_first", "completeness_final", metric, "dropped") if m in rec_row.index]
    else:
        headline, rows = f"No setting meets the {fmt.share(completeness)} completeness target", []
    return {"headline": headline, "reason": reason, "criterion": (rec or {}).get("criterion", ""),
            "table": fmt.kv_table(rows, inline=False) if rows else "",
            "deploy": [{"engine": deploy_engines()[name], "code": code}
                       for name, code in ((rec or {}).get("deploy") or {}).items()]}


def _sweep_table(sweep: pd.DataFrame, cfg_cols: list[str], varying: Any, rec_row: pd.Series | None) -> str:
    """Every configuration (its varying settings and figures), sortable, the recommended row highlighted."""
    table_cols = [c for c in cfg_cols if c in varying] + [
        m for m in ("records", "on_time", "late_accepted", "dropped", "completeness_first", "completeness_final",
                    "exact_windows", "latency_p50_ms", "latency_p99_ms", "firings", "late_firings",
                    "peak_state_records") if m in sweep.columns]
    return sortable_table(sweep, table_cols, highlight=rec_row.name if rec_row is not None else None) \
        if len(sweep) else ""


def _quarantine_table(log: Any) -> dict[str, str] | None:
    """The first 50 quarantined rows (and how many more), or None without any."""
    q = getattr(log, "quarantine", None)
    if q is None or not len(q):
        return None
    head = q.head(50)
    rows = [(r.row, str(r.column), str(r.reason), str(r.raw)) for r in head.itertuples(index=False)]
    more = len(q) - len(head)
    return {"total": fmt.number(len(q)), "more": fmt.number(more) if more else "",
            "table": fmt.table(["row", "column", "reason", "raw"], rows, inline=False, code=["raw"])}


def engines_of(sweep: pd.DataFrame) -> list[str]:
    """The engines (``semantics``) of a sweep, in the engine registry's order."""
    from toolkit.semantics import names

    SEMANTICS = names()

    if not len(sweep) or "semantics" not in sweep:
        return []
    seen = [str(s) for s in dict.fromkeys(sweep["semantics"])]
    return [s for s in SEMANTICS if s in seen] + [s for s in seen if s not in SEMANTICS]


ENGINE_FIGURES = ("dropped", "late_accepted", "completeness_first", "completeness_final", "latency_p50_ms",
                  "latency_p99_ms", "peak_state_records", "peak_state_windows")


def engines_section(log: Any, sweep: pd.DataFrame, per_engine: dict, engines: list[str], chart: Any,
                    completeness: float, metric: str, *, local: bool = True, max_points: int = 2000) -> dict:
    """The side-by-side section of a multi-engine sweep: figures against the delay, the first
    engine's recommended setting in every engine (figures, kept/dropped, examples, what did not
    translate) and each engine's own recommendation with its deploy code."""

    charts = []
    if "delay_ms" in sweep and sweep["delay_ms"].nunique() > 1:
        charts.append(chart(viz.engines_by_delay(sweep)))
    text = (f"The sweep replayed the log with the event-time semantics of {_and([choose.engine_name(e) for e in engines])}. "
            "The charts show each engine's drops, first-result completeness, latency and state for every delay "
            "swept (one line per engine and per other setting that varies).")
    recs = []
    for name in engines:
        r = per_engine.get(name)
        if r is None:
            continue
        recs.append({"engine": choose.engine_name(name), "reason": r["reason"],
                     "setting": "" if r["setting"] is None else str(r["setting"]),
                     "deploy": [{"engine": deploy_engines()[k], "code": code}
                                for k, code in (r.get("deploy") or {}).items()]})
    lead = per_engine.get(engines[0], {}).get("setting")
    out = {"anchor": "engines", "title": "The engines side by side", "text": text, "charts": charts,
           "recommendations": recs}
    if lead is None or not local:
        out["after"] = ("" if local else "This log is Spark-backed: the record-by-record comparison needs a local "
                        "log (log.to_pandas(limit=...)).")
        return out
    from toolkit.replays.compare import compare_engines
    from toolkit.replays.translate import translatable
    from toolkit.semantics import get

    compared = [e for e in engines if e in translatable()]
    missing = [choose.engine_name(e) for e in engines if e not in compared]
    if missing:  # an engine without a translation yet: said, not hidden
        out["after"] = (f"{_and(missing)} {'has' if len(missing) == 1 else 'have'} no translation of settings yet "
                        "(its Semantics defines no to_intent), so the record-by-record comparison "
                        "leaves them out.")
    if len(compared) < 2 or compared[0] != engines[0]:
        return out
    engines = compared
    c = compare_engines(log, lead, semantics=engines)
    fig = c.figures.set_index("semantics")
    rows = []
    for m in ENGINE_FIGURES:
        if m in fig:
            rows.append([viz.sweep.name_of(m)] + [fmt.Figure(viz.sweep.value_text(m, fig.loc[e, m])) for e in engines])
    head = ["figure"] + [choose.engine_name(e) for e in engines]
    kd = c.kept_dropped
    kd_rows = [(choose.engine_name(r.kept_by), choose.engine_name(r.dropped_by), fmt.Figure(fmt.number(r.records)),
                fmt.Figure(fmt.share(r.share))) for r in kd.itertuples(index=False)]
    out.update({
        "compare_title": f"{choose.engine_name(engines[0])}'s recommended setting in every engine",
        "settings": [{"engine": choose.engine_name(e), "setting": str(t.setting),  # with what its figures need
                      "notes": list(t.notes) + get(e).figure_notes(t.setting, c.results[e].summary())}
                     for e, t in c.translations.items()],
        "figures_table": fmt.table(head, rows, inline=False, caption=_first_result_caption(c)),
        "kept_table": fmt.table(["kept by", "dropped by", "records", "share of the valid records"], kd_rows, inline=False),
        "examples": c.examples(3),
        "compare_charts": [chart(viz.engine_fates(c)), chart(viz.disagreements(c, max_points=max_points))],
    })
    return out


def _first_result_caption(comparison: Any) -> str:
    """The note next to a figures table when an engine's translated setting has first results
    partial by design (``Semantics.first_result_note``: Kafka Streams with ``emit=update``)."""
    from toolkit.semantics import get

    notes = [get(name).first_result_note for name, t in comparison.translations.items()
             if get(name).result_notes(t.setting) and get(name).first_result_note]
    return " ".join(dict.fromkeys(notes))


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def readable_rows(figures: dict) -> list[tuple[str, str]]:
    """A replay's figures as (name, shown value) rows: percentages, durations, chart names; the
    record counts on the one base of shares (``toolkit.viz.tables.count_row``)."""
    rows = []
    for name, v in figures.items():
        if name == "settings":
            continue
        counted = count_row(name, v, figures)
        text = counted[1] if counted else viz.sweep.value_text(name, v)
        rows.append(((counted[0] if counted else None) or viz.sweep.name_of(name), fmt.Figure(text)))
    return rows


def setting_columns(sweep: pd.DataFrame, cfg_cols: list[str]) -> list[str]:
    """The configuration columns worth showing: those the sweep varied and those not at their default."""
    from toolkit.settings import Setting

    default = Setting().row()
    varying = set(viz.sweep.varying(sweep, cfg_cols))
    out = []
    for c in cfg_cols:
        values = sweep[c]
        d = default.get(c)
        at_default = all((fmt.is_missing(v) and d is None) or (not fmt.is_missing(v) and str(v) == str(d))
                         for v in values)
        if c in varying or not at_default:
            out.append(c)
    return out


def sortable_table(frame: pd.DataFrame, columns: list[str], *, highlight: Any = None) -> str:
    """The sweep as an HTML table whose headers sort it (a click; the page's script) and whose
    ``highlight`` row (the recommended one) is marked. Cells show readable values and carry the
    raw value in ``data-v`` for sorting; a text cell may wrap after a comma (an incident's spec)."""
    import html as _html

    head = "".join(f'<th data-col="{i}" title="click to sort">{_html.escape(viz.sweep.name_of(c))}</th>'
                   for i, c in enumerate(columns))
    body = []
    for idx, row in zip(frame.index, frame[columns].itertuples(index=False)):
        cells = []
        for c, v in zip(columns, row):
            raw = "" if fmt.is_missing(v) else (f"{float(v):.17g}" if fmt.is_number(v) else str(v))
            if fmt.is_missing(v) and c == "idleness_ms":
                raw = "-1"  # no idleness sorts first
            num = fmt.is_number(v) or c == "idleness_ms"
            text = viz.sweep.value_text(c, v)
            if c == "semantics":
                text = choose.engine_name(v)
            elif isinstance(v, str) and v == "none":
                text = ""  # a setting this row's engine does not have (Spark's output mode on a Flink row ...)
            cls = ' class="num"' if num else ""
            shown = _html.escape(text) if num else _html.escape(text).replace(",", ",<wbr>")  # an incident wraps
            cells.append(f'<td{cls} data-v="{_html.escape(raw)}">{shown}</td>')
        mark = ' class="recommended" title="the recommended setting"' if highlight is not None and idx == highlight else ""
        body.append(f"<tr{mark}>" + "".join(cells) + "</tr>")
    return (f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>' + "".join(body) + "</tbody></table>")


def render(context: dict[str, Any]) -> str:
    """The HTML page for a context from :func:`build` (Jinja2, autoescape on, Vega inlined)."""
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return env.from_string(TEMPLATE).render(vega_bundle=jinja2.utils.markupsafe.Markup(vega_bundle()), **context)


def report(log: Any, *, replay: Any = None, sweep: pd.DataFrame | None = None, out: str | Path = "report.html",
           title: str | None = None, settings: Any = None, grid: dict | None = None,
           completeness: float = 0.99, metric: str = "latency_p99_ms", max_points: int = 2000,
           max_windows_per_record: int | None = None, max_memory: Any = None, incidents: list | None = None,
           robust: float = 0.95) -> Path:
    """Write a self-contained HTML report of ``log`` to ``out`` and return its path.

    ``replay``: a :class:`toolkit.replays.ReplayResult` (default: replay ``settings``, a
    :class:`toolkit.settings.Setting` or its keywords as a dict, else the recommended setting
    of the sweep, else :data:`DEFAULT_SETTINGS`). ``sweep``: results of
    :func:`toolkit.sweep` (default: sweep :data:`DEFAULT_GRID`, updated with ``grid``, in
    process unless the log is Spark-backed). The recommendation is
    ``toolkit.recommend(sweep, completeness, metric)``. Record-level charts embed at most
    ``max_points`` rows (sampled with a visible note beyond that). ``max_windows_per_record``
    and ``max_memory`` raise the guards of the sweep and replay it runs, as for
    :func:`toolkit.sweep` and :func:`toolkit.replay` (:class:`toolkit.settings.Limits`).
    ``incidents`` (``toolkit.incidents``; their spellings too): bad days the sweep also
    evaluates; the report then shows how each setting holds up and the setting that meets the
    target on the recorded log and on at least ``robust`` of them (docs/incidents.md). ``out`` is
    checked writable before any work and written whole or not at all (``toolkit.outputs``).
    """
    from toolkit.outputs import atomic_write, check_writable

    path = check_writable(out, "out")  # before any work
    context = build(log, replay=replay, sweep=sweep, settings=settings, grid=grid, completeness=completeness,
                    metric=metric, title=title, max_points=max_points, max_windows_per_record=max_windows_per_record,
                    max_memory=max_memory, incidents=incidents, robust=robust)
    html = render(context)
    return atomic_write(path, lambda p: p.write_text(html, encoding="utf-8"))


__all__ = ["report", "build", "render", "vega_bundle", "spec_json", "DEFAULT_SETTINGS", "DEFAULT_GRID"]
