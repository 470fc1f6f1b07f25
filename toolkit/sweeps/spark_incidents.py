"""Incidents applied to a Spark-backed log where it lives: ``incident.apply(log)`` in Spark.

The steps of an incident (one, or each of ``a + b + ...`` in turn) run as Spark stages over the
log's columns, with the same pandas transforms the in-process path runs, so the records are the
same (``tests/sweeps/test_sweep_incidents.py``); nothing per record comes to the driver:

- steps whose records depend only on their own partition
  (:meth:`~toolkit.incidents.Incident.per_partition`: stall, exactly-once restart, silence,
  burst, clock skew): one task per source partition (``groupBy("partition").applyInPandas``),
  each running the transform on that partition's records;
- steps that pick records by rank in row order over the whole log
  (:meth:`~toolkit.incidents.Incident.by_rank`: a seeded ``late_upload``): the draw for the log's
  record count is made once on the driver (arrays of the picked ranks and their delays) and
  broadcast; the log is cut into ranges of row numbers, each range's first rank is known from
  one count per range, and each task applies the draw to its range;
- a ``restart`` with duplicates (:meth:`~toolkit.incidents.Incident.adds_copies`): one task per
  source partition drains it, numbering each copy ``-1 - copied row`` for now; the copies are
  then numbered after the largest row of the whole log (one aggregate), in the order of the rows
  they copy, by ranges of copied rows as above.

The time origin (``at``) is the first arrival of the input log, from one aggregate.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np
import pandas as pd

from toolkit.incidents import DUPLICATE_OF, Composite, Incident
from toolkit.incidents.base import Context
from toolkit.log import EventLog
from toolkit.settings import SettingError


def apply_in_spark(log: EventLog, incident: Incident) -> EventLog:
    """``incident.apply(log)`` for a Spark-backed log, computed in Spark (the module doc); the
    result is persisted (the caller unpersists its ``spark_df``)."""
    steps = list(incident.items())
    for step in steps:
        if not (step.per_partition() or step.by_rank() or step.adds_copies()):
            raise SettingError("incident", f"incident {incident}: {step.kind} ({step}) needs the whole log at once, "
                               "and this log is Spark-backed: collect it first (toolkit.incidents.collect(log)) or "
                               "load it without Spark")
    from pyspark.sql import functions as F

    from toolkit.spark import prepare_executors

    df = log.spark_df
    prepare_executors(df.sparkSession)
    first = df.agg(F.min("arrival_time")).first()[0]
    if first is None:
        raise SettingError("incident", f"incident {incident}: the log has no records")
    source = tuple(int(p) for p in log.source_partitions)
    meta = EventLog(_empty(df.columns), log.quarantine.iloc[:0], partition_names=log.partition_names, source=log.source)
    meta.declared_partitions = source
    ctx = Context(log=meta, origin=int(first))
    incident._run(_empty(df.columns), ctx)  # names a partition the log lacks before any Spark work
    kept: list = []
    i = 0
    while i < len(steps):
        j = i + 1
        if steps[i].per_partition():
            while j < len(steps) and steps[j].per_partition():
                j += 1
            df = _per_partition(df, Composite(tuple(steps[i:j])), ctx)
        elif steps[i].adds_copies():
            df = _with_copies(df, steps[i], ctx, kept)
        else:
            df = _by_rank(df, steps[i])
        if j < len(steps):
            df = df.persist()  # the next step counts it, then reads it again
            kept.append(df)
        i = j
    new = df.persist()
    counts = new.groupBy("partition").count().toPandas()  # one row per partition
    for k in kept:
        k.unpersist()
    n = int(counts["count"].sum())
    if n == 0:
        new.unpersist()
        raise SettingError("incident", f"incident {incident} leaves no record in the log")
    out = EventLog(None, log.quarantine, spark_df=new, n_records=n, has_arrival_time=True,
                   partition_names=log.partition_names, source=log.source)
    out.incidents = list(log.incidents) + [incident.words()]
    present = set(int(p) for p in counts["partition"])
    out.declared_partitions = source
    out.silent_partitions = tuple(p for p in source if p not in present)
    return out


def _per_partition(df: Any, incident: Incident, ctx: Context) -> Any:
    """``incident`` (per partition) applied by one task per source partition."""
    columns = list(df.columns)

    def one_partition(pdf: pd.DataFrame) -> pd.DataFrame:
        """One source partition's records, transformed by the incident."""
        out, _ = incident._run(pdf.reset_index(drop=True), ctx)
        return out[columns]

    return df.groupBy("partition").applyInPandas(one_partition, schema=df.schema)


