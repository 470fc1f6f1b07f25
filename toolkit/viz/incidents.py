"""How settings hold up on bad days: a setting x incident heatmap of a sweep with incidents
(``toolkit.sweep(log, ..., incidents=[None, stall(...), ...])``, an ``incident`` column)."""
from __future__ import annotations

import textwrap
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from toolkit.sweeps.choose import incident_words
from toolkit.sweeps.variants import INCIDENT_COLUMN, RECORDED
from toolkit.viz.sweep import (
    HIGHER_IS_BETTER,
    _setting_label,
    _viridis,
    config_columns,
    goodness,
    name_of,
    text_colour,
    value_text,
    varying,
)

#: the figures a robustness chart shows by default: what a recommendation keeps and what it costs
ROBUSTNESS_METRICS = ("completeness_first", "latency_p99_ms")


def robustness(results: pd.DataFrame, metrics: tuple[str, ...] | list[str] = ROBUSTNESS_METRICS, *,
               recommendation: Any = None, width: int | None = None, max_settings: int = 40) -> alt.VConcatChart:
    """One heatmap per metric, stacked: a column per setting (the configurations that vary, the incident
    aside), a row per variant (the recorded log first, then each incident in words), each cell
    labelled with its figure. Colour runs dark to bright towards the better end, per metric and
    per incident row, so a bad day's cells read against each other. ``recommendation``
    (``toolkit.recommend(...)``) outlines its setting's column. At most ``max_settings`` settings
    (the first ones of the sweep) are drawn; the subtitle says when more were left out."""
    if INCIDENT_COLUMN not in results.columns:
        raise ValueError("robustness needs a sweep with incidents (toolkit.sweep(log, ..., incidents=[None, "
                         "stall(...)]), --incident SPEC): these results have no 'incident' column")
    for m in metrics:
        if m not in results.columns:
            raise ValueError(f"sweep results have no column {m!r}; columns: {', '.join(map(str, results.columns))}")
    data = _cells(results, list(metrics), recommendation)
    settings = list(dict.fromkeys(data["setting"]))
    shown = settings[:max_settings]
    data = data[data["setting"].isin(shown)]
    incidents = list(dict.fromkeys(data["incident_text"]))
    w = width or max(240, min(1100, 72 * len(shown)))
    panels = [_panel(data[data["metric"] == m], m, shown, incidents, w) for m in metrics]
    more = f"; the first {len(shown)} of {len(settings)} settings" if len(settings) > len(shown) else ""
    sub = (f"each row one log: the recorded one and each incident; brighter = better within a row{more}"
           + ("; outlined: the recommended setting" if recommendation is not None else ""))
    return alt.vconcat(*panels, spacing=24).properties(title=alt.TitleParams("How each setting holds up on bad days",
                                                                 subtitle=[sub])).resolve_scale(color="independent")


def _cells(results: pd.DataFrame, metrics: list[str], recommendation: Any) -> pd.DataFrame:
    """One row per (configuration, incident, metric) with its labels, fill and ink colours."""
    cols = [c for c in varying(results, config_columns(results)) if c != INCIDENT_COLUMN]
    frame = results.reset_index(drop=True)
    setting = _setting_label(frame, cols).to_numpy()
    incident = frame[INCIDENT_COLUMN].astype(str).to_numpy()
    words = {lab: "\n".join(textwrap.wrap("recorded log" if lab == RECORDED else incident_words(lab), 56))
             for lab in dict.fromkeys(incident)}  # lines split again by the axis' labelExpr
    chosen = _chosen_label(frame, cols, recommendation)
    parts = []
    for m in metrics:
        part = pd.DataFrame({"setting": setting, "incident_text": [words[x] for x in incident], "metric": m,
                             "value": pd.to_numeric(frame[m], errors="coerce").to_numpy(),
                             "value_text": [value_text(m, v) for v in frame[m]]})
        part["t"] = np.nan
        for lab in dict.fromkeys(part["incident_text"]):  # colours per incident row
            rows = (part["incident_text"] == lab).to_numpy()
            part.loc[rows, "t"] = goodness(part.loc[rows, "value"], m)
        t = part["t"].to_numpy(dtype="float64")
        fill = _viridis(np.nan_to_num(t, nan=0.0))
        part["fill"] = [f if np.isfinite(g) else "#dddddd" for f, g in zip(fill, t)]
        part["ink"] = text_colour(list(part["fill"]))
        part["chosen"] = part["setting"] == chosen
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _chosen_label(frame: pd.DataFrame, cols: list[str], recommendation: Any) -> str | None:
    """The setting label of ``recommendation``'s row (None when there is none)."""
    row = (recommendation or {}).get("row") if isinstance(recommendation, dict) else None
    if row is None or not cols:
        return None
    one = pd.DataFrame([row])[cols] if all(c in row for c in cols) else None
    return None if one is None else str(_setting_label(one, cols).iloc[0])


def _panel(data: pd.DataFrame, metric: str, settings: list[str], incidents: list[str], width: int) -> alt.LayerChart:
    """One metric's heatmap, the recommended setting's column outlined."""
    base = alt.Chart(data).encode(
        x=alt.X("setting:N", title="setting", sort=settings,
                axis=alt.Axis(labelAngle=-40, labelLimit=220, labelOverlap=False)),
        y=alt.Y("incident_text:N", title=None, sort=incidents,
                axis=alt.Axis(labelLimit=400, labelExpr="split(datum.label, '\\n')")),
    )
    tip = [alt.Tooltip("setting:N", title="setting"), alt.Tooltip("incident_text:N", title="log"),
           alt.Tooltip("value_text:N", title=name_of(metric))]
    rect = base.mark_rect(stroke="white", strokeWidth=0.5).encode(color=alt.Color("fill:N", scale=None), tooltip=tip)
    text = base.mark_text(fontSize=10).encode(text="value_text:N", color=alt.Color("ink:N", scale=None), tooltip=tip)
    outline = base.transform_filter(alt.datum.chosen).mark_rect(fillOpacity=0, stroke="#d62728", strokeWidth=2.5)
    better = "higher" if metric in HIGHER_IS_BETTER else "lower"
    return alt.layer(rect, text, outline).properties(
        width=width, height=max(60, 36 * len(incidents)),
        title=alt.TitleParams(name_of(metric), subtitle=[f"{better} is better"]))
