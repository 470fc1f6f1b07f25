"""``log.describe()``: what the stream looks like, in the figures that matter for watermarks.

Definitions (the same on the pandas and the Spark path; all times int ms):

- **processing order**: arrival order (arrival_time, then row); row order without arrival times.
- **out-of-orderness**: a record is *behind* when its event time is below the maximum event
  time of the records before it in processing order; how far behind = that running
  maximum minus its event time (> 0). A bounded-out-of-orderness watermark with delay d
  would hold back the records that are at most about d behind.
- **arrival delay** = arrival_time - event_time (negative when a record arrives "before" it
  happened: clock skew; counted, never dropped).
- **per partition**: records, first and last time, rate = records / span, and the gaps
  between consecutive records on the time axis (arrival time, else event time); gaps of
  at least ``silence`` are *silences* (where idleness matters). ``silence`` defaults to
  max(1 s, m x max(10, log2 n)), m the median and n the number of the gaps of all partitions: the
  gap that a steady stream at the log's median arrival rate (exponential gaps, median m) would
  reach by chance less than once in n gaps, so it follows the arrival rate (a year of departures
  at 2 an hour: 5 h, every night; the sample at 35 a second: the 1 s floor).
- **percentiles** (:func:`percentiles`) are nearest-rank (``numpy`` method "inverted_cdf", Spark
  ``percentile_disc``): always a value that occurs in the data.
- **duplicates**: records equal in every canonical column but ``row`` to an earlier one
  (they are kept: they are real records).
- **incidents**: what :mod:`toolkit.incidents` applied to the log, one line each, in order.
- **floored**, **warnings**: what loading changed (rows per time column whose fraction of a
  millisecond was floored) and what it suspects (a time unit that looks wrong): see
  :mod:`toolkit.log.checks`.

This module computes them in pandas (:func:`describe_pandas`); the Spark backend
(:mod:`toolkit.log.spark_describe`) computes the same figures in Spark with the public helpers here
(:func:`percentile_label`, :func:`resolve_silence`, :func:`partition_figures`).
``log.describe()`` chooses between the two.
"""
from __future__ import annotations

import html
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from toolkit.durations import parse_duration, readable

PERCENTILES = (0.5, 0.9, 0.99, 0.999)
_INT64_MIN = np.iinfo(np.int64).min
TOP_KEYS = 5


@dataclass
class PartitionFigures:
    partition: int
    name: str
    records: int
    first: int
    last: int
    rate_per_s: float | None  # None when the span is 0
    max_gap: int | None  # None with a single record
    max_gap_start: int | None
    silences: int
    silent_ms: int


