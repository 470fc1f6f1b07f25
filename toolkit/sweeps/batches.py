"""The log aggregate a micro-batch engine's timeline is computed from: the maximum event time per
(trigger tick, partition), in-process or by Spark. A sweep's sources offer it
(``batch_maxima(interval)``), so a timeline never needs the collected log."""
from __future__ import annotations

import numpy as np
import pandas as pd

MAXIMA_COLUMNS = ["tick", "partition", "tsmax"]


def tick_of(arrival: np.ndarray, interval: int) -> np.ndarray:
    """The trigger tick of the data batch that reads each arrival: the first epoch-aligned
    multiple of ``interval`` at or after it (batch ``(T - I, T]``)."""
    arrival = np.asarray(arrival, dtype=np.int64)
    return -(-arrival // np.int64(interval)) * np.int64(interval)


def batch_maxima(arrival: np.ndarray, event_time: np.ndarray, partition: np.ndarray, interval: int) -> pd.DataFrame:
    """In-process aggregate: max event time per (trigger tick, partition) (``MAXIMA_COLUMNS``)."""
    frame = pd.DataFrame({"tick": tick_of(arrival, interval), "partition": np.asarray(partition, dtype=np.int64),
                          "tsmax": np.asarray(event_time, dtype=np.int64)})
    return frame.groupby(["tick", "partition"], sort=True, as_index=False)["tsmax"].max()[MAXIMA_COLUMNS]


def spark_batch_maxima(df, interval: int) -> pd.DataFrame:
    """The same aggregate computed by Spark (``df``: the canonical log columns); only the
    (tick, partition) rows are collected."""
    from pyspark.sql import functions as F

    tick = (F.col("arrival_time") + F.pmod(-F.col("arrival_time"), F.lit(int(interval)))).alias("tick")
    got = df.groupBy(tick, F.col("partition")).agg(F.max("event_time").alias("tsmax")).toPandas()
    got = got.astype({"tick": np.int64, "partition": np.int64, "tsmax": np.int64})
    return got.sort_values(["tick", "partition"], kind="mergesort").reset_index(drop=True)[MAXIMA_COLUMNS]
