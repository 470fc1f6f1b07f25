"""Time axes that adapt to the data's span, from milliseconds to years.

An axis over UTC instants gets its ticks, their format and its title from the extent of the
data it shows (:func:`time_ticks`), never from a fixed format: a 5-minute log reads
``22:14:00``, a day that crosses midnight ``Nov 15 06:00``, a year ``Mar``, ``May``... with
"2023" in the title. The ticks are calendar-aligned (whole seconds, minutes, hours, UTC
midnights, Mondays, first days of months, years), as many as the axis has room for, all inside
the data's extent, and their labels are distinct (the format keeps the date whenever the
ticks fall on more than one day). The title names the unit (``h:min:s``, ``date``, ``month``)
and the date or year the labels leave out. The scale's domain is the data's own extent.

The formats use only directives that d3-time-format (what Vega draws with) and Python's
``strftime`` share, plus ``%L`` (milliseconds), so :func:`format_instant` writes in Python the
label Vega draws: the tests compare the two.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SECOND = 1000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR
WEEK = 7 * DAY
_MONDAY = 4 * DAY  # 1970-01-01 was a Thursday: Mondays are 4 days after it, modulo a week

#: tick steps tried, finest first: (unit, count); "ms" units are fixed lengths in ms
STEPS: list[tuple[str, int]] = (
    [("ms", n) for n in (1, 2, 5, 10, 20, 50, 100, 200, 500)]
    + [("ms", n * SECOND) for n in (1, 2, 5, 10, 15, 30)]
    + [("ms", n * MINUTE) for n in (1, 2, 5, 10, 15, 30)]
    + [("ms", n * HOUR) for n in (1, 2, 3, 6, 12)]
    + [("ms", DAY), ("ms", 2 * DAY), ("week", 1), ("week", 2)]
    + [("month", n) for n in (1, 2, 3, 6)]
    + [("year", n) for n in (1, 2, 5, 10, 20, 50, 100)]
)

CHAR_PX = 6.2
"""Width of one label character at Vega's default 10 px axis font (digits and capitals)."""
GAP_PX = 16
"""Room kept between two x-axis labels."""
ROW_PX = 24
"""Room one y-axis label takes, with its gap."""


@dataclass(frozen=True)
class Ticks:
    """The ticks of a time axis: instants in ms, the d3 format of their labels, the words the
    title adds (``UTC, 2023-11-14, h:min:s``) and the scale's domain."""

    values: list[int]
    format: str
    words: str
    domain: tuple[int, int]

    def labels(self) -> list[str]:
        """The labels Vega draws, written in Python."""
        return [format_instant(v, self.format) for v in self.values]


def format_instant(ms: int, fmt: str) -> str:
    """``ms`` (UTC epoch milliseconds) written with the d3 format ``fmt`` (``%L``: milliseconds)."""
    t = np.datetime64(int(ms), "ms").astype(object)
    return t.strftime(fmt.replace("%L", f"{int(ms) % 1000:03d}"))


