"""Charts over a finished sweep: one row per configuration (issue 5 columns)."""
from __future__ import annotations

import textwrap
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from toolkit.semantics import get
from toolkit.sweeps.choose import engine_name
from toolkit.viz import _format as fmt
from toolkit.viz._common import duration_axis, duration_axis_scale, duration_expr, wrap

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


def first_result_notes(results: pd.DataFrame, *, short: bool = False) -> list[str]:
    """What charts say next to a first-result completeness: the note of each engine in
    ``results`` whose rows have first results partial by design (``Semantics.partial_first_results``:
    Kafka Streams with ``emit=update``)."""
    if "semantics" not in results.columns:
        return []
    out = []
    for name, rows in results.groupby(results["semantics"].astype(str), sort=False):
        engine = get(name)
        if engine.partial_first_results(rows):
            out.append(engine.first_result_note_short if short else engine.first_result_note)
    return out


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


AXIS_NAMES = {"delay_ms": "delay", "lateness_ms": "allowed lateness", "idleness_ms": "idle timeout",
              "interval_ms": "watermark interval", "second_lateness_ms": "second allowed lateness",
              "source_parallelism": "source parallelism", "partitions_as_sources": "partitions as sources"}
"""How a configuration column is named on a chart."""

METRIC_NAMES = {
    "completeness_first": "first-result completeness", "completeness_final": "final completeness",
    "exact_windows": "windows exact at first result", "latency_p50_ms": "median result latency",
    "latency_p95_ms": "p95 result latency", "latency_p99_ms": "p99 result latency",
    "latency_max_ms": "max result latency", "late_accepted": "late but accepted", "on_time": "on time",
    "peak_state_windows": "peak open windows", "peak_state_records": "peak buffered records",
    "mean_state_records": "mean buffered records", "mean_state_windows": "mean open windows",
    "late_firings": "late firings",
}
"""How a figure is named on a chart."""

VIRIDIS = ["#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c", "#22a884", "#44bf70", "#7ad151",
           "#bddf26", "#fde725"]
"""Viridis, dark to bright (Vega's scheme), for colours computed in Python."""


def name_of(column: str) -> str:
    """The name a chart shows for a column: ``delay_ms`` -> ``delay``, ``latency_p99_ms`` -> ``p99 result latency``."""
    return AXIS_NAMES.get(column) or METRIC_NAMES.get(column) or fmt.label(column).replace("_", " ")


def value_text(column: str, v: Any) -> str:
    """A value as a chart shows it: durations, percentages, "no idleness"."""
    if column == "idleness_ms" and fmt.is_missing(v):
        return "no idleness"
    if column == "idleness_ms" and v == 0:
        return "no idleness"
    return fmt.cell(column, v)


def _setting_label(results: pd.DataFrame, columns: list[str]) -> pd.Series:
    """``idle timeout 2 s, watermark interval 50 ms`` per row ("no idleness" for a missing timeout)."""
    if not columns:
        return pd.Series(["all"] * len(results), index=results.index)

    def one(c: str, v: Any) -> str:
        if c == "semantics":
            return engine_name(v)
        if c != "idleness_ms" and (fmt.is_missing(v) or str(v) == "none"):
            return ""  # a setting the row's engine does not have (Spark's output mode on a Flink row ...)
        text = value_text(c, v)
        return text if text == "no idleness" else f"{name_of(c)} {text}"

    labels = [", ".join(x for x in (one(c, v) for c, v in zip(columns, r)) if x)
              for r in results[columns].itertuples(index=False)]
    return pd.Series(labels, index=results.index)


def _ordered(values: pd.Series) -> list[Any]:
    """Distinct values in ascending order, missing ones (no idleness) first."""
    uniq = pd.unique(values)
    missing = [v for v in uniq if fmt.is_missing(v)]
    rest = sorted((v for v in uniq if not fmt.is_missing(v)), key=lambda v: (str(type(v)), v))
    return missing[:1] + rest


