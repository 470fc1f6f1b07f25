"""Record-level charts: event time against processing time, lateness, where records were dropped."""
from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from toolkit.viz._common import (
    FATE_COLORS,
    FATE_LABELS,
    FATES,
    MAX_POINTS,
    WM_CEIL,
    WM_FLOOR,
    fate_codes,
    fate_scale,
    is_epoch,
    lateness_of,
    log_table,
    num,
    reduce_series,
    stratified_sample,
    time_x,
    time_y,
    with_note,
)
from toolkit.viz._format import number, share


def _arrival_x(table: pd.DataFrame, log: Any) -> tuple[np.ndarray, str]:
    if getattr(log, "has_arrival_time", "arrival_time" in table.columns) and "arrival_time" in table.columns:
        return table["arrival_time"].to_numpy(), "processing time (arrival)"
    # no arrival times: the log is replayed in row order, so the x axis is the arrival position
    order = np.argsort(table["row"].to_numpy(), kind="stable")
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order))
    return pos, "arrival position (no arrival times)"


def _arrival_order(table: pd.DataFrame) -> np.ndarray:
    if "arrival_time" in table.columns:
        return np.lexsort((table["row"].to_numpy(), table["arrival_time"].to_numpy()))
    return np.argsort(table["row"].to_numpy(), kind="stable")


