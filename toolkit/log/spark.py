"""The Spark backend of event logs: loading stays distributed (describe() too, in
:mod:`toolkit.log.spark_describe`).

The same rules as the pandas path (:mod:`toolkit.log.load`, :mod:`toolkit.log.times`,
:mod:`toolkit.log.describe`),
written as Spark SQL expressions; only small things come back to the driver: row counts
per input split (to number rows), fault counts per column and reason, the quarantined
rows, partition names.

Row numbers: files are read in sorted name order (the same part files the pandas path
reads); within a file, in read order. A row's number is its position in that order,
computed from ``monotonically_increasing_id`` and per-split counts (no global sort).

Times: Spark parses ISO-8601 strings itself (``try_to_timestamp``); naive strings are
read in the session time zone, so loading requires ``spark.sql.session.timeZone`` = UTC
(which :func:`toolkit.spark.spark_session` sets).

This module imports the pandas side; only ``toolkit/log/__init__.py`` imports it (the
``load_log`` dispatcher and the EventLog operations). pyspark is imported inside the
functions that run work on it, so importing this module does not import Spark.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from toolkit.log import checks, times
from toolkit.log.errors import ColumnTypeError, EmptyLogError, LogError, LogReadError
from toolkit.log.formats import ColumnMap, detect_format, list_parts
from toolkit.log.load import kept_columns
from toolkit.log.model import EventLog
from toolkit.log.quarantine import SAMPLE, empty_quarantine, enforce
from toolkit.spark import spark_session

VALUE_OUT_OF_RANGE = "integer out of int64 range"  # toolkit.log.load.OUT_OF_RANGE
ROUNDED = "integer beyond 2^53 among decimals (float64 would round it)"  # toolkit.log.load.ROUNDED
_UTC_NAMES = {"UTC", "ETC/UTC", "Z", "+00:00", "GMT", "ETC/GMT", "UCT", "ZULU"}
_INT64_MAX = np.iinfo(np.int64).max
_TWO63 = float(2**63)


def is_spark_dataframe(obj: Any) -> bool:
    """True for a pyspark DataFrame (checked without importing pyspark)."""
    cls = type(obj)
    return cls.__name__ == "DataFrame" and cls.__module__.startswith("pyspark.")


def _session(spark):
    if spark is None or spark is True:
        return spark_session()
    return spark


# ---------------------------------------------------------------------- reading
def read_spark(session, path: Path, format: str | None):
    """Spark DataFrame of a file or folder of parts (all CSV/JSON fields read as text), plus format."""
    from pyspark.sql import functions as F

    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {str(path)!r}")
    if path.is_dir():
        parts = list_parts(path)
        fmt = detect_format(parts[0], format)
        files = [str(p) for p in parts if p.stat().st_size > 0]
        if not files:
            raise EmptyLogError(f"folder {str(path)!r} has no records")
    else:
        fmt = detect_format(path, format)
        if path.stat().st_size == 0:
            raise EmptyLogError(f"file {str(path)!r} is empty")
        files = [str(path)]
    reader = session.read
    header = None
    if fmt == "csv":
        sep = "\t" if files[0].lower().endswith(".tsv") else ","
        reader = reader.option("header", True).option("inferSchema", False).option("sep", sep)
        header = csv_header(Path(files[0]), sep)
        if header and len(set(header)) == len(header):
            # malformed rows (too few or too many fields) are caught, not padded or cut silently
            from pyspark.sql import types as T

            schema = T.StructType([T.StructField(h, T.StringType()) for h in header]
                                  + [T.StructField(CORRUPT, T.StringType())])
            reader = reader.schema(schema).option("columnNameOfCorruptRecord", CORRUPT).option("mode", "PERMISSIVE")
        df = reader.csv(files)
    elif fmt == "parquet":
        df = reader.parquet(*files)
    else:
        df = reader.option("primitivesAsString", True).option("columnNameOfCorruptRecord", CORRUPT).json(files)
    return df.withColumn("_wl_file", F.input_file_name()), fmt, files, header


CORRUPT = "_wl_corrupt"


def csv_header(path: Path, sep: str) -> list[str] | None:
    """The first line of a CSV file as column names (BOM stripped), read the way pandas' loader reads it."""
    import csv

    from toolkit.log.load import _open_text

    try:
        with _open_text(path) as handle:
            row = next(csv.reader(handle, delimiter=sep), None)
    except (OSError, EOFError, csv.Error):
        return None
    if not row:
        return None
    row[0] = row[0].lstrip("\ufeff")
    return row