def _candidates(lo: int, hi: int, unit: str, n: int) -> np.ndarray:
    """The instants of a step in ``[lo, hi]``, calendar-aligned (UTC)."""
    if unit == "ms":
        first = -(-lo // n) * n
        return np.arange(first, hi + 1, n, dtype=np.int64) if first <= hi else np.zeros(0, np.int64)
    if unit == "week":
        step = n * WEEK
        first = -(-(lo - _MONDAY) // step) * step + _MONDAY
        return np.arange(first, hi + 1, step, dtype=np.int64) if first <= hi else np.zeros(0, np.int64)
    kind = "M" if unit == "month" else "Y"
    a = np.datetime64(int(lo), "ms").astype(f"datetime64[{kind}]")
    b = np.datetime64(int(hi), "ms").astype(f"datetime64[{kind}]")
    steps = np.arange(a.astype(np.int64), b.astype(np.int64) + 1)
    steps = steps[steps % n == 0]  # months: January, then every n-th; years: multiples of n
    out = steps.astype(f"datetime64[{kind}]").astype("datetime64[ms]").astype(np.int64)
    return out[(out >= lo) & (out <= hi)]


def _size(unit: str, n: int) -> int:
    return {"ms": n, "week": n * WEEK, "month": n * 30 * DAY, "year": n * 365 * DAY}[unit]


def _format(unit: str, n: int, days: int, years: int) -> tuple[str, str]:
    """(d3 format, unit words) of ticks of one step over ticks on ``days`` distinct days and
    ``years`` distinct years."""
    size = _size(unit, n)
    if size < DAY:
        clock, words = (("%H:%M:%S.%L", "h:min:s.ms") if size < SECOND else
                        ("%H:%M:%S", "h:min:s") if size < MINUTE else ("%H:%M", "h:min"))
        if days > 1:  # the date on every label: the same clock time on two days must read apart
            return f"%b %d {clock}", f"date {words}"
        return clock, words
    if unit in ("ms", "week"):
        return ("%b %d", "date") if years == 1 else ("%Y-%m-%d", "date")
    if unit == "month":
        return ("%b", "month") if years == 1 else ("%b %Y", "month")
    return "%Y", "year"


def _context(values: np.ndarray, fmt: str, words: str) -> str:
    """``UTC, <what the labels leave out>, <unit words>``."""
    parts = ["UTC"]
    if len(values) and "%d" not in fmt and "%b" not in fmt and "%Y" not in fmt:
        parts.append(str(np.datetime64(int(values[0]), "ms").astype("datetime64[D]")))
    elif len(values) and "%Y" not in fmt:
        parts.append(str(np.datetime64(int(values[0]), "ms").astype("datetime64[Y]")))
    parts.append(words)
    return ", ".join(parts)


def _distinct_days(values: np.ndarray) -> tuple[int, int]:
    days = values.astype("datetime64[ms]").astype("datetime64[D]")
    return len(np.unique(days)), len(np.unique(days.astype("datetime64[Y]")))


def time_ticks(lo: float, hi: float, size: int = 640, orient: str = "x") -> Ticks:
    """The ticks of a time axis over the data extent ``[lo, hi]`` (UTC epoch ms) on an axis of
    ``size`` pixels (``orient`` "x": labels side by side; "y": stacked): the finest
    calendar step whose labels fit, each inside the extent, their labels distinct."""
    lo_i, hi_i = int(np.floor(lo)), int(np.ceil(hi))
    if hi_i <= lo_i:
        hi_i = lo_i + 1
    for unit, n in STEPS:
        if (hi_i - lo_i) / _size(unit, n) > 200:
            continue
        values = _candidates(lo_i, hi_i, unit, n)
        if not len(values):
            continue
        days, years = _distinct_days(np.array([lo_i, hi_i]))
        fmt, words = _format(unit, n, days, years)
        width = len(format_instant(int(values[0]), fmt)) * CHAR_PX + GAP_PX if orient == "x" else ROW_PX
        if len(values) * width <= size or (unit, n) == STEPS[-1]:
            return Ticks([int(v) for v in values], fmt, _context(values, fmt, words), (lo_i, hi_i))
    # an extent shorter than the finest step: one tick at its start
    days, years = _distinct_days(np.array([lo_i, hi_i]))
    fmt, words = _format("ms", 1, days, years)
    return Ticks([lo_i], fmt, _context(np.array([lo_i]), fmt, words), (lo_i, hi_i))


def extent(*arrays: np.ndarray) -> tuple[float, float] | None:
    """The finite (min, max) over ``arrays`` of instants, or None when there is none."""
    lo, hi = np.inf, -np.inf
    for a in arrays:
        a = np.asarray(a, dtype="float64")
        a = a[np.isfinite(a)]
        if a.size:
            lo, hi = min(lo, float(a.min())), max(hi, float(a.max()))
    return (lo, hi) if lo <= hi else None


@dataclass(frozen=True)
class PlainTicks:
    """The ticks of an axis of plain instants in ms (worked examples: ``t=1.5 s``): values, the
    unit they are written in, its divisor and the decimals that keep neighbouring labels apart."""

    values: list[float]
    unit: str
    divisor: float
    decimals: int
    domain: tuple[float, float]

    def label_expr(self) -> str:
        """The Vega expression of a label: ``'t=' + format(value / divisor, ',.Nf') + ' unit'``."""
        return (f"'t=' + format(datum.value / {self.divisor}, ',.{self.decimals}f') + ' {self.unit}'")

    def labels(self) -> list[str]:
        """The labels Vega draws, written in Python."""
        return [f"t={v / self.divisor:,.{self.decimals}f} {self.unit}" for v in self.values]


def plain_ticks(lo: float, hi: float, size: int = 640, orient: str = "x") -> PlainTicks:
    """Round ticks (1, 2, 5 x 10^k ms) over ``[lo, hi]`` for plain ms instants, written in one unit
    (ms, s or min, from the extent's largest value) with as many decimals as the step needs."""
    lo, hi = float(lo), float(hi)
    if hi <= lo:
        hi = lo + 1.0
    top = max(abs(lo), abs(hi))
    divisor, unit = (MINUTE, "min") if top >= 10 * MINUTE else (SECOND, "s") if top >= SECOND else (1, "ms")
    room = (len(f"t={top / divisor:,.1f} {unit}") * CHAR_PX + GAP_PX) if orient == "x" else ROW_PX
    most = max(2, int(size // room))
    for exp in range(0, 16):
        for m in (1, 2, 5):
            step = m * 10.0**exp
            first = np.ceil(lo / step) * step
            values = np.arange(first, hi + step / 2, step)
            values = values[values <= hi]
            if len(values) <= most:
                decimals = max(0, int(np.ceil(-np.log10(step / divisor) - 1e-9)))
                return PlainTicks([float(v) for v in values], unit, float(divisor), decimals, (lo, hi))
    return PlainTicks([lo, hi], unit, float(divisor), 0, (lo, hi))


__all__ = ["Ticks", "PlainTicks", "time_ticks", "plain_ticks", "format_instant", "extent", "STEPS"]
