"""``toolkit.sweep(log, ...)``: the grid, the path per configuration, in-process or Spark.

Result columns (one row per configuration): the configuration (``window, delay_ms,
lateness_ms, interval_ms, strategy, idleness_ms, partitions_as_sources, source_parallelism,
trigger, accumulation``), ``path`` (fast | engine), then

- ``records`` (valid + invalid) = ``on_time + late_accepted + dropped + invalid``: a record is
  ``on_time`` when it is in the first firing (pane 0) of a window that accepted it (a late
  record that creates a window fires it at once, pane 0, so it counts as on time),
  ``late_accepted`` when it only reaches later firings, ``dropped`` when no window accepted
  it (or it has no window), ``invalid`` when quarantined at load;
- ``completeness_first`` / ``completeness_final``: record-window pairs in first / any firing
  over all true pairs (batch answer); ``exact_windows``: share of true windows whose first
  firing held every true record (1.0 when there is no window at all);
- ``latency_p50/p95/p99/max_ms``: first firing's processing time minus the window end, over
  the windows that fired, nearest-rank percentiles (an observed latency); firings caused by
  the end of input happen at the replay's last tick;
- ``firings`` (fire results), ``late_firings`` (those caused by a late record, including a
  record-caused first firing), ``retractions`` (accumulating-and-retracting mode);
- ``peak_state_windows/records``: most windows / buffered record-window pairs held at once,
  sampled after every record and every watermark; ``mean_state_*``: their time average over
  processing time from the first arrival to the end of input; ``windows``: true windows.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from toolkit.fast.evaluate import Shard
from toolkit.fast.timeline import Timeline
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.sweep.grid import CONFIG_COLUMNS, Config, build_grid
from toolkit.sweep.run import evaluate_shard, merge_all
from toolkit.sweep.timelines import tick_table, timeline_from_records, timeline_from_table

RESULT_COLUMNS = CONFIG_COLUMNS + ["path"] + SUMMARY_COLUMNS


def sweep(
    log: Any,
    *,
    window: Any,
    delay: Any = 0,
    lateness: Any = 0,
    interval: Any = 200,
    strategy: Any = "bounded",
    idleness: Any = None,
    partitions_as_sources: Any = True,
    source_parallelism: Any = 1,
    trigger: Any = "event_time",
    accumulation: Any = "accumulating",
    path: str = "auto",
    execution: str = "auto",
    master: str | None = None,
    spark: Any = None,
    shards: int | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Evaluate every combination of the settings (each may be a list); one row per configuration.

    ``path``: ``"auto"`` (fast path when it applies, engine otherwise), ``"fast"`` (error if it
    does not apply) or ``"engine"``. ``execution``: ``"local"`` (in-process), ``"spark"``, or
    ``"auto"`` = Spark when the log is Spark-backed or a master/session is given (``master=``,
    ``$SPARK_MASTER``), in-process otherwise. On Spark the work is split into ``shards`` key
    shards (default: ``spark.sql.shuffle.partitions``) x configuration chunks. Figures are
    identical whatever the execution and sharding.
    """
    configs = build_grid(
        window=window, delay=delay, lateness=lateness, interval=interval, strategy=strategy, idleness=idleness,
        partitions_as_sources=partitions_as_sources, source_parallelism=source_parallelism, trigger=trigger,
        accumulation=accumulation,
    )
    if path not in ("auto", "fast", "engine"):
        raise ValueError(f"path must be 'auto', 'fast' or 'engine', got {path!r}")
    paths = []
    for c in configs:
        if path == "fast" and not c.fast_applies:
            raise ValueError(f"the fast path does not apply to {c}: it needs tumbling/sliding windows, the event-time trigger and accumulating mode")
        paths.append("fast" if (path != "engine" and c.fast_applies) else "engine")
    if path == "engine":
        configs = [c for c in configs]
    table, invalid, spark_df = _inputs(log)
    if execution not in ("auto", "local", "spark"):
        raise ValueError(f"execution must be 'auto', 'local' or 'spark', got {execution!r}")
    use_spark = execution == "spark" or (
        execution == "auto" and (spark_df is not None or master is not None or spark is not None or bool(os.environ.get("SPARK_MASTER")))
    )
    if use_spark:
        from toolkit.sweep.spark_exec import run_spark

        summary = run_spark(
            table, spark_df, configs, paths, invalid=invalid, master=master, spark=spark, shards=shards, progress=progress
        )
    else:
        if table is None:
            raise ValueError("this log is Spark-backed: run the sweep with execution='spark' (or 'auto')")
        summary = run_local(table, configs, paths, invalid=invalid, shards=shards or 1, progress=progress)
    return assemble(configs, paths, summary)


_INT_COLUMNS = {"records", "on_time", "late_accepted", "dropped", "invalid", "firings", "late_firings", "retractions",
                "peak_state_windows", "peak_state_records", "windows", "delay_ms", "lateness_ms", "interval_ms",
                "source_parallelism"}


def assemble(configs: list[Config], paths: list[str], summary: pd.DataFrame) -> pd.DataFrame:
    """Config columns, path, then the summary columns, one row per configuration."""
    summary = summary.sort_index()
    data: dict = {}
    for col in CONFIG_COLUMNS:
        values = [getattr(c, col) for c in configs]
        if col == "idleness_ms":
            data[col] = pd.array(values, dtype="Int64")
        elif col in _INT_COLUMNS:
            data[col] = np.asarray(values, dtype=np.int64)
        elif col == "partitions_as_sources":
            data[col] = np.asarray(values, dtype=bool)
        else:
            data[col] = np.asarray(values, dtype=object)
    data["path"] = np.asarray(paths, dtype=object)
    for col in SUMMARY_COLUMNS:
        data[col] = summary[col].to_numpy(dtype=np.int64 if col in _INT_COLUMNS else np.float64)
    return pd.DataFrame(data)


