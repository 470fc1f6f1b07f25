"""Time normalisation: every accepted time representation to int64 epoch milliseconds (UTC).

Accepted per column (decided by the column's type, vectorized, no per-row Python):

- epoch numbers (ints, floats, or numeric strings) in the stated ``time_unit``
  ("s", "ms", "us", "ns"); fractions of a millisecond are floored (towards -inf),
  the way ``Instant.toEpochMilli`` truncates a positive instant;
- pandas / Arrow timestamps (naive ones are UTC, aware ones are converted to UTC);
- ISO-8601 strings with or without a zone: naive strings are UTC, zoned strings
  (``Z``, ``+02:00``, ``-0130``, ``+05``) are converted to UTC. Naive and zoned strings
  are parsed separately (pandas would otherwise apply one string's offset to another).

Row-level faults (null, unparsable, not finite, out of the int64 range after unit
conversion) are reported per row for the quarantine; column-level faults (booleans,
epoch numbers of different units mixed in one column) raise.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from toolkit.log.errors import ColumnTypeError, MixedUnitsError

UNITS = ("s", "ms", "us", "ns")
_ALIASES = {
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
    "ms": "ms", "milli": "ms", "millis": "ms", "millisecond": "ms", "milliseconds": "ms",
    "us": "us", "µs": "us", "micro": "us", "micros": "us", "microsecond": "us", "microseconds": "us",
    "ns": "ns", "nano": "ns", "nanos": "ns", "nanosecond": "ns", "nanoseconds": "ns",
}
# multiply an epoch number in the unit by this to get milliseconds
_TO_MS = {"s": 1000.0, "ms": 1.0, "us": 1e-3, "ns": 1e-6}
_INT_DIV = {"us": 1000, "ns": 1_000_000}
_INT64_MAX = np.iinfo(np.int64).max
_TWO63 = float(2**63)

# Epoch numbers between 1990-01-01 and 2100-01-01 in each unit: used to detect columns
# whose values look like two different units (e.g. seconds and milliseconds mixed).
_EPOCH_S = (631_152_000.0, 4_102_444_800.0)
EPOCH_RANGES = {u: (_EPOCH_S[0] * m, _EPOCH_S[1] * m) for u, m in (("s", 1), ("ms", 1e3), ("us", 1e6), ("ns", 1e9))}
_UNIT_WORDS = {"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}

NUMERIC_RE = r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?"
INTEGER_RE = r"[+-]?\d+"
NON_FINITE_RE = r"[+-]?(nan|inf|infinity)"  # written NaN and infinities (not nulls: they are in the file)
_ZONE_RE = r".*(Z|z|[+-]\d\d(:?\d\d)?)"

NULL = "null"
UNPARSABLE = "unparsable time"
NOT_FINITE = "not finite"
OUT_OF_RANGE = "out of int64 range in ms"


def normalize_unit(unit: str) -> str:
    """Return the canonical unit name ("s", "ms", "us", "ns") for ``unit``."""
    key = str(unit).strip().lower()
    if key not in _ALIASES:
        raise ValueError(f"time_unit: unknown unit {unit!r}; use one of {', '.join(UNITS)}")
    return _ALIASES[key]


@dataclass
class ParsedTimes:
    """Result of :func:`to_millis`: ``ms`` (int64, 0 where invalid) and ``reason`` per row."""

    ms: np.ndarray
    reason: np.ndarray  # object array: None where valid, else the fault
    floored: np.ndarray | None = None  # bool: a fraction of a millisecond was floored away
    mags: np.ndarray | None = None  # float: |epoch number| as written (NaN: not an epoch number)

    def __post_init__(self):
        n = len(self.ms)
        if self.floored is None:
            self.floored = np.zeros(n, dtype=bool)
        if self.mags is None:
            self.mags = np.full(n, np.nan)

    @property
    def valid(self) -> np.ndarray:
        return pd.isna(self.reason)


def to_millis(series: pd.Series, *, column: str, unit: str = "ms", rows: np.ndarray | None = None) -> ParsedTimes:
    """Convert one time column to int64 epoch milliseconds, with a fault per invalid row.

    ``rows`` are the rows' original numbers (used in error messages); default 0..n-1.
    """
    unit = normalize_unit(unit)
    n = len(series)
    rows = np.arange(n, dtype=np.int64) if rows is None else np.asarray(rows)
    series = to_numpy_backed(series.reset_index(drop=True))
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise ColumnTypeError(
            f"column {column!r} holds booleans; expected epoch numbers, timestamps or ISO-8601 strings"
        )
    if isinstance(dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(dtype):
        return _datetimes_to_ms(series)
    if pd.api.types.is_timedelta64_dtype(dtype):
        raise ColumnTypeError(f"column {column!r} holds durations (timedelta); expected points in time")
    if pd.api.types.is_numeric_dtype(dtype):
        return _numbers_to_ms(series, column=column, unit=unit, rows=rows)
    return _objects_to_ms(series, column=column, unit=unit, rows=rows)


def to_numpy_backed(series: pd.Series) -> pd.Series:
    if isinstance(series.dtype, pd.ArrowDtype):
        import pyarrow as pa

        return pd.Series(pa.chunked_array(pa.array(series)).to_pandas(), name=series.name)
    if isinstance(series.dtype, pd.StringDtype):
        return series.astype(object).where(series.notna(), None)
    return series


def _numbers_to_ms(series: pd.Series, *, column: str, unit: str, rows: np.ndarray) -> ParsedTimes:
    n = len(series)
    null = series.isna().to_numpy()
    reason = np.full(n, None, dtype=object)
    reason[null] = NULL
    dtype = series.dtype
    if pd.api.types.is_integer_dtype(dtype):
        if pd.api.types.is_unsigned_integer_dtype(dtype):
            raw = series.to_numpy(dtype=np.uint64, na_value=0)
            too_big = raw > np.uint64(_INT64_MAX)
            reason[too_big & ~null] = OUT_OF_RANGE
            ints = np.where(too_big, 0, raw).astype(np.int64)
        else:
            ints = series.to_numpy(dtype=np.int64, na_value=0)
        ok = ~null
        check_units(np.abs(ints[ok].astype(np.float64)), rows[ok], ints[ok], column=column, unit=unit)
        ms, over = ints_to_ms(ints, unit)
        reason[over & pd.isna(reason)] = OUT_OF_RANGE
        floored = (ints % _INT_DIV[unit] != 0) if unit in _INT_DIV else np.zeros(n, dtype=bool)
        mags = np.where(ok, np.abs(ints.astype(np.float64)), np.nan)
    else:
        floats = series.to_numpy(dtype=np.float64, na_value=np.nan)
        inf = np.isinf(floats)
        reason[inf] = NOT_FINITE
        ok = np.isfinite(floats)
        check_units(np.abs(floats[ok]), rows[ok], floats[ok], column=column, unit=unit)
        ms, over = floats_to_ms(np.where(ok, floats, 0.0), unit)
        reason[over & pd.isna(reason)] = OUT_OF_RANGE
        floored = ok & has_fraction(np.where(ok, floats, 0.0), unit)
        mags = np.where(ok, np.abs(floats), np.nan)
    ms[~pd.isna(reason)] = 0
    return ParsedTimes(ms, reason, floored & pd.isna(reason), mags)


def has_fraction(floats: np.ndarray, unit: str) -> np.ndarray:
    """True where a finite float epoch number in ``unit`` is not a whole number of ms."""
    scaled = np.asarray(floats, dtype=np.float64) * _TO_MS[unit]
    with np.errstate(invalid="ignore"):
        return np.isfinite(scaled) & (np.floor(scaled) != scaled)


def ints_to_ms(ints: np.ndarray, unit: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer epoch numbers in ``unit`` to ms (floored); returns (ms, overflow mask)."""
    ints = np.asarray(ints, dtype=np.int64)
    over = np.zeros(len(ints), dtype=bool)
    if unit == "s":
        limit = _INT64_MAX // 1000
        over = (ints > limit) | (ints < -limit)
        ms = np.where(over, 0, ints) * 1000
    elif unit == "ms":
        ms = ints.copy()
    else:
        ms = np.floor_divide(ints, _INT_DIV[unit])
    return ms, over


