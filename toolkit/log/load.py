"""Loading in pandas: a file, a folder of parts or a pandas DataFrame to an :class:`EventLog`.

Readers are pyarrow (CSV, Parquet) and pandas (JSON lines, whose columns may mix numbers
and strings). Every source becomes one pandas DataFrame that :func:`canonicalize` maps to
the canonical columns, quarantining bad rows. The Spark backend (:mod:`toolkit.log.spark`)
applies the same rules in Spark; :func:`toolkit.log.load_log` chooses between the two.
"""
from __future__ import annotations

import contextlib
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from toolkit.log import checks, times
from toolkit.log.errors import ColumnTypeError, EmptyLogError, LogReadError, LogWarning, MissingColumnError
from toolkit.log.formats import AUTO, ColumnMap, detect_format, list_parts
from toolkit.log.model import CANONICAL_COLUMNS, EventLog
from toolkit.log.quarantine import Faults, enforce

NULL = "null"
NOT_A_NUMBER = "not a number"
NOT_AN_INTEGER = "not an integer"
NEGATIVE = "negative"
NOT_FINITE = "not finite"
OUT_OF_RANGE = "integer out of int64 range"
ROUNDED = "integer beyond 2^53 among decimals (float64 would round it)"
_EXACT_FLOAT = 2.0**53  # float64 holds every integer up to this exactly


def load_pandas(
    source: Any,
    mapping: dict[str, Any],
    *,
    time_unit: str = "ms",
    max_invalid_fraction: float = 0.0,
    format: str | None = None,
    keep: list[str] = (),
) -> EventLog:
    """Load a path or a pandas DataFrame in pandas (see :func:`toolkit.log.load_log`).

    ``mapping`` holds ``load_log``'s column arguments (role -> column name, "auto" or None);
    ``time_unit`` is a normalized unit (:func:`toolkit.log.times.normalize_unit`); ``keep``:
    more columns of the source carried along unchanged (valid rows only).
    """
    if isinstance(source, pd.DataFrame):
        frame, name = source, "DataFrame"
    elif isinstance(source, (str, os.PathLike)):
        frame, name = read_path(Path(source), format=format, string_columns=_string_columns(mapping),
                                exact_columns=_exact_columns(mapping)), str(source)
    else:
        raise TypeError(
            f"load_log: cannot read a {type(source).__name__}; give a path, a pandas DataFrame or a Spark DataFrame"
        )
    if len(frame) == 0:
        header = len(frame.columns) and not isinstance(source, pd.DataFrame)
        raise EmptyLogError(f"{name} has no records" + (" (only a header)" if header else ""))
    cmap = ColumnMap.resolve(frame.columns, source=name, **mapping)
    kept = kept_columns(keep, frame.columns, name)
    log = canonicalize(frame, cmap, time_unit=time_unit, max_invalid_fraction=float(max_invalid_fraction), source=name)
    rows = log.table["row"].to_numpy()
    for c in kept:
        log.table[c] = frame[c].to_numpy()[rows]
    log.unused_columns = [c for c in cmap.unused(frame.columns) if c not in kept]
    return log


def kept_columns(keep: Any, columns, source: str) -> list[str]:
    """The columns ``keep`` names, checked to exist (a canonical name is always kept: skipped)."""
    if keep is None:
        return []
    if isinstance(keep, str):
        keep = [keep]
    names = [str(c) for c in columns]
    out = []
    for c in keep:
        if not isinstance(c, str) or not c:
            raise TypeError(f"keep: column names are strings, got {c!r}")
        if c in CANONICAL_COLUMNS or c in out:
            continue
        if c not in names:
            shown = ", ".join(repr(x) for x in names[:20]) or "(none)"
            err = MissingColumnError(f"column {c!r} (kept with keep=) not found in {source}; available columns: {shown}")
            err.column = c
            raise err
        if names.count(c) > 1:
            raise MissingColumnError(f"column {c!r} (kept with keep=) appears {names.count(c)} times in {source}")
        out.append(c)
    return out


