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
from toolkit.apps.report_template import TEMPLATE
from toolkit.viz import _format as fmt

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

    js = vl_convert.javascript_bundle()
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
          title: str | None = None, max_points: int = 2000) -> dict[str, Any]:
    """Compute what is missing (sweep, recommendation, replay) and return the report's context."""
    import toolkit

    from toolkit.settings import Setting

    setting = Setting.parse(settings) if settings is not None else None
    if sweep is None:
        base = setting or Setting.parse(DEFAULT_SETTINGS)
        g = dict(DEFAULT_GRID, **(grid or {}))
        g.setdefault("window", str(base.window))
        g.setdefault("interval", base.interval)
        sweep = toolkit.sweep(log, **g)
    rec = toolkit.recommend(sweep, completeness=completeness, metric=metric) if len(sweep) else None
    spark_backed = bool(getattr(log, "is_spark", False))
    if replay is None and not spark_backed:
        setting = setting or (rec or {}).get("setting") or Setting.parse(DEFAULT_SETTINGS)
        replay = toolkit.replay(log, setting)

    rec_row, reason = viz.recommended_row(sweep, rec)
    cfg_cols = viz.config_columns(sweep)
    varying = viz.sweep.varying(sweep, cfg_cols)
    sections: list[dict[str, Any]] = []
    counter = iter(range(10_000))

    def chart(c: Any) -> dict[str, Any]:
        return {"id": f"c{next(counter)}", "spec_json": spec_json(c.to_dict())}

    x, y = "delay_ms", "lateness_ms"
    if len(sweep) and x in sweep.columns and y in sweep.columns:
        initial = {x: rec_row[x], y: rec_row[y]} if rec_row is not None else None
        sections.append({"anchor": "explore", "title": "Explore the sweep",
                         "text": "Move the sliders to step through the swept watermark delays and allowed "
                                 "lateness values; pick the heatmap's metric. The figures on the left are the "
                                 "selected configuration's (computed in advance for every configuration).",
                         "charts": [chart(viz.sweep_sliders(sweep, x=x, y=y, latency=metric, initial=initial))]})
        sections.append({"anchor": "tradeoff", "title": "Latency vs completeness",
                         "text": "Each point is one configuration; the blue line is the Pareto frontier, the "
                                 "diamond the recommended setting, the dashed line the completeness target.",
                         "charts": [chart(viz.latency_completeness(sweep, latency=metric, recommendation=rec,
                                                                   completeness_target=completeness))]})
        sections.append({"anchor": "heatmaps", "title": "Sweep heatmaps",
                         "charts": [chart(viz.sweep_heatmap(sweep, m, x=x, y=y, width=300, height=200))
                                    for m in HEATMAP_METRICS if m in sweep.columns]})
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
        sections.append({"anchor": "watermarks", "title": "Watermark lag",
                         "charts": [chart(viz.watermark_lag(replay, max_points=max_points))]})
        sections.append({"anchor": "firings", "title": "Window firings",
                         "charts": [chart(viz.firing_timeline(replay, max_points=max_points))]})
        sections.append({"anchor": "state", "title": "Open state",
                         "charts": [chart(viz.state_over_time(replay, max_points=max_points))]})
    if not spark_backed:
        sections.append({"anchor": "drops", "title": "Where records were dropped",
                         "charts": [chart(viz.drops_by_partition(log, replay)), chart(viz.drops_by_key(log, replay))]})

    summary = log.summary() if hasattr(log, "summary") else {}
    log_rows = [("source", str(summary.get("source", ""))), ("input rows", summary.get("input_rows")),
                ("valid records", summary.get("records")), ("quarantined rows", summary.get("invalid")),
                ("arrival times", "yes" if summary.get("has_arrival_time") else "no (replayed in row order)")]
    for reason_name, count in (summary.get("invalid_by_reason") or {}).items():
        log_rows.append((f"quarantined: {reason_name}", count))
    try:
        describe_text = str(log.describe())
    except Exception as exc:  # describe is informative only; the report does not depend on it
        describe_text = f"(describe failed: {exc})"
    rs = replay.summary() if replay is not None else {}
    replay_rows = fmt.summary_rows(rs)
    recommendation = None
    if rec is not None:
        if rec_row is not None:
            shown = [c for c in cfg_cols if c in varying] or cfg_cols
            headline = "Recommended: " + ", ".join(f"{fmt.label(c)} = {fmt.value(c, rec_row[c])}" for c in shown)
            rows = [(c, rec_row[c]) for c in cfg_cols] + [
                (m, rec_row[m]) for m in ("completeness_first", "completeness_final", metric, "dropped")
                if m in rec_row.index]
            rows = [(name, v) for name, v in rows if not fmt.is_missing(v)]
        else:
            headline, rows = f"No setting meets completeness {completeness:g}", []
        recommendation = {"headline": headline, "reason": reason,
                          "table": fmt.kv_table(rows, inline=False, durations=True) if rows else ""}
    table_cols = [c for c in cfg_cols if c in varying] + [
        m for m in ("records", "on_time", "late_accepted", "dropped", "completeness_first", "completeness_final",
                    "exact_windows", "latency_p50_ms", "latency_p99_ms", "firings", "late_firings",
                    "peak_state_records") if m in sweep.columns]
    sweep_table = fmt.table(table_cols, sweep[table_cols].itertuples(index=False), inline=False) if len(sweep) else ""
    q = getattr(log, "quarantine", None)
    quarantine = None
    if q is not None and len(q):
        head = q.head(50)
        rows = [(r.row, str(r.column), str(r.reason), str(r.raw)) for r in head.itertuples(index=False)]
        more = len(q) - len(head)
        quarantine = {"total": fmt.number(len(q)), "more": fmt.number(more) if more else "",
                      "table": fmt.table(["row", "column", "reason", "raw"], rows, inline=False, code=["raw"])}
    source = summary.get("source", "log")
    return {
        "title": title or f"Watermark Lab report: {source}",
        "version": toolkit.__version__,
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "log_source": source,
        "log_table": fmt.kv_table(log_rows, inline=False),
        "describe_text": describe_text,
        "replay_settings": "" if replay is None else (str(replay.setting) if getattr(replay, "setting", None) is not None
                                                     else fmt.settings_text(replay.settings)
                                                     if isinstance(replay.settings, dict) else str(replay.settings)),
        "replay_table": fmt.kv_table(replay_rows, inline=False) if replay_rows else "",
        "recommendation": recommendation,
        "sections": sections,
        "sweep_table": sweep_table,
        "quarantine": quarantine,
        "replay": replay,
        "sweep": sweep,
    }


