"""Engines side by side: charts of a multi-engine sweep and of :func:`toolkit.compare_engines`.

* :func:`engines_by_delay`: drops, first-result completeness, latency and state against the
  watermark delay, one line per engine (and per other setting that varies within an engine,
  e.g. Flink's allowed lateness), from the rows of ``toolkit.sweep(log, semantics=[...])``.
* :func:`engine_fates`: how many records each engine keeps on time, late or drops.
* :func:`disagreements`: the records one engine keeps and another drops, at their arrival
  time and lateness (arrival - event time), coloured by who keeps them.
"""
from __future__ import annotations

from typing import Any, Sequence

import altair as alt
import numpy as np
import pandas as pd

from toolkit.replays.translate import delay_setting, intent_delay
from toolkit.semantics import get
from toolkit.settings import Setting
from toolkit.sweeps.choose import engine_name
from toolkit.viz._common import (
    FATE_COLORS,
    FATE_LABELS,
    MAX_POINTS,
    duration_axis_scale,
    is_epoch,
    time_x,
    with_note,
    wrap,
)
from toolkit.viz.sweep import config_columns, first_result_notes, name_of, value_text, varying

ENGINE_METRICS = ("dropped", "completeness_first", "latency_p99_ms", "peak_state_records")
"""The figures :func:`engines_by_delay` shows by default."""


def _value_words(c: str, v: Any) -> str:
    text = value_text(c, v)
    if text == "no idleness":
        return text
    if c.endswith("_ms") and text in ("0 ms", "0"):
        return f"no {name_of(c)}"
    return f"{name_of(c)} {text}"


def engine_labels(results: pd.DataFrame) -> pd.Series:
    """Per row: the settings other than the delay that vary among that engine's rows
    (``allowed lateness 1 s``; ``""`` when none vary)."""
    cfg = [c for c in config_columns(results) if c not in ("semantics", "delay_ms")]
    out = pd.Series("", index=results.index, dtype=object)
    for sem, sub in results.groupby("semantics", sort=False):
        cols = [c for c in varying(sub, cfg) if c != f"{delay_setting(str(sem))}_ms"]
        for idx, row in zip(sub.index, sub[cols].itertuples(index=False)):
            out[idx] = ", ".join(_value_words(c, v) for c, v in zip(cols, row))
    return out


def _delays(data: pd.DataFrame) -> np.ndarray:
    """Each row's delay as every engine means it (:func:`toolkit.replays.translate.intent_delay`:
    Kafka Streams' grace ...); ``delay_ms`` for a row that is not a whole setting."""
    out = data["delay_ms"].to_numpy(dtype="float64").copy()
    if all(get(n).delay_setting == "delay" for n in set(data["semantics"].astype(str))):
        return out  # every engine's delay is its delay_ms
    for i, (_, row) in enumerate(data.iterrows()):
        try:
            out[i] = intent_delay(Setting.from_row(row))
        except (ValueError, KeyError):
            pass
    return out


