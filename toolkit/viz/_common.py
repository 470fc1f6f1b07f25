"""Shared rules of the charts: fate colours, time axes, and the large-log rule.

Large-log rule: a chart never embeds more than ``max_points`` rows (default
:data:`MAX_POINTS`). Record-level charts keep a *stratified* sample (water-filling from the
rarest fate up, so every dropped or late record is kept when they fit, seeded and
therefore deterministic) and say so in a visible subtitle with the exact counts;
series over time are reduced to per-bin extremes; distributions are binned with numpy.
All reductions run on numpy arrays: no per-record Python objects.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from toolkit.viz._format import number
from toolkit.viz._time import plain_ticks, time_ticks

MAX_POINTS = 5000
"""Default cap on the rows a chart embeds."""

FATES = ["on_time", "late_accepted", "dropped", "never_fired", "invalid"]
"""What record-level charts colour by: the record fates, with the ``dropped`` records that were
taken into a window whose trigger never fired after them (reason ``never_fired`` or
``evicted_or_never_fired`` in ``result.fates``: not late, never emitted) shown apart as
``never_fired``, so that a chart never calls them late."""
FATE_LABELS = {"on_time": "on time", "late_accepted": "late but accepted", "dropped": "dropped",
               "never_fired": "never fired", "invalid": "invalid"}
FATE_COLORS = {"on_time": "#4c78a8", "late_accepted": "#f58518", "dropped": "#e45756",
               "never_fired": "#b279a2", "invalid": "#9d9d9d"}
#: drop reasons (``result.fates["reason"]``) of the records charts show as ``never_fired``
NEVER_FIRED_REASONS = ("never_fired", "evicted_or_never_fired")

# Watermarks at or beyond these bounds are Flink's Long.MIN_VALUE / Long.MAX_VALUE markers
# (no watermark yet / end of input): they are not drawn.
WM_FLOOR = -(2**62)
WM_CEIL = 2**62

# Below this many ms since the epoch (early 1973) times are read as plain milliseconds
# (worked examples use 0, 14, 5000, ...), above it as UTC timestamps.
_EPOCH_THRESHOLD = 10**11


def num(values: Any) -> np.ndarray:
    """A numeric column as a numpy array; nullable integers (``Int64`` with NA) become float with NaN."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.api.extensions.ExtensionDtype):
        if values.isna().any():
            return values.astype("float64").to_numpy()
        return values.to_numpy(dtype=np.int64)
    return np.asarray(values)


def fate_scale(fates_present: list[str] | None = None) -> alt.Scale:
    """The one colour scale every fate-coloured chart uses (same colour, same fate)."""
    domain = [f for f in FATES if fates_present is None or f in fates_present]
    return alt.Scale(domain=domain, range=[FATE_COLORS[f] for f in domain])


def is_epoch(values: np.ndarray | pd.Series) -> bool:
    """True when times look like real epoch milliseconds (then axes show UTC dates)."""
    arr = np.asarray(values)
    if arr.size == 0:
        return False
    return bool(np.nanmax(np.abs(arr.astype("float64"))) >= _EPOCH_THRESHOLD)


def duration_expr(value: str = "datum.value") -> str:
    """A Vega expression that writes a duration in ms (``value``) as a person reads it, in the
    units of :func:`toolkit.durations.readable`: ``250 ms``, ``1.5 s``, ``45 s``, ``2.5 min``, ``1.5 h``."""
    v, a = value, f"abs({value})"
    return (f"!isValid({v}) ? '' : {v} == 0 ? '0' : "
            f"{a} >= 86400000 ? format({v} / 86400000, ',.3~r') + ' d' : "
            f"{a} >= 3600000 ? format({v} / 3600000, ',.3~r') + ' h' : "
            f"{a} >= 60000 ? format({v} / 60000, ',.3~r') + ' min' : "
            f"{a} >= 1000 ? format({v} / 1000, ',.3~r') + ' s' : format({v}, ',.3~r') + ' ms'")