def from_arrays(
    event_time,
    arrival_time=None,
    key=None,
    partition=None,
    value=None,
    *,
    time_unit: str = "ms",
) -> EventLog:
    """:meth:`EventLog.from_arrays`: a (small) log from arrays of epoch numbers in ``time_unit``."""
    event_time = np.asarray(event_time)
    n = len(event_time)
    data: dict[str, Any] = {"event_time": event_time}
    for name, arr in (("arrival_time", arrival_time), ("key", key), ("partition", partition), ("value", value)):
        if arr is None:
            continue
        if np.ndim(arr) == 0:
            arr = np.repeat(np.asarray([arr], dtype=object if isinstance(arr, str) else None), n)
        data[name] = arr
    frame = pd.DataFrame(data)
    mapping = ColumnMap(
        event_time="event_time",
        arrival_time="arrival_time" if arrival_time is not None else None,
        key="key" if key is not None else None,
        partition="partition" if partition is not None else None,
        value="value" if value is not None else None,
    )
    log = canonicalize(frame, mapping, time_unit=time_unit, max_invalid_fraction=0.0, source="arrays")
    for message in log.warnings:  # as load_log does: floored fractions, a unit that looks wrong
        warnings.warn(message, LogWarning, stacklevel=3)
    return log


def _exact_columns(mapping: dict) -> list[str]:
    """Time and value columns: read as text again when a reader turned big integers into floats."""
    out = []
    for role in ("event_time", "arrival_time", "value"):
        name = mapping.get(role, AUTO)
        if name is not None:
            out.append(role if name == AUTO else str(name))
    return out


def _string_columns(mapping: dict) -> list[str]:
    # keys are names: "007" must stay "007", so the key column is read as text
    key = mapping.get("key")
    return ["key" if key in (AUTO, None) else str(key)] if key is not None else []


# ---------------------------------------------------------------------- readers
def read_path(path: Path, *, format: str | None = None, string_columns: list[str] = (),
              exact_columns: list[str] = ()) -> pd.DataFrame:
    """Read a file, or every part of a folder in name order, into one DataFrame."""
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {str(path)!r}")
    if path.is_dir():
        parts = list_parts(path)
        fmt = detect_format(parts[0], format)
        if format is None:
            _check_one_format(path, parts, fmt)
        frames = []
        for part in parts:
            if part.stat().st_size == 0:
                continue  # writers leave empty parts; they hold no rows
            try:
                frame = read_file(part, fmt, string_columns, exact_columns)
            except EmptyLogError:
                continue
            except LogReadError as exc:
                raise LogReadError(f"part {part.name!r} of folder {str(path)!r}: {exc}") from exc
            except Exception as exc:  # noqa: BLE001 - re-raised with the part named
                raise LogReadError(
                    f"cannot read part {part.name!r} of folder {str(path)!r} as {fmt}: {_first_line(exc)}"
                ) from exc
            if len(frame):  # an empty part (a Parquet file with only a schema) adds nothing
                frames.append(frame)
        if not frames:
            raise EmptyLogError(f"folder {str(path)!r} has no records")
        return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    fmt = detect_format(path, format)
    if path.stat().st_size == 0:
        raise EmptyLogError(f"file {str(path)!r} is empty")
    try:
        return read_file(path, fmt, string_columns, exact_columns)
    except (EmptyLogError, FileNotFoundError, LogReadError):
        raise
    except Exception as exc:  # noqa: BLE001
        raise LogReadError(f"cannot read {str(path)!r} as {fmt}: {_first_line(exc)}") from exc


