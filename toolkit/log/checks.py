"""Warnings about a loaded log: what loading changed, and times that look wrong.

Loading never changes a value silently and never guesses a unit on its own; it warns:

- **floored**: times with a fraction of a millisecond (``1.5`` ms, or any ``us``/``ns`` time not
  on a whole millisecond, or an ISO string with more than 3 decimals) are floored to the
  millisecond; how many rows per column is counted (``log.floored``) and warned about;
- **unit**: every epoch number of a column lies in 1990-2100 *in another unit* than
  ``time_unit`` (seconds read as milliseconds land in January 1970, nanoseconds read as
  milliseconds in year 53 million): the warning names the unit that fits;
- **far future**: valid times after 2200-01-01 (and, for epoch numbers, the unit that would
  put them in 1990-2100);
- **arrival before event**: more than half the records arrive more than a day before their
  event time (columns in different units, or swapped).

The figures come from either backend (:mod:`toolkit.log.load`, :mod:`toolkit.log.spark`), so
both give the same messages; the messages are kept in ``log.warnings`` and shown by describe().
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from toolkit.log.times import EPOCH_RANGES

FAR_FUTURE_MS = 7_258_118_400_000  # 2200-01-01T00:00:00Z
DAY_MS = 86_400_000
UNIT_WORDS = {"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}


def iso(ms: int) -> str:
    """An int64 ms instant as ISO-8601 UTC (any year numpy can write)."""
    return str(np.datetime64(int(ms), "ms")) + "Z"


def _raw(raw) -> str:
    text = str(raw).strip()
    if isinstance(raw, float) and float(raw).is_integer():
        text = str(int(raw))
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass
class TimeColumnFigures:
    """What the checks need about one time column (computed by either backend)."""

    column: str
    unit: str
    numeric: int = 0  # finite epoch numbers (valid or not)
    # per unit u: (count of epoch numbers in 1990-2100 read as u, first row, raw)
    in_range: dict = field(default_factory=dict)
    floored: int = 0  # valid rows whose fraction of a millisecond was floored
    floored_example: tuple | None = None  # (row, raw, ms)
    far_future: int = 0  # valid rows after FAR_FUTURE_MS
    far_example: tuple | None = None  # (row, raw, ms)
    far_unit: str | None = None  # the unit that puts the example in 1990-2100 (epoch numbers only)
    far_numeric: bool = False  # the example is an epoch number (not a timestamp or ISO string)


def unit_fitting(magnitude: float) -> str | None:
    """The unit whose 1990-2100 range holds an epoch number of this magnitude, if one does."""
    for u, (lo, hi) in EPOCH_RANGES.items():
        if lo <= magnitude <= hi:
            return u
    return None


def column_warnings(f: TimeColumnFigures, valid_records: int) -> list[str]:
    out = []
    if f.floored:
        row, raw, ms = f.floored_example
        out.append(
            f"column {f.column!r}: {f.floored:,} of {valid_records:,} times had a fraction of a millisecond "
            f"and were floored to whole milliseconds (e.g. row {row}: {_raw(raw)} -> {ms} ms)"
        )
    hinted = False
    for u, (count, row, raw) in f.in_range.items():
        if u != f.unit and f.numeric and count == f.numeric:
            hinted = True
            out.append(
                f"column {f.column!r}: every time looks like epoch {UNIT_WORDS[u]} (e.g. row {row}: {_raw(raw)}), "
                f"but time_unit={f.unit!r} reads them as epoch {UNIT_WORDS[f.unit]} (dates around "
                f"{_year_of(float(str(raw).strip()), f.unit)}); if the column holds {UNIT_WORDS[u]}, pass time_unit={u!r}"
            )
    if f.far_future and not hinted:
        row, raw, ms = f.far_example
        shown = f"{_raw(raw)} = {iso(ms)}" if f.far_numeric else repr(_raw(raw))
        text = f"column {f.column!r}: {f.far_future:,} time{'s' if f.far_future != 1 else ''} after 2200 (e.g. row {row}: {shown})"
        if f.far_unit and f.far_unit != f.unit:
            text += f"; as epoch {UNIT_WORDS[f.far_unit]} (time_unit={f.far_unit!r}) it would fall in 1990-2100"
        elif f.far_numeric:
            text += "; check the source and the time unit"
        else:
            text += "; check the source"
        out.append(text)
    return out


def _year_of(value: float, unit: str) -> str:
    ms = value * {"s": 1000.0, "ms": 1.0, "us": 1e-3, "ns": 1e-6}[unit]
    if abs(ms) >= 2**63:
        return "beyond the int64 range"
    year = int(np.datetime64(int(ms), "ms").astype("datetime64[Y]").astype(np.int64)) + 1970
    if year == 1970:
        return iso(int(ms))[:10]
    return f"year {year:,}"


def arrival_warning(before: int, valid_records: int, example: tuple | None) -> list[str]:
    """``before``: valid records arriving more than a day before their event time."""
    if not valid_records or before * 2 <= valid_records:
        return []
    row, event, arrival = example
    return [
        f"arrival_time is more than a day before event_time in {before:,} of {valid_records:,} records "
        f"(e.g. row {row}: event {iso(event)}, arrival {iso(arrival)}): the two columns look like different "
        f"units or swapped; check which columns are mapped to event_time and arrival_time, and time_unit"
    ]