def _inputs(log: Any) -> tuple[pd.DataFrame | None, int, Any]:
    """(valid records as pandas or None, invalid count, Spark DataFrame or None)."""
    from toolkit.log.eventlog import EventLog

    if isinstance(log, EventLog):
        if not log.has_arrival_time:
            raise ValueError(
                "this log has no arrival times: a sweep measures latency and periodic watermarks over "
                "processing time, so map an arrival-time column when loading the log"
            )
        if log.is_spark:
            return None, log.n_invalid, log.spark_df
        return log.table, log.n_invalid, None
    if isinstance(log, pd.DataFrame):
        missing = [c for c in ("event_time", "arrival_time") if c not in log.columns]
        if missing:
            raise ValueError(f"the log table lacks column(s) {', '.join(missing)}")
        t = log.copy()
        if "row" not in t:
            t["row"] = np.arange(len(t), dtype=np.int64)
        if "key" not in t:
            t["key"] = "default"
        if "partition" not in t:
            t["partition"] = 0
        return t, 0, None
    raise ValueError(f"sweep needs an EventLog (toolkit.load_log) or a pandas DataFrame, got {type(log).__name__}")


def build_timelines(
    configs: list[Config], *, table_for_interval, records=None
) -> dict[int, Timeline]:
    """Timeline per config index; tick tables are built once per interval."""
    out: dict[int, Timeline] = {}
    cache: dict[tuple, Timeline] = {}
    tables: dict[int, pd.DataFrame] = {}
    for i, c in enumerate(configs):
        key = c.timeline_key() + (c.delay_ms if c.strategy != "monotonous" else 0,)
        if key not in cache:
            if c.interval_ms > 0:
                if c.interval_ms not in tables:
                    tables[c.interval_ms] = table_for_interval(c.interval_ms)
                cache[key] = timeline_from_table(tables[c.interval_ms], c)
            else:
                if records is None:
                    raise ValueError("interval 0 (a watermark after every record) needs the records")
                rec = records(c)
                cache[key] = timeline_from_records(*rec[:4], c, last_arrival=rec[4] if len(rec) > 4 else None)
        out[i] = cache[key]
    return _intern_shapes(out)


def _intern_shapes(timelines: dict[int, Timeline]) -> dict[int, Timeline]:
    """Let timelines whose ticks sit at the same places share one TickShape object, so the
    per-shape work (segments, window runs) is done once for every delay of a sweep."""
    seen: dict[tuple, object] = {}
    out = {}
    for i, tl in timelines.items():
        key = (tl.shape.time.tobytes(), tl.shape.after_row.tobytes())
        shape = seen.setdefault(key, tl.shape)
        out[i] = tl if shape is tl.shape else Timeline(shape, tl.watermark, tl.start_time, tl.end_time, tl.meta)
    return out


def _shard_ids(keys: np.ndarray, shards: int) -> np.ndarray:
    codes, uniques = pd.factorize(keys, sort=True)
    h = pd.util.hash_array(np.asarray(uniques, dtype=object)) % np.uint64(shards)
    return h.astype(np.int64)[codes]


def run_local(
    table: pd.DataFrame, configs: list[Config], paths: list[str], *, invalid: int, shards: int = 1, progress: bool | None = None
) -> pd.DataFrame:
    """In-process execution (``shards > 1`` splits keys as Spark would, to test the merge)."""
    from tqdm.auto import tqdm

    arrival = table["arrival_time"].to_numpy(dtype=np.int64)
    row = table["row"].to_numpy(dtype=np.int64)
    ts = table["event_time"].to_numpy(dtype=np.int64)
    part = table["partition"].to_numpy(dtype=np.int64) if "partition" in table else np.zeros(len(ts), np.int64)
    keys = table["key"].to_numpy(dtype=object)
    order = np.lexsort((row, arrival))

    def records(config=None):
        return arrival[order], row[order], ts[order], part[order]

    timelines = build_timelines(
        configs,
        table_for_interval=lambda interval: tick_table(arrival, ts, part, interval),
        records=records,
    )
    spans = {i: (tl.start_time, tl.end_time) for i, tl in timelines.items()}
    jobs = [(i, c if p == "fast" or not c.fast_applies else _force_engine(c), timelines[i]) for i, (c, p) in enumerate(zip(configs, paths))]
    shard_of = _shard_ids(keys, shards) if shards > 1 else np.zeros(len(keys), dtype=np.int64)
    frames = []
    show = progress if progress is not None else len(jobs) * len(ts) > 2_000_000
    with tqdm(total=len(jobs) * shards, disable=not show, desc="sweep", unit="config") as bar:
        for s in range(shards):
            sel = shard_of == s
            shard = Shard(keys[sel], ts[sel], arrival[sel], row[sel])
            frames.append(evaluate_shard(shard, jobs, on_done=lambda: bar.update(1)))
    rows = pd.concat(frames, ignore_index=True)
    return merge_all(rows, spans, invalid)


class _EngineConfig(Config):
    """A configuration forced onto the engine path (``path="engine"``)."""

    @property
    def fast_applies(self) -> bool:  # type: ignore[override]
        return False


def _force_engine(c: Config) -> Config:
    return _EngineConfig(**c.as_row())