def duration_axis(**kwargs: Any) -> alt.Axis:
    """An axis over a duration field in ms whose labels carry their unit (``500 ms``, ``45 s``,
    ``2 min``): never raw milliseconds such as ``45,000``."""
    kwargs.setdefault("labelOverlap", True)
    kwargs.setdefault("labelSeparation", 6)
    kwargs.setdefault("labelFlush", False)  # a flushed last label overlapped its neighbour ("43 s43.5 s")
    return alt.Axis(labelExpr=duration_expr(), **kwargs)


def _plain_time_axis(**kwargs: Any) -> alt.Axis:
    """An axis of plain (not epoch) instants in ms, as in the engines' worked examples: ``t=1.5 s``."""
    kwargs.setdefault("labelOverlap", True)
    return alt.Axis(labelExpr=f"'t=' + ({duration_expr()})", **kwargs)


def _titled(title: str, words: str) -> str:
    """``title (words)``; ``window end (event time)`` -> ``window end (event time; words)``."""
    if title.endswith(")"):
        return f"{title[:-1]}; {words})"
    return f"{title} ({words})"


def _padded(lo: float, hi: float, size: int, padding: float) -> list[float]:
    """``[lo, hi]`` widened by ``padding`` pixels at each end of a ``size``-pixel axis."""
    if padding <= 0 or size <= 2 * padding:
        return [lo, hi]
    extra = (hi - lo) * padding / (size - 2 * padding)
    return [lo - extra, hi + extra]


def _time_channel(channel: Any, field: str, title: str, epoch: bool, extent: tuple[float, float] | None,
                  size: int, orient: str, padding: float, reach: tuple[float, float] | None = None,
                  **kwargs: Any) -> Any:
    """An x or y channel of instants over the data's ``extent`` (:mod:`toolkit.viz._time`): ticks,
    format and title from the span, the domain the data's own, widened by ``padding`` pixels at
    each end (so that a point at the first or last instant is not cut in half) and to ``reach``
    (where marks set a few pixels aside from their instant are drawn)."""
    if extent is None:  # no data: an empty axis
        extent = (0.0, 1.0)
    if epoch:
        ticks = time_ticks(extent[0], extent[1], size, orient)
        lo, hi = _padded(*ticks.domain, size, padding)
        if reach is not None:
            lo, hi = min(lo, reach[0]), max(hi, reach[1])
        return channel(f"{field}:T", title=_titled(title, ticks.words),
                       scale=alt.Scale(type="utc", domain=[int(np.floor(lo)), int(np.ceil(hi))], nice=False),
                       axis=alt.Axis(values=ticks.values, format=ticks.format, labelOverlap=True,
                                     labelSeparation=4), **kwargs)
    plain = plain_ticks(extent[0], extent[1], size, orient)
    lo, hi = _padded(*plain.domain, size, padding)
    if reach is not None:
        lo, hi = min(lo, reach[0]), max(hi, reach[1])
    return channel(f"{field}:Q", title=_titled(title, f"t in {plain.unit}"),
                   scale=alt.Scale(domain=[lo, hi], nice=False, zero=False),
                   axis=alt.Axis(values=plain.values, labelExpr=plain.label_expr(), labelOverlap=True,
                                 labelSeparation=4), **kwargs)


def time_x(field: str, title: str, epoch: bool, extent: tuple[float, float] | None = None, *, size: int = 640,
           padding: float = 0, reach: tuple[float, float] | None = None, **kwargs: Any) -> alt.X:
    """An x channel of instants over ``extent`` (the data's (min, max), see :func:`toolkit.viz._time.extent`)
    on a ``size``-pixel axis: UTC timestamps whose ticks and title follow the span, or plain ms
    (worked examples) labelled ``t=1.5 s``."""
    return _time_channel(alt.X, field, title, epoch, extent, size, "x", padding, reach, **kwargs)


def time_y(field: str, title: str, epoch: bool, extent: tuple[float, float] | None = None, *, size: int = 360,
           padding: float = 0, **kwargs: Any) -> alt.Y:
    """A y channel of instants, as :func:`time_x`."""
    return _time_channel(alt.Y, field, title, epoch, extent, size, "y", padding, None, **kwargs)