def _raise_corrupt(df, fmt: str) -> None:
    """A malformed CSV row or JSON line: the pandas reader names the file, line and excerpt."""
    from pyspark.sql import functions as F

    from toolkit.log import load as pandas_load

    if CORRUPT not in df.columns:
        return
    # (Spark refuses a query that reads only the corrupt-record column: keep every column)
    bad = df.where(F.col(CORRUPT).isNotNull()).limit(1).collect()
    if not bad:
        return
    uri = bad[0]["_wl_file"]
    path = Path(uri.removeprefix("file://").removeprefix("file:"))
    if fmt == "csv":
        pandas_load._read_csv(path, [], None)
    else:
        pandas_load._read_json_lines_exactly(path)
    raise LogReadError(f"cannot read {str(path)!r} as {fmt}: a malformed line")


# ---------------------------------------------------------------------- expressions
def _div_floor(c, d: int):
    """Floor division of a long column by a positive constant (exact, no overflow)."""
    from pyspark.sql import functions as F

    q = F.call_function("div", c.cast("long"), F.lit(d).cast("long"))  # truncates toward zero
    return q - F.when(c.cast("long") % F.lit(d) < 0, 1).otherwise(0)


def _ints_to_ms(v, unit: str):
    """(ms, out-of-range flag) for a long column in ``unit``."""
    from pyspark.sql import functions as F

    if unit == "s":
        limit = _INT64_MAX // 1000
        over = (v > limit) | (v < -limit)
        return F.when(~over, v * F.lit(1000)), over
    if unit == "ms":
        return v, F.lit(False)
    return _div_floor(v, 1000 if unit == "us" else 1_000_000), F.lit(False)


def _floats_to_ms(x, unit: str):
    from pyspark.sql import functions as F

    factor = {"s": 1000.0, "ms": 1.0, "us": 1e-3, "ns": 1e-6}[unit]
    y = x * F.lit(factor)
    over = (y >= F.lit(_TWO63)) | (y < F.lit(-_TWO63))
    return F.when(~over, F.floor(y).cast("long")), over


def _int_fraction(v, unit: str):
    """True where a long epoch number in ``unit`` is not a whole number of ms."""
    from pyspark.sql import functions as F

    if unit in ("us", "ns"):
        return v % F.lit(1000 if unit == "us" else 1_000_000) != 0
    return F.lit(False)


def _float_fraction(x, unit: str):
    from pyspark.sql import functions as F

    y = x * F.lit({"s": 1000.0, "ms": 1.0, "us": 1e-3, "ns": 1e-6}[unit])
    return y != F.floor(y)


class _TimeExpr:
    """Spark expressions for one time column: ms, fault reason, magnitude (for the unit check), raw."""

    role: str  # the role it is loaded as (event_time, arrival_time), set by the caller

    def __init__(self, df, column: str, unit: str):
        from pyspark.sql import functions as F, types as T

        dtype = df.schema[column].dataType
        c = F.col(f"`{column}`")
        self.column = column
        self.raw = c.cast("string")
        self.sample = c  # typed value shown in the mixed-unit message
        if isinstance(dtype, T.BooleanType):
            raise ColumnTypeError(
                f"column {column!r} holds booleans; expected epoch numbers, timestamps or ISO-8601 strings"
            )
        if isinstance(dtype, T.IntegralType):
            v = c.cast("long")
            ms, over = _ints_to_ms(v, unit)
            self.mag = F.abs(v.cast("double"))
            self.reason = F.when(v.isNull(), "null").when(over, times.OUT_OF_RANGE)
            self.ms = ms
            self.floored = _int_fraction(v, unit)
        elif isinstance(dtype, (T.FloatType, T.DoubleType, T.DecimalType)):
            x = c.cast("double")
            ms, over = _floats_to_ms(x, unit)
            finite = x.isNotNull() & ~F.isnan(x) & (F.abs(x) != F.lit(float("inf")))
            self.mag = F.when(finite, F.abs(x))
            self.reason = (
                F.when(x.isNull() | F.isnan(x), "null")
                .when(~finite, times.NOT_FINITE)
                .when(over, times.OUT_OF_RANGE)
            )
            self.ms = F.when(finite, ms)
            self.floored = finite & _float_fraction(x, unit)
        elif isinstance(dtype, (T.TimestampType, T.TimestampNTZType, T.DateType)):
            ts = c.cast("timestamp")
            self.mag = F.lit(None).cast("double")
            self.reason = F.when(ts.isNull(), "null")
            self.ms = _div_floor(F.unix_micros(ts), 1000)
            self.floored = F.unix_micros(ts) % F.lit(1000) != 0
        elif isinstance(dtype, T.StringType):
            s = F.trim(c)
            numeric = s.rlike("^" + times.NUMERIC_RE + "$")
            integer = s.rlike("^" + times.INTEGER_RE + "$")
            iv = F.expr(f"try_cast(trim(`{column}`) as bigint)")
            dv = F.expr(f"try_cast(trim(`{column}`) as double)")
            int_ms, int_over = _ints_to_ms(iv, unit)
            dbl_ms, dbl_over = _floats_to_ms(dv, unit)
            iso_ms = _div_floor(F.unix_micros(F.expr(f"try_to_timestamp(trim(`{column}`))")), 1000)
            self.raw = s
            self.sample = s
            self.mag = F.when(numeric, F.abs(dv))
            finite = dv.isNotNull() & ~F.isnan(dv) & (F.abs(dv) != F.lit(float("inf")))
            self.reason = (
                F.when(c.isNull(), "null")
                .when(integer & iv.isNull(), times.OUT_OF_RANGE)
                .when(integer & int_over, times.OUT_OF_RANGE)
                .when(numeric & ~integer & ~finite, times.NOT_FINITE)
                .when(numeric & ~integer & dbl_over, times.OUT_OF_RANGE)
                .when(s.rlike("(?i)^" + times.NON_FINITE_RE + "$"), times.NOT_FINITE)
                .when(~numeric & iso_ms.isNull(), times.UNPARSABLE)
            )
            self.ms = F.when(integer, int_ms).when(numeric, dbl_ms).otherwise(iso_ms)
            iso_us = F.unix_micros(F.expr(f"try_to_timestamp(trim(`{column}`))"))
            self.floored = (F.when(integer, _int_fraction(iv, unit))
                            .when(numeric, finite & _float_fraction(dv, unit))
                            .otherwise(iso_us % F.lit(1000) != 0))
        else:
            raise ColumnTypeError(f"column {column!r} has Spark type {dtype.simpleString()}; expected times")


