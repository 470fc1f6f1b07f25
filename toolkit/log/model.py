"""EventLog: the canonical, validated event log every other part of the toolkit reads.

``log.table`` (pandas) has the canonical columns, in the source's original row order:

- ``row`` int64: 0-based original row number across all inputs (quarantined rows included,
  so numbers may skip);
- ``event_time`` int64: epoch milliseconds (UTC);
- ``arrival_time`` int64: epoch ms, the processing time of the record (column ABSENT when the
  log has none: ``log.has_arrival_time`` is False, the log is replayed in row order);
- ``key`` str (default "default"); ``partition`` int64 (default 0; string partitions are
  factorized to codes in sorted order, names in ``log.partition_names``);
- ``value`` int64 or float64 (default 1).

Arrival order is ``arrival_time`` ascending, ties by ``row``. A Spark-backed log keeps the
same columns in ``log.spark_df`` (distributed); ``log.to_pandas(limit=...)`` collects on request.

This module is the leaf of ``toolkit.log``: it imports nothing from the package. What an
``EventLog`` does with the modules above it (building one from arrays, ``describe()``, moving
between pandas and Spark) is an :class:`Operations` record that ``toolkit/log/__init__.py``
installs when the package is imported, which always happens before this module is used
(importing ``toolkit.log.model`` imports the package first).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

CANONICAL_COLUMNS = ["row", "event_time", "arrival_time", "key", "partition", "value"]


@dataclass(frozen=True)
class Operations:
    """The behaviour :class:`EventLog` delegates to the modules above it."""

    # (event_time, arrival_time, key, partition, value, *, time_unit) -> EventLog
    from_arrays: Callable[..., "EventLog"]
    # (log, **options) -> LogDescription, for either backend
    describe: Callable[..., Any]
    # (spark_df, *, limit) -> the canonical pandas table
    spark_to_pandas: Callable[..., pd.DataFrame]
    # (table, spark) -> a Spark DataFrame of the canonical table
    pandas_to_spark: Callable[..., Any]


_installed: Operations | None = None


def install(operations: Operations) -> None:
    """Set what :class:`EventLog` delegates to (called once, by ``toolkit.log``)."""
    global _installed
    _installed = operations


def _operations() -> Operations:
    if _installed is None:  # only if this file is loaded outside its package
        raise RuntimeError("toolkit.log has not installed the EventLog operations; import toolkit.log")
    return _installed


class EventLog:
    """A loaded event log: valid records in ``table`` (or ``spark_df``), invalid ones in ``quarantine``."""

    def __init__(
        self,
        table: pd.DataFrame | None,
        quarantine: pd.DataFrame,
        *,
        partition_names: list[str] | None = None,
        source: str = "arrays",
        n_input: int | None = None,
        spark_df: Any = None,
        n_records: int | None = None,
        has_arrival_time: bool | None = None,
    ):
        self._table = table
        self.quarantine = quarantine
        self.partition_names = partition_names
        self.source = source
        self.spark_df = spark_df
        if table is not None:
            self._n_records = len(table)
            self._has_arrival = "arrival_time" in table.columns
        else:
            if spark_df is None:
                raise ValueError("EventLog needs a pandas table or a Spark DataFrame")
            self._n_records = int(n_records) if n_records is not None else int(spark_df.count())
            self._has_arrival = (
                bool(has_arrival_time) if has_arrival_time is not None else "arrival_time" in spark_df.columns
            )
        self.n_input = int(n_input) if n_input is not None else self._n_records + len(quarantine)
        #: columns of the source that no role was mapped to (set by ``load_log``)
        self.unused_columns: list[str] = []
        #: time column -> number of loaded rows whose fraction of a millisecond was floored
        self.floored: dict[str, int] = {}
        #: what loading changed or suspects (a time unit that looks wrong...); also issued as warnings
        self.warnings: list[str] = []
        #: the partitions the job reads, when declared (``load_log(..., partitions=...)``,
        #: :func:`toolkit.log.partitions.declare_partitions`); None: the partitions with records
        self.declared_partitions: tuple[int, ...] | None = None
        #: declared partitions without a single valid record
        self.silent_partitions: tuple[int, ...] = ()
        #: what toolkit.incidents applied to make this log, one line in words each (in order)
        self.incidents: list[str] = []

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(
        cls,
        event_time,
        arrival_time=None,
        key=None,
        partition=None,
        value=None,
        *,
        time_unit: str = "ms",
    ) -> "EventLog":
        """Build a (small) log from arrays; times are epoch numbers in ``time_unit`` (default ms).

        ``key``/``partition``/``value`` may be arrays or one scalar for every record. Invalid
        entries raise (``max_invalid_fraction=0``) exactly as :func:`toolkit.load_log` would.
        (Implemented by :func:`toolkit.log.load.from_arrays`.)
        """
        return _operations().from_arrays(
            event_time, arrival_time, key, partition, value, time_unit=time_unit
        )

    # ------------------------------------------------------------------ properties
    @property
    def is_spark(self) -> bool:
        return self._table is None

    @property
    def table(self) -> pd.DataFrame:
        if self._table is None:
            raise ValueError(
                f"this log is Spark-backed ({self._n_records} records stay distributed in log.spark_df); "
                "call log.to_pandas(limit=...) to collect it explicitly"
            )
        return self._table

    @property
    def n_records(self) -> int:
        """Number of valid records."""
        return self._n_records

    @property
    def n_invalid(self) -> int:
        """Number of quarantined rows."""
        return len(self.quarantine)

    @property
    def has_arrival_time(self) -> bool:
        return self._has_arrival

    def __len__(self) -> int:
        return self._n_records

    @property
    def partitions(self) -> np.ndarray:
        """Sorted partition codes present in the log."""
        if self.is_spark:
            rows = self.spark_df.select("partition").distinct().collect()
            return np.sort(np.array([r[0] for r in rows], dtype=np.int64))
        return np.sort(self._table["partition"].unique()).astype(np.int64)

    @property
    def source_partitions(self) -> np.ndarray:
        """The partitions the job reads: the declared ones, else those present in the log."""
        if self.declared_partitions is not None:
            return np.asarray(self.declared_partitions, dtype=np.int64)
        return self.partitions

    def partition_name(self, code: int) -> str:
        """The source's name of partition ``code`` (the code itself for integer partitions)."""
        if self.partition_names is None:
            return str(code)
        return str(self.partition_names[int(code)])

    # ------------------------------------------------------------------ order and export
    def arrival_order(self) -> np.ndarray:
        """Positions of ``table`` rows in arrival order (arrival_time, then row); row order without arrival times."""
        table = self.table
        if not self.has_arrival_time:
            return np.argsort(table["row"].to_numpy(), kind="stable")
        return np.lexsort((table["row"].to_numpy(), table["arrival_time"].to_numpy()))

    def in_arrival_order(self) -> pd.DataFrame:
        """The table sorted into arrival order (a copy, index reset)."""
        return self.table.iloc[self.arrival_order()].reset_index(drop=True)

    def to_pandas(self, limit: int | None = None) -> pd.DataFrame:
        """The canonical table as pandas (collects a Spark-backed log: give ``limit`` for big ones)."""
        if not self.is_spark:
            return self._table if limit is None else self._table.head(limit)
        return _operations().spark_to_pandas(self.spark_df, limit=limit)

    def to_spark(self, spark=None):
        """The canonical table as a Spark DataFrame (creates one from pandas when needed)."""
        if self.is_spark:
            return self.spark_df
        return _operations().pandas_to_spark(self._table, spark)

    # ------------------------------------------------------------------ reports
    def describe(self, **options):
        """Figures about the log: a :class:`~toolkit.log.describe.LogDescription`.

        Computed by :func:`toolkit.log.describe.describe_pandas`, or in Spark by
        :func:`toolkit.log.spark_describe.describe_spark` for a Spark-backed log.
        """
        return _operations().describe(self, **options)

    def summary(self) -> dict:
        """Counts: input rows, valid records, invalid rows per column and reason."""
        reasons = (
            self.quarantine.groupby(["column", "reason"]).size().to_dict() if len(self.quarantine) else {}
        )
        return {
            "source": self.source,
            "input_rows": self.n_input,
            "records": self.n_records,
            "invalid": self.n_invalid,
            "invalid_by_reason": {f"{c}: {r}": int(k) for (c, r), k in reasons.items()},
            "floored": dict(self.floored),
            "warnings": list(self.warnings),
            "has_arrival_time": self.has_arrival_time,
            "backend": "spark" if self.is_spark else "pandas",
        }

    def __repr__(self) -> str:
        arrival = "with arrival times" if self.has_arrival_time else "no arrival times"
        backend = ", spark" if self.is_spark else ""
        return (
            f"<EventLog {self.n_records} records, {self.n_invalid} quarantined, {arrival}{backend}; "
            f"source={self.source}>"
        )
