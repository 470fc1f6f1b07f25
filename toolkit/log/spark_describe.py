"""describe() of a Spark-backed log: :func:`toolkit.log.describe.describe_pandas`'s figures
computed in Spark, where only aggregates reach the driver.

The Spark backend's loading is :mod:`toolkit.log.spark`; only ``toolkit/log/__init__.py``
imports this module. pyspark is imported inside the functions that run work on it.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.log.describe import (
    PERCENTILES,
    TOP_KEYS,
    LogDescription,
    PartitionFigures,
    partition_figures,
    percentile_label,
    resolve_silence,
    saturating_sub,
)


def _pdisc(expr: str, p: float):
    from pyspark.sql import functions as F

    return F.expr(f"percentile_disc({p}) WITHIN GROUP (ORDER BY {expr})")


def _ranks(row, prefix: str, ps) -> dict[str, int]:
    out = {"min": int(row[f"{prefix}_min"])}
    for i, p in enumerate(ps):
        out[percentile_label(p)] = int(row[f"{prefix}_p{i}"])
    out["max"] = int(row[f"{prefix}_max"])
    return out


def _sat_sub_sql(a: str, b: str) -> str:
    """SQL for ``a - b`` held at the bigint limits (no ANSI overflow error, no wrap-around)."""
    # (greatest/least skip nulls: a null operand must stay null)
    return (f"case when {a} is null or {b} is null then null else "
            f"cast(greatest(least(cast({a} as decimal(20,0)) - cast({b} as decimal(20,0)), "
            f"cast(9223372036854775807 as decimal(20,0))), cast(-9223372036854775808 as decimal(20,0))) as bigint) end")


def describe_spark(log, *, silence: Any = "auto") -> LogDescription:
    """:func:`toolkit.log.describe.describe_pandas`'s figures computed in Spark: only aggregates reach the driver.

    Out-of-orderness needs the running maximum of event time in arrival order. Rather than
    a window over the whole log (one partition), the log is range-partitioned by arrival
    order and sorted within partitions; each partition's maximum comes to the driver, whose
    prefix maxima are sent back, and a ``mapInPandas`` pass computes how far each record is
    behind, from the maximum of all earlier partitions onwards.
    """
    df = log.spark_df
    n = log.n_records
    has_arrival = log.has_arrival_time
    head, top, distinct = _spans_keys_delays(df, has_arrival)
    lag_row = _behind_figures(df, has_arrival)
    n_behind = int(lag_row["n"])
    threshold, figures = _partition_gaps(log, df, has_arrival, silence)
    return LogDescription(
        records=n,
        invalid=log.n_invalid,
        input_rows=log.n_input,
        has_arrival_time=has_arrival,
        event_time_min=int(head["et_min"]),
        event_time_max=int(head["et_max"]),
        arrival_time_min=int(head["at_min"]) if has_arrival else None,
        arrival_time_max=int(head["at_max"]) if has_arrival else None,
        keys=int(head["keys"]),
        top_keys=[(str(r["key"]), int(r["count"])) for r in top],
        duplicates=n - int(distinct),
        behind=n_behind,
        behind_share=n_behind / n,
        behind_by=_ranks(lag_row, "l", PERCENTILES) if n_behind else None,
        delay=_ranks(head, "d", PERCENTILES) if has_arrival else None,
        arrival_before_event=int(head["before"]) if has_arrival else 0,
        silence=threshold,
        partitions=figures,
        backend="spark",
        floored=dict(log.floored),
        warnings=list(log.warnings),
    )


def _spans_keys_delays(df, has_arrival: bool) -> tuple[Any, list, int]:
    """Spans, keys, delays in one aggregate (``et_``/``at_`` min and max, distinct keys, arrivals
    before their events, the delay's ranks), the top keys, and the distinct records."""
    from pyspark.sql import functions as F

    aggs = [F.min("event_time").alias("et_min"), F.max("event_time").alias("et_max"),
            F.count_distinct("key").alias("keys")]
    if has_arrival:
        d = "(" + _sat_sub_sql("arrival_time", "event_time") + ")"
        aggs += [F.min("arrival_time").alias("at_min"), F.max("arrival_time").alias("at_max"),
                 F.sum(F.when(F.col("arrival_time") < F.col("event_time"), 1).otherwise(0)).alias("before"),
                 F.expr(f"min{d}").alias("d_min"), F.expr(f"max{d}").alias("d_max")]
        aggs += [_pdisc(d, p).alias(f"d_p{i}") for i, p in enumerate(PERCENTILES)]
    head = df.agg(*aggs).collect()[0]
    top = (df.groupBy("key").count().orderBy(F.desc("count"), F.asc("key")).limit(TOP_KEYS).collect())
    distinct = df.drop("row").distinct().count()
    return head, top, distinct


def _behind_figures(df, has_arrival: bool) -> Any:
    """Out-of-orderness: how far records are behind the running maximum of event time in
    processing order (``n``, ``l_min``, ``l_max``, ``l_p{i}`` over the records behind it), from
    range partitions in processing order and prefix maxima sent back from the driver."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    order_cols = ["arrival_time", "row"] if has_arrival else ["row"]
    parts = max(1, int(df.sparkSession.conf.get("spark.sql.shuffle.partitions")))
    ranged = (df.select(*order_cols, "event_time").repartitionByRange(parts, *order_cols)
              .sortWithinPartitions(*order_cols).persist(StorageLevel.MEMORY_AND_DISK))
    try:
        maxima = ranged.groupBy(F.spark_partition_id().alias("pid")).agg(F.max("event_time").alias("m")).collect()
        prior: dict[int, int] = {}
        running = np.iinfo(np.int64).min
        for r in sorted(maxima, key=lambda r: r["pid"]):
            prior[int(r["pid"])] = running
            running = max(running, int(r["m"]))

        def behind(batches, prior=prior):
            from pyspark import TaskContext

            run = prior.get(TaskContext.get().partitionId(), np.iinfo(np.int64).min)
            for b in batches:
                et = b["event_time"].to_numpy(dtype=np.int64)
                if len(et) == 0:
                    continue
                cm = np.maximum.accumulate(np.concatenate([[run], et]))
                before, run = cm[:-1], cm[-1]
                yield pd.DataFrame({"lag": saturating_sub(before, et)[et < before]})

        lags = ranged.select("event_time").mapInPandas(behind, "lag long")
        lag_aggs = [F.count(F.lit(1)).alias("n"), F.min("lag").alias("l_min"), F.max("lag").alias("l_max")]
        lag_aggs += [_pdisc("lag", p).alias(f"l_p{i}") for i, p in enumerate(PERCENTILES)]
        return lags.agg(*lag_aggs).collect()[0]
    finally:
        ranged.unpersist()


def _partition_gaps(log, df, has_arrival: bool, silence: Any) -> tuple[int, list[PartitionFigures]]:
    """Per partition, gaps on the time axis (a window per source partition): the silence
    threshold (from the median gap unless given) and each partition's figures."""
    from pyspark import StorageLevel
    from pyspark.sql import Window, functions as F

    axis = "arrival_time" if has_arrival else "event_time"
    w = Window.partitionBy("partition").orderBy(axis, "row")
    gaps = (df.select("partition", axis, "row").withColumn("prev", F.lag(axis).over(w))
            .withColumn("gap", F.expr(_sat_sub_sql(axis, "prev"))).persist(StorageLevel.MEMORY_AND_DISK))
    try:
        stats = gaps.where(F.col("gap").isNotNull()).agg(_pdisc("gap", 0.5).alias("m"),
                                                         F.count(F.lit(1)).alias("n")).collect()[0]
        med = stats["m"]
        threshold = resolve_silence(silence, int(med) if med is not None else None, int(stats["n"]))
        # a threshold beyond int64 (a multiple of a huge median gap) is never reached
        long = F.col("gap") >= F.lit(threshold) if threshold <= np.iinfo(np.int64).max else F.lit(False)
        per = (
            gaps.groupBy("partition")
            .agg(F.count(F.lit(1)).alias("n"), F.min(axis).alias("first"), F.max(axis).alias("last"),
                 F.max(F.when(F.col("gap").isNotNull(), F.struct(F.col("gap"), (-F.col("prev")).alias("neg"))))
                 .alias("mx"),
                 F.sum(F.when(long, 1).otherwise(0)).alias("sil"),
                 F.sum(F.when(long, F.col("gap")).otherwise(0)).alias("sil_ms"))
            .orderBy("partition").collect()
        )
    finally:
        gaps.unpersist()
    figures = []
    for r in per:
        mx = r["mx"]
        figures.append(partition_figures(
            log, int(r["partition"]), int(r["n"]), int(r["first"]), int(r["last"]),
            int(mx["gap"]) if mx is not None else None, int(-mx["neg"]) if mx is not None else None,
            int(r["sil"]), int(r["sil_ms"]),
        ))
    return threshold, figures
