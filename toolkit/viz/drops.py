"""Dropped records over processing time, per source partition: the analogue of Spark's
``numRowsDroppedByWatermark`` view (how many rows each micro-batch dropped as too late).

Records are counted in equal processing-time bins (arrival time; the record position for a
log without arrival times) with numpy, so the chart holds at most ``max_bins`` x partitions
rows whatever the log size. Bars are stacked by partition; a tooltip gives the bin's time
span, the count and the share of that partition's records in the bin that were dropped.
Per-record reasons are in ``result.drops()`` / ``result.explain(row)``.
"""
from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from toolkit.viz._common import FATE_LABELS, FATES, fate_codes, is_epoch, log_table, time_x
from toolkit.viz._format import duration, number, share

#: bin widths tried, smallest first (ms)
NICE_BINS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000,
             300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
             2 * 86_400_000, 7 * 86_400_000, 14 * 86_400_000]
_MONDAY = 4 * 86_400_000  # 1970-01-01 was a Thursday: bins of whole weeks start on Mondays


#: the ``fate`` values :func:`drops_over_time` counts: ``dropped`` counts every dropped record, those
#: never emitted by their trigger (``never_fired``, also a choice of its own) included
CHOICES = ("dropped", "late_accepted", "on_time", "never_fired")
_COUNTED = {"dropped": ("dropped", "never_fired"), "late_accepted": ("late_accepted",), "on_time": ("on_time",),
            "never_fired": ("never_fired",)}