def floats_to_ms(floats: np.ndarray, unit: str) -> tuple[np.ndarray, np.ndarray]:
    """Finite float epoch numbers in ``unit`` to ms (floored); returns (ms, overflow mask)."""
    scaled = np.floor(np.asarray(floats, dtype=np.float64) * _TO_MS[unit])
    over = (scaled >= _TWO63) | (scaled < -_TWO63)
    ms = np.where(over, 0.0, scaled).astype(np.int64)
    return ms, over


def unit_gaps() -> list[tuple[float, float]]:
    """The magnitude ranges between consecutive units' epoch ranges (s-ms, ms-us, us-ns)."""
    bounds = list(EPOCH_RANGES.values())
    return [(bounds[i][1], bounds[i + 1][0]) for i in range(len(bounds) - 1)]


def mixed_units(found_units: list[str], gap_counts: list[int]) -> bool:
    """Two or more units found and no value between them: a real mix, not one continuum.

    ``gap_counts[i]`` is the number of values strictly inside ``unit_gaps()[i]``. A column
    of small times running continuously from ~1e8 to ~1e12 (a long synthetic log in us,
    say) has values in between and is not reported.
    """
    if len(found_units) < 2:
        return False
    order = list(EPOCH_RANGES)
    first, last = order.index(found_units[0]), order.index(found_units[-1])
    return sum(gap_counts[first:last]) == 0