def _text(df, column: str):
    """A column as text; integral floats print as integers (like the pandas path)."""
    from pyspark.sql import functions as F, types as T

    dtype = df.schema[column].dataType
    c = F.col(f"`{column}`")
    if isinstance(dtype, (T.FloatType, T.DoubleType)):
        x = c.cast("double")
        integral = ~F.isnan(x) & (F.abs(x) < F.lit(_TWO63)) & (x == F.floor(x))
        return F.when(integral, F.floor(x).cast("long").cast("string")).otherwise(x.cast("string"))
    return c.cast("string")


# ---------------------------------------------------------------------- loading
def load_spark(source, mapping: dict, *, time_unit: str, max_invalid_fraction: float, format=None, spark=None,
               keep=None):
    """Load into a Spark-backed :class:`EventLog` (see :func:`toolkit.log.load_log`).

    ``mapping``, ``time_unit`` and ``keep`` as for :func:`toolkit.log.load.load_pandas`.
    Five steps, each one function: number the rows, check every column, one aggregate of
    figures, the faults (quarantine), the canonical table and its warnings.
    """
    df, session, name, fmt, files = _read_source(source, mapping, format, spark)
    _require_utc(session)
    user_columns = [c for c in df.columns if c != "_wl_file"]
    if not user_columns:
        raise EmptyLogError(f"{name} has no records")
    df, n_total = _number_rows(df, session, name, fmt, files)
    cmap = ColumnMap.resolve(user_columns, source=name, **mapping)
    kept = kept_columns(keep, user_columns, name)
    checked = _check_columns(df, cmap, time_unit)
    base = _checked_table(df, checked, kept)
    base, agg, pairs = _aggregate(base, checked, cmap, time_unit)
    quarantine, n_bad = _quarantine(base, agg, pairs, n_total, max_invalid_fraction, name)
    canonical, names = _canonical_table(base, checked, cmap, kept, agg)
    log = EventLog(
        None,
        quarantine,
        partition_names=names,
        source=name,
        n_input=n_total,
        spark_df=canonical,
        n_records=n_total - n_bad,
        has_arrival_time=cmap.arrival_time is not None,
    )
    log.unused_columns = [c for c in cmap.unused(user_columns) if c not in kept]
    log.warnings = _load_warnings(log, df, checked, cmap, agg, time_unit, n_total - n_bad)
    return log


def _read_source(source, mapping: dict, format: str | None, spark) -> tuple[Any, Any, str, str | None, list[str]]:
    """``(df, session, name, format, files)`` of a pandas or Spark DataFrame, a file or a folder;
    a file's duplicated column names and unreadable (corrupt) records fail here, as in pandas."""
    from pyspark.sql import functions as F

    if isinstance(source, pd.DataFrame):  # pandas data, loaded in Spark as asked
        source = _session(spark).createDataFrame(source)
    if is_spark_dataframe(source):
        return source.withColumn("_wl_file", F.lit("")), source.sparkSession, "Spark DataFrame", None, []
    session = _session(spark)
    path = Path(source)
    df, fmt, files, header = read_spark(session, path, format)
    name = str(source)
    if header is not None:
        ColumnMap.resolve(header, source=name, **mapping)  # duplicated names: the pandas path's error
    try:
        _raise_corrupt(df, fmt)
    except LogError:
        raise
    except Exception as exc:  # noqa: BLE001 - Spark reports unreadable files here
        raise _read_error(exc, name, fmt, files) from exc
    if CORRUPT in df.columns:
        df = df.drop(CORRUPT)
    return df, session, name, fmt, files


