"""Operator watermark timelines for sweep configurations, computed from a small tick table.

For periodic emission only two things about the records between two ticks matter to the
watermark side (generators whose ``on_event`` never emits): the max event time per source
partition and whether the partition saw any record (idleness). So the log is first reduced
to a *tick table*, one row per (tick bucket, partition) with min/max arrival and max event
time (a pandas groupby in-process, a Spark aggregation on a cluster: the log is never
collected), and the replay's own watermark code (``toolkit.engine.flink.pipeline``) runs on two
stand-in records per row. That reproduces the replay's operator timeline exactly, for every
delay, with or without idleness, and costs O(ticks x partitions), not O(records).

``interval == 0`` (a watermark after every record), and strategies whose watermark depends on
single records or on processing time alone (``punctuated``, ``adaptive``, ``time_lag``,
``idle_advance``, any strategy object), need the records themselves (in arrival order):
:func:`timeline_from_records` runs the same code on them. Either way the timeline is the
replay's own, so a sweep row and ``replay(...).summary()`` agree.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit.engine.flink.pipeline import end_time_of, watermark_timeline
from toolkit.engine.flink.timeline import INT64_MAX, TickShape, WatermarkTimeline, empty_timeline
from toolkit.settings import Setting

TICK_TABLE_COLUMNS = ["bucket", "partition", "amin", "amax", "tsmax"]


def strategy_for(config: Setting):
    """The engine's watermark strategy object of a configuration."""
    return config.watermark_strategy()


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


def timeline_from_table(table: pd.DataFrame, config: Setting, partitions=None) -> WatermarkTimeline:
    """The operator timeline of a periodic configuration from its tick table (``partitions``:
    declared source partitions, some perhaps without records; see ``watermark_timeline``)."""
    interval = config.interval
    if interval <= 0:
        raise ValueError("timeline_from_table needs a periodic interval > 0")
    if not len(table):
        return empty_timeline()
    part = table["partition"].to_numpy(dtype=np.int64)
    if not config.partitions_as_sources:
        part = np.zeros(len(table), dtype=np.int64)
    arr = np.concatenate([table["amin"].to_numpy(dtype=np.int64), table["amax"].to_numpy(dtype=np.int64)])
    ts = np.concatenate([table["tsmax"].to_numpy(dtype=np.int64)] * 2)
    pp = np.concatenate([part, part])
    order = np.lexsort((pp, arr))
    arr, ts, pp = arr[order], ts[order], pp[order]
    tl = watermark_timeline(
        ts, arr, pp, strategy_for(config), interval=interval, parallelism=config.source_parallelism, with_log=False,
        partitions=partitions if config.partitions_as_sources else None,
        split_discovery=config.split_discovery,
    )
    first, last = int(arr[0]), int(arr[-1])
    shape = TickShape(tl.change_time.astype(np.int64), np.full(len(tl.change_time), INT64_MAX, dtype=np.int64))
    return WatermarkTimeline(shape, tl.change_watermark.astype(np.int64), first, end_time_of(first, last, interval))


def timeline_from_records(
    arrival: np.ndarray, row: np.ndarray, event_time: np.ndarray, partition: np.ndarray, config: Setting,
    last_arrival: int | None = None, marker: np.ndarray | None = None, partitions=None,
) -> WatermarkTimeline:
    """The operator timeline from the records themselves (arrays in arrival order).

    With ``interval == 0`` and no idleness the arrays may hold only the *candidates*: the
    records that raise their source partition's running max (plus the first record), since
    no other record can move any watermark; ``last_arrival`` then gives the true end."""
    n = len(arrival)
    part = np.asarray(partition, dtype=np.int64) if config.partitions_as_sources else np.zeros(n, dtype=np.int64)
    ts = np.asarray(event_time, dtype=np.int64)
    tl = watermark_timeline(
        ts, np.asarray(arrival, dtype=np.int64), part, strategy_for(config),
        interval=config.interval, parallelism=config.source_parallelism, with_log=False, marker=marker,
        rows=np.asarray(row, dtype=np.int64), last_arrival=last_arrival, targets=config.sparse_targets(ts),
        partitions=partitions if config.partitions_as_sources else None, split_discovery=config.split_discovery,
    )
    # keep what the sweep needs (Spark broadcasts it): not the per-tick arrays or positions
    return WatermarkTimeline(tl.shape, tl.watermark, tl.start_time, tl.end_time)


def timeline_key(config: Setting) -> tuple:
    """What determines a configuration's timeline: the watermark settings, and for a
    processing-time watermark replayed sparsely the windows whose timers it reaches."""
    key = config.timeline_key()
    if config.strategy in ("time_lag", "idle_advance") and config.interval > 0:
        key = key + (str(config.window), config.lateness, str(config.trigger), str(config.function),
                     config.stagger, tuple(map(str, config.pipeline_stages)))
    return key


# ----------------------------------------------------------------------------------------
# one timeline per distinct watermark setting
# ----------------------------------------------------------------------------------------


