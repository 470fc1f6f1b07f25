"""Operator watermark timelines for sweep configurations, computed from a small tick table.

For periodic emission only two things about the records between two ticks matter to the
watermark side (generators whose ``on_event`` never emits): the max event time per source
partition and whether the partition saw any record (idleness). So the log is first reduced
to a *tick table*, one row per (tick bucket, partition) with min/max arrival and max event
time (a pandas groupby in-process, a Spark aggregation on a cluster: the log is never
collected), and the replay's own watermark code (``toolkit.engine.pipeline``) runs on two
stand-in records per row. That reproduces the replay's operator timeline exactly, for every
delay, with or without idleness, and costs O(ticks x partitions), not O(records).

``interval == 0`` (a watermark after every record) needs the records themselves.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit.engine.pipeline import tick_schedule, watermark_timeline
from toolkit.engine.watermarks import BoundedOutOfOrderness, Monotonous
from toolkit.fast.timeline import INT64_MAX, TickShape, Timeline
from toolkit.sweep.grid import Config

TICK_TABLE_COLUMNS = ["bucket", "partition", "amin", "amax", "tsmax"]


def strategy_for(config: Config):
    """The engine's watermark strategy object of a configuration."""
    if config.strategy == "monotonous":
        s = Monotonous()
    else:
        s = BoundedOutOfOrderness(config.delay_ms, legacy=config.strategy == "legacy")
    if config.idleness_ms:
        s = s.with_idleness(config.idleness_ms)
    return s


def bucket_of(arrival: np.ndarray, first: int, interval: int) -> np.ndarray:
    """Index (0-based) of the first periodic tick ``first + (b+1)*interval`` at or after each arrival."""
    rel = np.asarray(arrival, dtype=np.int64) - np.int64(first)
    return np.maximum((rel + np.int64(interval - 1)) // np.int64(interval), 1) - 1


def tick_table(arrival: np.ndarray, event_time: np.ndarray, partition: np.ndarray, interval: int) -> pd.DataFrame:
    """In-process tick table (see module doc)."""
    if len(arrival) == 0:
        return pd.DataFrame({c: np.zeros(0, dtype=np.int64) for c in TICK_TABLE_COLUMNS})
    first = int(arrival.min())
    bucket = bucket_of(arrival, first, interval)
    partition = np.asarray(partition, dtype=np.int64)
    order = np.lexsort((partition, bucket))
    bo, po = bucket[order], partition[order]
    new = np.ones(len(bo), dtype=bool)
    new[1:] = (bo[1:] != bo[:-1]) | (po[1:] != po[:-1])
    starts = np.flatnonzero(new)
    arr_o = np.asarray(arrival, dtype=np.int64)[order]
    ts_o = np.asarray(event_time, dtype=np.int64)[order]
    return pd.DataFrame(
        {
            "bucket": bo[starts],
            "partition": po[starts],
            "amin": np.minimum.reduceat(arr_o, starts),
            "amax": np.maximum.reduceat(arr_o, starts),
            "tsmax": np.maximum.reduceat(ts_o, starts),
        }
    )


def end_time_of(first: int, last: int, interval: int) -> int:
    """When the end-of-input watermark comes (the replay's last tick, or the last arrival)."""
    ticks, _ = tick_schedule(np.array([first, last], dtype=np.int64), interval)
    return int(ticks[-1]) if interval > 0 and len(ticks) else int(last)


def timeline_from_table(table: pd.DataFrame, config: Config) -> Timeline:
    """The operator timeline of a periodic configuration from its tick table."""
    interval = config.interval_ms
    if interval <= 0:
        raise ValueError("timeline_from_table needs a periodic interval > 0")
    if not len(table):
        empty = np.zeros(0, dtype=np.int64)
        return Timeline(TickShape(empty, empty), empty, 0, 0)
    part = table["partition"].to_numpy(dtype=np.int64)
    if not config.partitions_as_sources:
        part = np.zeros(len(table), dtype=np.int64)
    arr = np.concatenate([table["amin"].to_numpy(dtype=np.int64), table["amax"].to_numpy(dtype=np.int64)])
    ts = np.concatenate([table["tsmax"].to_numpy(dtype=np.int64)] * 2)
    pp = np.concatenate([part, part])
    order = np.lexsort((pp, arr))
    arr, ts, pp = arr[order], ts[order], pp[order]
    tl = watermark_timeline(
        ts, arr, pp, strategy_for(config), interval=interval, parallelism=config.source_parallelism, with_log=False
    )
    first, last = int(arr[0]), int(arr[-1])
    shape = TickShape(tl.change_time.astype(np.int64), np.full(len(tl.change_time), INT64_MAX, dtype=np.int64))
    return Timeline(shape, tl.change_watermark.astype(np.int64), first, end_time_of(first, last, interval))


def timeline_from_records(
    arrival: np.ndarray, row: np.ndarray, event_time: np.ndarray, partition: np.ndarray, config: Config,
    last_arrival: int | None = None,
) -> Timeline:
    """The operator timeline from the records themselves (arrays in arrival order).

    With ``interval == 0`` and no idleness the arrays may hold only the *candidates*: the
    records that raise their source partition's running max (plus the first record), since
    no other record can move any watermark; ``last_arrival`` then gives the true end."""
    n = len(arrival)
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Timeline(TickShape(empty, empty), empty, 0, 0)
    part = np.asarray(partition, dtype=np.int64) if config.partitions_as_sources else np.zeros(n, dtype=np.int64)
    tl = watermark_timeline(
        np.asarray(event_time, dtype=np.int64), np.asarray(arrival, dtype=np.int64), part, strategy_for(config),
        interval=config.interval_ms, parallelism=config.source_parallelism, with_log=False,
    )
    pos = tl.change_pos.astype(np.int64)
    time = tl.change_time.astype(np.int64)
    after = np.full(len(pos), INT64_MAX, dtype=np.int64)
    # a change right after record pos-1 at its arrival time sits after that record exactly
    at_rec = (pos > 0) & (time == np.asarray(arrival, dtype=np.int64)[np.maximum(pos - 1, 0)])
    if config.interval_ms == 0:
        after[at_rec] = np.asarray(row, dtype=np.int64)[pos[at_rec] - 1]
    first, last = int(arrival[0]), int(arrival[-1]) if last_arrival is None else int(last_arrival)
    return Timeline(TickShape(time, after), tl.change_watermark.astype(np.int64), first, end_time_of(first, last, config.interval_ms))