def _require_utc(session) -> None:
    """Naive time strings are read in the session time zone: loading needs it to be UTC."""
    tz = str(session.conf.get("spark.sql.session.timeZone")).upper()
    if tz not in _UTC_NAMES:
        raise LogError(
            f"the Spark session time zone is {tz}; loading needs spark.sql.session.timeZone=UTC "
            "(toolkit.spark_session() sets it)"
        )


def _number_rows(df, session, name: str, fmt: str | None, files: list[str]) -> tuple[Any, int]:
    """Step 1, row numbers: per (file, split) counts to the driver, offsets back as a small map.
    A row's number is its position in file order (``files``), then read order within a file.
    Returns the frame with ``_wl_row`` and the number of input rows."""
    from pyspark.sql import functions as F

    df = df.withColumn("_wl_id", F.monotonically_increasing_id()).withColumn("_wl_split", F.spark_partition_id())
    if not files:
        df = df.persist()  # an arbitrary DataFrame may not recompute identically
    try:
        groups = (
            df.groupBy("_wl_file", "_wl_split")
            .agg(F.count(F.lit(1)).alias("n"), F.min("_wl_id").alias("first"))
            .collect()
        )
    except Exception as exc:  # noqa: BLE001 - Spark reports unreadable files here
        raise _read_error(exc, name, fmt, files) from exc
    n_total = sum(int(g["n"]) for g in groups)
    if n_total == 0:
        raise EmptyLogError(f"{name} has no records" + (" (only a header)" if fmt == "csv" else ""))
    rank = {Path(f).resolve().as_uri(): i for i, f in enumerate(files)}

    def file_rank(uri: str) -> int:
        if not uri:
            return 0
        return rank.get(uri, rank.get(Path(uri.removeprefix("file:")).resolve().as_uri(), len(rank)))

    ordered = sorted(groups, key=lambda g: (file_rank(g["_wl_file"]), g["first"]))
    offsets, acc = [], 0
    for g in ordered:
        offsets.append((g["_wl_file"], int(g["_wl_split"]), int(g["first"]), acc))
        acc += int(g["n"])
    off_df = session.createDataFrame(offsets, "_wl_file string, _wl_split int, _wl_first long, _wl_offset long")
    df = df.join(F.broadcast(off_df), ["_wl_file", "_wl_split"]).withColumn(
        "_wl_row", F.col("_wl_offset") + F.col("_wl_id") - F.col("_wl_first")
    )
    return df, n_total


@dataclass
class _Checked:
    """Step 2's per-column expressions: each canonical column's value (``exprs``) and, per
    checked input column in canonical order, why a row is a fault (``reasons``; the first
    fault wins), its raw text (``rawcols``) and every reason it can give (``vocab``)."""

    exprs: dict[str, Any] = field(default_factory=dict)
    reasons: list[tuple[str, Any]] = field(default_factory=list)
    rawcols: list[Any] = field(default_factory=list)
    vocab: dict[str, list[str]] = field(default_factory=dict)
    time_exprs: list[_TimeExpr] = field(default_factory=list)
    part_is_text: bool = False
    value_is_text: bool = False

    def add(self, column: str, reason, vocab: list[str], raw) -> None:
        """A checked input column: its fault reason, the reasons it can give, its raw text."""
        self.reasons.append((column, reason))
        self.vocab[column] = vocab
        self.rawcols.append(raw)


def _check_columns(df, cmap: ColumnMap, time_unit: str) -> _Checked:
    """Step 2, per-column expressions (first fault wins, in canonical order): times, key,
    partition, value; a role without a column gets its default."""
    from pyspark.sql import functions as F

    checked = _Checked()
    for role in ("event_time", "arrival_time"):
        col = getattr(cmap, role)
        if col is None:
            continue
        te = _TimeExpr(df, col, time_unit)
        te.role = role
        checked.exprs[role] = te.ms
        checked.add(col, te.reason, ["null", times.OUT_OF_RANGE, times.NOT_FINITE, times.UNPARSABLE], te.raw)
        checked.time_exprs.append(te)
    if cmap.key is not None:
        c = F.col(f"`{cmap.key}`")
        checked.exprs["key"] = _text(df, cmap.key)
        checked.add(cmap.key, F.when(c.isNull(), "null"), ["null"], _text(df, cmap.key))
    else:
        checked.exprs["key"] = F.lit("default")
    if cmap.partition is not None:
        _check_partition(df, cmap.partition, checked)
    else:
        checked.exprs["partition"] = F.lit(0).cast("long")
    if cmap.value is not None:
        _check_value(df, cmap.value, checked)
    else:
        checked.exprs["value"] = F.lit(1).cast("long")
    return checked