def _check_one_format(folder: Path, parts: list[Path], fmt: str) -> None:
    """Parts whose names say another format than the first part's are an error naming both
    (read as the first part's format they would fail with a misleading message); a part whose
    name says no format is read as the first part's."""
    for part in parts[1:]:
        try:
            other = detect_format(part)
        except ValueError:
            continue
        if other != fmt:
            raise LogReadError(
                f"folder {str(folder)!r} mixes formats: part {parts[0].name!r} is {fmt}, part {part.name!r} is "
                f"{other}; keep one format per folder (or pass format= to read every part as one format)")


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    if "truncated" in first.lower() or isinstance(exc, EOFError):
        first += " (the compressed file ends early: it was cut off while being written or copied)"
    return first if len(first) <= 300 else first[:297] + "..."


def _excerpt(text: str, width: int = 80) -> str:
    text = text.rstrip("\r\n")
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _open_text(path: Path):
    """A text handle on ``path`` (gzip, bz2, xz decompressed by suffix)."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        import gzip

        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    if suffix == ".bz2":
        import bz2

        return bz2.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    if suffix == ".xz":
        import lzma

        return lzma.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    return open(path, encoding="utf-8", errors="replace", newline="")


def _int_mapper(dtype):
    import pyarrow as pa

    if pa.types.is_integer(dtype):
        return pd.Int64Dtype() if pa.types.is_signed_integer(dtype) else pd.UInt64Dtype()
    return None


def read_file(path: Path, fmt: str, string_columns: list[str] = (), exact_columns: list[str] = ()) -> pd.DataFrame:
    import pyarrow as pa

    if fmt == "csv":
        return _read_csv(path, string_columns, exact_columns)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except pa.ArrowInvalid as exc:
            if "magic bytes not found" in str(exc):
                raise LogReadError(f"{str(path)!r} is not a Parquet file (it does not end with Parquet's magic "
                                   f"bytes): is it in another format, or was it cut off while being written or "
                                   f"copied?") from None
            raise
        return _to_pandas(table, exact_columns)
    if fmt == "jsonl":
        # pyarrow keeps int64 with nulls exact (pandas would go through float: ns times lose digits);
        # a column mixing numbers and strings (bad rows) makes pyarrow give up: pandas then keeps
        # each value as it is (Python ints stay exact) and the bad ones are quarantined. Integers
        # pyarrow could only read as floats (beyond 2^53), and lines neither can read, go through
        # Python's json (exact integers of any size; the first broken line is named).
        import pyarrow.json as pj

        try:
            table = pj.read_json(path)
        except pa.ArrowInvalid:
            try:
                frame = pd.read_json(path, lines=True, convert_dates=False, dtype=False, precise_float=True)
            except Exception:  # noqa: BLE001 - Python's json names the line (or reads what pandas could not)
                frame = _read_json_lines_exactly(path)
        else:
            frame = _to_pandas(table, exact_columns)
            if _rounded_integers(frame):
                frame = _read_json_lines_exactly(path)
        for c in string_columns:
            if c in frame.columns and not isinstance(frame[c], pd.DataFrame):
                frame[c] = pd.Series(_as_text(frame[c]), dtype=object).where(frame[c].notna(), None)
        return frame
    raise ValueError(f"unknown format {fmt!r}")


def _to_pandas(table, exact_columns=()) -> pd.DataFrame:
    """An Arrow table as pandas; a NaN written in a time or value column stays "NaN" (pandas would make it a null)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    frame = table.to_pandas(types_mapper=_int_mapper)
    for i, f in enumerate(table.schema):
        if pa.types.is_floating(f.type) and f.name in exact_columns:
            nan = pc.fill_null(pc.is_nan(table.column(i)), False).to_numpy(zero_copy_only=False)
            if nan.any():
                col = frame.iloc[:, i].astype(object)
                col[nan] = "NaN"
                frame.isetitem(i, col.where(~(frame.iloc[:, i].isna().to_numpy() & ~nan), None))
    return frame