@dataclass
class LogDescription:
    """Figures of :func:`describe`; ``str()`` is a readable report, ``to_dict()`` plain data."""

    records: int
    invalid: int
    input_rows: int
    has_arrival_time: bool
    event_time_min: int
    event_time_max: int
    arrival_time_min: int | None
    arrival_time_max: int | None
    keys: int
    top_keys: list[tuple[str, int]]
    duplicates: int
    behind: int
    behind_share: float
    behind_by: dict[str, int] | None  # percentiles of how far behind (ms), among behind records; "max"
    delay: dict[str, int] | None  # arrival delay percentiles: "min", "p50", ..., "max"
    arrival_before_event: int
    silence: int
    partitions: list[PartitionFigures] = field(default_factory=list)
    backend: str = "pandas"
    floored: dict[str, int] = field(default_factory=dict)  # time column -> rows floored to whole ms
    warnings: list[str] = field(default_factory=list)  # what loading changed or suspects (log.warnings)
    declared_silent: list[int] = field(default_factory=list)  # declared partitions without records
    incidents: list[str] = field(default_factory=list)  # what toolkit.incidents applied (log.incidents)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["top_keys"] = [list(kv) for kv in self.top_keys]
        return d

    def figures(self) -> dict[str, Any]:
        """``to_dict()`` without the backend name (what the pandas and Spark paths must agree on)."""
        d = self.to_dict()
        d.pop("backend")
        return d

    # ---------------------------------------------------------------- rendering
    def lines(self) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = []
        rows.append(("records", f"{self.records:,} valid of {self.input_rows:,} rows ({self.invalid:,} quarantined)"))
        rows.append(("event time", _span(self.event_time_min, self.event_time_max)))
        if self.has_arrival_time:
            rows.append(("arrival time", _span(self.arrival_time_min, self.arrival_time_max)))
        else:
            rows.append(("arrival time", "none (processing order = row order)"))
        top = ", ".join(f"{k} ({c:,})" for k, c in self.top_keys)
        rows.append(("keys", f"{self.keys:,}; most frequent: {top}"))
        dup = "1 record repeats" if self.duplicates == 1 else f"{self.duplicates:,} records repeat"
        rows.append(("duplicates", f"{dup} an earlier one exactly (kept)"))
        order = "arrival order" if self.has_arrival_time else "row order"
        ooo = f"{self.behind:,} records ({self.behind_share:.2%}) behind the running max event time ({order})"
        if self.behind_by:
            ooo += "; behind by " + ", ".join(f"{k} {_dur(v)}" for k, v in self.behind_by.items())
        rows.append(("out of order", ooo))
        if self.delay is not None:
            rows.append(("arrival delay", ", ".join(f"{k} {_dur(v)}" for k, v in self.delay.items())))
            n = self.arrival_before_event
            rows.append(("arrived before event time", f"{n:,} record{'s' if n != 1 else ''}"))
        if self.floored:
            rows.append(("floored to whole ms", ", ".join(
                f"{c}: {k:,} row{'s' if k != 1 else ''}" for c, k in self.floored.items())))
        declared = f" (+ {len(self.declared_silent)} declared without records)" if self.declared_silent else ""
        rows.append(("partitions", f"{len(self.partitions)}{declared}; silence = gap of at least {_dur(self.silence)}"))
        for p in self.partitions:
            name = p.name if p.name == str(p.partition) else f"{p.partition} ({p.name})"
            rate = _rate(p.records, p.rate_per_s)
            gap = f"max gap {_dur(p.max_gap)} from {_iso(p.max_gap_start)}" if p.max_gap is not None else "no gaps"
            sil = _silences(p.silences, p.silent_ms)
            rows.append((f"  partition {name}", f"{p.records:,} records, {rate}, {gap}, {sil}"))
        for p in self.declared_silent:
            rows.append((f"  partition {p}", "declared, no records (holds the watermark unless idleness or "
                                             "multiple_watermark_policy='max' lets it go)"))
        for i, w in enumerate(self.warnings):
            rows.append(("warning" if i == 0 else "", w))
        for i, text in enumerate(self.incidents):
            rows.append(("incidents" if i == 0 else "", text))
        return rows

    def __str__(self) -> str:
        return self.text()

    def text(self, width: int | None = None) -> str:
        """The readable report: names, then values in one column; with ``width``, a value longer
        than the line wraps at spaces, continued under its column (never cut)."""
        rows = self.lines()
        name_width = max(len(k) for k, _ in rows)
        lines = []
        for k, v in rows:
            head = f"{k:<{name_width}}  "
            if width is None or len(head) + len(v) <= width:
                lines.append(head + v)
                continue
            parts = _wrap_items(v, max(20, width - len(head)))
            lines += [(head if i == 0 else " " * len(head)) + part for i, part in enumerate(parts)]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>{html.escape(v)}</td></tr>"
            for k, v in self.lines()
        )
        return f"<table class='watermark-lab-describe'>{body}</table>"

    def __repr__(self) -> str:
        return f"LogDescription(records={self.records}, behind={self.behind}, partitions={len(self.partitions)})"