def engines_by_delay(results: pd.DataFrame, metrics: Sequence[str] = ENGINE_METRICS, *, width: int = 260,
                     height: int = 170, title: str = "The engines side by side, by watermark delay") -> alt.ConcatChart:
    """One small chart per figure in ``metrics``: the figure against the delay (each engine's
    own: Kafka Streams' grace ...), one line per engine (see :func:`engine_labels`). Needs
    ``semantics`` and ``delay_ms`` columns."""
    for c in ("semantics", "delay_ms") + tuple(metrics):
        if c not in results.columns:
            raise ValueError(f"results have no column {c!r}: sweep with semantics=[...] and delay=[...]")
    data = results.copy()
    notes = first_result_notes(results, short=True)
    data["engine"] = [engine_name(s) for s in data["semantics"]]
    data["variant"] = engine_labels(results)
    data["line"] = data["engine"] + np.where(data["variant"] != "", ", " + data["variant"], "")
    delay = _delays(data)
    div, unit = duration_axis_scale(delay)
    data["delay_value"] = delay / div
    data["delay_text"] = [value_text("delay_ms", v) for v in delay]
    own = [f"{engine_name(s)}: {delay_setting(s)}" for s in dict.fromkeys(data["semantics"].astype(str))
           if delay_setting(s) != "delay"]
    x_title = f"delay ({unit}{'; ' + ', '.join(own) if own else ''})"
    order = list(dict.fromkeys(data["line"]))
    color = alt.Color("line:N", title="engine and setting", sort=order,
                      legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=500, symbolType="stroke",
                                        symbolStrokeWidth=3))
    dash = alt.StrokeDash("variant:N", sort=list(dict.fromkeys(data["variant"])), legend=None)
    charts = []
    for m in metrics:
        d = data.assign(metric_text=[value_text(m, v) for v in data[m]])
        y_axis = alt.Axis(format=".1%") if m.startswith("completeness") or m == "exact_windows" else alt.Axis()
        y = alt.Y(f"{m}:Q", title=name_of(m), scale=alt.Scale(zero=m in ("dropped",) or m.startswith("peak")),
                  axis=y_axis)
        if m.endswith("_ms"):
            mdiv, munit = duration_axis_scale(d[m].to_numpy(dtype="float64"))
            d["metric_value"] = d[m].astype("float64") / mdiv
            y = alt.Y("metric_value:Q", title=f"{name_of(m)} ({munit})", scale=alt.Scale(zero=False))
        better = "higher is better" if m.startswith("completeness") else "lower is better"
        panel_title: Any = f"{name_of(m)} ({better})"
        if m == "completeness_first" and notes:
            panel_title = alt.TitleParams(panel_title, subtitle=[ln for n in notes for ln in wrap(n, max(40, width // 5))],
                                          subtitleColor="#b35900", subtitleFontSize=10)
        charts.append(alt.Chart(d).mark_line(point=True).encode(
            x=alt.X("delay_value:Q", title=x_title), y=y, color=color, strokeDash=dash,
            tooltip=[alt.Tooltip("line:N", title="engine"), alt.Tooltip("delay_text:N", title="delay"),
                     alt.Tooltip("metric_text:N", title=name_of(m))],
        ).properties(width=width, height=height, title=panel_title))
    return alt.concat(*charts, columns=2).properties(title=title)


def engine_fates(comparison: Any, *, width: int = 420) -> alt.Chart:
    """Per engine of a comparison (:func:`toolkit.compare_engines`): records late but accepted
    and dropped, side by side (the on-time rest, and each share of the valid records, in the tooltip and
    the subtitle)."""
    rows = []
    for sem in comparison.semantics:
        counts = comparison.fates[f"fate_{sem}"].value_counts()
        total = int(counts.sum()) or 1
        for fate in ("late_accepted", "dropped"):
            n = int(counts.get(fate, 0))
            rows.append({"engine": engine_name(sem), "fate": FATE_LABELS[fate], "records": n,
                         "share": f"{100 * n / total:.2f} % of {total:,} valid records",
                         "label": f"{n:,} ({100 * n / total:.2f} %)"})
    d = pd.DataFrame(rows)
    fates = ("late_accepted", "dropped")
    scale = alt.Scale(domain=[FATE_LABELS[f] for f in fates], range=[FATE_COLORS[f] for f in fates])
    y = alt.Y("fate:N", title=None, sort=[FATE_LABELS[f] for f in fates], axis=None)
    base = alt.Chart(d).encode(
        y=y, x=alt.X("records:Q", title="records"),
        tooltip=["engine:N", "fate:N", alt.Tooltip("records:Q", format=","), "share:N"])
    bars = base.mark_bar().encode(color=alt.Color("fate:N", scale=scale, title="fate",
                                                  legend=alt.Legend(orient="bottom")))
    text = base.mark_text(align="left", dx=4).encode(text="label:N")
    on_time = ", ".join(f"{engine_name(s)} {int((comparison.fates[f'fate_{s}'] == 'on_time').sum()):,}"
                        for s in comparison.semantics)
    return alt.layer(bars, text, data=d).properties(width=width, height=40).facet(
        row=alt.Row("engine:N", title=None, sort=[engine_name(s) for s in comparison.semantics],
                    header=alt.Header(labelAngle=0, labelAlign="left", labelFontWeight="bold"))
    ).properties(title=alt.TitleParams("Late and dropped records per engine under the same setting",
                                       subtitle=[f"on time: {on_time}"]))


def disagreements(comparison: Any, *, max_points: int = MAX_POINTS, width: int = 620,
                  height: int = 260) -> alt.LayerChart | alt.Chart:
    """The records one engine keeps and another drops: arrival time (x) against how late they
    arrived (arrival - event time, y), coloured by who keeps and who drops them (one point per
    record: a record two engines drop is one point "dropped by A and B", not two on one spot). At most ``max_points``
    points (evenly spaced in arrival order beyond that; the subtitle says so)."""
    f = comparison.fates
    sems = list(comparison.semantics)
    kept = np.column_stack([np.asarray(comparison.kept(s), dtype=bool) for s in sems]) if sems else np.zeros((len(f), 0), bool)
    some = kept.any(axis=1) & ~kept.all(axis=1)  # one engine keeps it, another drops it: one point per record

    def words(mask: np.ndarray) -> str:
        names = [engine_name(s) for s, m in zip(sems, mask) if m]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    patterns, codes = np.unique(kept[some], axis=0, return_inverse=True) if some.any() else (np.zeros((0, len(sems))), [])
    labels = [f"kept by {words(p)}, dropped by {words(~p)}" for p in patterns.astype(bool)]
    d = f[some].assign(who=np.asarray(labels, dtype=object)[np.asarray(codes, dtype=int).ravel()] if labels else "")
    total = len(d)
    note = ""
    if total > max_points:
        d = d.sort_values("arrival_time", kind="mergesort").iloc[np.linspace(0, total - 1, max_points).astype(int)]
        note = f"showing {max_points:,} of {total:,} records, evenly spaced in arrival order"
    if not total:
        note = "the engines keep and drop the same records under this setting"
    late = (d["arrival_time"] - d["event_time"]).to_numpy(dtype="float64")
    div, unit = duration_axis_scale(late if len(late) else np.zeros(1))
    d = d.assign(late_value=late / div, late_text=[value_text("delay_ms", v) for v in late],
                 arrival_ts=d["arrival_time"].astype("int64"))
    epoch = bool(len(d)) and is_epoch(d["arrival_time"])
    span = (float(d["arrival_time"].min()), float(d["arrival_time"].max())) if len(d) else None
    chart = alt.Chart(d).mark_point(filled=True, size=40, opacity=0.8).encode(
        x=time_x("arrival_ts", "arrival time", epoch, span, size=width, padding=8),
        y=alt.Y("late_value:Q", title=f"arrived after its event time ({unit})"),
        # one legend line per pattern, as wide as the chart: "kept by Flink, Spark Structured Streaming
        # and Apache Beam, dropped by Kafka Streams" was cut to "...dropped by Kaf..." side by side
        color=alt.Color("who:N", title=None, legend=alt.Legend(orient="bottom", direction="vertical",
                                                               labelLimit=width)),
        tooltip=[alt.Tooltip("row:Q", title="log row"), alt.Tooltip("key:N"), alt.Tooltip("partition:Q"),
                 alt.Tooltip("late_text:N", title="arrived late by"), alt.Tooltip("who:N", title="")],
    ).properties(width=width, height=height)
    n_words = f"{total:,} record{'s' if total != 1 else ''}"
    return with_note(chart, f"Records one engine keeps and another drops ({n_words})", note)


__all__ = ["ENGINE_METRICS", "disagreements", "engine_fates", "engine_labels", "engines_by_delay",
           "first_result_notes"]