def check_units(magnitudes: np.ndarray, rows: np.ndarray, raw: np.ndarray, *, column: str, unit: str) -> None:
    """Raise :class:`MixedUnitsError` when epoch numbers look like two or more units.

    A value "looks like" unit u when it is an epoch between 1990 and 2100 in u. Values in
    no such range never count, and values lying between two such ranges show a continuum
    (see :func:`mixed_units`), so only real contradictions (1.7e9 next to 1.7e12 with
    nothing in between) are reported.
    """
    if len(magnitudes) == 0:
        return
    found = []
    for u, (lo, hi) in EPOCH_RANGES.items():
        hit = np.flatnonzero((magnitudes >= lo) & (magnitudes <= hi))
        if len(hit):
            found.append((u, len(hit), int(rows[hit[0]]), raw[hit[0]]))
    if len(found) < 2:
        return
    gaps = [int(((magnitudes > lo) & (magnitudes < hi)).sum()) for lo, hi in unit_gaps()]
    if mixed_units([f[0] for f in found], gaps):
        raise_mixed(column, unit, found)


def raise_mixed(column: str, unit: str, found: list) -> None:
    """``found``: (unit, count, first row, raw value) per unit seen."""
    parts = ", ".join(
        f"{count} look like epoch {_UNIT_WORDS[u]} (e.g. row {row}: {_fmt_number(val)})" for u, count, row, val in found
    )
    raise MixedUnitsError(
        f"column {column!r} mixes epoch units: {parts}; write every time in one unit "
        f"(time_unit={unit!r} was given)"
    )


def _fmt_number(val) -> str:
    if isinstance(val, str):
        return val.strip()
    if isinstance(val, (float, np.floating)) and float(val).is_integer():
        return str(int(val))
    return str(val)


def _datetimes_to_ms(series: pd.Series) -> ParsedTimes:
    if isinstance(series.dtype, pd.DatetimeTZDtype):
        series = series.dt.tz_convert("UTC").dt.tz_localize(None)
    arr = series.to_numpy()
    unit = np.datetime_data(arr.dtype)[0]
    null = np.isnat(arr)
    ints = arr.view(np.int64)
    floored = np.zeros(len(arr), dtype=bool)
    if unit in ("s", "ms", "us", "ns"):
        ms, over = ints_to_ms(np.where(null, 0, ints), unit)
        if unit in _INT_DIV:
            floored = ~null & (ints % _INT_DIV[unit] != 0)
    else:  # coarser units (D, m, h...): go through ms explicitly
        ms = np.where(null, 0, arr.astype("datetime64[ms]").view(np.int64))
        over = np.zeros(len(arr), dtype=bool)
    reason = np.full(len(arr), None, dtype=object)
    reason[over] = OUT_OF_RANGE
    reason[null] = NULL
    ms[null | over] = 0
    return ParsedTimes(ms.astype(np.int64), reason, floored & ~(null | over))


# ISO-8601 as numpy reads it (date, optional time with any fraction), and a zone suffix
_ISO_BODY_RE = r"[+-]?\d{4,}-\d\d-\d\d(?:[T ]\d\d(?::\d\d(?::\d\d(?:[.,]\d+)?)?)?)?"
_ISO_SPLIT_RE = r"^(" + _ISO_BODY_RE + r")(Z|z|[+-]\d\d(?::?\d\d)?)?$"
_NAT = np.iinfo(np.int64).min