def nice_bin(span_ms: int, max_bins: int) -> int:
    """The smallest width of :data:`NICE_BINS` that covers ``span_ms`` in at most ``max_bins`` bins."""
    for b in NICE_BINS:
        if span_ms / b <= max_bins:
            return b
    return int(-(-span_ms // max_bins))


def _clock(ms: np.ndarray, epoch: bool) -> list[str]:
    if epoch:
        text = np.datetime_as_string(ms.astype("datetime64[ms]"), unit="ms")
        return [t.replace("T", " ") for t in text.tolist()]
    return [f"t={duration(int(v))}" if v else "t=0" for v in ms.tolist()]


def drops_frame(log: Any, result: Any, *, fate: str = "dropped", bin_ms: int | None = None,
                max_bins: int = 120) -> tuple[pd.DataFrame, int, bool, str]:
    """Counts of ``fate`` records per (processing-time bin, partition): columns ``bin_start,
    bin_end, partition, partition_name, count, records, share, from, to``; also the bin width,
    whether times are epoch, and the x-axis meaning."""
    if fate not in CHOICES:
        raise ValueError(f"fate: {fate!r} is not a fate; choose one of {', '.join(CHOICES)}")
    table = log_table(log)
    codes = fate_codes(result, table)
    if getattr(log, "has_arrival_time", "arrival_time" in table.columns) and "arrival_time" in table.columns:
        t = table["arrival_time"].to_numpy(dtype=np.int64)
        axis = "processing time (arrival)"
    else:
        order = np.argsort(table["row"].to_numpy(), kind="stable")
        t = np.empty(len(order), dtype=np.int64)
        t[order] = np.arange(len(order))
        axis = "arrival position (no arrival times)"
    epoch = is_epoch(t) and axis.startswith("processing")
    lo = int(t.min()) if len(t) else 0
    hi = int(t.max()) if len(t) else 0
    width = int(bin_ms) if bin_ms else nice_bin(max(hi - lo, 1), max_bins)
    if width <= 0:
        raise ValueError(f"bin_ms must be > 0, got {bin_ms}")
    anchor = _MONDAY if width % (7 * 86_400_000) == 0 else 0
    first = lo - ((lo - anchor) % width)
    b = (t - first) // width
    pcodes, parts = pd.factorize(table["partition"], sort=True)
    nb = int(b.max()) + 1 if len(b) else 0
    P = len(parts)
    total = np.bincount(b * P + pcodes, minlength=nb * P) if len(b) else np.zeros(0, np.int64)
    hit = np.isin(codes, [FATES.index(f) for f in _COUNTED[fate]])
    count = np.bincount(b[hit] * P + pcodes[hit], minlength=nb * P) if len(b) else np.zeros(0, np.int64)
    cell = np.flatnonzero(count)
    bins, pi = cell // max(P, 1), cell % max(P, 1)
    start = first + bins * width
    names = getattr(log, "partition_name", None)
    part_vals = np.asarray(parts)[pi] if len(cell) else np.zeros(0, np.int64)
    frame = pd.DataFrame({
        "bin_start": start, "bin_end": start + width, "partition": part_vals,
        "partition_name": [names(int(p)) if names else str(p) for p in part_vals.tolist()],
        "count": count[cell].astype(np.int64), "records": total[cell].astype(np.int64),
    })
    frame["share"] = frame["count"] / frame["records"]
    frame.attrs["span"] = (int(first), int(first + max(nb, 1) * width))  # every bin of the log, empty or not
    frame["from"] = _clock(frame["bin_start"].to_numpy(), epoch) if axis.startswith("processing") else frame["bin_start"].astype(str)
    frame["to"] = _clock(frame["bin_end"].to_numpy(), epoch) if axis.startswith("processing") else frame["bin_end"].astype(str)
    return frame, width, epoch, axis


def idle_periods(result: Any, epoch: bool) -> pd.DataFrame:
    """When each partition was marked idle (from ``result.watermarks``): ``partition, start, end,
    label``; a period still open at the end of input ends there."""
    wm = getattr(result, "watermarks", None)
    cols = ["partition", "start", "end", "label"]
    if wm is None or not len(wm) or "status" not in wm.columns or wm["time"].isna().all():
        return pd.DataFrame(columns=cols)
    end_of_input = int(wm["time"].max())
    rows = []
    parts = wm[wm["level"] == "partition"]
    for p, g in parts.groupby("id", sort=True):
        g = g.sort_values("time", kind="stable")
        idle = (g["status"] == "idle").to_numpy()
        t = g["time"].to_numpy(dtype=np.int64)
        change = np.flatnonzero(np.r_[idle[:1], idle[1:] != idle[:-1]])
        for i in change[idle[change]].tolist():
            nxt = change[change > i]
            rows.append((int(p), int(t[i]), int(t[nxt[0]]) if len(nxt) else end_of_input))
    out = pd.DataFrame(rows, columns=cols[:3])
    if len(out):
        s, e = _clock(out["start"].to_numpy(), epoch), _clock(out["end"].to_numpy(), epoch)
        name = getattr(result, "partition_label", str)
        out["label"] = [f"partition {name(p)} idle from {a} to {b} ({duration(y - x)})"
                        for p, a, b, x, y in zip(out["partition"], s, e, out["start"], out["end"])]
    else:
        out["label"] = []
    return out


def drops_over_time(log: Any, result: Any, *, fate: str = "dropped", bin_ms: int | None = None,
                    max_bins: int = 120, width: int = 640, height: int = 220,
                    title: str | None = None) -> alt.LayerChart:
    """Dropped (or, with ``fate="late_accepted"``, late) records per processing-time bin,
    stacked by source partition; the subtitle says how many of the dropped were never emitted by
    their trigger (``fate="never_fired"`` draws only those). ``bin_ms`` fixes the bin width
    (default: a round width giving at most ``max_bins`` bins). Grey bands mark when a partition was idle (idle timeout)."""
    data, w, epoch, axis = drops_frame(log, result, fate=fate, bin_ms=bin_ms, max_bins=max_bins)
    label = FATE_LABELS[fate] if fate != "never_fired" else "never emitted"
    n = int(data["count"].sum())
    table = log_table(log)
    total = len(table)
    title = title or f"{label.capitalize()} records over processing time"
    bin_text = duration(w) if axis.startswith("processing") else f"{number(w)} records"
    note = f"{number(n)} of {number(total)} valid records {label} ({share(n / total if total else 0)})"
    never = int((fate_codes(result, table) == FATES.index("never_fired")).sum()) if fate == "dropped" else 0
    if never:
        note += (f", {number(never)} of them never emitted: taken into a window whose trigger never fired "
                 "after them (not late)")
    elif fate == "never_fired":
        note += ": taken into a window whose trigger never fired after them (not late)"
    note += f"; bars of {bin_text}, stacked by source partition"
    if axis.startswith("processing"):
        span = data.attrs.get("span")
        x = time_x("bin_start", axis, epoch, span, size=width)
        x2 = alt.X2("bin_end:T" if epoch else "bin_end:Q")
    else:
        x = alt.X("bin_start:Q", title=axis, scale=alt.Scale(zero=False, nice=False))
        x2 = alt.X2("bin_end:Q")
    chart = alt.Chart(data).mark_bar(binSpacing=0).encode(
        x=x, x2=x2,
        y=alt.Y("sum(count):Q", title=f"{label} records", stack=True),
        color=alt.Color("partition_name:N", title="partition", scale=alt.Scale(scheme="dark2"),
                        sort=alt.EncodingSortField("partition", order="ascending")),
        order=alt.Order("partition:Q"),
        tooltip=[alt.Tooltip("partition_name:N", title="partition"), alt.Tooltip("from:N", title="from"),
                 alt.Tooltip("to:N", title="to"), alt.Tooltip("count:Q", title=f"{label} records", format=","),
                 alt.Tooltip("records:Q", title="records of the partition", format=","),
                 alt.Tooltip("share:Q", title=f"share {label}", format=".2%")],
    )
    idle = idle_periods(result, epoch) if axis.startswith("processing") else pd.DataFrame()
    layers: list[Any] = [chart]
    if len(idle):
        note += "; grey: a partition marked idle"
        xi = alt.X("start:T" if epoch else "start:Q")
        band = alt.Chart(idle).mark_rect(color="#888888", opacity=0.15, clip=True).encode(
            x=xi, x2=alt.X2("end:T" if epoch else "end:Q"), tooltip=[alt.Tooltip("label:N", title="idle")])
        layers = [band, chart]
    out = alt.layer(*layers).properties(width=width, height=height)
    return out.properties(title=alt.TitleParams(title, subtitle=[note]))


__all__ = ["drops_over_time", "drops_frame", "idle_periods", "nice_bin", "NICE_BINS"]