def _check_partition(df, pc: str, checked: _Checked) -> None:
    """Partitions are non-negative integers (integral, or whole floats) or names (text);
    booleans are a type error."""
    from pyspark.sql import functions as F, types as T

    ptype = df.schema[pc].dataType
    c = F.col(f"`{pc}`")
    if isinstance(ptype, T.BooleanType):
        raise ColumnTypeError(f"column {pc!r} (partition) holds booleans; expected integers or names")
    if isinstance(ptype, T.IntegralType):
        v = c.cast("long")
        reason = F.when(v.isNull(), "null").when(v < 0, "negative")
        checked.exprs["partition"] = v
    elif isinstance(ptype, (T.FloatType, T.DoubleType, T.DecimalType)):
        x = c.cast("double")
        ok = x.isNotNull() & ~F.isnan(x) & (F.abs(x) < F.lit(_TWO63))
        reason = (F.when(x.isNull() | F.isnan(x), "null")
                  .when(~ok | (x != F.floor(x)), "not an integer").when(x < 0, "negative"))
        checked.exprs["partition"] = F.when(ok, F.floor(x).cast("long"))
    else:
        checked.part_is_text = True
        s = c.cast("string")
        reason = F.when(s.isNull(), "null")
        checked.exprs["partition"] = s
    checked.add(pc, reason, ["null", "negative", "not an integer"], _text(df, pc))


def _check_value(df, vc: str, checked: _Checked) -> None:
    """Values are integers (booleans count), finite floats, or text that reads as a number
    within int64 when it is an integer."""
    from pyspark.sql import functions as F, types as T

    vtype = df.schema[vc].dataType
    c = F.col(f"`{vc}`")
    if isinstance(vtype, (T.IntegralType, T.BooleanType)):
        checked.exprs["value"] = c.cast("long")
        reason = F.when(c.isNull(), "null")
    elif isinstance(vtype, (T.FloatType, T.DoubleType, T.DecimalType)):
        x = c.cast("double")
        checked.exprs["value"] = x
        reason = F.when(x.isNull() | F.isnan(x), "null").when(F.abs(x) == F.lit(float("inf")), "not finite")
    else:
        checked.value_is_text = True
        s = F.trim(c.cast("string"))
        d = F.expr(f"try_cast(trim(cast(`{vc}` as string)) as double)")
        checked.exprs["value"] = s
        big = s.rlike("^" + times.INTEGER_RE + "$") & F.expr(f"try_cast(trim(cast(`{vc}` as string)) as bigint)").isNull()
        reason = (F.when(c.isNull(), "null").when(d.isNull() | F.isnan(d), "not a number")
                  .when(F.abs(d) == F.lit(float("inf")), "not finite").when(big, VALUE_OUT_OF_RANGE))
    checked.add(vc, reason, ["null", "not a number", "not finite", VALUE_OUT_OF_RANGE],
                _text(df, vc) if not checked.value_is_text else c.cast("string"))


def _checked_table(df, checked: _Checked, kept: list[str]):
    """Every row once: its number, canonical values, first fault (reason, column, raw text),
    the kept columns, and per time column what the unit and warning checks need."""
    from pyspark.sql import functions as F

    reasons, rawcols = checked.reasons, checked.rawcols
    fault_reason = F.coalesce(*[r for _, r in reasons]) if reasons else F.lit(None).cast("string")
    fault_column = F.lit(None).cast("string")
    fault_raw = F.lit(None).cast("string")
    for (col, r), raw in reversed(list(zip(reasons, rawcols))):
        fault_column = F.when(r.isNotNull(), F.lit(col)).otherwise(fault_column)
        fault_raw = F.when(r.isNotNull(), F.coalesce(raw, F.lit(""))).otherwise(fault_raw)
    cols = [F.col("_wl_row").alias("row")] + [e.alias(k) for k, e in checked.exprs.items()]
    cols += [fault_reason.alias("_wl_reason"), fault_column.alias("_wl_column"), fault_raw.alias("_wl_raw")]
    cols += [F.col(f"`{c}`").alias(f"_wl_keep_{i}") for i, c in enumerate(kept)]
    for te in checked.time_exprs:
        cols.append(te.mag.alias(f"_wl_mag_{te.column}"))
        cols.append(te.sample.alias(f"_wl_rawt_{te.column}"))
        cols.append(F.coalesce(te.floored, F.lit(False)).alias(f"_wl_fl_{te.column}"))
    return df.select(*cols)