def _rounded_integers(frame: pd.DataFrame) -> list[str]:
    """Float columns holding integral values beyond 2^53: the reader may have rounded them."""
    out = []
    for i, c in enumerate(frame.columns):
        col = frame.iloc[:, i]
        if pd.api.types.is_float_dtype(col.dtype):
            v = col.to_numpy(dtype=np.float64, na_value=np.nan)
            with np.errstate(invalid="ignore"):
                if np.any(np.isfinite(v) & (np.abs(v) >= _EXACT_FLOAT) & (np.floor(v) == v)):
                    out.append(str(c))
    return out


def _read_csv(path: Path, string_columns, exact_columns=()) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    convert = pcsv.ConvertOptions(
        column_types={c: pa.string() for c in string_columns},
        null_values=[""],  # only empty cells are null: "n/a" or "NULL" stay visible in the quarantine
        strings_can_be_null=True,
        # no timestamp inference: Arrow would parse ISO strings to nanoseconds and wrap years
        # after 2262 around silently; the time columns are parsed in ms by toolkit.log.times
        timestamp_parsers=["%Y-never-a-timestamp"],
    )
    bad: list = []

    def invalid_row(row):
        bad.append((row.expected_columns, row.actual_columns, row.text))
        return "error"

    parse = pcsv.ParseOptions(delimiter=delimiter, invalid_row_handler=invalid_row)
    undecodable: list[UnicodeDecodeError] = []
    try:
        with _row_text_errors_kept(undecodable):
            table = pcsv.read_csv(path, parse_options=parse, convert_options=convert)
    except pa.ArrowInvalid as exc:
        if "Empty CSV file" in str(exc):
            raise EmptyLogError(f"file {str(path)!r} is empty") from None
        if undecodable:
            err = undecodable[0]
            raise LogReadError(
                f"{str(path)!r} is not UTF-8 text (byte 0x{err.object[err.start]:02x} cannot be decoded): is it a "
                f"binary file, or a file in another format than csv? A csv log must be UTF-8 text") from None
        if bad:
            expected, actual, text = bad[0]
            line = _line_number(path, text)
            where = f"line {line}" if line else "a line"
            raise LogReadError(
                f"{str(path)!r}, {where}: expected {expected} fields (as in the header), found {actual}: "
                f"{_excerpt(text)}; fix or remove that line (a quoted field may be missing its closing quote)"
            ) from None
        raise
    frame = _to_pandas(table, exact_columns)
    rounded = [c for c in _rounded_integers(frame) if c in exact_columns]
    if rounded:  # re-read those columns as text: integers beyond 2^53 are checked exactly
        with _row_text_errors_kept(undecodable):
            text = pcsv.read_csv(path, parse_options=parse, convert_options=pcsv.ConvertOptions(
                include_columns=rounded, column_types={c: pa.string() for c in rounded},
                null_values=[""], strings_can_be_null=True))
        for c in rounded:
            frame[c] = text.column(c).to_pandas()
    return frame


@contextlib.contextmanager
def _row_text_errors_kept(errors: list):
    """Keep the text errors pyarrow meets in our invalid-row handler (it decodes a bad row as
    UTF-8 before calling it) instead of letting Python print them ("Exception ignored in ...
    Traceback ..."): binary garbage read as csv then ends in one clear error. Any other
    unraisable exception goes to the hook as before."""
    previous = sys.unraisablehook

    def keep(unraisable):
        if isinstance(unraisable.exc_value, UnicodeDecodeError) and "invalid_row" in repr(unraisable.object):
            errors.append(unraisable.exc_value)
        else:
            previous(unraisable)

    sys.unraisablehook = keep
    try:
        yield
    finally:
        sys.unraisablehook = previous


def _line_number(path: Path, text: str) -> int | None:
    """The 1-based line of ``path`` that reads ``text`` (first match), for error messages."""
    try:
        with _open_text(path) as handle:
            for number, line in enumerate(handle, 1):
                if line.rstrip("\r\n") == text.rstrip("\r\n"):
                    return number
    except (OSError, EOFError):
        return None
    return None


