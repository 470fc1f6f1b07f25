"""Record-level charts: event time against processing time, lateness, where records were dropped."""
from __future__ import annotations

import zlib
from functools import partial
from typing import Any, Callable

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
    duration_axis_scale,
    fate_codes,
    fate_scale,
    is_epoch,
    lateness_of,
    log_table,
    num,
    reduce_series,
    stratified_sample,
    time_tooltip,
    time_x,
    time_y,
    with_note,
)
from toolkit.viz._format import duration, number, share
from toolkit.viz._time import extent


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
    name = getattr(result, "partition_label", str)
    frames = []
    reduced = False
    budget = max(50, max_points // max(1, len(groups)))
    for (level, ident), g in groups:
        g = g.sort_values("time", kind="stable")
        t, v, r = reduce_series(g["time"].to_numpy(), g["watermark"].to_numpy(), budget)
        reduced |= r
        series = "operator" if level == "operator" else f"{level} {name(ident) if level == 'partition' else ident}"
        frames.append(pd.DataFrame({"level": level, "id": str(ident), "series": series, "time": t,
                                    "watermark": v}))
    if not frames:
        return pd.DataFrame({"level": [], "id": [], "series": [], "time": [], "watermark": []}), False
    return pd.concat(frames, ignore_index=True), reduced


def lag_frame(wm: pd.DataFrame, end: float | None = None, max_points: int | None = None) -> pd.DataFrame:
    """Watermark lag (processing time - watermark) as it really runs: between two watermark
    updates the watermark stands still while processing time moves on, so the lag grows; each
    series gets a point just before its next update (a sawtooth). ``end`` closes each series at
    that processing time. Input: :func:`watermark_frame` rows (not reduced: a reduced series
    would show stalls that did not happen); above ``max_points`` rows in all, each series' lag is
    reduced afterwards to per-bin extremes (the peaks stay). Output adds ``lag``."""
    n_series = max(1, wm["series"].nunique()) if len(wm) else 1
    frames = []
    for _, g in wm.groupby("series", sort=False):
        g = g.sort_values("time", kind="stable")
        t = g["time"].to_numpy(dtype=np.int64)
        w = g["watermark"].to_numpy(dtype=np.int64)
        if t.size == 0:
            continue
        nxt = np.r_[t[1:], int(end) if end is not None and end > t[-1] else t[-1]]
        before = np.maximum(nxt - 1, t)  # the instant before the next update: the lag's peak
        tt = np.empty(2 * t.size, dtype=np.int64)
        ww = np.empty(2 * t.size, dtype=np.int64)
        tt[0::2], tt[1::2] = t, before
        ww[0::2], ww[1::2] = w, w
        lag = tt - ww
        if max_points is not None:
            tt, lag, _ = reduce_series(tt, lag, max(50, max_points // n_series))
        first = g.iloc[0]
        frames.append(pd.DataFrame({"level": first["level"], "id": first["id"], "series": first["series"],
                                    "time": tt, "watermark": tt - lag, "lag": lag}))
    if not frames:
        return wm.assign(lag=pd.Series(dtype="int64"))
    return pd.concat(frames, ignore_index=True)


def _use_lag(y: str, epoch: bool, has_arrival: bool, et: np.ndarray, arrival: np.ndarray) -> bool:
    """``y="auto"``: plot record delay (arrival - event time) when event time spans more than 50 times
    the records' p99 delay (a diagonal would hide every detail), else event time."""
    if y not in ("auto", "event_time", "lag"):
        raise ValueError(f"y must be 'auto', 'event_time' or 'lag', got {y!r}")
    if y != "auto":
        if y == "lag" and not has_arrival:
            raise ValueError("y='lag' needs arrival times: this log is replayed in row order")
        return y == "lag"
    if not has_arrival or et.size < 2:
        return False
    delay = np.abs(arrival.astype("float64") - et.astype("float64"))
    span = float(et.max() - et.min())
    return span > 50 * max(float(np.quantile(delay, 0.99)), 1.0)


def event_time_scatter(log: Any, result: Any = None, *, partition: int | None = None,
                       max_points: int = MAX_POINTS, width: int = 640, height: int = 360,
                       title: str | None = None, interactive: bool = True, y: str = "auto") -> alt.LayerChart:
    """The classic picture: each record at its arrival (processing) time, coloured by its fate.

    ``y="event_time"``: the record's event time, with the watermark lines (operator: solid
    black step line; each source partition: dashed); a record below the operator watermark
    at its arrival was late. ``y="lag"``: the record's delay (arrival - event time), with the
    watermark lag (processing time - watermark) as lines; a record above the operator's line
    at its arrival was late. On a long log the first is one diagonal, so ``"auto"`` (the
    default) picks the delay when event time spans more than 50 times the p99 delay.
    With a replay ``result`` points are coloured by fate (on time, late but accepted,
    dropped). ``partition`` restricts to one partition. Above ``max_points`` records a
    stratified, seeded sample is drawn and a subtitle says so. ``interactive``: zoom and pan
    with the mouse (scales bound to an interval selection).
    """
    table = log_table(log, max_rows=None)
    x, xtitle = _arrival_x(table, log)
    et = table["event_time"].to_numpy()
    has_arrival = xtitle.startswith("processing")
    epoch = is_epoch(et)
    lag_mode = _use_lag(y, epoch, has_arrival, et, x)
    if title is None:
        title = "Record delay over processing time" if lag_mode else "Event time vs processing time"
    codes = fate_codes(result, table) if result is not None else np.full(len(table), -1, dtype=np.int64)
    data, idx, sample = _sampled_records(table, x, et, codes, partition, max_points, log)
    x_epoch = epoch and has_arrival
    wm_t, wm_v = _watermark_extent(result, partition)
    xch = partial(time_x, title=xtitle, epoch=x_epoch, extent=extent(data["arrival"], wm_t), size=width, padding=6)
    if not has_arrival:  # record positions, not instants
        xch = lambda field: alt.X(f"{field}:Q", title=xtitle, scale=alt.Scale(zero=False, nice=False, padding=6))  # noqa: E731
    if lag_mode:
        delay = (x[idx] - et[idx]).astype("float64")
        div, unit = duration_axis_scale(delay)
        data["delay"] = delay / div
        data["delay_text"] = [duration(v) for v in delay]
        y_enc = alt.Y("delay:Q", title=f"record delay: arrival - event time ({unit})")
        ych = None
    else:
        div, unit = 1.0, "ms"
        ych = partial(time_y, title="event time", epoch=epoch, extent=extent(data["event_time"], wm_v), size=height,
                      padding=6)
        y_enc = ych("event_time")
    points = _record_points(data, xch("arrival"), y_enc, epoch, x_epoch, has_arrival, lag_mode, result is not None)
    if interactive:
        # one name per chart (two charts side by side must not share their zoom): from the title, deterministic
        zoom = f"zoom_{zlib.crc32(f'{title}/{partition}'.encode()):08x}"
        points = points.add_params(alt.selection_interval(bind="scales", name=zoom))
    layers: list[alt.Chart] = [points]
    note = sample.note()
    if result is not None and getattr(result, "watermarks", None) is not None:
        lines, note = _watermark_lines(result, partition, lag_mode, x, div, unit, epoch, x_epoch, xch, ych,
                                       max_points, note)
        # the lag's sawtooth is dense on a long log: the records are drawn over it, not hidden under it
        layers = lines + layers if lag_mode else layers + lines
    chart = alt.layer(*layers).properties(width=width, height=height)
    if partition is not None:
        title = f"{title} — partition {log.partition_name(partition) if hasattr(log, 'partition_name') else partition}"
    return with_note(chart, title, note, width=max(60, width // 6))


def _sampled_records(table: pd.DataFrame, x: np.ndarray, et: np.ndarray, codes: np.ndarray, partition: int | None,
                     max_points: int, log: Any = None) -> tuple[pd.DataFrame, np.ndarray, Any]:
    """The records drawn (of ``partition`` when given; above ``max_points``, a sample stratified
    by fate): their arrival, event time, fate, key, partition and row; their positions; the sample."""
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
    names = getattr(log, "partition_names", None) if log is not None else None
    data["partition_name"] = (np.asarray(names, dtype=object)[data["partition"].to_numpy()] if names is not None
                              else data["partition"].astype(str))
    return data, idx, sample


def _watermark_extent(result: Any, partition: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Times and values of the watermarks a scatter draws (no MIN/MAX markers), for its axes' extents."""
    wm = getattr(result, "watermarks", None) if result is not None else None
    if wm is None or not len(wm):
        return np.zeros(0), np.zeros(0)
    wm = wm[wm["level"].isin(("partition", "operator"))]
    if partition is not None:
        wm = wm[(wm["level"] != "partition") | (wm["id"].astype(str) == str(partition))]
    w = num(wm["watermark"]).astype("float64")
    t = num(wm["time"]).astype("float64")
    keep = (w > WM_FLOOR) & (w < WM_CEIL) & np.isfinite(t)
    return t[keep], w[keep]


def _record_points(data: pd.DataFrame, x_enc: Any, y_enc: Any, epoch: bool, x_epoch: bool, has_arrival: bool,
                   lag_mode: bool, by_fate: bool) -> alt.Chart:
    """One circle per record at its arrival, coloured by fate (``by_fate``) or else by partition."""
    tooltip = ["row:Q", "key:N", alt.Tooltip("partition_name:N", title="partition"), "fate:N",
               time_tooltip("event_time", "event time", epoch)]
    tooltip.append(time_tooltip("arrival", "arrival", x_epoch) if (x_epoch or not epoch) and has_arrival
                   else alt.Tooltip("arrival:Q", title="arrival #"))
    if lag_mode:
        tooltip.append(alt.Tooltip("delay_text:N", title="delay"))
    if by_fate:
        color = alt.Color("fate:N", scale=fate_scale(), title="fate",
                          legend=alt.Legend(labelExpr=_fate_label_expr(), labelLimit=200))
    else:
        color = alt.Color("partition_name:N", title="partition")
    return alt.Chart(data).mark_circle(size=30, opacity=0.75).encode(
        x=x_enc, y=y_enc, color=color, tooltip=tooltip,
    )


def _watermark_lines(result: Any, partition: int | None, lag_mode: bool, x: np.ndarray, div: float, unit: str,
                     epoch: bool, x_epoch: bool, xch: Callable[[str], alt.X], ych: Callable[[str], alt.Y] | None,
                     max_points: int, note: str) -> tuple[list, str]:
    """The watermark lines (each partition's dashed, the operator's solid black; in lag mode the
    watermark lag, the operator's only unless ``partition``), and the note, which says when the
    lines were reduced and, in lag mode, how to read them."""
    layers: list[alt.Chart] = []
    wm, reduced = watermark_frame(result, partition=partition,
                                  max_points=2**62 if lag_mode else max_points)  # lag_frame reduces
    if reduced:
        note = (note + " " if note else "") + "Watermark lines reduced to per-bin extremes."
    if len(wm):
        if lag_mode:
            full = len(wm)
            wm = lag_frame(wm, end=float(np.max(x)) if len(x) else None, max_points=max_points)
            if len(wm) < 2 * full:
                note = (note + " " if note else "") + "Watermark lines reduced to per-bin extremes."
            wm = wm.assign(y=wm["lag"] / div, lag_text=[duration(v) for v in wm["lag"]])
            wy = alt.Y("y:Q", title=f"record delay: arrival - event time ({unit})")
            what = alt.Tooltip("lag_text:N", title="watermark lag")
        else:
            wy = ych("watermark")
            what = time_tooltip("watermark", "watermark", epoch)
        parts = wm[wm["level"] == "partition"]
        if lag_mode and partition is None:
            parts = parts.iloc[0:0]  # the operator's lag decides lateness; per partition: watermark_lag()
        op = wm[wm["level"] == "operator"]
        wtip = ["series:N", time_tooltip("time", "at", x_epoch), what]
        if len(parts):
            layers.append(alt.Chart(parts).mark_line(interpolate="linear" if lag_mode else "step-after",
                                                     strokeWidth=1.2, color="#555555").encode(
                x=xch("time"), y=wy,
                strokeDash=alt.StrokeDash("series:N", title="watermark"), tooltip=wtip,
            ))
        if len(op):
            layers.append(alt.Chart(op).mark_line(interpolate="linear" if lag_mode else "step-after",
                                                  strokeWidth=1.0 if lag_mode else 2.5, color="black",
                                                  opacity=0.6 if lag_mode else 1.0).encode(
                x=xch("time"), y=wy, tooltip=wtip,
            ))
    if lag_mode:
        note = ("A record above the black line (the operator's watermark lag) at its arrival was behind the "
                "watermark: late. " + note).strip()
    return layers, note


def _fate_label_expr() -> str:
    cases = " : ".join(f"datum.label == '{k}' ? '{v}'" for k, v in FATE_LABELS.items())
    return f"{cases} : datum.label"


def lateness_histogram(log: Any, result: Any = None, *, bins: int = 40, delay_ms: int | None = None,
                       width: int = 560, height: int = 260,
                       title: str = "Lateness distribution") -> alt.TopLevelMixin:
    """How far behind the stream each record arrived: max event time seen before it minus its own.

    A record with lateness L is late under any bounded-out-of-orderness delay < L, so the
    quantile rules (p50, p95, p99, max; their values in the subtitle) read directly as
    candidate delays. Records that arrived in order (lateness 0) are counted in the subtitle,
    not drawn. Binned with numpy: the chart holds ``bins`` rows per fate whatever the log
    size. With ``result`` there is one panel per fate on a linear count axis of its own
    (never stacked on a log axis, so bar heights read true); ``delay_ms`` draws the delay and
    says the share of records later than it.
    """
    table = log_table(log)
    order = _arrival_order(table)
    late = lateness_of(table["event_time"].to_numpy(), order)
    n = late.size
    pos = late > 0
    n_in_order = int(n - pos.sum())
    hi = int(late.max()) if n else 0
    div, unit = duration_axis_scale(np.array([hi]))
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
            rows.append((name, FATE_LABELS.get(name, name), float(edges[i]) / div, float(edges[i + 1]) / div,
                         duration(edges[i]), duration(edges[i + 1]), int(counts[i])))
    data = pd.DataFrame(rows, columns=["fate", "fate_label", "lateness_start", "lateness_end", "from", "to", "count"])
    qs = [("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0)]
    qv = np.quantile(late, [q for _, q in qs]) if n else np.zeros(len(qs))
    rules = pd.DataFrame({"quantile": [q for q, _ in qs], "at_value": qv.astype(float) / div,
                          "label": [f"{q} {duration(round(float(v)))}" for (q, _), v in zip(qs, qv)]})
    x = alt.X("lateness_start:Q", bin="binned", title=f"lateness ({unit})", scale=alt.Scale(domain=[0, max(hi, 1) / div]))
    tooltip = [alt.Tooltip("from:N", title="from"), alt.Tooltip("to:N", title="to"),
               alt.Tooltip("fate_label:N", title="fate"), alt.Tooltip("count:Q", title="records", format=",")]
    subtitle = [f"{number(n_in_order)} of {number(n)} records ({share(n_in_order / n if n else 0.0, 1)}) arrived in "
                "event-time order (lateness 0, not drawn).",  # two lines: one would make the chart wider than a notebook
                "Lateness " + ", ".join(rules["label"]) + " (dashed lines)."]
    if delay_ms is not None:
        late_share = float((late > delay_ms).mean()) if n else 0.0
        subtitle.append(f"Delay {duration(delay_ms)} (red line): {share(late_share)} of records arrive later than it.")

    def panel(frame: pd.DataFrame, colour: str, name: str) -> alt.LayerChart:
        bars = alt.Chart(frame).mark_bar(color=colour).encode(
            x=x, x2="lateness_end:Q", y=alt.Y("count:Q", title=f"{name} records"), tooltip=tooltip)
        layers = [bars, alt.Chart(rules).mark_rule(color="#333333", strokeDash=[4, 3]).encode(
            x="at_value:Q", tooltip=[alt.Tooltip("label:N", title="lateness")])]
        if delay_ms is not None:
            dl = pd.DataFrame({"at_value": [float(delay_ms) / div], "label": [f"delay {duration(delay_ms)}"]})
            layers.append(alt.Chart(dl).mark_rule(color=FATE_COLORS["dropped"], strokeWidth=2).encode(
                x="at_value:Q", tooltip=[alt.Tooltip("label:N", title="delay")]))
        return alt.layer(*layers)

    if result is None:
        chart: alt.TopLevelMixin = panel(data, "#4c78a8", "").properties(width=width, height=height)
    else:
        present = [f for f in FATES if f in set(data["fate"])] or ["on_time"]
        h = max(70, height // len(present))
        chart = alt.vconcat(*[panel(data[data["fate"] == f], FATE_COLORS[f], FATE_LABELS[f]).properties(
            width=width, height=h) for f in present], spacing=8).resolve_scale(y="independent")
    return chart.properties(title=alt.TitleParams(title, subtitle=subtitle))


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
    """Horizontal bars for the ``top`` keys by dropped records: their dropped, never fired and late
    but accepted records. On-time records are not drawn (a key's thousands of on-time records
    would flatten its few drops to a sliver); each bar's tooltip gives the key's records in all
    and the share of them in that fate.

    Keys are user strings: they are data, drawn as text by Vega (never as markup). When no
    record was dropped, the keys with the most late records are shown instead.
    """
    counts = fate_counts_by(log, result, "key")
    counts["key"] = counts["key"].astype(str)
    wide = counts.pivot_table(index="key", columns="fate", values="count", aggfunc="sum", fill_value=0)
    for f in FATES:
        if f not in wide.columns:
            wide[f] = 0
    dropped = wide["dropped"] + wide["never_fired"]  # never emitted by the trigger: dropped too
    n_keys_with_drops = int((dropped > 0).sum())
    rank = dropped if n_keys_with_drops else wide["late_accepted"]
    chosen = rank[rank > 0].sort_values(ascending=False, kind="stable").head(top).index
    shown = counts[counts["key"].isin(chosen)].copy()
    shown["records"] = shown.groupby("key")["count"].transform("sum")
    shown["share"] = shown["count"] / shown["records"]
    shown = shown[shown["fate"] != "on_time"]
    what = "dropped" if n_keys_with_drops else "late"
    n_rank = int((rank > 0).sum())
    subtitle = (f"{len(chosen)} of {number(n_rank)} keys with {what} records (of {number(len(wide))} keys); "
                "on-time records not drawn" if n_rank else "no record was late or dropped")
    order = list(chosen)
    chart = alt.Chart(shown).mark_bar().encode(
        y=alt.Y("key:N", title="key", sort=order),
        x=alt.X("count:Q", title="late or dropped records", stack=True),
        color=alt.Color("fate:N", scale=fate_scale(["dropped", "never_fired", "late_accepted", "invalid"]),
                        title="fate", legend=alt.Legend(labelExpr=_fate_label_expr())),
        order=alt.Order("fate_order:Q"),  # the drops first, from the axis: the bars' order is theirs
        tooltip=["key:N", "fate:N", alt.Tooltip("count:Q", format=","),
                 alt.Tooltip("records:Q", title="records of the key", format=","),
                 alt.Tooltip("share:Q", title="share of the key's records", format=".2%")],
    ).transform_calculate(fate_order="datum.fate == 'dropped' ? 0 : datum.fate == 'never_fired' ? 1 : 2")
    return chart.properties(width=width, title=alt.TitleParams(title, subtitle=[subtitle]))