def _aggregate(base, checked: _Checked, cmap: ColumnMap, time_unit: str) -> tuple[Any, dict, list[tuple[str, str]]]:
    """Step 3, one aggregate: the mixed-unit check's counts, the warnings' figures, fault counts
    per (column, reason) and, for text values, whether all valid ones are integers. Returns
    ``(base, figures, (column, reason) pairs)``; with text values both decimal and beyond 2^53,
    ``base`` quarantines the latter (the pandas path makes the column double: they would round)."""
    from pyspark.sql import functions as F

    aggs = [F.count(F.lit(1)).alias("_n")]
    for te in checked.time_exprs:
        aggs += _time_aggs(te)
    if cmap.arrival_time is not None:
        early = F.col("_wl_reason").isNull() & (F.col("arrival_time").cast("decimal(20,0)") < F.col("event_time").cast("decimal(20,0)") - F.lit(checks.DAY_MS))
        aggs.append(F.sum(F.when(early, 1).otherwise(0)).alias("early"))
        aggs.append(F.min(F.when(early, F.struct("row", "event_time", "arrival_time"))).alias("earlyx"))
    pairs = list(dict.fromkeys((col, why) for col, _ in checked.reasons for why in checked.vocab[col]))
    for i, (col, why) in enumerate(pairs):
        hit = (F.col("_wl_column") == F.lit(col)) & (F.col("_wl_reason") == F.lit(why))
        aggs.append(F.sum(F.when(hit, 1).otherwise(0)).alias(f"fault_n_{i}"))
        aggs.append(F.min(F.when(hit, F.col("row"))).alias(f"fault_first_{i}"))
    if checked.value_is_text:
        not_int = F.col("_wl_reason").isNull() & ~F.col("value").rlike("^" + times.INTEGER_RE + "$")
        aggs.append(F.sum(F.when(not_int, 1).otherwise(0)).alias("_value_not_int"))
        # an integer that a double cannot hold exactly (beyond 2^53): a fault if decimals make the column double
        iv = F.expr("try_cast(`value` as bigint)")
        inexact = (F.col("_wl_reason").isNull() & F.col("value").rlike("^" + times.INTEGER_RE + "$") & iv.isNotNull()
                   & (iv.cast("decimal(20,0)") != iv.cast("double").cast("decimal(20,0)")))
        base = base.withColumn("_wl_inexact", inexact)
        aggs.append(F.sum(F.when(F.col("_wl_inexact"), 1).otherwise(0)).alias("_value_inexact"))
        aggs.append(F.min(F.when(F.col("_wl_inexact"), F.col("row"))).alias("_value_inexact_first"))
    agg = base.agg(*aggs).collect()[0].asDict()
    if checked.value_is_text and (agg.get("_value_not_int") or 0) and (agg.get("_value_inexact") or 0):
        # the pandas path's rule: the value column becomes double, so these rows are quarantined, not rounded
        hit = F.col("_wl_inexact")
        base = (base.withColumn("_wl_reason", F.when(hit, F.lit(ROUNDED)).otherwise(F.col("_wl_reason")))
                .withColumn("_wl_column", F.when(hit, F.lit(cmap.value)).otherwise(F.col("_wl_column")))
                .withColumn("_wl_raw", F.when(hit, F.col("value")).otherwise(F.col("_wl_raw"))))
        pairs.append((cmap.value, ROUNDED))
        i = len(pairs) - 1
        agg[f"fault_n_{i}"] = agg["_value_inexact"]
        agg[f"fault_first_{i}"] = agg["_value_inexact_first"]
    for te in checked.time_exprs:
        _check_units(agg, te.column, time_unit)
    return base, agg, pairs


def _time_aggs(te: _TimeExpr) -> list:
    """A time column's figures: rows per epoch unit range (count, first row and raw value),
    rows between the ranges, floored and far-future valid rows (with an example), numbers."""
    from pyspark.sql import functions as F

    aggs = []
    mag = F.col(f"`_wl_mag_{te.column}`")
    for u, (lo, hi) in times.EPOCH_RANGES.items():
        hit = mag.isNotNull() & (mag >= F.lit(lo)) & (mag <= F.lit(hi))
        aggs.append(F.sum(F.when(hit, 1).otherwise(0)).alias(f"n|{te.column}|{u}"))
        aggs.append(F.min_by(F.col(f"`_wl_rawt_{te.column}`"), F.when(hit, F.col("row"))).alias(f"raw|{te.column}|{u}"))
        aggs.append(F.min(F.when(hit, F.col("row"))).alias(f"row|{te.column}|{u}"))
    for i, (lo, hi) in enumerate(times.unit_gaps()):
        inside = mag.isNotNull() & (mag > F.lit(lo)) & (mag < F.lit(hi))
        aggs.append(F.sum(F.when(inside, 1).otherwise(0)).alias(f"gap|{te.column}|{i}"))
    # figures for toolkit.log.checks: floored rows, far-future times (valid rows only)
    role_ms = F.col(te.role)
    valid_row = F.col("_wl_reason").isNull()
    example = F.struct(F.col("row"), F.col(f"`_wl_rawt_{te.column}`").cast("string").alias("raw"),
                       role_ms.alias("ms"), mag.alias("mag"))
    for tag, cond in (("fl", valid_row & F.col(f"`_wl_fl_{te.column}`")),
                      ("far", valid_row & (role_ms >= F.lit(checks.FAR_FUTURE_MS)))):
        aggs.append(F.sum(F.when(cond, 1).otherwise(0)).alias(f"{tag}|{te.column}"))
        aggs.append(F.min(F.when(cond, example)).alias(f"{tag}x|{te.column}"))
    aggs.append(F.count(mag).alias(f"nnum|{te.column}"))
    return aggs