def _with_copies(df: Any, incident: Incident, ctx: Context, kept: list) -> Any:
    """``incident`` (which adds copies) applied per source partition, its copies then numbered after
    the largest row of the log in the order of the rows they copy (their provisional numbers,
    ``-1 - copied row``, order them); ``kept`` collects what is persisted on the way."""
    from pyspark.sql import functions as F

    if DUPLICATE_OF not in df.columns:
        df = df.withColumn(DUPLICATE_OF, F.lit(-1).cast("long"))
    top = int(df.agg(F.max("row")).first()[0])
    done = _per_partition(df, incident, dataclasses.replace(ctx, provisional_copies=True)).persist()
    kept.append(done)
    columns = list(done.columns)
    copied = done.where(F.col("row") < 0).withColumn("_copied", -1 - F.col("row"))

    def number(pdf: pd.DataFrame, start: int, _: Any) -> pd.DataFrame:
        """One range of copied rows: its copies numbered from ``top + 1 + first rank``."""
        out = pdf.sort_values("_copied", kind="mergesort").reset_index(drop=True)
        out["row"] = top + 1 + start + np.arange(len(out), dtype=np.int64)
        return out[columns]

    numbered = _in_ranges(copied, "_copied", number, done.schema)
    return done.where(F.col("row") >= 0).unionByName(numbered)


def _by_rank(df: Any, incident: Incident) -> Any:
    """``incident`` (by rank) applied by ranges of row numbers, each knowing its first rank; the
    draw for the log's record count is made once, on the driver, and broadcast."""
    columns = list(df.columns)

    def apply(pdf: pd.DataFrame, start: int, drawn: Any) -> pd.DataFrame:
        """One range of rows with what the incident drew for them."""
        return incident.apply_draw(pdf[columns].reset_index(drop=True), start, drawn)[columns]

    return _in_ranges(df, "row", apply, df.schema, payload=incident.draw)


def _in_ranges(df: Any, column: str, apply: Callable[[pd.DataFrame, int, Any], pd.DataFrame], schema,
               payload: Callable[[int], Any] | None = None) -> Any:
    """``apply(range, first rank, payload)`` on the records of ``df`` cut into ranges of ``column``
    (distinct integers); the first rank (in ``column`` order) of each range comes from one count
    per range (a few rows to the driver). ``payload(n)`` (``n`` records) is computed on the driver
    and broadcast."""
    from pyspark.sql import functions as F

    stats = df.agg(F.count(F.lit(1)).alias("n"), F.min(column).alias("lo"), F.max(column).alias("hi")).first()
    n = int(stats["n"])
    if n == 0:
        return df.select(*schema.fieldNames())
    lo, hi = int(stats["lo"]), int(stats["hi"])
    sc = df.sparkSession.sparkContext
    width = max(1, -(-(hi - lo + 1) // max(1, 2 * int(sc.defaultParallelism))))
    which = F.floor((F.col(column) - F.lit(lo)) / F.lit(width)).cast("long")
    sizes = df.groupBy(which.alias("_range")).count().toPandas().sort_values("_range")  # one row per range
    firsts = np.cumsum(sizes["count"].to_numpy()) - sizes["count"].to_numpy()
    bc = sc.broadcast((None if payload is None else payload(n),
                       {int(r): int(f) for r, f in zip(sizes["_range"], firsts)}))

    def one_range(pdf: pd.DataFrame) -> pd.DataFrame:
        """One range of ``column``: ``apply`` on its records, their first rank and the payload."""
        data, first = bc.value
        return apply(pdf, first[int(pdf["_range"].iloc[0])], data)

    return df.withColumn("_range", which).groupBy("_range").applyInPandas(one_range, schema=schema)


def _empty(columns: list[str]) -> pd.DataFrame:
    """A log table without records, with ``columns`` (the canonical ones int64, ``key`` text)."""
    types = {"row": np.int64, "event_time": np.int64, "arrival_time": np.int64, "partition": np.int64}
    return pd.DataFrame({c: pd.Series(dtype=types.get(c, object)) for c in columns})