def _iso_to_ms_wide(text: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ISO-8601 strings pandas could not parse in nanoseconds, parsed in ms (any int64-ms instant).

    Returns (ms with ``_NAT`` where not loaded, floored mask, out-of-range mask). numpy's
    ``datetime64[ms]`` reads the body (fractions beyond the millisecond are floored away); it
    wraps years beyond the int64-ms range around silently, so the date is read back and
    compared. The zone offset is applied exactly with Python ints.
    """
    n = len(text)
    out = np.full(n, _NAT, dtype=np.int64)
    floored = np.zeros(n, dtype=bool)
    over = np.zeros(n, dtype=bool)
    parts = pd.Series(text, dtype=object).str.extract(_ISO_SPLIT_RE)
    for i in np.flatnonzero(parts[0].notna().to_numpy()):
        body, zone = parts.iat[i, 0].replace(",", "."), parts.iat[i, 1]
        try:
            value = int(np.datetime64(body, "ms").astype(np.int64))
        except (ValueError, OverflowError):
            continue
        date = [int(x) for x in body.lstrip("+").split("T")[0].split(" ")[0].rsplit("-", 2)]
        back = str(np.datetime64(value, "ms")).split("T")[0].rsplit("-", 2) if value != _NAT else []
        if value == _NAT or [int(x) for x in back] != date:
            over[i] = True  # beyond what int64 milliseconds can hold
            continue
        frac = body.partition(".")[2]
        floored[i] = len(frac) > 3 and frac[3:].strip("0") != ""
        if isinstance(zone, str) and zone not in ("Z", "z"):
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            minutes = int(digits[:2]) * 60 + (int(digits[2:4]) if len(digits) > 2 else 0)
            value -= sign * minutes * 60_000
        if -(2**63) < value <= _INT64_MAX:
            out[i] = value
        else:
            over[i] = True
    return out, floored & (out != _NAT), over


def _objects_to_ms(series: pd.Series, *, column: str, unit: str, rows: np.ndarray) -> ParsedTimes:
    null = series.isna().to_numpy()
    kind = pd.api.types.infer_dtype(series, skipna=True)
    if kind in ("integer", "mixed-integer-float") and _python_ints_beyond_int64(series, null):
        kind = "string"  # exact: the text path checks integers of any size
    if kind in ("integer", "floating", "mixed-integer-float", "decimal"):
        nums = pd.to_numeric(series, errors="coerce")
        if kind == "integer" and not nums.isna().any():
            nums = nums.astype(np.int64)
        return _numbers_to_ms(nums, column=column, unit=unit, rows=rows)
    if kind in ("datetime", "datetime64", "date"):
        try:
            parsed = _datetimes_to_ms(pd.to_datetime(series, utc=True, errors="coerce"))
        except (TypeError, ValueError):
            parsed = None
        if parsed is not None:
            _wide_datetimes(series, null, parsed)
            return parsed
    if kind == "boolean":
        raise ColumnTypeError(
            f"column {column!r} holds booleans; expected epoch numbers, timestamps or ISO-8601 strings"
        )
    # strings, or a mixture: read each value as text
    text = series.astype(str).str.strip()
    text[null] = ""
    return strings_to_ms(text, null, column=column, unit=unit, rows=rows)


def _python_ints_beyond_int64(series: pd.Series, null: np.ndarray) -> bool:
    vals = series.to_numpy(dtype=object)[~null]
    return any(isinstance(v, int) and not -(2**63) <= v < 2**63 for v in vals)


def _wide_datetimes(series: pd.Series, null: np.ndarray, parsed: ParsedTimes) -> None:
    """Python dates and datetimes beyond pandas' nanosecond range (year 9999, say), in ms."""
    import datetime as _dt

    for i in np.flatnonzero(~null & (parsed.reason == NULL)):
        v = series.iat[i]
        if isinstance(v, _dt.datetime):
            if v.tzinfo is not None:
                v = (v - v.utcoffset()).replace(tzinfo=None)
            value = int(np.datetime64(v, "us").astype(np.int64))
            parsed.ms[i], parsed.reason[i] = value // 1000, None
            parsed.floored[i] = value % 1000 != 0
        elif isinstance(v, _dt.date):
            parsed.ms[i], parsed.reason[i] = int(np.datetime64(v, "ms").astype(np.int64)), None
        else:
            parsed.reason[i] = UNPARSABLE


def strings_to_ms(text: pd.Series, null: np.ndarray, *, column: str, unit: str, rows: np.ndarray) -> ParsedTimes:
    """Numeric strings are epoch numbers in ``unit``; other strings are ISO-8601."""
    n = len(text)
    ms = np.zeros(n, dtype=np.int64)
    reason = np.full(n, None, dtype=object)
    reason[null] = NULL
    floored = np.zeros(n, dtype=bool)
    mags = np.full(n, np.nan)
    numeric = text.str.fullmatch(NUMERIC_RE).to_numpy(dtype=bool) & ~null
    integer = text.str.fullmatch(INTEGER_RE).to_numpy(dtype=bool) & numeric
    decimal = numeric & ~integer
    if numeric.any():
        mags = np.zeros(n, dtype=np.float64)
        ints = np.zeros(n, dtype=np.int64)
        int_over = np.zeros(n, dtype=bool)
        if integer.any():
            digits = text[integer].str.lstrip("+-").str.lstrip("0").str.len().to_numpy()
            idx = np.flatnonzero(integer)
            small = digits <= 18
            ints[idx[small]] = text.iloc[idx[small]].astype(np.int64).to_numpy()
            for i in idx[~small]:  # 19+ digits: rare, checked exactly with Python ints
                v = int(text.iat[i])
                if -(2**63) <= v <= _INT64_MAX:
                    ints[i] = v
                else:
                    int_over[i] = True
            mags[integer] = np.abs(ints[integer].astype(np.float64))
            mags[int_over] = np.abs(text[int_over].astype(np.float64).to_numpy())
        if decimal.any():
            floats = text[decimal].astype(np.float64).to_numpy()
            mags[decimal] = np.abs(floats)
        ok = numeric & np.isfinite(mags)
        mags[~ok] = np.nan
        check_units(mags[ok], rows[ok], text.to_numpy()[ok], column=column, unit=unit)
        if integer.any():
            good = integer & ~int_over
            conv, over = ints_to_ms(ints[good], unit)
            ms[good] = conv
            if unit in _INT_DIV:
                floored[good] = ints[good] % _INT_DIV[unit] != 0
            bad = np.flatnonzero(good)[over]
            reason[bad] = OUT_OF_RANGE
            reason[int_over] = OUT_OF_RANGE
        if decimal.any():
            floats = text[decimal].astype(np.float64).to_numpy()
            fin = np.isfinite(floats)
            conv, over = floats_to_ms(np.where(fin, floats, 0.0), unit)
            idx = np.flatnonzero(decimal)
            ms[idx] = conv
            floored[idx] = fin & has_fraction(np.where(fin, floats, 0.0), unit)
            reason[idx[~fin]] = NOT_FINITE
            reason[idx[fin & over]] = OUT_OF_RANGE
    special = text.str.fullmatch(NON_FINITE_RE, case=False).to_numpy(dtype=bool) & ~null & ~numeric
    reason[special] = NOT_FINITE
    iso = ~null & ~numeric & ~special
    if iso.any():
        sub = text[iso]
        zoned = sub.str.fullmatch(_ZONE_RE).to_numpy(dtype=bool)
        parsed = np.full(len(sub), _NAT, dtype=np.int64)
        sub_floored = np.zeros(len(sub), dtype=bool)
        for mask in (zoned, ~zoned):
            if mask.any():
                dt = pd.to_datetime(sub[mask], utc=True, format="ISO8601", errors="coerce")
                got = _datetimes_to_ms(dt)
                parsed[mask] = got.ms
                sub_floored[mask] = got.floored
                parsed[np.flatnonzero(mask)[dt.isna().to_numpy()]] = _NAT
        missed = parsed == _NAT
        sub_over = np.zeros(len(sub), dtype=bool)
        if missed.any():  # outside pandas' nanosecond range (years before 1677 or after 2262)
            wide, wide_floored, wide_over = _iso_to_ms_wide(sub.to_numpy(dtype=object)[missed])
            parsed[missed] = wide
            sub_floored[missed] = wide_floored
            sub_over[missed] = wide_over
        idx = np.flatnonzero(iso)
        bad = parsed == _NAT
        ms[idx[~bad]] = parsed[~bad]
        floored[idx[~bad]] = sub_floored[~bad]
        reason[idx[bad]] = UNPARSABLE
        reason[idx[sub_over]] = OUT_OF_RANGE
    valid = pd.isna(reason)
    ms[~valid] = 0
    return ParsedTimes(ms, reason, floored & valid, mags)