def watermark_frame(result: Any, levels: tuple[str, ...] = ("partition", "operator"),
                    partition: int | None = None, max_points: int = MAX_POINTS) -> tuple[pd.DataFrame, bool]:
    """Watermark series ``level, id, series, time, watermark`` to draw, reduced per series if large.

    Flink's MIN/MAX markers (no watermark yet, end of input) are left out.
    """
    wm = result.watermarks
    wm = wm[wm["level"].isin(levels)]
    w = num(wm["watermark"]).astype("float64")
    t = num(wm["time"]).astype("float64")
    wm = wm[(w > WM_FLOOR) & (w < WM_CEIL) & ~np.isnan(t)]
    wm = wm.assign(time=num(wm["time"]).astype(np.int64), watermark=num(wm["watermark"]).astype(np.int64))
    if partition is not None:
        wm = wm[(wm["level"] != "partition") | (wm["id"].astype(str) == str(partition))]
    groups = list(wm.groupby(["level", "id"], sort=True)) if len(wm) else []
    frames = []
    reduced = False
    budget = max(50, max_points // max(1, len(groups)))
    for (level, ident), g in groups:
        g = g.sort_values("time", kind="stable")
        t, v, r = reduce_series(g["time"].to_numpy(), g["watermark"].to_numpy(), budget)
        reduced |= r
        series = "operator" if level == "operator" else f"{level} {ident}"
        frames.append(pd.DataFrame({"level": level, "id": str(ident), "series": series, "time": t,
                                    "watermark": v}))
    if not frames:
        return pd.DataFrame({"level": [], "id": [], "series": [], "time": [], "watermark": []}), False
    return pd.concat(frames, ignore_index=True), reduced


def event_time_scatter(log: Any, result: Any = None, *, partition: int | None = None,
                       max_points: int = MAX_POINTS, width: int = 640, height: int = 360,
                       title: str = "Event time vs processing time", interactive: bool = True) -> alt.LayerChart:
    """The classic picture: each record at (arrival time, event time), coloured by its fate.

    With a replay ``result``: fates (on time, late but accepted, dropped) and the watermark
    lines (operator: solid black step line; each source partition: dashed). A record below
    the operator watermark at its arrival was late. ``partition`` restricts to one partition.
    Above ``max_points`` records a stratified, seeded sample is drawn and a subtitle says so.
    ``interactive``: zoom and pan with the mouse (scales bound to an interval selection).
    """
    table = log_table(log, max_rows=None)
    x, xtitle = _arrival_x(table, log)
    et = table["event_time"].to_numpy()
    if result is not None:
        codes = fate_codes(result, table)
    else:
        codes = np.full(len(table), -1, dtype=np.int64)
    mask = None
    if partition is not None:
        mask = table["partition"].to_numpy() == partition
    names = FATES + ["unknown"]
    cls = np.where(codes < 0, len(FATES), codes)
    base_idx = np.flatnonzero(mask) if mask is not None else None
    sample = stratified_sample(cls if base_idx is None else cls[base_idx], names, max_points)
    idx = sample.index if base_idx is None else base_idx[sample.index]
    data = pd.DataFrame({
        "arrival": x[idx],
        "event_time": et[idx],
        "fate": np.asarray(names, dtype=object)[cls[idx]],
        "key": table["key"].to_numpy()[idx].astype(str),
        "partition": table["partition"].to_numpy()[idx],
        "row": table["row"].to_numpy()[idx],
    })
    epoch = is_epoch(et)
    x_epoch = epoch and xtitle.startswith("processing")
    tooltip = ["row:Q", "key:N", "partition:Q", "fate:N",
               alt.Tooltip("event_time:Q", title="event time (ms)"),
               alt.Tooltip("arrival:Q", title="arrival (ms)" if x_epoch or not epoch else "arrival #")]
    if result is not None:
        color = alt.Color("fate:N", scale=fate_scale(), title="fate",
                          legend=alt.Legend(labelExpr=_fate_label_expr()))
    else:
        color = alt.Color("partition:N", title="partition")
    points = alt.Chart(data).mark_circle(size=30, opacity=0.75).encode(
        x=time_x("arrival", xtitle, x_epoch), y=time_y("event_time", "event time", epoch),
        color=color, tooltip=tooltip,
    )
    if interactive:
        points = points.add_params(alt.selection_interval(bind="scales", name="zoom"))
    layers: list[alt.Chart] = [points]
    note = sample.note()
    if result is not None and getattr(result, "watermarks", None) is not None:
        wm, reduced = watermark_frame(result, partition=partition, max_points=max_points)
        if reduced:
            note = (note + " " if note else "") + "Watermark lines reduced to per-bin extremes."
        if len(wm):
            parts = wm[wm["level"] == "partition"]
            op = wm[wm["level"] == "operator"]
            if len(parts):
                layers.append(alt.Chart(parts).mark_line(interpolate="step-after", strokeWidth=1.2,
                                                         color="#555555").encode(
                    x=time_x("time", xtitle, x_epoch), y=time_y("watermark", "event time", epoch),
                    strokeDash=alt.StrokeDash("series:N", title="watermark"),
                    tooltip=["series:N", alt.Tooltip("time:Q", title="at (ms)"),
                             alt.Tooltip("watermark:Q", title="watermark (ms)")],
                ))
            if len(op):
                layers.append(alt.Chart(op).mark_line(interpolate="step-after", strokeWidth=2.5,
                                                      color="black").encode(
                    x=time_x("time", xtitle, x_epoch), y=time_y("watermark", "event time", epoch),
                    tooltip=["series:N", alt.Tooltip("time:Q", title="at (ms)"),
                             alt.Tooltip("watermark:Q", title="watermark (ms)")],
                ))
    chart = alt.layer(*layers).properties(width=width, height=height)
    if partition is not None:
        title = f"{title} — partition {partition}"
    return with_note(chart, title, note)


def _fate_label_expr() -> str:
    cases = " : ".join(f"datum.label == '{k}' ? '{v}'" for k, v in FATE_LABELS.items())
    return f"{cases} : datum.label"


def lateness_histogram(log: Any, result: Any = None, *, bins: int = 40, delay_ms: int | None = None,
                       width: int = 560, height: int = 260,
                       title: str = "Lateness distribution") -> alt.LayerChart:
    """How far behind the stream each record arrived: max event time seen before it minus its own.

    A record with lateness L is late under any bounded-out-of-orderness delay < L, so the
    quantile rules (p50, p95, p99, max) read directly as candidate delays. Records that
    arrived in order (lateness 0) are counted in the subtitle, not drawn. Binned with
    numpy: the chart holds ``bins`` rows per fate whatever the log size. With ``result``
    the bars are stacked by fate; ``delay_ms`` draws the delay and the share it leaves late.
    """
    table = log_table(log)
    order = _arrival_order(table)
    late = lateness_of(table["event_time"].to_numpy(), order)
    n = late.size
    pos = late > 0
    n_in_order = int(n - pos.sum())
    hi = int(late.max()) if n else 0
    edges = np.linspace(0, max(hi, 1), bins + 1)
    if result is not None:
        codes = fate_codes(result, table)
        groups = [(f, codes == i) for i, f in enumerate(FATES)]
    else:
        groups = [("records", np.ones(n, dtype=bool))]
    rows = []
    for name, sel in groups:
        counts, _ = np.histogram(late[pos & sel], bins=edges)
        for i in np.flatnonzero(counts):
            rows.append((name, float(edges[i]), float(edges[i + 1]), int(counts[i])))
    data = pd.DataFrame(rows, columns=["fate", "lateness_start", "lateness_end", "count"])
    enc: dict[str, Any] = dict(
        x=alt.X("lateness_start:Q", bin="binned", title="lateness (ms)"),
        x2="lateness_end:Q",
        y=alt.Y("sum(count):Q", title="records (symlog scale)", stack=True, scale=alt.Scale(type="symlog")),
        tooltip=[alt.Tooltip("lateness_start:Q", title="from (ms)"), alt.Tooltip("lateness_end:Q", title="to (ms)"),
                 "fate:N", alt.Tooltip("sum(count):Q", title="records")],
    )
    if result is not None:
        enc["color"] = alt.Color("fate:N", scale=fate_scale(), title="fate",
                                 legend=alt.Legend(labelExpr=_fate_label_expr()))
    bars = alt.Chart(data).mark_bar().encode(**enc)
    qs = [("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0)]
    qv = np.quantile(late, [q for _, q in qs]) if n else np.zeros(len(qs))
    rules = pd.DataFrame({"quantile": [q for q, _ in qs], "lateness": qv.astype(float),
                          "label": [f"{q} {number(round(float(v)))} ms" for (q, _), v in zip(qs, qv)],
                          "ypos": [2 + 12 * i for i in range(len(qs))]})
    rule = alt.Chart(rules).mark_rule(color="#333333", strokeDash=[4, 3]).encode(
        x="lateness:Q", tooltip=["label:N"])
    text = alt.Chart(rules).mark_text(align="left", dx=3, fontSize=10, baseline="top").encode(
        x="lateness:Q", y=alt.Y("ypos:Q", scale=None), text="label:N")
    layers = [bars, rule, text]
    if delay_ms is not None:
        late_share = float((late > delay_ms).mean()) if n else 0.0
        dl = pd.DataFrame({"delay": [float(delay_ms)],
                           "label": [f"delay {number(delay_ms)} ms: {share(late_share)} of records late"]})
        layers.append(alt.Chart(dl).mark_rule(color=FATE_COLORS["dropped"], strokeWidth=2).encode(
            x="delay:Q", tooltip=["label:N"]))
        layers.append(alt.Chart(dl).mark_text(align="left", dx=3, dy=52, color=FATE_COLORS["dropped"],
                                              baseline="top").encode(x="delay:Q", y=alt.value(0), text="label:N"))
    share_in_order = n_in_order / n if n else 0.0
    note = (f"{number(n_in_order)} of {number(n)} records ({share(share_in_order, 1)}) arrived in event-time order "
            "(lateness 0, not drawn).")
    chart = alt.layer(*layers).properties(width=width, height=height)
    return chart.properties(title=alt.TitleParams(title, subtitle=[note]))


def fate_counts_by(log: Any, result: Any, by: str) -> pd.DataFrame:
    """Exact record counts per ``by`` value (``partition`` or ``key``) and fate: columns ``by, fate, count``."""
    table = log_table(log)
    codes = fate_codes(result, table)
    group_codes, uniques = pd.factorize(table[by], sort=True)
    nf = len(FATES)
    valid = (codes >= 0) & (group_codes >= 0)
    flat = np.bincount(group_codes[valid] * nf + codes[valid], minlength=len(uniques) * nf)
    grid = flat.reshape(len(uniques), nf)
    g, f = np.nonzero(grid)
    return pd.DataFrame({by: np.asarray(uniques)[g], "fate": np.asarray(FATES, dtype=object)[f],
                         "count": grid[g, f].astype(np.int64)})


def drops_by_partition(log: Any, result: Any, *, width: int = 480,
                       title: str = "Record fates by source partition") -> alt.Chart:
    """Stacked bars: records per source partition split by fate (exact counts, any log size)."""
    counts = fate_counts_by(log, result, "partition")
    names = getattr(log, "partition_name", None)
    counts["partition_name"] = [names(int(p)) if names else str(p) for p in counts["partition"]]
    totals = counts.groupby("partition")["count"].transform("sum")
    counts["share"] = counts["count"] / totals
    chart = alt.Chart(counts).mark_bar().encode(
        y=alt.Y("partition_name:N", title="partition", sort=alt.EncodingSortField("partition", order="ascending")),
        x=alt.X("count:Q", title="records", stack=True),
        color=alt.Color("fate:N", scale=fate_scale(), title="fate", legend=alt.Legend(labelExpr=_fate_label_expr())),
        order=alt.Order("fate_order:Q"),
        tooltip=["partition_name:N", "fate:N", "count:Q", alt.Tooltip("share:Q", format=".2%")],
    ).transform_calculate(fate_order=_fate_order_expr()).properties(width=width)
    return chart.properties(title=title)


def _fate_order_expr() -> str:
    return " : ".join(f"datum.fate == '{f}' ? {i}" for i, f in enumerate(FATES)) + f" : {len(FATES)}"


def drops_by_key(log: Any, result: Any, *, top: int = 20, width: int = 480,
                 title: str = "Keys with the most dropped records") -> alt.Chart:
    """Horizontal bars for the ``top`` keys by dropped records (all their fates shown).

    Keys are user strings: they are data, drawn as text by Vega (never as markup). When no
    record was dropped, the keys with the most late records are shown instead.
    """
    counts = fate_counts_by(log, result, "key")
    counts["key"] = counts["key"].astype(str)
    wide = counts.pivot_table(index="key", columns="fate", values="count", aggfunc="sum", fill_value=0)
    for f in FATES:
        if f not in wide.columns:
            wide[f] = 0
    n_keys_with_drops = int((wide["dropped"] > 0).sum())
    rank = wide["dropped"] if n_keys_with_drops else wide["late_accepted"]
    chosen = rank[rank > 0].sort_values(ascending=False, kind="stable").head(top).index
    shown = counts[counts["key"].isin(chosen)].copy()
    total = shown.groupby("key")["count"].transform("sum")
    shown["share"] = shown["count"] / total
    what = "dropped" if n_keys_with_drops else "late"
    n_rank = int((rank > 0).sum())
    subtitle = (f"{len(chosen)} of {number(n_rank)} keys with {what} records (of {number(len(wide))} keys)"
                if n_rank else "no record was late or dropped")
    order = list(chosen)
    chart = alt.Chart(shown).mark_bar().encode(
        y=alt.Y("key:N", title="key", sort=order),
        x=alt.X("count:Q", title="records", stack=True),
        color=alt.Color("fate:N", scale=fate_scale(), title="fate", legend=alt.Legend(labelExpr=_fate_label_expr())),
        order=alt.Order("fate_order:Q"),
        tooltip=["key:N", "fate:N", "count:Q", alt.Tooltip("share:Q", format=".2%")],
    ).transform_calculate(fate_order=_fate_order_expr()).properties(width=width)
    return chart.properties(title=alt.TitleParams(title, subtitle=[subtitle]))
