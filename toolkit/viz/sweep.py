"""Charts over a finished sweep: one row per configuration (issue 5 columns)."""
from __future__ import annotations

import json
import textwrap
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

METRICS = [
    "records", "on_time", "late_accepted", "dropped", "invalid", "completeness_first", "completeness_final",
    "exact_windows", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms", "at_end_firings", "firings",
    "late_firings", "retractions", "peak_state_windows", "peak_state_records", "mean_state_records",
    "mean_state_windows", "windows",
]
"""Figures of a sweep row; every other column is a configuration column."""

EXECUTION_COLUMNS = {"path"}
"""How a row was computed (fast or engine path): neither a figure nor a configuration."""

HIGHER_IS_BETTER = {"completeness_first", "completeness_final", "exact_windows", "on_time"}

METRIC_FORMATS = {"completeness_first": ".2%", "completeness_final": ".2%", "exact_windows": ".2%"}


def metric_columns(results: pd.DataFrame) -> list[str]:
    """The figure columns present in ``results`` (numeric columns that are not configuration)."""
    return [c for c in METRICS if c in results.columns]


def config_columns(results: pd.DataFrame) -> list[str]:
    """Configuration columns: everything that is not a figure, in the sweep's order."""
    return [c for c in results.columns if c not in METRICS and c not in EXECUTION_COLUMNS]


def varying(results: pd.DataFrame, columns: list[str]) -> list[str]:
    return [c for c in columns if results[c].astype(str).nunique() > 1]


def _fmt(metric: str) -> str:
    return METRIC_FORMATS.get(metric, ",.4~f" if metric.startswith("mean") else ",.0f")


def _setting_label(results: pd.DataFrame, columns: list[str]) -> pd.Series:
    if not columns:
        return pd.Series(["all"] * len(results), index=results.index)
    return results[columns].astype(str).apply(lambda r: ", ".join(f"{c}={v}" for c, v in r.items()), axis=1)


def pareto(results: pd.DataFrame, latency: str = "latency_p99_ms",
           completeness: str = "completeness_first") -> pd.DataFrame:
    """Rows not dominated on (lower ``latency``, higher ``completeness``), by ascending latency.

    A row is dominated when another is no worse on both and strictly better on one. Rows with
    a missing figure are left out. (The chart draws the frontier of its own two axes.)
    """
    df = results.dropna(subset=[latency, completeness])
    if df.empty:
        return df
    order = np.lexsort((-df[completeness].to_numpy(), df[latency].to_numpy()))
    df = df.iloc[order]
    best = -np.inf
    keep = []
    for c in df[completeness].to_numpy():
        keep.append(c > best)
        best = max(best, c)
    return df[np.array(keep)]


def recommended_row(results: pd.DataFrame, recommendation: Any) -> tuple[pd.Series | None, str]:
    """The results row a recommendation designates, and its reason text.

    Accepts what :func:`toolkit.recommend` returns (an object or dict with the chosen
    ``row``/``setting``/``config`` and a ``reason``), a row (Series/dict) or a one-row DataFrame.
    """
    if recommendation is None:
        return None, ""
    get = (recommendation.get if isinstance(recommendation, dict)
           else lambda k, d=None: getattr(recommendation, k, d))
    reason = get("reason", "") or ""
    if isinstance(recommendation, pd.DataFrame):
        cand: Any = recommendation.iloc[0] if len(recommendation) else None
    elif isinstance(recommendation, pd.Series):
        cand = recommendation
    elif isinstance(recommendation, dict) and "config" in recommendation and recommendation["config"] is None:
        return None, str(reason)  # toolkit.recommend: no setting meets the target
    else:
        cand = None
        for name in ("config", "row", "setting", "settings", "configuration"):
            value = get(name, None)
            if value is not None:
                cand = value
                break
        if cand is None and isinstance(recommendation, dict):
            cand = recommendation
    if cand is None:
        return None, str(reason)
    if isinstance(cand, pd.DataFrame):
        cand = cand.iloc[0]
    cand = dict(cand)
    cols = [c for c in config_columns(results) if c in cand]
    if not cols:
        return None, str(reason)
    mask = np.ones(len(results), dtype=bool)
    for c in cols:
        mask &= results[c].astype(str).to_numpy() == str(cand[c])
    hits = results[mask]
    return (hits.iloc[0] if len(hits) else None), str(reason)


def _default_recommendation(results: pd.DataFrame, completeness_target: float, latency: str) -> Any:
    try:
        import toolkit

        return toolkit.recommend(results, completeness=completeness_target, metric=latency)
    except (ImportError, AttributeError, ModuleNotFoundError):
        return None


