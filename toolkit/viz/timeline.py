"""Charts over processing time: watermark lag, window firings, open state."""
from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from toolkit.viz._common import (
    MAX_POINTS,
    duration_axis_scale,
    is_epoch,
    num,
    reduce_series,
    stratified_sample,
    time_tooltip,
    time_x,
    time_y,
    with_note,
)
from toolkit.viz._format import duration
from toolkit.viz._time import extent
from toolkit.viz.records import lag_frame, watermark_frame

PANES = ["early", "on_time", "late", "at_end", "retraction"]
PANE_LABELS = {"early": "early", "on_time": "on time", "late": "late", "at_end": "at end of input",
               "retraction": "retraction"}
PANE_COLORS = {"early": "#72b7b2", "on_time": "#4c78a8", "late": "#f58518", "at_end": "#9d9d9d",
               "retraction": "#b279a2"}


def _pane_scale() -> alt.Scale:
    return alt.Scale(domain=PANES, range=[PANE_COLORS[p] for p in PANES])


def _pane_label_expr() -> str:
    return " : ".join(f"datum.label == '{k}' ? '{v}'" for k, v in PANE_LABELS.items()) + " : datum.label"


def watermark_lag(result: Any, *, levels: tuple[str, ...] = ("partition", "operator"),
                  max_points: int = MAX_POINTS, width: int = 640, height: int = 240,
                  title: str = "Watermark lag over processing time") -> alt.Chart:
    """``processing time - watermark`` per series (the operator's, each partition's): how far event
    time trails, as Flink's UI shows each subtask's low watermark.

    Between two updates a watermark stands still while processing time runs on, so its lag
    grows until the next update (a sawtooth, drawn as such). With a bounded delay the lag of a
    steady stream sits near ``delay + interval`` plus the stream's own transport delay; a silent
    partition shows as a growing lag of its own line and, without an idle timeout, of the
    operator's (black) line.
    """
    wm, _ = watermark_frame(result, levels=levels, max_points=2**62)
    end = float(wm["time"].max()) if len(wm) else None
    full = len(wm)
    wm = lag_frame(wm, end=end, max_points=max_points) if len(wm) else wm.assign(lag=pd.Series(dtype="int64"))
    reduced = len(wm) < 2 * full
    div, unit = duration_axis_scale(wm["lag"].to_numpy(dtype="float64")) if len(wm) else (1.0, "ms")
    wm = wm.assign(lag_value=wm["lag"].astype("float64") / div, lag_text=[duration(v) for v in wm["lag"]])
    epoch = is_epoch(wm["time"].to_numpy()) if len(wm) else False
    series = list(dict.fromkeys(sorted(wm["series"].unique(), key=lambda v: (v != "operator", v)))) if len(wm) else []
    palette = ["#f58518", "#4c78a8", "#54a24b", "#b279a2", "#72b7b2", "#eeca3b", "#ff9da6", "#9d755d"]
    colours = ["black" if s_ == "operator" else palette[i % len(palette)] for i, s_ in enumerate(series)]
    chart = alt.Chart(wm).mark_line(interpolate="linear").encode(
        x=time_x("time", "processing time", epoch, extent(wm["time"]) if len(wm) else None, size=width),
        y=alt.Y("lag_value:Q", title=f"watermark lag ({unit})"),
        color=alt.Color("series:N", title="watermark", scale=alt.Scale(domain=series, range=colours),
                        sort=series),
        strokeWidth=alt.condition("datum.level == 'operator'", alt.value(2.0), alt.value(1.0)),
        order=alt.Order("time:Q"),
        tooltip=["series:N", time_tooltip("time", "at", epoch), time_tooltip("watermark", "watermark", epoch),
                 alt.Tooltip("lag_text:N", title="lag")],
    ).properties(width=width, height=height)
    note = "Reduced to per-bin extremes." if reduced else ""
    return with_note(chart, title, note)


def emissions_frame(result: Any, labels: bool = True) -> pd.DataFrame:
    """Emissions with a ``pane_type`` (early, on_time, late, at_end, retraction) and a ``window`` label."""
    em = result.emissions.copy()
    kind = em["kind"].astype(str).to_numpy()
    timing = em["timing"].astype(str).to_numpy()
    at_end = em["at_end"].to_numpy().astype(bool) if "at_end" in em.columns else np.zeros(len(em), bool)
    pane_type = np.where(kind == "retract", "retraction", np.where(at_end & (timing != "late"), "at_end", timing))
    em["pane_type"] = pane_type
    em["key"] = em["key"].astype(str)
    for col in ("window_start", "window_end", "emit_time", "count", "sum", "watermark"):
        if col in em.columns:
            em[col] = num(em[col])
    if labels:
        em["window"] = window_labels(em)
    return em