def _check_units(agg: dict, column: str, time_unit: str) -> None:
    """A time column whose numbers fall in more than one epoch unit's range is an error."""
    found = _found(agg, column)
    gaps = [int(agg[f"gap|{column}|{i}"] or 0) for i in range(len(times.unit_gaps()))]
    if times.mixed_units([f[0] for f in found], gaps):
        times.raise_mixed(column, time_unit, found)


def _quarantine(base, agg: dict, pairs: list[tuple[str, str]], n_total: int, max_invalid_fraction: float,
                name: str) -> tuple[pd.DataFrame, int]:
    """Step 4, faults: counts per column and reason (too many fail, with samples); the rows
    themselves, within the limit, as the quarantine table. Returns it and the fault count."""
    from pyspark.sql import functions as F

    fault_rows = base.where(F.col("_wl_reason").isNotNull())
    counts = [
        {"_wl_column": col, "_wl_reason": why, "n": int(agg[f"fault_n_{i}"] or 0), "first": agg[f"fault_first_{i}"]}
        for i, (col, why) in enumerate(pairs)
        if agg[f"fault_n_{i}"]
    ]
    n_bad = sum(int(r["n"]) for r in counts)
    enforce(None, n_total, max_invalid_fraction, name, n_bad=n_bad, groups=lambda: _fault_groups(counts, fault_rows))
    if not n_bad:
        return empty_quarantine(), n_bad
    quarantine = (
        fault_rows.select("row", F.col("_wl_column").alias("column"), F.col("_wl_reason").alias("reason"),
                          F.col("_wl_raw").alias("raw"))
        .orderBy("row").toPandas()
    )
    quarantine["row"] = quarantine["row"].astype(np.int64)
    return quarantine.astype({"column": object, "reason": object, "raw": object}), n_bad


def _fault_groups(counts: list[dict], fault_rows) -> list[tuple[str, list, list]]:
    """The error's groups: per column (by first fault) its (reason, count) pairs and the first
    ``SAMPLE`` faulty rows (row, raw text)."""
    from pyspark.sql import Window, functions as F

    by_col: dict[str, list] = {}
    for r in sorted(counts, key=lambda r: r["first"]):
        by_col.setdefault(r["_wl_column"], []).append((r["_wl_reason"], int(r["n"])))
    firsts: dict = {}
    for r in counts:
        firsts[r["_wl_column"]] = min(firsts.get(r["_wl_column"], r["first"]), r["first"])
    ranked = fault_rows.withColumn(
        "_wl_rank", F.row_number().over(Window.partitionBy("_wl_column").orderBy("row"))
    ).where(F.col("_wl_rank") <= SAMPLE)
    samples: dict[str, list] = {}
    for r in sorted(ranked.select("_wl_column", "row", "_wl_raw").collect(), key=lambda r: r["row"]):
        samples.setdefault(r["_wl_column"], []).append((int(r["row"]), r["_wl_raw"]))
    return [(col, by_col[col], samples.get(col, [])) for col in sorted(by_col, key=lambda c: firsts[c])]