def time_tooltip(field: str, title: str, epoch: bool) -> alt.Tooltip:
    """A tooltip of an instant: a UTC timestamp with milliseconds, or plain ms for small worked examples."""
    if epoch:
        return alt.Tooltip(f"{field}:T", title=title, format="%Y-%m-%d %H:%M:%S.%L", formatType="utc")
    return alt.Tooltip(f"{field}:Q", title=f"{title} (ms)", format=",")


def duration_axis_scale(values: np.ndarray) -> tuple[float, str]:
    """(divisor, unit) to show durations in ms on an axis: the unit the text gives the largest of
    them in (``toolkit.durations.readable``: days from 1 d, hours from 1 h, minutes from 1 min,
    seconds from 1 s, else ms), so an axis and the sentence beside it speak one unit (never
    ``440 ... 660 min`` beside "p99 result latency 10 h 50 min")."""
    arr = np.asarray(values, dtype="float64")
    arr = arr[np.isfinite(arr)]
    top = float(np.max(np.abs(arr))) if arr.size else 0.0
    for divisor, unit in ((86_400_000.0, "d"), (3_600_000.0, "h"), (60_000.0, "min"), (1000.0, "s")):
        if top >= divisor:
            return divisor, unit
    return 1.0, "ms"


@dataclass(frozen=True)
class Sample:
    """Which rows a record-level chart shows, and the note that says so."""

    index: np.ndarray          # positions into the full arrays, ascending
    total: int
    counts: dict[str, int]     # exact count per class over all rows
    shown: dict[str, int]      # rows shown per class

    @property
    def sampled(self) -> bool:
        return len(self.index) < self.total

    def note(self, what: str = "records") -> str:
        if not self.sampled:
            return ""
        parts = []
        for name, n in self.counts.items():
            label = FATE_LABELS.get(name, name)
            k = self.shown.get(name, 0)
            parts.append(f"all {number(n)} {label}" if k == n else f"{number(k)} of {number(n)} {label}")
        return (f"Sampled: showing {number(len(self.index))} of {number(self.total)} {what} "
                f"(stratified, seed 0: {', '.join(parts)}); counts are exact.")


def stratified_sample(codes: np.ndarray, names: list[str], max_points: int, seed: int = 0) -> Sample:
    """Pick at most ``max_points`` positions, water-filling classes from the rarest up.

    Each class gets ``min(its size, remaining budget / remaining classes)``, so small classes
    (dropped, late) are kept whole while they fit; the picks inside a class are uniform
    (seeded ``numpy.random.default_rng(seed)``). ``codes[i]`` indexes ``names``.
    """
    codes = np.asarray(codes)
    total = int(codes.size)
    sizes = np.bincount(codes, minlength=len(names)) if total else np.zeros(len(names), dtype=np.int64)
    counts = {names[i]: int(sizes[i]) for i in range(len(names)) if sizes[i] > 0}
    if total <= max_points:
        return Sample(np.arange(total), total, counts, dict(counts))
    rng = np.random.default_rng(seed)
    order = np.argsort(sizes, kind="stable")
    order = [int(c) for c in order if sizes[c] > 0]
    budget = int(max_points)
    picks: list[np.ndarray] = []
    shown: dict[str, int] = {}
    for i, c in enumerate(order):
        share = budget // (len(order) - i)
        take = int(min(sizes[c], share))
        members = np.flatnonzero(codes == c)
        if take < members.size:
            members = rng.choice(members, size=take, replace=False)
        picks.append(members)
        shown[names[c]] = take
        budget -= take
    index = np.sort(np.concatenate(picks)) if picks else np.zeros(0, dtype=np.int64)
    shown = {n: shown.get(n, 0) for n in counts}
    return Sample(index, total, counts, shown)