def sweep_heatmap(results: pd.DataFrame, metric: str = "completeness_first", *, x: str = "delay_ms",
                  y: str = "lateness_ms", width: int = 360, height: int = 240,
                  title: str | None = None) -> alt.Chart:
    """Heatmap of ``metric`` over two configuration axes (default delay x allowed lateness).

    Each cell is one configuration, labelled with its value. Other configuration columns that
    vary (window, interval, ...) become facets, one panel per combination. Colour runs light
    to dark towards the better end (higher completeness, lower latency / state / drops).
    """
    for c in (x, y, metric):
        if c not in results.columns:
            raise ValueError(f"sweep results have no column {c!r}; columns: {', '.join(map(str, results.columns))}")
    others = [c for c in varying(results, config_columns(results)) if c not in (x, y)]
    data = results[[x, y, metric] + others].copy()
    data["setting"] = _setting_label(results, others)
    xs = sorted(data[x].unique().tolist())
    ys = sorted(data[y].unique().tolist())
    better_high = metric in HIGHER_IS_BETTER
    color = alt.Color(f"{metric}:Q", title=metric,
                      scale=alt.Scale(scheme="viridis", reverse=not better_high))
    base = alt.Chart(data).encode(
        x=alt.X(f"{x}:O", title=x, sort=xs),
        y=alt.Y(f"{y}:O", title=y, sort=ys[::-1]),
    )
    tooltip = [f"{x}:O", f"{y}:O", alt.Tooltip(f"{metric}:Q", format=_fmt(metric))] + [f"{c}:N" for c in others]
    rect = base.mark_rect().encode(color=color, tooltip=tooltip)
    text = base.mark_text(fontSize=10).encode(
        text=alt.Text(f"{metric}:Q", format=_fmt(metric)),
        color=alt.value("white"),
    )
    chart = alt.layer(rect, text).properties(width=width, height=height)
    if others:
        chart = chart.facet(facet=alt.Facet("setting:N", title=", ".join(others)), columns=2)
    return chart.properties(title=title or f"{metric} by {x} and {y}")


def latency_completeness(results: pd.DataFrame, *, latency: str = "latency_p99_ms",
                         completeness: str = "completeness_first", recommendation: Any = "auto",
                         completeness_target: float = 0.99, width: int = 480, height: int = 320,
                         title: str = "Latency vs completeness") -> alt.LayerChart:
    """Every configuration at (latency, completeness); the Pareto frontier joined; the recommendation starred.

    ``recommendation="auto"`` asks :func:`toolkit.recommend` for the lowest-latency setting
    meeting ``completeness_target``; ``None`` marks none. The dashed rule is the target.
    """
    for c in (latency, completeness):
        if c not in results.columns:
            raise ValueError(f"sweep results have no column {c!r}")
    cfg = config_columns(results)
    data = results.copy()
    data["setting"] = _setting_label(results, varying(results, cfg) or cfg)
    front = pareto(results, latency, completeness)
    data["on_frontier"] = data.index.isin(front.index)
    if isinstance(recommendation, str) and recommendation == "auto":
        recommendation = _default_recommendation(results, completeness_target, latency)
    rec_row, reason = recommended_row(results, recommendation)
    tooltip = ["setting:N", alt.Tooltip(f"{latency}:Q", format=",.0f"),
               alt.Tooltip(f"{completeness}:Q", format=".3%"), "on_frontier:N"]
    x = alt.X(f"{latency}:Q", title=f"{latency} (lower is better)")
    y = alt.Y(f"{completeness}:Q", title=f"{completeness} (higher is better)", scale=alt.Scale(zero=False))
    points = alt.Chart(data).mark_point(filled=True, size=50).encode(
        x=x, y=y,
        color=alt.condition("datum.on_frontier", alt.value("#4c78a8"), alt.value("#bbbbbb")),
        tooltip=tooltip,
    )
    fdata = data[data["on_frontier"]].sort_values(latency, kind="stable")
    line = alt.Chart(fdata).mark_line(color="#4c78a8", interpolate="step-after").encode(
        x=x, y=y, order=alt.Order(f"{latency}:Q"))
    target = alt.Chart(pd.DataFrame({"target": [completeness_target]})).mark_rule(
        strokeDash=[4, 4], color="#888888").encode(y="target:Q")
    layers = [target, line, points]
    subtitle = []
    if rec_row is not None:
        rd = pd.DataFrame([{"setting": data.loc[rec_row.name, "setting"], latency: rec_row[latency],
                            completeness: rec_row[completeness], "reason": reason}])
        rd["label"] = "recommended: " + rd["setting"]
        layers.append(alt.Chart(rd).mark_point(shape="diamond", size=260, filled=True, color="#e45756",
                                               stroke="black", strokeWidth=1).encode(
            x=x, y=y, tooltip=["label:N", "reason:N"]))
        layers.append(alt.Chart(rd).mark_text(align="left", dx=10, dy=-10, fontWeight="bold").encode(
            x=x, y=y, text="label:N"))
        if reason:
            subtitle.extend(textwrap.wrap(reason, 90))
    chart = alt.layer(*layers).properties(width=width, height=height)
    return chart.properties(title=alt.TitleParams(title, subtitle=subtitle) if subtitle else title)