def _viridis(t: np.ndarray) -> list[str]:
    """Colours of ``t`` in [0, 1] on :data:`VIRIDIS` (linear interpolation in RGB)."""
    stops = np.array([[int(h[i:i + 2], 16) for i in (1, 3, 5)] for h in VIRIDIS], dtype="float64")
    pos = np.clip(np.asarray(t, dtype="float64"), 0, 1) * (len(VIRIDIS) - 1)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, len(VIRIDIS) - 1)
    f = (pos - lo)[:, None]
    rgb = np.rint(stops[lo] * (1 - f) + stops[hi] * f).astype(int)
    return ["#%02x%02x%02x" % tuple(c) for c in rgb]


def text_colour(background: list[str]) -> list[str]:
    """Black or white text, whichever reads better on each background (WCAG relative luminance)."""
    out = []
    for h in background:
        rgb = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
        out.append("black" if lum > 0.179 else "white")
    return out


def goodness(values: pd.Series, metric: str) -> np.ndarray:
    """Each value in [0, 1], 1 the best of ``values`` (highest completeness, lowest latency/state/drops)."""
    v = pd.to_numeric(values, errors="coerce").astype("float64").to_numpy()
    ok = np.isfinite(v)
    if not ok.any():
        return np.full(v.shape, np.nan)
    lo, hi = np.nanmin(v), np.nanmax(v)
    t = (v - lo) / (hi - lo) if hi > lo else np.ones_like(v)
    return t if metric in HIGHER_IS_BETTER else 1 - t


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

    Each cell is one configuration, labelled with its value (durations, percentages). Other
    configuration columns that vary (idle timeout, interval, ...) become facets, one panel per
    combination ("no idleness" for a missing timeout). Colour runs dark to bright towards the
    better end (higher completeness, lower latency / state / drops); the colours are computed
    here, so charts put side by side never share a colour scale, and each label is black or
    white by its cell's luminance.
    """
    for c in (x, y, metric):
        if c not in results.columns:
            raise ValueError(f"sweep results have no column {c!r}; columns: {', '.join(map(str, results.columns))}")
    others = [c for c in varying(results, config_columns(results)) if c not in (x, y)]
    data = results[[x, y, metric] + others].copy().reset_index(drop=True)
    data["setting"] = _setting_label(data, others).to_numpy()
    xs, ys = _ordered(data[x]), _ordered(data[y])
    data["x_label"] = [value_text(x, v) for v in data[x]]
    data["y_label"] = [value_text(y, v) for v in data[y]]
    data["value_text"] = [value_text(metric, v) for v in data[metric]]
    t = goodness(data[metric], metric)
    fill = _viridis(np.nan_to_num(t, nan=0.0))
    data["fill"] = [f if np.isfinite(g) else "#dddddd" for f, g in zip(fill, t)]
    data["ink"] = text_colour(list(data["fill"]))
    x_order = [value_text(x, v) for v in xs]
    y_order = [value_text(y, v) for v in ys][::-1]
    base = alt.Chart(data).encode(
        x=alt.X("x_label:O", title=name_of(x), sort=x_order, axis=alt.Axis(labelAngle=0, labelOverlap=True)),
        y=alt.Y("y_label:O", title=name_of(y), sort=y_order),
    )
    tooltip = [alt.Tooltip("x_label:N", title=name_of(x)), alt.Tooltip("y_label:N", title=name_of(y)),
               alt.Tooltip("value_text:N", title=name_of(metric))] + (
        [alt.Tooltip("setting:N", title="other settings")] if others else [])
    rect = base.mark_rect(stroke="white", strokeWidth=0.5).encode(color=alt.Color("fill:N", scale=None),
                                                                   tooltip=tooltip)
    text = base.mark_text(fontSize=10).encode(text="value_text:N", color=alt.Color("ink:N", scale=None),
                                              tooltip=tooltip)
    chart = alt.layer(rect, text).properties(width=width, height=height)
    better = "higher" if metric in HIGHER_IS_BETTER else "lower"
    subtitle = f"brighter = better ({better} {name_of(metric)})"
    if others:
        chart = chart.facet(facet=alt.Facet("setting:N", title=None, sort=list(dict.fromkeys(data["setting"]))),
                            columns=2)
    return chart.properties(title=alt.TitleParams(title or f"{name_of(metric)} by {name_of(x)} and {name_of(y)}",
                                                  subtitle=[subtitle]))


def latency_completeness(results: pd.DataFrame, *, latency: str = "latency_p99_ms",
                         completeness: str = "completeness_first", recommendation: Any = "auto",
                         completeness_target: float = 0.99, width: int = 480, height: int = 320,
                         title: str = "Latency vs completeness") -> alt.LayerChart:
    """Every configuration at (latency, completeness); the Pareto frontier joined; the recommendation starred.

    ``recommendation="auto"`` asks :func:`toolkit.recommend` for the lowest-latency setting
    meeting ``completeness_target``; ``None`` marks none. The dashed rule is the target.
    Latency reads in seconds from 10 s up, completeness in percent.
    """
    for c in (latency, completeness):
        if c not in results.columns:
            raise ValueError(f"sweep results have no column {c!r}")
    cfg = config_columns(results)
    data = results.copy()
    data["setting"] = _setting_label(results, varying(results, cfg) or cfg)
    front = pareto(results, latency, completeness)
    data["on_frontier"] = data.index.isin(front.index)
    div, unit = duration_axis_scale(data[latency].to_numpy(dtype="float64"))
    data["x_value"] = data[latency].astype("float64") / div
    data["latency_text"] = [value_text(latency, v) for v in data[latency]]
    data["completeness_text"] = [value_text(completeness, v) for v in data[completeness]]
    if isinstance(recommendation, str) and recommendation == "auto":
        recommendation = _default_recommendation(results, completeness_target, latency)
    rec_row, reason = recommended_row(results, recommendation)
    tooltip = [alt.Tooltip("setting:N", title="setting"), alt.Tooltip("latency_text:N", title=name_of(latency)),
               alt.Tooltip("completeness_text:N", title=name_of(completeness)),
               alt.Tooltip("on_frontier:N", title="on the frontier")]
    x = alt.X("x_value:Q", title=f"{name_of(latency)} ({unit}, lower is better)")
    y = alt.Y(f"{completeness}:Q", title=f"{name_of(completeness)} (higher is better)", scale=alt.Scale(zero=False),
              axis=alt.Axis(format=".1%"))
    points = alt.Chart(data).mark_point(filled=True, size=50).encode(
        x=x, y=y,
        color=alt.condition("datum.on_frontier", alt.value("#4c78a8"), alt.value("#bbbbbb")),
        tooltip=tooltip,
    )
    fdata = data[data["on_frontier"]].sort_values(latency, kind="stable")
    line = alt.Chart(fdata).mark_line(color="#4c78a8", interpolate="step-after").encode(
        x=x, y=y, order=alt.Order("x_value:Q"))
    target = alt.Chart(pd.DataFrame({"target": [completeness_target]})).mark_rule(
        strokeDash=[4, 4], color="#888888").encode(y="target:Q")
    layers = [target, line, points]
    subtitle = []
    if rec_row is not None:
        rd = pd.DataFrame([{"setting": data.loc[rec_row.name, "setting"], "x_value": float(rec_row[latency]) / div,
                            completeness: rec_row[completeness], "reason": reason}])
        rd["label"] = "recommended: " + rd["setting"]
        layers.append(alt.Chart(rd).mark_point(shape="diamond", size=260, filled=True, color="#e45756",
                                               stroke="black", strokeWidth=1).encode(
            x=x, y=y, tooltip=[alt.Tooltip("label:N", title="recommended"), alt.Tooltip("reason:N", title="why")]))
        right = float(rd["x_value"].iloc[0]) > float(np.nanmean([data["x_value"].min(), data["x_value"].max()]))
        layers.append(alt.Chart(rd).mark_text(align="right" if right else "left", dx=-12 if right else 12, dy=-12,
                                              fontWeight="bold").encode(
            x=x, y=y, text="label:N"))
        if reason:
            subtitle.extend(textwrap.wrap(reason, 95))
    if completeness == "completeness_first":
        for note in first_result_notes(results):
            subtitle.extend(textwrap.wrap(note, 95))
    chart = alt.layer(*layers).properties(width=width, height=height)
    return chart.properties(title=alt.TitleParams(title, subtitle=subtitle) if subtitle else title)


def _axis_channel(kind: Any, c: str, values: pd.Series, **kwargs: Any) -> Any:
    """An x or y channel over column ``c`` of a sweep: durations labelled with their unit
    (``500 ms``, ``45 s``), shares as percentages; the scale does not start at zero. A column
    that is not numeric (a window, a strategy) is an ordinal axis of its readable values."""
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return kind(f"{c}_text:O", title=name_of(c), sort=[value_text(c, v) for v in _ordered(values)], **kwargs)
    if c in fmt.SHARE_NAMES:
        kwargs["axis"] = alt.Axis(format=".3~%")  # 97.45%: a close range never reads 97.5%, 97.5%
    elif fmt.is_duration(c):
        kwargs["axis"] = duration_axis()
    return kind(f"{c}:Q", title=name_of(c), scale=alt.Scale(zero=False), **kwargs)


def _legend(c: str) -> Any:
    """A colour legend over column ``c`` in readable units."""
    if c in fmt.SHARE_NAMES:
        return alt.Legend(format=".1%")
    if fmt.is_duration(c):
        return alt.Legend(labelExpr=duration_expr())
    return alt.Legend()


def sweep_scatter(results: pd.DataFrame, metric: str = "dropped", *, x: str = "latency_p99_ms",
                  y: str = "completeness_first", width: int = 480, height: int = 320) -> alt.Chart:
    """Sweep rows at (``x``, ``y``) (figures or configuration columns), coloured by ``metric``.

    Rows whose settings differ only in columns that move neither axis (allowed lateness changes
    neither first-result completeness nor p99 latency) land on one point: those columns get the
    size channel, so the settings at one point are drawn as nested rings, the largest first, each
    with its own colour and tooltip; every tooltip also lists all the settings at its point.
    """
    name = name_of
    for c in (x, y, metric):
        if c not in results.columns:
            raise ValueError(f"sweep results have no column {c!r}; columns: {', '.join(map(str, results.columns))}")
    label = varying(results, config_columns(results))
    data = results[list(dict.fromkeys([x, y, metric] + label))].copy().reset_index(drop=True)
    point = data[x].astype(str) + "|" + data[y].astype(str)
    # the columns that differ between rows at one point: the axes cannot show them
    hidden = [c for c in label if c not in (x, y) and (data[c].astype(str).groupby(point).nunique() > 1).any()]
    data["setting"] = _setting_label(data, label).to_numpy()
    data["hidden"] = _setting_label(data, hidden).to_numpy()
    tips = [alt.Tooltip("setting:N", title="setting")]
    for c in dict.fromkeys([x, y, metric]):
        data[f"{c}_text"] = [value_text(c, v) for v in data[c]]
        tips.append(alt.Tooltip(f"{c}_text:N", title=name(c)))
    data["here"] = point.map(point.value_counts()).astype(int)
    each = [f"{h} ({name(metric)} {t})" if h != "all" else t for h, t in zip(data["hidden"], data[f"{metric}_text"])]
    listing = pd.Series(each, index=data.index).groupby(point).agg("; ".join)
    data["here_list"] = [f"{n} settings: {listing[p]}" if n > 1 else "this one only"
                         for n, p in zip(data["here"], point)]
    tips.append(alt.Tooltip("here_list:N", title="settings at this point"))
    shared = int(data["here"].max())
    encoding: dict[str, Any] = {}
    subtitle = [f"{fmt.number(len(data))} configurations at {fmt.number(point.nunique())} points"]
    if shared > 1 and hidden:
        order = list(dict.fromkeys(data.sort_values(hidden, kind="stable")["hidden"]))
        n = len(order)
        biggest = min(600, 90 + 120 * (n - 1))
        data["ring"] = [order.index(h) for h in data["hidden"]]
        encoding["size"] = alt.Size("hidden:O", sort=order, title=", ".join(name(c) for c in hidden),
                                    scale=alt.Scale(range=[biggest, 40] if n > 1 else [90, 90]),
                                    legend=alt.Legend(symbolFillColor="#bbbbbb", symbolStrokeColor="white",
                                                      labelLimit=300, orient="right"))
        encoding["order"] = alt.Order("ring:Q", sort="ascending")  # the largest ring first, the smallest on top
        subtitle.append(f"up to {shared} settings share a point (they differ only in "
                        f"{', '.join(name(c) for c in hidden)}): drawn as rings, by size")
    else:
        encoding["size"] = alt.value(90)
    if "completeness_first" in (x, y, metric):
        for note in first_result_notes(results):
            subtitle.extend(wrap(note, 95))
    pick = alt.selection_point(fields=["setting"], on="click", clear="dblclick", name="picked")
    chart = alt.Chart(data).mark_point(filled=True, stroke="white", strokeWidth=1.5, opacity=1).encode(
        x=_axis_channel(alt.X, x, data[x]),
        y=_axis_channel(alt.Y, y, data[y]),
        color=alt.Color(f"{metric}:Q", title=name(metric), scale=alt.Scale(scheme="viridis"),
                        legend=_legend(metric)),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.25)),
        tooltip=tips, **encoding,
    ).add_params(pick).properties(width=width, height=height, title=alt.TitleParams(
        f"{name(y)} against {name(x)}", subtitle=subtitle))
    return chart


def sweep_sliders(results: pd.DataFrame, *, x: str = "delay_ms", y: str = "lateness_ms",
                  latency: str = "latency_p99_ms", completeness: str = "completeness_first",
                  metrics: list[str] | None = None, initial: dict[str, Any] | None = None,
                  title: str = "Explore the sweep") -> alt.VConcatChart:
    """Interactive sweep view for the browser, driven by Altair parameters (no Python needed).

    Radio buttons pick the values of ``x`` and ``y`` (labelled with the values themselves:
    ``0 ms``, ``250 ms``, ``2 s``), a select picks the heatmap metric, another the remaining
    configuration when more columns vary. Panels: the selected configuration's figures, the
    heatmap with the selected cell outlined (colour: brighter = better, per metric), and
    latency vs completeness with the selected point highlighted.
    ``initial`` gives the starting ``{x: value, y: value}`` and, optionally, the values of the other
    varying columns (e.g. the recommended row).
    """
    for c in (x, y, latency, completeness):
        if c not in results.columns:
            raise ValueError(f"sweep results have no column {c!r}")
    metrics = metrics or metric_columns(results)
    metrics = [m for m in metrics if m not in (x, y)]
    others = [c for c in varying(results, config_columns(results)) if c not in (x, y)]
    data = results.reset_index(drop=True).copy()
    xs, ys = _ordered(data[x]), _ordered(data[y])
    data["x_step"] = [_index(xs, v) for v in data[x]]
    data["y_step"] = [_index(ys, v) for v in data[y]]
    data["other"] = _setting_label(data, others).to_numpy()
    params, other_filter = _slider_params(data, x, y, xs, ys, others, metrics, completeness, initial or {})
    selected = f"datum.x_step == x_step && datum.y_step == y_step && {other_filter}"
    ids = ["x_step", "y_step", "other"]
    figures, heat = _figures_and_heatmap(_metric_cells(data, ids, metrics, x, y, xs, ys), metrics, x, y, xs, ys,
                                         selected, other_filter)
    header = _slider_header(data, x, y, selected)
    scatter = _slider_scatter(data, ids, x, y, xs, ys, latency, completeness, selected, other_filter)
    chart = alt.vconcat(header, alt.hconcat(figures, heat, spacing=30), scatter).add_params(*params)
    return chart.properties(title=title)


def _slider_params(data: pd.DataFrame, x: str, y: str, xs: list, ys: list, others: list[str], metrics: list[str],
                   completeness: str, initial: dict[str, Any]) -> tuple[list, str]:
    """The parameters (radio buttons for ``x`` and ``y``, the heatmap metric, and the other
    varying columns' setting when there are several) starting at ``initial``, and the filter
    that keeps the selected other setting's rows."""
    other_values = list(dict.fromkeys(data["other"]))
    x0 = _index(xs, initial[x]) if x in initial and _index(xs, initial[x]) >= 0 else 0
    y0 = _index(ys, initial[y]) if y in initial and _index(ys, initial[y]) >= 0 else 0
    o0 = initial.get("other", other_values[0])
    if "other" not in initial and others and all(c in initial for c in others):  # e.g. the recommended row
        o0 = _setting_label(pd.DataFrame([{c: initial[c] for c in others}]), others).iloc[0]
    p_x = alt.param(name="x_step", value=x0, bind=alt.binding_radio(
        options=list(range(len(xs))), labels=[value_text(x, v) for v in xs], name=f"{name_of(x)}: "))
    p_y = alt.param(name="y_step", value=y0, bind=alt.binding_radio(
        options=list(range(len(ys))), labels=[value_text(y, v) for v in ys], name=f"{name_of(y)}: "))
    p_m = alt.param(name="metric", value=completeness if completeness in metrics else metrics[0],
                    bind=alt.binding_select(options=metrics, labels=[name_of(m) for m in metrics],
                                            name="heatmap metric: "))
    params = [p_x, p_y, p_m]
    other_filter = "true"
    if len(other_values) > 1:
        p_o = alt.param(name="other", value=o0 if o0 in other_values else other_values[0],
                        bind=alt.binding_select(options=other_values, name=(
                            "engine and its settings: " if "semantics" in others
                            else ", ".join(name_of(c) for c in others) + ": ")))
        params.append(p_o)
        other_filter = "datum.other == other"
    return params, other_filter


def _metric_cells(data: pd.DataFrame, ids: list[str], metrics: list[str], x: str, y: str, xs: list,
                  ys: list) -> pd.DataFrame:
    """One row per (configuration, metric): its label and text, the cell's labels and its
    colour (brighter = better, per metric; grey without a value) with a readable ink."""
    long = data[ids + metrics].melt(id_vars=ids, var_name="metric_name", value_name="metric_value")
    long["metric_label"] = [name_of(m) for m in long["metric_name"]]
    long["metric_text"] = [value_text(m, v) for m, v in zip(long["metric_name"], long["metric_value"])]
    long["x_label"] = [value_text(x, xs[i]) for i in long["x_step"]]
    long["y_label"] = [value_text(y, ys[i]) for i in long["y_step"]]
    good = np.full(len(long), np.nan)
    for m in metrics:
        sel = (long["metric_name"] == m).to_numpy()
        good[sel] = goodness(long.loc[sel, "metric_value"], m)
    long["fill"] = [f if np.isfinite(g) else "#dddddd" for f, g in zip(_viridis(np.nan_to_num(good)), good)]
    long["ink"] = text_colour(list(long["fill"]))
    return long


def _figures_and_heatmap(long: pd.DataFrame, metrics: list[str], x: str, y: str, xs: list, ys: list, selected: str,
                         other_filter: str) -> tuple[alt.Chart, alt.LayerChart]:
    """The selected configuration's figures, and the heatmap of the chosen metric with the
    selected cell outlined and each cell's value written in it."""
    long_base = alt.Chart(long)
    figures = long_base.transform_filter(selected).mark_text(align="left", fontSize=12).encode(
        y=alt.Y("metric_label:N", title=None, sort=[name_of(m) for m in metrics],
                axis=alt.Axis(labelFontSize=12, domain=False, ticks=False, labelLimit=220)),
        text=alt.Text("metric_text:N"),
    ).properties(width=110, height=16 * len(metrics), title="selected configuration")
    x_order = [value_text(x, v) for v in xs]
    y_order = [value_text(y, v) for v in ys][::-1]
    cell_enc = dict(x=alt.X("x_label:O", title=name_of(x), sort=x_order, axis=alt.Axis(labelAngle=0)),
                    y=alt.Y("y_label:O", title=name_of(y), sort=y_order))
    heat_data = long_base.transform_filter(f"datum.metric_name == metric && {other_filter}")
    heat = heat_data.mark_rect(stroke="#e45756").encode(
        color=alt.Color("fill:N", scale=None),
        strokeWidth=alt.condition("datum.x_step == x_step && datum.y_step == y_step", alt.value(4), alt.value(0)),
        tooltip=[alt.Tooltip("x_label:N", title=name_of(x)), alt.Tooltip("y_label:N", title=name_of(y)),
                 alt.Tooltip("metric_label:N", title="metric"), alt.Tooltip("metric_text:N", title="value")],
        **cell_enc,
    )
    labels = heat_data.mark_text(fontSize=10).encode(text="metric_text:N", color=alt.Color("ink:N", scale=None),
                                                     **cell_enc)
    heat = alt.layer(heat, labels).properties(width=max(240, 58 * len(xs)), height=max(120, 40 * len(ys)),
                                              title="heatmap of the chosen metric (brighter = better)")
    return figures, heat


def _slider_header(data: pd.DataFrame, x: str, y: str, selected: str) -> alt.Chart:
    """The selected setting in words, above the panels."""
    header_data = pd.DataFrame({"x_step": data["x_step"], "y_step": data["y_step"], "other": data["other"],
                                "label": [f"{name_of(x)} {value_text(x, a)}, {name_of(y)} {value_text(y, b)}"
                                          + ("" if o == "all" else f", {o}")
                                          for a, b, o in zip(data[x], data[y], data["other"])]})
    return alt.Chart(header_data).transform_filter(selected).mark_text(
        align="left", fontSize=14, fontWeight="bold").encode(text="label:N").properties(width=600, height=20)


def _slider_scatter(data: pd.DataFrame, ids: list[str], x: str, y: str, xs: list, ys: list, latency: str,
                    completeness: str, selected: str, other_filter: str) -> alt.Chart:
    """Latency vs completeness of every configuration, the selected one in red; each tooltip
    lists the settings on its point."""
    div, unit = duration_axis_scale(data[latency].to_numpy(dtype="float64"))
    sc = data[ids + [latency, completeness]].copy()
    sc["x_value"] = sc[latency].astype("float64") / div
    sc["setting"] = [f"{name_of(x)} {value_text(x, xs[i])}, {name_of(y)} {value_text(y, ys[j])}"
                     for i, j in zip(sc["x_step"], sc["y_step"])]
    sc["latency_text"] = [value_text(latency, v) for v in sc[latency]]
    sc["completeness_text"] = [value_text(completeness, v) for v in sc[completeness]]
    # settings that land on one point (allowed lateness moves neither figure): every tooltip lists them
    at = sc["other"].astype(str) + "|" + sc[latency].astype(str) + "|" + sc[completeness].astype(str)
    listing = sc["setting"].groupby(at).agg(lambda s: "; ".join(s))
    counts = at.map(at.value_counts())
    sc["here_list"] = [f"{n} settings: {listing[a]}" if n > 1 else "this one only" for n, a in zip(counts, at)]
    return alt.Chart(sc).transform_filter(other_filter).mark_point(filled=True).encode(
        # the points' own range, padded so that the enlarged selected point is never cut at an edge
        x=alt.X("x_value:Q", title=f"{name_of(latency)} ({unit})", scale=alt.Scale(zero=False, padding=12)),
        y=alt.Y(f"{completeness}:Q", title=name_of(completeness), scale=alt.Scale(zero=False, padding=12),
                axis=alt.Axis(format=".1%")),
        color=alt.condition(selected, alt.value("#e45756"), alt.value("#9d9d9d")),
        size=alt.condition(selected, alt.value(220), alt.value(40)),
        tooltip=[alt.Tooltip("setting:N", title="setting"), alt.Tooltip("latency_text:N", title=name_of(latency)),
                 alt.Tooltip("completeness_text:N", title=name_of(completeness)),
                 alt.Tooltip("here_list:N", title="settings at this point")],
    ).properties(width=420, height=200, title="latency vs completeness (the selected setting in red)")


def _index(values: list[Any], v: Any) -> int:
    """Position of ``v`` in ``values`` (missing values match each other); -1 when absent."""
    for i, u in enumerate(values):
        if (fmt.is_missing(u) and fmt.is_missing(v)) or (not fmt.is_missing(u) and not fmt.is_missing(v) and u == v):
            return i
    return -1