def _read_json_lines_exactly(path: Path) -> pd.DataFrame:
    """JSON lines through Python's json: exact integers; the first broken line is an error."""
    import json

    records = []
    with _open_text(path) as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line.rstrip("\r\n"))
            except ValueError as exc:
                raise LogReadError(
                    f"{str(path)!r}, line {number}: not valid JSON ({exc.args[0].split(':')[0]}): {_excerpt(line)}; "
                    f"fix or remove that line"
                ) from None
            if not isinstance(record, dict):
                raise LogReadError(
                    f"{str(path)!r}, line {number}: a JSON {type(record).__name__}, expected an object "
                    f"{{\"column\": value, ...}}: {_excerpt(line)}"
                )
            records.append(record)
    if not records:
        raise EmptyLogError(f"file {str(path)!r} has no records")
    frame = pd.DataFrame.from_records(records)
    for c in frame.columns:  # keep Python ints (exact) rather than floats when a column has nulls
        col = frame[c]
        if col.dtype == object:
            continue
        if pd.api.types.is_float_dtype(col.dtype):
            frame[c] = pd.Series([r.get(c) for r in records], dtype=object)
    return frame


# ---------------------------------------------------------------------- canonical form
def canonicalize(
    frame: pd.DataFrame,
    mapping: ColumnMap,
    *,
    time_unit: str = "ms",
    max_invalid_fraction: float = 0.0,
    source: str = "DataFrame",
) -> EventLog:
    """Map ``frame``'s columns to the canonical table, quarantining bad rows (vectorized)."""
    n = len(frame)
    if n == 0:
        raise EmptyLogError(f"{source} has no records")
    for role, col in mapping.items():
        if col not in frame.columns:
            raise MissingColumnError(f"column {col!r} (for {role}) not found in {source}")
    rows = np.arange(n, dtype=np.int64)
    faults = Faults(rows)
    out: dict[str, Any] = {"row": rows}

    parsed_times = {}
    for role in ("event_time", "arrival_time"):
        col = getattr(mapping, role)
        if col is None:
            continue
        parsed = times.to_millis(frame[col], column=col, unit=time_unit, rows=rows)
        faults.add(parsed.reason, col, frame[col])
        out[role] = parsed.ms
        parsed_times[col] = parsed

    if mapping.key is not None:
        keys, reason = key_column(frame[mapping.key], column=mapping.key)
        faults.add(reason, mapping.key, frame[mapping.key])
        out["key"] = keys
    else:
        out["key"] = np.full(n, "default", dtype=object)

    names: list[str] | None = None
    if mapping.partition is not None:
        codes, reason, labels = partition_column(frame[mapping.partition], column=mapping.partition)
        faults.add(reason, mapping.partition, frame[mapping.partition])
        out["partition"] = codes
    else:
        out["partition"] = np.zeros(n, dtype=np.int64)
        labels = None

    if mapping.value is not None:
        values, reason = value_column(frame[mapping.value], column=mapping.value)
        faults.add(reason, mapping.value, frame[mapping.value])
        out["value"] = values
    else:
        out["value"] = np.ones(n, dtype=np.int64)

    quarantine = faults.frame()
    enforce(quarantine, n, max_invalid_fraction, source)
    valid = faults.valid
    table = pd.DataFrame({k: v[valid] if len(quarantine) else v for k, v in out.items()}, copy=False)
    if labels is not None:  # string partitions: codes over the valid rows, names sorted
        codes, uniques = pd.factorize(pd.Series(labels[valid] if len(quarantine) else labels), sort=True)
        table["partition"] = codes.astype(np.int64)
        names = [str(u) for u in uniques]
    table = table.astype({"row": np.int64, "event_time": np.int64, "partition": np.int64})
    if "arrival_time" in table.columns:
        table["arrival_time"] = table["arrival_time"].astype(np.int64)
    table["key"] = table["key"].astype(object)
    log = EventLog(table, quarantine, partition_names=names, source=source, n_input=n)
    notes: list[str] = []
    for col, parsed in parsed_times.items():
        f = time_figures(parsed, frame[col], valid, rows, column=col, unit=time_unit)
        if f.floored:
            log.floored[col] = f.floored
        notes += checks.column_warnings(f, len(table))
    if "arrival_time" in table.columns:
        et, at = table["event_time"].to_numpy(), table["arrival_time"].to_numpy()
        early = np.flatnonzero(at < et - checks.DAY_MS)
        example = (int(table["row"].iat[early[0]]), int(et[early[0]]), int(at[early[0]])) if len(early) else None
        notes += checks.arrival_warning(len(early), len(table), example)
    log.warnings = notes
    return log