def sweep_sliders(results: pd.DataFrame, *, x: str = "delay_ms", y: str = "lateness_ms",
                  latency: str = "latency_p99_ms", completeness: str = "completeness_first",
                  metrics: list[str] | None = None, initial: dict[str, Any] | None = None,
                  title: str = "Explore the sweep") -> alt.VConcatChart:
    """Interactive sweep view for the browser, driven by Altair parameters (no Python needed).

    Sliders step through the values of ``x`` and ``y`` (one step per swept value), a select
    picks the heatmap metric, another the remaining configuration when more columns vary.
    Panels: the selected configuration's figures, the heatmap with the selected cell
    outlined, and latency vs completeness with the selected point highlighted.
    ``initial`` gives the starting ``{x: value, y: value}`` (e.g. the recommendation).
    """
    for c in (x, y, latency, completeness):
        if c not in results.columns:
            raise ValueError(f"sweep results have no column {c!r}")
    metrics = metrics or metric_columns(results)
    others = [c for c in varying(results, config_columns(results)) if c not in (x, y)]
    data = results.reset_index(drop=True).copy()
    xs = sorted(data[x].unique().tolist())
    ys = sorted(data[y].unique().tolist())
    data["x_step"] = [xs.index(v) for v in data[x]]
    data["y_step"] = [ys.index(v) for v in data[y]]
    data["other"] = _setting_label(data, others)
    other_values = sorted(data["other"].unique().tolist())
    initial = initial or {}
    x0 = xs.index(initial[x]) if initial.get(x) in xs else 0
    y0 = ys.index(initial[y]) if initial.get(y) in ys else 0
    o0 = initial.get("other", other_values[0])
    p_x = alt.param(name="x_step", value=x0,
                    bind=alt.binding_range(min=0, max=max(len(xs) - 1, 1), step=1, name=f"{x} (step) "))
    p_y = alt.param(name="y_step", value=y0,
                    bind=alt.binding_range(min=0, max=max(len(ys) - 1, 1), step=1, name=f"{y} (step) "))
    p_m = alt.param(name="metric", value=metrics[0] if completeness not in metrics else completeness,
                    bind=alt.binding_select(options=metrics, name="heatmap metric "))
    params = [p_x, p_y, p_m]
    other_filter = "true"
    if len(other_values) > 1:
        p_o = alt.param(name="other", value=o0,
                        bind=alt.binding_select(options=other_values, name=", ".join(others) + " "))
        params.append(p_o)
        other_filter = "datum.other == other"
    selected = f"datum.x_step == x_step && datum.y_step == y_step && {other_filter}"
    keep = [x, y, "x_step", "y_step", "other"] + [m for m in metrics if m not in (x, y)]
    long = data[keep].melt(id_vars=[x, y, "x_step", "y_step", "other"], var_name="metric_name",
                           value_name="metric_value")
    base = alt.Chart(data[[x, y, "x_step", "y_step", "other"] + [m for m in metrics if m not in (x, y)]])
    long_base = alt.Chart(long)

    figures = long_base.transform_filter(selected).mark_text(align="left", fontSize=12).encode(
        y=alt.Y("metric_name:N", title=None, sort=metrics, axis=alt.Axis(labelFontSize=12, domain=False, ticks=False)),
        text=alt.Text("metric_value:Q", format=",.4~f"),
    ).properties(width=160, height=16 * len(metrics), title="selected configuration")
    heat = long_base.transform_filter(f"datum.metric_name == metric && {other_filter}").mark_rect().encode(
        x=alt.X(f"{x}:O", title=x, sort=xs), y=alt.Y(f"{y}:O", title=y, sort=ys[::-1]),
        color=alt.Color("metric_value:Q", title="metric", scale=alt.Scale(scheme="viridis")),
        strokeWidth=alt.condition("datum.x_step == x_step && datum.y_step == y_step", alt.value(4), alt.value(0)),
        tooltip=[f"{x}:O", f"{y}:O", "metric_name:N", alt.Tooltip("metric_value:Q", format=",.4~f")],
    ).properties(width=300, height=220, title="heatmap of the chosen metric")
    heat = heat.mark_rect(stroke="#e45756")
    q = json.dumps
    header = base.transform_filter(selected).transform_calculate(
        label=f"{q(x + ' = ')} + datum[{q(x)}] + {q(', ' + y + ' = ')} + datum[{q(y)}] + "
              "(datum.other == 'all' ? '' : ', ' + datum.other)"
    ).mark_text(align="left", fontSize=14, fontWeight="bold").encode(text="label:N").properties(width=600, height=20)
    scatter = base.transform_filter(other_filter).mark_point(filled=True).encode(
        x=alt.X(f"{latency}:Q", title=latency), y=alt.Y(f"{completeness}:Q", title=completeness,
                                                        scale=alt.Scale(zero=False)),
        color=alt.condition(selected, alt.value("#e45756"), alt.value("#9d9d9d")),
        size=alt.condition(selected, alt.value(220), alt.value(40)),
        tooltip=[f"{x}:Q", f"{y}:Q", f"{latency}:Q", alt.Tooltip(f"{completeness}:Q", format=".3%")],
    ).properties(width=300, height=220, title="latency vs completeness")
    chart = alt.vconcat(header, alt.hconcat(figures, heat, scatter)).add_params(*params)
    return chart.properties(title=title)