def _canonical_table(base, checked: _Checked, cmap: ColumnMap, kept: list[str], agg: dict) -> tuple[Any, list | None]:
    """Step 5, the canonical table of the valid rows (lazy, persisted on first use), and the
    partition names when partitions are named: text partitions that are all integers are
    numbers, others are numbered in name order."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    valid = base.where(F.col("_wl_reason").isNull())
    names = None
    part = F.col("partition")
    if checked.part_is_text:
        labels = sorted(r[0] for r in valid.select("partition").distinct().collect())
        if all(pd.Series(labels, dtype=object).str.fullmatch(times.INTEGER_RE)):
            negatives = valid.where(part.cast("long") < 0).select("row").limit(1).collect()
            if negatives:
                raise LogError(f"column {cmap.partition!r}: negative partition numbers are not supported in Spark text columns")
            part = part.cast("long")
        else:
            names = labels
            mapping_expr = F.create_map(*[x for i, nm in enumerate(labels) for x in (F.lit(nm), F.lit(i))])
            part = mapping_expr[F.col("partition")].cast("long")
    value = F.col("value")
    if checked.value_is_text:
        value = value.cast("long") if (agg.get("_value_not_int") or 0) == 0 else value.cast("double")
    select = [F.col("row").cast("long").alias("row"), F.col("event_time").cast("long").alias("event_time")]
    if cmap.arrival_time is not None:
        select.append(F.col("arrival_time").cast("long").alias("arrival_time"))
    select += [F.col("key").cast("string").alias("key"), part.alias("partition"), value.alias("value")]
    select += [F.col(f"_wl_keep_{i}").alias(c) for i, c in enumerate(kept)]
    canonical = valid.select(*select)
    return canonical.persist(StorageLevel.MEMORY_AND_DISK), names


def _load_warnings(log: EventLog, df, checked: _Checked, cmap: ColumnMap, agg: dict, time_unit: str,
                   n_valid: int) -> list[str]:
    """The loading warnings of :mod:`toolkit.log.checks` from the aggregate's figures (floored
    and far-future times, arrivals a day before their events); records ``log.floored``."""
    notes: list[str] = []
    for te in checked.time_exprs:
        f = checks.TimeColumnFigures(column=te.column, unit=time_unit, numeric=int(agg[f"nnum|{te.column}"] or 0))
        for u, count, row, raw in _found(agg, te.column):
            f.in_range[u] = (count, row, raw)
        f.floored = int(agg[f"fl|{te.column}"] or 0)
        if f.floored:
            x = agg[f"flx|{te.column}"]
            f.floored_example = (int(x["row"]), _typed(x["raw"], df.schema[te.column].dataType), int(x["ms"]))
            log.floored[te.column] = f.floored
        f.far_future = int(agg[f"far|{te.column}"] or 0)
        if f.far_future:
            x = agg[f"farx|{te.column}"]
            f.far_example = (int(x["row"]), _typed(x["raw"], df.schema[te.column].dataType), int(x["ms"]))
            f.far_numeric = x["mag"] is not None
            f.far_unit = checks.unit_fitting(float(x["mag"])) if x["mag"] is not None else None
        notes += checks.column_warnings(f, n_valid)
    if cmap.arrival_time is not None:
        x = agg["earlyx"]
        example = (int(x["row"]), int(x["event_time"]), int(x["arrival_time"])) if x is not None else None
        notes += checks.arrival_warning(int(agg["early"] or 0), n_valid, example)
    return notes


def _found(agg: dict, column: str) -> list:
    """A time column's ``(unit, rows, first row, its raw value)`` per epoch unit range it hits."""
    out = []
    for u in times.EPOCH_RANGES:
        count = agg[f"n|{column}|{u}"] or 0
        if count:
            out.append((u, int(count), int(agg[f"row|{column}|{u}"]), agg[f"raw|{column}|{u}"]))
    return out


def _typed(raw, dtype):
    """A raw cell (as text) back in its column's Python type, as the pandas path shows it."""
    from pyspark.sql import types as T

    if raw is None:
        return raw
    if isinstance(dtype, T.IntegralType):
        return int(raw)
    if isinstance(dtype, (T.FloatType, T.DoubleType)):
        return float(raw)
    return raw


def _read_error(exc: Exception, name: str, fmt: str | None, files: list[str]) -> Exception:
    text = str(exc)
    for f in files:
        if Path(f).name in text:
            folder = str(Path(f).parent)
            return LogReadError(f"cannot read part {Path(f).name!r} of folder {folder!r} as {fmt}: Spark could not read it")
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return LogReadError(f"cannot read {name} as {fmt}: {first[:300]}")


# ---------------------------------------------------------------------- conversion
def spark_to_pandas(df, limit: int | None = None) -> pd.DataFrame:
    """Collect the canonical Spark table (in row order) with the pandas path's dtypes."""
    ordered = df.orderBy("row")
    if limit is not None:
        ordered = ordered.limit(int(limit))
    out = ordered.toPandas()
    types = {"row": np.int64, "event_time": np.int64, "partition": np.int64, "key": object}
    if "arrival_time" in out.columns:
        types["arrival_time"] = np.int64
    out = out.astype(types)
    value_type = dict(df.dtypes)["value"]
    out["value"] = out["value"].astype(np.int64 if value_type == "bigint" else np.float64)
    return out.reset_index(drop=True)


def pandas_to_spark(table: pd.DataFrame, spark=None):
    """A Spark DataFrame of a canonical pandas table."""
    session = _session(spark)
    fields = ["row long", "event_time long"]
    if "arrival_time" in table.columns:
        fields.append("arrival_time long")
    vtype = "long" if pd.api.types.is_integer_dtype(table["value"].dtype) else "double"
    fields += ["key string", "partition long", f"value {vtype}"]
    cols = [f.split()[0] for f in fields]
    return session.createDataFrame(table[cols], ", ".join(fields))