class LocalSources:
    """What timelines are made of, from an in-process table: tick tables per interval, and
    the records in arrival order (``(arrival, row, event_time, partition, marker, last)``)."""

    def __init__(self, table: pd.DataFrame, partitions=None) -> None:
        self.table = table
        self.partitions = partitions  # declared source partitions (None: those with records)
        arrival = table["arrival_time"].to_numpy(dtype=np.int64)
        row = table["row"].to_numpy(dtype=np.int64)
        self.order = np.lexsort((row, arrival))
        self.arrival = arrival[self.order]
        self.row = row[self.order]
        self.ts = table["event_time"].to_numpy(dtype=np.int64)[self.order]
        part = table["partition"].to_numpy(dtype=np.int64) if "partition" in table else np.zeros(len(arrival), np.int64)
        self.part = part[self.order]

    def tick_table(self, interval: int) -> pd.DataFrame:
        return tick_table(self.arrival, self.ts, self.part, interval)

    def records(self, config: Setting) -> tuple:
        return (self.arrival, self.row, self.ts, self.part, marker_array(self.table, config, self.order), None)

    def span(self) -> dict:
        """A few aggregates of the log (Kafka Streams' timeline input, ``toolkit.semantics.kafka_streams.sweep``)."""
        n = len(self.arrival)
        return {"records": n, "first_arrival": int(self.arrival[0]) if n else 0,
                "last_arrival": int(self.arrival[-1]) if n else 0,
                "min_partition": int(self.part.min()) if n else 0, "max_partition": int(self.part.max()) if n else 0,
                "min_event_time": int(self.ts.min()) if n else 0}

    def spread_key(self) -> tuple | None:
        """A key found in more than one partition, with its partitions (None: co-partitioned)."""
        t = self.table
        if "partition" not in t or "key" not in t:
            return None
        per = t[["key", "partition"]].drop_duplicates()
        spread = per["key"].duplicated(keep=False)
        if not spread.any():
            return None
        k = per.loc[spread, "key"].iloc[0]
        return k, per.loc[per["key"] == k, "partition"].astype(int).tolist()

    def batch_maxima(self, interval: int) -> pd.DataFrame:
        """Max event time per (micro-batch trigger tick, partition): Spark semantics' timeline input."""
        from toolkit.sweeps.batches import batch_maxima

        return batch_maxima(self.arrival, self.ts, self.part, interval)


def local_sources(table: pd.DataFrame, partitions=None) -> LocalSources:
    return LocalSources(table, partitions)


def marker_array(table: pd.DataFrame, config: Setting, order: np.ndarray | None = None) -> np.ndarray | None:
    """The punctuated strategy's marks as a boolean array (arrival order when ``order`` is
    given): a boolean column of the log, or a predicate ``f(ts, key, value)``."""
    marker = config.marker_source
    if marker is None:
        return None
    t = table.iloc[order] if order is not None else table
    if isinstance(marker, str):
        if marker not in t.columns:
            raise ValueError(f"punctuated strategy: marker column {marker!r} is not in the log (columns: {', '.join(map(str, t.columns))})")
        return t[marker].to_numpy(dtype=bool)
    ts = t["event_time"].tolist()
    keys = t["key"].tolist() if "key" in t else ["default"] * len(t)
    vals = t["value"].tolist() if "value" in t else [1] * len(t)
    return np.fromiter((bool(marker(a, b, c)) for a, b, c in zip(ts, keys, vals)), bool, len(ts))


def build_timelines(configs: list[Setting], sources) -> dict[int, WatermarkTimeline]:
    """Timeline per config index; one per distinct watermark setting, tick tables built once
    per interval, records fetched once per setting that needs them. ``sources.partitions`` (when
    there): the declared source partitions."""
    declared = getattr(sources, "partitions", None)
    out: dict[int, WatermarkTimeline] = {}
    cache: dict[tuple, WatermarkTimeline] = {}
    tables: dict[int, pd.DataFrame] = {}
    for i, c in enumerate(configs):
        key = timeline_key(c)
        if key not in cache:
            if c.tick_table_timeline:
                if c.interval not in tables:
                    tables[c.interval] = sources.tick_table(c.interval)
                cache[key] = timeline_from_table(tables[c.interval], c, declared)
            else:
                arrival, row, ts, part, marker, last = sources.records(c)
                cache[key] = timeline_from_records(arrival, row, ts, part, c, last_arrival=last, marker=marker,
                                                   partitions=declared)
        out[i] = cache[key]
    return _intern_shapes(out)


def _intern_shapes(timelines: dict[int, WatermarkTimeline]) -> dict[int, WatermarkTimeline]:
    """Let timelines whose ticks sit at the same places share one TickShape object, so the
    per-shape work (segments, window runs) is done once for every delay of a sweep."""
    seen: dict[tuple, object] = {}
    out = {}
    for i, tl in timelines.items():
        key = (tl.shape.time.tobytes(), tl.shape.after_row.tobytes())
        shape = seen.setdefault(key, tl.shape)
        out[i] = tl if shape is tl.shape else tl.with_shape(shape)
    return out