def render(context: dict[str, Any]) -> str:
    """The HTML page for a context from :func:`build` (Jinja2, autoescape on, Vega inlined)."""
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return env.from_string(TEMPLATE).render(vega_bundle=jinja2.utils.markupsafe.Markup(vega_bundle()), **context)


def report(log: Any, *, replay: Any = None, sweep: pd.DataFrame | None = None, out: str | Path = "report.html",
           title: str | None = None, settings: Any = None, grid: dict | None = None,
           completeness: float = 0.99, metric: str = "latency_p99_ms", max_points: int = 2000) -> Path:
    """Write a self-contained HTML report of ``log`` to ``out`` and return its path.

    ``replay``: a :class:`toolkit.replays.ReplayResult` (default: replay ``settings``, a
    :class:`toolkit.settings.Setting` or its keywords as a dict, else the recommended setting
    of the sweep, else :data:`DEFAULT_SETTINGS`). ``sweep``: results of
    :func:`toolkit.sweep` (default: sweep :data:`DEFAULT_GRID`, updated with ``grid``, in
    process unless the log is Spark-backed). The recommendation is
    ``toolkit.recommend(sweep, completeness, metric)``. Record-level charts embed at most
    ``max_points`` rows (sampled with a visible note beyond that).
    """
    context = build(log, replay=replay, sweep=sweep, settings=settings, grid=grid, completeness=completeness,
                    metric=metric, title=title, max_points=max_points)
    html = render(context)
    path = Path(out)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    return path


__all__ = ["report", "build", "render", "vega_bundle", "spec_json", "DEFAULT_SETTINGS", "DEFAULT_GRID"]