def time_figures(parsed, raw: pd.Series, valid: np.ndarray, rows: np.ndarray, *, column: str, unit: str):
    """The figures :mod:`toolkit.log.checks` needs about one parsed time column."""
    f = checks.TimeColumnFigures(column=column, unit=unit)
    mags = parsed.mags
    numeric = np.isfinite(mags)
    f.numeric = int(numeric.sum())
    for u, (lo, hi) in times.EPOCH_RANGES.items():
        hit = np.flatnonzero(numeric & (mags >= lo) & (mags <= hi))
        if len(hit):
            f.in_range[u] = (len(hit), int(rows[hit[0]]), raw.iat[hit[0]])
    floored = np.flatnonzero(parsed.floored & valid)
    f.floored = len(floored)
    if len(floored):
        i = floored[0]
        f.floored_example = (int(rows[i]), raw.iat[i], int(parsed.ms[i]))
    far = np.flatnonzero(valid & (parsed.ms >= checks.FAR_FUTURE_MS))
    f.far_future = len(far)
    if len(far):
        i = far[0]
        f.far_example = (int(rows[i]), raw.iat[i], int(parsed.ms[i]))
        f.far_numeric = bool(numeric[i])
        f.far_unit = checks.unit_fitting(float(mags[i])) if numeric[i] else None
    return f


def _as_text(series: pd.Series) -> np.ndarray:
    """Cells as str (object array), vectorized; strings are kept as they are."""
    if _kind(series) == "string":
        return series.to_numpy(dtype=object).copy()
    return series.astype(str).to_numpy(dtype=object)


def _kind(series: pd.Series) -> str:
    return pd.api.types.infer_dtype(series, skipna=True)