def _wrap_items(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width``, broken after a comma or semicolon so that an item
    (``p50 11 min 38 s``) stays whole; an item longer than a line wraps at its spaces."""
    import re
    import textwrap

    lines: list[str] = []
    for item in re.split(r"(?<=[,;]) ", text):
        if lines and len(lines[-1]) + 1 + len(item) <= width:
            lines[-1] += " " + item
        elif len(item) <= width:
            lines.append(item)
        else:
            lines += textwrap.wrap(item, width=width, break_long_words=False, break_on_hyphens=False) or [item]
    return lines


def _iso(ms: int | None) -> str:
    if ms is None:
        return "n/a"
    return str(np.datetime64(int(ms), "ms")) + "Z"


def _span(lo: int | None, hi: int | None) -> str:
    if lo is None or hi is None:
        return "n/a"
    return f"{_iso(lo)} .. {_iso(hi)} ({_dur(hi - lo)})"


def _dur(ms: int | None) -> str:
    """A duration in ms as a person reads it (``toolkit.durations.readable``: 350 ms, 2.5 s,
    3 min 20 s, 1 min, 2 h 5 min), in hours up to 48 h (``35 h 6 min``) and in days above (``362 d 5 h``)."""
    if ms is None:
        return "n/a"
    ms = int(ms)
    if 86_400_000 <= abs(ms) <= 48 * 3_600_000:
        h, m = divmod(round(abs(ms) / 60_000), 60)
        return ("-" if ms < 0 else "") + f"{h} h" + (f" {m} min" if m else "")
    return readable(ms)


def _rate(records: int, rate_per_s: float | None) -> str:
    """A rate per second, minute, hour or day: the first unit that gives at least 1 (``1.54/h``)."""
    if rate_per_s is None:
        return "n/a"
    for unit, seconds in (("s", 1), ("min", 60), ("h", 3600), ("d", 86_400)):
        x = rate_per_s * seconds
        if x >= 1 or unit == "d":
            return (f"{x:,.0f}" if x >= 100 else f"{x:.3g}") + f"/{unit}"
    return "n/a"


def _silences(n: int, ms: int) -> str:
    return "no silences" if n == 0 else f"{n} silence{'s' if n != 1 else ''} ({_dur(ms)} in all)"


def percentile_label(p: float) -> str:
    return f"p{round(p * 100, 6):g}"


def percentiles(values: np.ndarray, ps=PERCENTILES) -> dict[str, int]:
    """Nearest-rank percentiles (numpy "inverted_cdf") plus min and max, as ints."""
    out = {"min": int(values.min())}
    qs = np.quantile(values, list(ps), method="inverted_cdf")
    for p, q in zip(ps, qs):
        out[percentile_label(p)] = int(q)
    out["max"] = int(values.max())
    return out


#: the fewest median gaps a default silence lasts (a log of few gaps)
SILENCE_MIN_FACTOR = 10


def resolve_silence(silence, median_gap: int | None, gaps: int = 0) -> int:
    """The silence threshold in ms: ``silence`` as given, or the default that follows the arrival
    rate: ``max(1 s, median_gap x max(10, log2 gaps))`` (a steady stream with that median gap
    has a gap this long less than once in ``gaps``: P(gap > k m) = 2^-k)."""
    if silence is None or silence == "auto":
        factor = max(float(SILENCE_MIN_FACTOR), math.log2(gaps) if gaps > 1 else 0.0)
        return max(1000, int(math.ceil(factor * int(median_gap or 0))))
    ms = parse_duration(silence, name="silence")
    if ms <= 0:
        raise ValueError(f"silence must be positive, got {silence!r}")
    return ms


def describe_pandas(log, *, silence: Any = "auto") -> LogDescription:
    """Figures about a pandas-backed ``log`` (see the module docstring)."""
    t = log.table
    n = len(t)
    order = log.arrival_order()
    et = t["event_time"].to_numpy(dtype=np.int64)
    has_arrival = log.has_arrival_time

    # out-of-orderness over processing order
    et_o = et[order]
    before = np.empty(n, dtype=np.int64)
    before[0] = _INT64_MIN
    if n > 1:
        before[1:] = np.maximum.accumulate(et_o)[:-1]
    behind = et_o < before
    lag = saturating_sub(before, et_o)[behind]

    delay = None
    arrival_before = 0
    at = t["arrival_time"].to_numpy(dtype=np.int64) if has_arrival else None
    if has_arrival:
        d = saturating_sub(at, et)
        delay = percentiles(d)
        arrival_before = int((d < 0).sum())

    # keys
    counts = t["key"].value_counts(sort=False)
    top = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))[:TOP_KEYS]

    dup = _duplicates(t)

    # partitions on the time axis
    axis = at if has_arrival else et
    part = t["partition"].to_numpy(dtype=np.int64)
    po = np.lexsort((axis, part))
    ps, xs = part[po], axis[po]
    same = ps[1:] == ps[:-1]
    gaps = saturating_sub(xs[1:], xs[:-1])[same]
    gap_start = xs[:-1][same]
    gap_part = ps[1:][same]
    median_gap = int(np.quantile(gaps, 0.5, method="inverted_cdf")) if len(gaps) else None
    threshold = resolve_silence(silence, median_gap, len(gaps))
    figures = []
    for p in np.unique(part):
        sel = ps == p
        first, last = int(xs[sel][0]), int(xs[sel][-1])
        g = gap_part == p
        pg, pstart = gaps[g], gap_start[g]
        if len(pg):
            i = int(np.argmax(pg))  # first maximal gap
            max_gap, max_gap_start = int(pg[i]), int(pstart[i])
        else:
            max_gap = max_gap_start = None
        long = pg >= threshold
        figures.append(
            partition_figures(log, int(p), int(sel.sum()), first, last, max_gap, max_gap_start,
                               int(long.sum()), int(pg[long].sum()))
        )
    return LogDescription(
        records=n,
        invalid=log.n_invalid,
        input_rows=log.n_input,
        has_arrival_time=has_arrival,
        event_time_min=int(et.min()),
        event_time_max=int(et.max()),
        arrival_time_min=int(at.min()) if has_arrival else None,
        arrival_time_max=int(at.max()) if has_arrival else None,
        keys=int(len(counts)),
        top_keys=[(str(k), int(c)) for k, c in top],
        duplicates=dup,
        behind=int(behind.sum()),
        behind_share=float(behind.sum()) / n,
        behind_by=percentiles(lag) if len(lag) else None,
        delay=delay,
        arrival_before_event=arrival_before,
        silence=threshold,
        partitions=figures,
        backend="pandas",
        floored=dict(log.floored),
        warnings=list(log.warnings),
    )


def _duplicates(t) -> int:
    """Records equal to an earlier one in every column but ``row``.

    Only rows whose numeric columns repeat can repeat as a whole, so the (slow) hashing of
    keys runs on those candidates only.
    """
    numeric = [c for c in ("event_time", "arrival_time", "partition", "value") if c in t.columns]
    candidates = t.duplicated(subset=numeric, keep=False).to_numpy()
    if not candidates.any():
        return 0
    return int(t.loc[candidates].drop(columns="row").duplicated(keep="first").sum())


def saturating_sub(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a - b`` in int64, held at the int64 limits instead of wrapping around (differences
    of times near the ends of int64 milliseconds, e.g. year -292 million vs +292 million)."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    with np.errstate(over="ignore"):
        d = a - b
    over = ((a ^ b) & (a ^ d)) < 0
    if over.any():
        d = np.where(over, np.where(a >= 0, np.iinfo(np.int64).max, np.iinfo(np.int64).min), d)
    return d


def partition_figures(log, p, records, first, last, max_gap, max_gap_start, silences, silent_ms) -> PartitionFigures:
    """One partition's figures from its counts and times (rate and name derived here; both backends)."""
    span = last - first
    return PartitionFigures(
        partition=p,
        name=log.partition_name(p),
        records=records,
        first=first,
        last=last,
        rate_per_s=(records / (span / 1000.0)) if span > 0 else None,
        max_gap=max_gap,
        max_gap_start=max_gap_start,
        silences=silences,
        silent_ms=silent_ms,
    )
