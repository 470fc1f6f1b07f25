"""Event logs: loading, canonical form, validation and quarantine, describe().

``toolkit.load_log(...)`` returns an :class:`EventLog`; see :mod:`toolkit.log.model` for the
canonical columns every other part of the toolkit relies on.

The modules import one way (nothing imports a module above it):

- :mod:`~toolkit.log.model` (``EventLog``, a leaf) and :mod:`~toolkit.log.errors`;
- :mod:`~toolkit.log.formats` (column mapping, formats, part files), :mod:`~toolkit.log.times`,
  :mod:`~toolkit.log.quarantine`, :mod:`~toolkit.log.checks` (loading warnings);
- :mod:`~toolkit.log.load` (pandas loading), :mod:`~toolkit.log.describe` (pandas describe),
  :mod:`~toolkit.log.synth` (seeded synthetic logs);
- :mod:`~toolkit.log.spark` and :mod:`~toolkit.log.spark_describe` (the Spark backend: the
  same loading and describe in Spark);
- this package: :func:`load_log` chooses pandas or Spark, and the EventLog methods that need
  the modules above the model are wired here (:func:`toolkit.log.model.install`).
"""
from __future__ import annotations

import warnings
from typing import Any

from toolkit.log import (
    describe as _describe,
    load as _load,
    model as _model,
    spark as _spark,
    spark_describe as _spark_describe,
    times as _times,
)
from toolkit.log.describe import LogDescription, PartitionFigures
from toolkit.log.errors import (
    ColumnTypeError,
    DuplicateColumnError,
    EmptyLogError,
    InvalidRecordsError,
    LogError,
    LogReadError,
    LogWarning,
    MissingColumnError,
    MixedUnitsError,
)
from toolkit.log.formats import AUTO
from toolkit.log.model import CANONICAL_COLUMNS, EventLog
from toolkit.log.partitions import PartitionsError, declare_partitions, parse_partitions

__all__ = [
    "CANONICAL_COLUMNS",
    "ColumnTypeError",
    "DuplicateColumnError",
    "EmptyLogError",
    "EventLog",
    "InvalidRecordsError",
    "LogDescription",
    "LogError",
    "LogReadError",
    "LogWarning",
    "MissingColumnError",
    "MixedUnitsError",
    "PartitionsError",
    "declare_partitions",
    "parse_partitions",
    "PartitionFigures",
    "describe_log",
    "load_log",
]


def load_log(
    source: Any,
    *,
    event_time: str = "event_time",
    arrival_time: str | None = AUTO,
    key: str | None = AUTO,
    partition: str | None = AUTO,
    value: str | None = AUTO,
    time_unit: str = "ms",
    max_invalid_fraction: float = 0.0,
    format: str | None = None,
    spark: Any = None,
    keep: Any = None,
    partitions: Any = None,
) -> EventLog:
    """Load an event log and return a validated :class:`EventLog`.

    ``source``: a path to a CSV, Parquet or JSON-lines file or to a folder of parts (read
    in sorted file-name order; files starting with "." or "_" are skipped), a pandas
    DataFrame, or a Spark DataFrame. ``format`` overrides the file suffix.

    Column mapping: ``event_time`` names the event-time column (required); the others
    default to "auto" (the column of the canonical name when present) and may be set to
    None to ignore a column. Times may be epoch numbers in ``time_unit`` ("s", "ms", "us",
    "ns"), timestamps, or ISO-8601 strings (naive = UTC); they become int64 ms.

    Bad rows go to ``log.quarantine`` (row, column, reason, raw); loading raises
    :class:`InvalidRecordsError` when their share exceeds ``max_invalid_fraction``
    (default 0: any bad row is an error that names column, count and sample) and
    :class:`EmptyLogError` when no valid row is left. Duplicate rows are kept.

    Nothing changes silently: times with a fraction of a millisecond are floored and counted
    (``log.floored``); that, and times that look like the wrong ``time_unit`` (seconds read as
    milliseconds land in 1970), are issued as :class:`LogWarning` and kept in ``log.warnings``
    (see :mod:`toolkit.log.checks`).

    With a Spark DataFrame, or ``spark=`` (a SparkSession, or True for
    :func:`toolkit.spark.spark_session`) with a path, loading stays in Spark: the log is
    never collected to the driver (only the quarantined rows are).

    ``keep``: names of more source columns to carry along unchanged (e.g. ``keep=["gap_ms"]``
    for ``window="dynamic_session:gap_ms"``, or a punctuated strategy's ``marker`` column);
    a missing one is a :class:`MissingColumnError`. Their values are checked by the setting
    that reads them, not here.

    ``partitions``: the partitions the job really reads (``[0, 1, 2, 3]``, ``range(4)`` or
    ``"0-3"``), when some have no valid record in the log (all quarantined, or idle for the whole
    capture): with ``partitions_as_sources`` each is an input (Spark) or a split (Flink) of its
    own, and one that never delivers a row holds the watermark (:mod:`toolkit.log.partitions`).
    Every partition with a record must be in the list (:class:`PartitionsError` otherwise).
    """
    if not 0.0 <= float(max_invalid_fraction) <= 1.0:
        raise ValueError(f"max_invalid_fraction must be between 0 and 1, got {max_invalid_fraction!r}")
    unit = _times.normalize_unit(time_unit)
    mapping = dict(event_time=event_time, arrival_time=arrival_time, key=key, partition=partition, value=value)
    fraction = float(max_invalid_fraction)
    if _spark.is_spark_dataframe(source) or (spark is not None and spark is not False):
        log = _spark.load_spark(source, mapping, time_unit=unit, max_invalid_fraction=fraction,
                                format=format, spark=spark, keep=keep)
    else:
        log = _load.load_pandas(source, mapping, time_unit=unit, max_invalid_fraction=fraction, format=format,
                                keep=keep)
    if partitions is not None:
        declare_partitions(log, partitions)
    for message in log.warnings:
        warnings.warn(message, LogWarning, stacklevel=2)
    return log


def describe_log(log: EventLog, **options: Any) -> LogDescription:
    """``log.describe()``: computed in pandas, or in Spark for a Spark-backed log."""
    d = _spark_describe.describe_spark(log, **options) if log.is_spark else _describe.describe_pandas(log, **options)
    d.declared_silent = [int(p) for p in getattr(log, "silent_partitions", ())]
    d.incidents = list(getattr(log, "incidents", []))
    return d


_model.install(
    _model.Operations(
        from_arrays=_load.from_arrays,
        describe=describe_log,
        spark_to_pandas=_spark.spark_to_pandas,
        pandas_to_spark=_spark.pandas_to_spark,
    )
)