def key_column(series: pd.Series, *, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Keys as strings; null keys are faults (Flink's keyBy rejects null keys)."""
    series = times.to_numpy_backed(series.reset_index(drop=True))
    null = series.isna().to_numpy()
    reason = np.full(len(series), None, dtype=object)
    reason[null] = NULL
    if pd.api.types.is_float_dtype(series.dtype):
        vals = series.to_numpy(dtype=np.float64, na_value=np.nan)
        integral = np.isfinite(vals) & (np.floor(vals) == vals)
        text = np.where(integral, np.nan_to_num(vals).astype(np.int64).astype(str), vals.astype(str)).astype(object)
    elif pd.api.types.is_integer_dtype(series.dtype):
        text = series.to_numpy(dtype=np.int64, na_value=0).astype(str).astype(object)
    else:
        text = _as_text(series)
    text[null] = ""
    return text, reason


def partition_column(series: pd.Series, *, column: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Integer partitions as int64 (negative ones are faults); string ones returned as labels to factorize."""
    series = times.to_numpy_backed(series.reset_index(drop=True))
    n = len(series)
    null = series.isna().to_numpy()
    reason = np.full(n, None, dtype=object)
    reason[null] = NULL
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise ColumnTypeError(f"column {column!r} (partition) holds booleans; expected integers or names")
    kind = _kind(series)
    if pd.api.types.is_numeric_dtype(dtype) or kind in ("integer", "floating", "mixed-integer-float"):
        vals = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        if pd.api.types.is_integer_dtype(dtype):
            ints = series.to_numpy(dtype=np.int64, na_value=0)
        else:
            ok = np.isfinite(vals)
            ints = np.where(ok, vals, 0).astype(np.int64)
            reason[~null & ~(ok & (np.floor(np.where(ok, vals, 0)) == vals))] = NOT_AN_INTEGER
        reason[(ints < 0) & pd.isna(reason)] = NEGATIVE
        ints = np.where(pd.isna(reason), ints, 0)
        return ints.astype(np.int64), reason, None
    labels = _as_text(series)
    labels[null] = ""
    digits = pd.Series(labels[~null], dtype=object).str.fullmatch(times.INTEGER_RE)
    if len(digits) and digits.all():  # "0", "1", "2": numbered partitions written as text
        ints = np.zeros(n, dtype=np.int64)
        ints[~null] = pd.Series(labels[~null]).astype(np.int64).to_numpy()
        reason[(ints < 0) & pd.isna(reason)] = NEGATIVE
        return np.where(pd.isna(reason), ints, 0), reason, None
    return np.zeros(n, dtype=np.int64), reason, labels


def value_column(series: pd.Series, *, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Numeric values: int64 when every valid value is an integer in the source, else float64.

    Nothing is rounded silently: an integer beyond int64 is a fault (``OUT_OF_RANGE``), and so
    is an integer beyond 2^53 in a column that becomes float64 because other values have
    decimals (``ROUNDED``). A float64 column given as such is taken as it is.
    """
    series = times.to_numpy_backed(series.reset_index(drop=True))
    n = len(series)
    null = series.isna().to_numpy()
    reason = np.full(n, None, dtype=object)
    reason[null] = NULL
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return series.to_numpy(dtype=np.int64, na_value=0), reason
    if pd.api.types.is_unsigned_integer_dtype(dtype):
        raw = series.to_numpy(dtype=np.uint64, na_value=0)
        over = raw > np.uint64(np.iinfo(np.int64).max)
        reason[over & ~null] = OUT_OF_RANGE
        return np.where(over, 0, raw).astype(np.int64), reason
    if pd.api.types.is_integer_dtype(dtype):
        return series.to_numpy(dtype=np.int64, na_value=0), reason
    if pd.api.types.is_float_dtype(dtype):
        vals = series.to_numpy(dtype=np.float64, na_value=np.nan)
        reason[np.isinf(vals)] = NOT_FINITE
        return np.where(np.isfinite(vals), vals, 0.0), reason
    text = pd.Series(_as_text(series)).str.strip()
    nums = pd.to_numeric(text.where(~null, None), errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~null & np.isnan(nums)
    reason[bad] = NOT_A_NUMBER
    reason[~null & np.isinf(nums)] = NOT_FINITE
    is_int = text.str.fullmatch(times.INTEGER_RE).fillna(False).to_numpy(dtype=bool) & ~null
    ints = np.zeros(n, dtype=np.int64)
    idx = np.flatnonzero(is_int & pd.isna(reason))
    if len(idx):
        digits = text.iloc[idx].str.lstrip("+-").str.lstrip("0").str.len().to_numpy()
        small = idx[digits <= 18]
        ints[small] = text.iloc[small].astype(np.int64).to_numpy()
        for i in idx[digits > 18]:  # 19+ digits: rare, checked exactly with Python ints
            v = int(text.iat[i])
            if -(2**63) <= v < 2**63:
                ints[i] = v
            else:
                reason[i] = OUT_OF_RANGE
    ok = pd.isna(reason)
    if ok.any() and is_int[ok].all():
        return np.where(ok, ints, 0), reason
    # decimals present: float64; integers it cannot hold exactly are faults, not rounded
    for i in np.flatnonzero(ok & is_int & (np.abs(nums) >= _EXACT_FLOAT)):
        exact = int(text.iat[i])
        if int(float(exact)) != exact:
            reason[i] = ROUNDED
    ok = pd.isna(reason)
    return np.where(ok, nums, 0.0), reason