def reduce_series(time: np.ndarray, value: np.ndarray, max_points: int,
                  how: str = "minmax") -> tuple[np.ndarray, np.ndarray, bool]:
    """Reduce a time series to about ``max_points`` rows keeping each bin's extremes.

    Bins are equal processing-time intervals; per bin the rows holding the min and max
    ``value`` are kept (``how="minmax"``) or only the last row (``how="last"``), so peaks
    survive. Returns (time, value, reduced?).
    """
    time = np.asarray(time)
    value = np.asarray(value)
    n = time.size
    if n <= max_points:
        return time, value, False
    per_bin = 2 if how == "minmax" else 1
    nbins = max(1, max_points // per_bin)
    lo, hi = float(time.min()), float(time.max())
    width = (hi - lo) / nbins or 1.0
    b = np.minimum(((time - lo) / width).astype(np.int64), nbins - 1)
    order = np.lexsort((value, b)) if how == "minmax" else np.lexsort((np.arange(n), b))
    sb = b[order]
    starts = np.flatnonzero(np.r_[True, sb[1:] != sb[:-1]])
    ends = np.r_[starts[1:], n] - 1
    keep = np.unique(np.concatenate([order[starts], order[ends]]) if how == "minmax" else order[ends])
    return time[keep], value[keep], True


def with_note(chart: alt.TopLevelMixin, title: str, note: str, width: int = 100) -> alt.TopLevelMixin:
    """Set the chart title, with ``note`` as a visible subtitle when not empty, wrapped at ``width``
    characters so that it is never clipped."""
    if note:
        return chart.properties(title=alt.TitleParams(title, subtitle=wrap(note, width), subtitleColor="#b35900"))
    return chart.properties(title=title)


def wrap(text: str, width: int = 100) -> list[str]:
    """Subtitle lines of at most ``width`` characters."""
    import textwrap

    return textwrap.wrap(text, width) or [""]


def log_table(log: Any, max_rows: int | None = None) -> pd.DataFrame:
    """The pandas table of a log (a Spark-backed log is collected only up to ``max_rows``)."""
    if getattr(log, "is_spark", False):
        return log.to_pandas(limit=max_rows)
    return log.table


def fate_codes(result: Any, table: pd.DataFrame) -> np.ndarray:
    """Fate of every row of ``table`` as codes into :data:`FATES` (-1 when unknown); a dropped
    record whose reason is in :data:`NEVER_FIRED_REASONS` is ``never_fired``.

    ``result.fates`` has ``row, fate``; when its rows equal the table's (the contract) the
    match is positional, otherwise it is joined on ``row``.
    """
    fates = result.fates
    col = fates["fate"]
    if isinstance(col.dtype, pd.CategoricalDtype):
        cats = [str(c) for c in col.cat.categories]
        remap = np.array([FATES.index(c) if c in FATES else -1 for c in cats] + [-1], dtype=np.int64)
        raw = col.cat.codes.to_numpy()
        codes = remap[np.where(raw < 0, len(cats), raw)]
    else:
        codes = pd.Categorical(col.to_numpy(), categories=FATES).codes.astype(np.int64)
    if "reason" in fates.columns:  # dropped, but never emitted by its trigger: shown apart
        never = fates["reason"].isin(NEVER_FIRED_REASONS).to_numpy() & (codes == FATES.index("dropped"))
        if never.any():
            codes = np.where(never, FATES.index("never_fired"), codes)
    frow = fates["row"].to_numpy()
    trow = table["row"].to_numpy()
    if frow.shape == trow.shape and np.array_equal(frow, trow):
        return codes
    pos = pd.Index(frow).get_indexer(trow)
    out = np.full(trow.shape, -1, dtype=np.int64)
    ok = pos >= 0
    out[ok] = codes[pos[ok]]
    return out


def lateness_of(event_time: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Out-of-orderness of each record: max event time seen before it (in arrival order) minus its own, >= 0.

    This is the bounded-out-of-orderness delay the record needs to be on time
    (a record with lateness L is behind the watermark of any delay < L).
    """
    et = np.asarray(event_time, dtype=np.int64)[order]
    prev_max = np.maximum.accumulate(et)
    prev_max = np.r_[np.iinfo(np.int64).min, prev_max[:-1]] if et.size else prev_max
    late = np.maximum(prev_max, et) - et
    out = np.empty_like(late)
    out[order] = late
    return out