def window_labels(em: pd.DataFrame) -> list[str]:
    """``key [start, end)`` per emission (``key global`` for the global window); real epoch times as
    UTC clock times (``k0 [22:13:20.000, 22:13:21.000)``; with the date when the windows end on
    more than one day), small worked-example times as ms."""
    start = em["window_start"].astype("float64")
    end = em["window_end"].astype("float64")
    epoch = is_epoch(end.dropna().to_numpy()) if len(end) else False
    known = end.dropna()
    # windows on several days carry their date: two windows 22:00-23:00 on two days are two windows
    clock = ("%Y-%m-%d %H:%M:%S.%f" if len(known) and (known.max() - known.min() >= 86_400_000 or
             int(known.min()) // 86_400_000 != int(known.max()) // 86_400_000) else "%H:%M:%S.%f")

    def t(v: float) -> str:
        if not epoch:
            return f"{v:.0f}"
        return pd.Timestamp(int(v), unit="ms", tz="UTC").strftime(clock)[:-3]

    return [f"{k} [{t(s)}, {t(e)})" if e == e else f"{k} global" for k, s, e in zip(em["key"], start, end)]


def _sample_windows(em: pd.DataFrame, max_points: int) -> tuple[pd.DataFrame, str]:
    """At most ``max_points`` panes: whole windows, those with late panes or retractions first (the
    note says so); the window budget shrinks until the panes of the windows picked fit."""
    if len(em) <= max_points:
        return em, ""
    wid = em.groupby(["key", "window_start", "window_end"], sort=False).ngroup().to_numpy()
    n_windows = int(wid.max()) + 1
    special = np.bincount(wid, weights=np.isin(em["pane_type"].to_numpy(), ["late", "retraction"]),
                          minlength=n_windows) > 0
    panes = np.bincount(wid, minlength=n_windows)
    budget = max(1, int(max_points / (len(em) / n_windows)))
    while True:
        sample = stratified_sample(np.where(special, 0, 1), ["with late panes or retractions", "other"], budget)
        shown = int(panes[sample.index].sum())
        if shown <= max_points or budget == 1:
            break
        budget = max(1, min(budget - 1, int(budget * max_points / shown)))
    return em[np.isin(wid, sample.index)], sample.note("windows")


SPREAD_PX = 9
"""Horizontal distance between panes drawn side by side because they share a place."""


def _spread(emit: np.ndarray, window: np.ndarray, width: int) -> np.ndarray:
    """Where each pane is drawn along x: its emission time, except that panes of one window emitted
    at the same instant (a count trigger's early panes, a late pane with the on-time one, the
    panes fired at end of input) are set side by side ``SPREAD_PX`` apart around it, so that every
    pane shows (the tooltip keeps the exact time)."""
    if emit.size < 2:
        return emit
    span = float(np.nanmax(emit) - np.nanmin(emit))
    per_px = span / max(width - 40, 1) if span > 0 else 1.0
    frame = pd.DataFrame({"e": emit, "w": window})
    group = frame.groupby(["e", "w"], sort=False, dropna=False)
    rank = group.cumcount().to_numpy(dtype="float64")
    size = group["e"].transform("size").to_numpy(dtype="float64")
    return emit + (rank - (size - 1) / 2) * SPREAD_PX * per_px


def _use_latency(y: str, window_end: np.ndarray, latency: np.ndarray) -> bool:
    """``y="auto"``: plot each pane's latency (emission - window end) when window ends span more than
    50 times the p99 latency (a diagonal would hide every pane), else the window's end."""
    if y not in ("auto", "window_end", "latency"):
        raise ValueError(f"y must be 'auto', 'window_end' or 'latency', got {y!r}")
    if y != "auto" or window_end.size < 2:
        return y == "latency"
    span = float(window_end.max() - window_end.min())
    return span > 50 * max(float(np.quantile(np.abs(latency), 0.99)), 1.0)


def firing_timeline(result: Any, *, max_points: int = MAX_POINTS, width: int = 640, height: int = 320,
                    title: str = "Window firings", y: str = "auto") -> alt.LayerChart:
    """Each window's panes at their emission (processing) time, y = the window's end (event time).

    Point colour is the pane: on time, early, late (a re-firing after allowed lateness let a
    record in), at end of input, retraction (accumulating-and-retracting mode); a window's
    panes are joined by a thin rule. The dotted diagonal is ``emit time = window end``: the
    horizontal distance of a first pane from it is the window's latency. ``y="latency"`` plots
    each pane's latency (emission - window end) instead; ``"auto"`` (the default) does so when the
    windows span more than 50 times the p99 latency (a year of hourly windows would be one
    diagonal). Above ``max_points`` panes whole windows are sampled, keeping windows with late
    panes or retractions first, and a subtitle says so.
    """
    em = emissions_frame(result, labels=False)
    em = em[~np.isnan(em["window_end"].astype("float64").to_numpy())] if len(em) else em
    em, note = _sample_windows(em, max_points)
    em = em.assign(window=window_labels(em))
    epoch = is_epoch(em["window_end"].to_numpy()) if len(em) else False
    cols = ["key", "window", "window_start", "window_end", "pane", "pane_type", "count", "sum", "watermark",
            "emit_time"]
    data = em[[c for c in cols if c in em.columns]].copy()
    data = data[~np.isnan(data["emit_time"].astype("float64").to_numpy())] if len(data) else data
    data["latency_ms"] = data["emit_time"] - data["window_end"]
    data["latency_text"] = [duration(v) for v in data["latency_ms"]]
    data["watermark_text"] = [_instant(w, epoch) for w in data["watermark"]] if "watermark" in data.columns else ""
    ends = data["window_end"].to_numpy(dtype="float64")
    latency_mode = _use_latency(y, ends, data["latency_ms"].to_numpy(dtype="float64"))
    data["emit_x"] = _spread(data["emit_time"].to_numpy(dtype="float64"), data["window"].to_numpy(), width)
    x_ext = extent(data["emit_time"]) if len(data) else None
    x = time_x("emit_x", "emission (processing) time", epoch, x_ext, size=width, padding=8,
               reach=extent(data["emit_x"]) if len(data) else None)
    if latency_mode:
        div, unit = duration_axis_scale(data["latency_ms"].to_numpy(dtype="float64"))
        data["latency_value"] = data["latency_ms"] / div
        y_enc = alt.Y("latency_value:Q", title=f"emitted after the window's end ({unit})",
                      scale=alt.Scale(padding=8))
    else:
        y_enc = time_y("window_end", "window end (event time)", epoch, extent(ends) if len(data) else None,
                       size=height, padding=8)
    rules = alt.Chart(data).mark_line(color="#bbbbbb", strokeWidth=1).encode(x=x, y=y_enc, detail="window:N")
    points = alt.Chart(data).mark_point(filled=True, size=45).encode(
        x=x, y=y_enc,
        color=alt.Color("pane_type:N", scale=_pane_scale(), title="pane", legend=alt.Legend(labelExpr=_pane_label_expr())),
        shape=alt.condition("datum.pane_type == 'retraction'", alt.value("cross"), alt.value("circle")),
        tooltip=["window:N", "pane:Q", "pane_type:N", "count:Q", "sum:Q",
                 alt.Tooltip("watermark_text:N", title="watermark"), time_tooltip("emit_time", "emitted", epoch),
                 alt.Tooltip("latency_text:N", title="emitted after the window's end")],
    )
    layers = [rules, points]
    if not latency_mode and len(data):
        # the diagonal emit time = window end, only where both axes have data: it never stretches a domain
        lo = max(float(data["emit_time"].min()), float(ends.min()))
        hi = min(float(data["emit_time"].max()), float(ends.max()))
        if lo < hi:
            diag = pd.DataFrame({"emit_x": [lo, hi], "window_end": [lo, hi]})
            layers.insert(0, alt.Chart(diag).mark_line(strokeDash=[2, 3], color="#888888").encode(x=x, y=y_enc))
    chart = alt.layer(*layers).properties(width=width, height=height)
    return with_note(chart, title, note)


def _instant(v: Any, epoch: bool) -> str:
    """A watermark as a person reads it: "end of input" for Flink's final one, "none yet" for the
    initial one, a UTC time (epoch logs) or ms."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return ""
    v = int(v)
    if v >= 2**62:
        return "end of input"
    if v <= -(2**62):
        return "none yet"
    if epoch:
        return pd.Timestamp(v, unit="ms", tz="UTC").strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    return f"{v:,} ms"


def state_over_time(result: Any, *, max_points: int = MAX_POINTS, width: int = 640, height: int = 140,
                    title: str = "Open window state over processing time") -> alt.VConcatChart:
    """Open windows and buffered records over processing time (two panels, step lines, peaks kept)."""
    st = result.state.sort_values("time", kind="stable")
    st = st.assign(time=num(st["time"]).astype("float64"))
    st = st[~np.isnan(st["time"].to_numpy())]
    frames = []
    reduced = False
    for col, label in (("open_windows", "open windows"), ("buffered_records", "buffered records")):
        t, v, r = reduce_series(st["time"].to_numpy(), st[col].to_numpy(), max_points // 2)
        reduced |= r
        frames.append(pd.DataFrame({"time": t, "measure": label, "amount": v}))
    data = pd.concat(frames, ignore_index=True)
    epoch = is_epoch(data["time"].to_numpy()) if len(data) else False
    base = alt.Chart(data).mark_line(interpolate="step-after").encode(
        x=time_x("time", "processing time", epoch, extent(data["time"]) if len(data) else None, size=width),
        y=alt.Y("amount:Q", title=None),
        tooltip=["measure:N", time_tooltip("time", "at", epoch), alt.Tooltip("amount:Q", format=",")],
    ).properties(width=width, height=height)
    panels = [base.transform_filter(alt.datum.measure == m).properties(title=m)
              for m in ("open windows", "buffered records")]
    chart = alt.vconcat(*panels)
    return with_note(chart, title, "Reduced to per-bin extremes." if reduced else "")
