"""Sweeps on Spark: the log stays distributed; only tick tables and per-config rows come back.

1. Tick tables (one per periodic interval) by a Spark aggregation: per (tick bucket,
   partition) the min/max arrival and max event time. Small (ticks x partitions); the
   driver turns each into the operator watermark timeline of every configuration
   (``toolkit.sweep.timelines``). ``interval == 0`` (a watermark after every record) needs
   the records in arrival order: only then are the four columns it needs collected.
   ``semantics="spark"`` configurations get their micro-batch timeline the same way, from
   the max event time per (trigger tick, partition) (``toolkit.sweeps.batches``); each
   semantics' steps come from its entry in ``toolkit.sweeps.semantics``.
2. The timelines and configurations are broadcast. Records are hash-partitioned by key
   into key shards (default ``spark.sql.shuffle.partitions``; on a small local machine one
   shard per core is fastest) x configuration chunks (the records are replicated once per
   chunk, only when engine-path configurations need the parallelism; fast-path ones share
   each shard's window runs); ``mapInPandas`` evaluates each partition
   (fast path or engine) into exactly mergeable partial rows (``toolkit.metrics.summary``),
   with no sort of the log.
3. ``groupBy(config).applyInPandas`` merges the partial rows into one summary row per
   configuration; only those rows are collected.

Exactness of the merge: counts add; latencies travel as exact value counts (at most one row
per distinct latency per shard, never per record); state travels as deltas at global
positions of the processing order (fast path: per tick segment, since state only grows
between ticks; engine path: per event), so the running sum over all shards is the global
state step function and its peak is exact. The same sweep gives the same figures in-process
and on Spark for any number of shards and partitions.
"""
from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np
import pandas as pd

from toolkit.fast.sessions import gap_column
from toolkit.metrics.summary import KIND_STATE, SUMMARY_COLUMNS, merge_config, state_range_row
from toolkit.semantics import get
from toolkit.settings import Limits, Setting, SettingError, format_bytes, machine_memory, windows_per_record
from toolkit.sweeps.batches import spark_batch_maxima
from toolkit.sweeps.progress import Progress
from toolkit.sweeps.semantics import all_timelines, evaluate_shard, split_ids, split_unit
from toolkit.sweeps.timelines import TICK_TABLE_COLUMNS, marker_array

ROW_SCHEMA = "config long, kind long, a long, b long, c long, d long, e long"
_INT_COLS = {"records", "at_end_firings", "on_time", "late_accepted", "dropped", "invalid", "firings", "late_firings", "retractions",
             "peak_state_windows", "peak_state_records", "windows"}


def _summary_schema() -> str:
    cols = ["config long"] + [f"{c} {'long' if c in _INT_COLS else 'double'}" for c in SUMMARY_COLUMNS]
    return ", ".join(cols)


def _canonical(spark_df, gap_columns=()):
    cols = spark_df.columns
    from pyspark.sql import functions as F

    sel = [F.col("row").cast("long"), F.col("event_time").cast("long"), F.col("arrival_time").cast("long"),
           F.col("key").cast("string") if "key" in cols else F.lit("default").alias("key"),
           F.col("partition").cast("long") if "partition" in cols else F.lit(0).cast("long").alias("partition")]
    # dynamic session gaps (checked on the driver by toolkit.sweeps.sweep.dynamic_gap_max, or for a
    # column only semantics="spark" rows read by check_spark_gaps: there a null gap is no session, read as 0)
    sel += [F.coalesce(F.col(f"`{c}`").try_cast("double").try_cast("long"), F.lit(0).cast("long")).alias(f"_gap_{i}")
            for i, c in enumerate(gap_columns)]
    return spark_df.select(*sel)


def run_spark(
    table: pd.DataFrame | None,
    spark_df: Any,
    configs: list[Setting],
    paths: list[str],
    *,
    invalid: int,
    master: str | None = None,
    spark: Any = None,
    shards: int | None = None,
    chunks: int | None = None,
    progress: bool | None = None,
    limits: Limits | None = None,
    partitions=None,
    bar: Progress | None = None,
) -> pd.DataFrame:
    """Summary rows (index: config position) of ``configs`` on Spark (see the module doc).
    ``limits``: the memory guard (:func:`check_memory`), checked before any work but one
    count of the log. ``bar``: the sweep's progress (else one of its own, as ``progress`` says)."""
    from toolkit.spark import prepare_executors, spark_session

    session = spark or spark_session(master)
    prepare_executors(session)  # a cluster: ship the package, check the executors' libraries (once)
    gap_columns = list(dict.fromkeys(c.gap_column for c in configs if c.gap_column is not None))
    full_df = spark_df
    if spark_df is None:
        spark_df = _table_to_spark(table, configs, gap_columns, session)
    df = _canonical(spark_df, gap_columns)
    gap_names = [f"_gap_{i}" for i in range(len(gap_columns))]
    n_shards = int(shards or int(session.conf.get("spark.sql.shuffle.partitions")))
    if n_shards < 1:
        raise ValueError(f"shards must be >= 1, got {n_shards}")
    sources = SparkSources(df, full_df, table, session, partitions)
    if chunks is None:
        chunks = _default_chunks(paths, session, n_shards)
    stats = sources.stats
    check_memory(limits or Limits(), configs, paths, session=session, records=int(stats["n"]),
                 span_ms=int(sources.last) - sources.first if stats["n"] else 0, shards=n_shards,
                 keys=int(stats["keys"] or 1))
    timelines = all_timelines(configs, sources)
    spans = {i: (tl.start_time, tl.end_time) for i, tl in timelines.items()}
    jobs = [(i, c, p, timelines[i]) for i, (c, p) in enumerate(zip(configs, paths))]
    sc = session.sparkContext
    splits, split_jobs = _split_jobs(jobs, chunks)
    bc = sc.broadcast(split_jobs)
    rows = _shard_rows(df, splits, chunks, n_shards, session, _shard_evaluator(bc, gap_columns, gap_names), gap_names)
    merge_fn = _config_merger(spans, invalid)
    folded_merged = _merged_rows(rows, _state_range(timelines, n_shards), merge_fn)
    result = _collect_merged(sc, folded_merged, merge_fn, total=len(jobs), progress=progress, bar=bar)
    if len(result) != len(jobs):
        result = _with_empty_configs(result, len(jobs), spans, invalid)
    bc.unpersist()
    return result.set_index("config").sort_index()


def _table_to_spark(table: pd.DataFrame, configs: list[Setting], gap_columns: list[str], session) -> Any:
    """A Spark DataFrame of an in-process log: the columns the sweep reads, keys as text, each
    gap column as checked int64 ms (a Spark row's null gap: 0, no session), read the way its
    settings' engine reads it."""
    cols = ["row", "event_time", "arrival_time", "key", "partition"] + gap_columns
    pdf = table[[c for c in cols if c in table]].copy()
    pdf["key"] = pdf["key"].astype(str)
    strict = {c.gap_column for c in configs if not get(c.semantics).null_gap_is_no_session}
    readers = {c.gap_column: get(c.semantics) for c in reversed(configs) if c.gap_column is not None}
    for c in gap_columns:
        pdf[c] = gap_column(table, c) if c in strict else readers[c].gap_array(table, c)
    return session.createDataFrame(pdf)


def _default_chunks(paths: list[str], session, n_shards: int) -> int:
    """Configuration chunks: replicating the log per chunk costs a shuffle, which is worth it
    only for the engine path (seconds per configuration); fast-path configurations share each
    shard's window runs, so they stay together."""
    n_engine = sum(1 for p in paths if p == "engine")
    target = 2 * session.sparkContext.defaultParallelism
    return max(1, min(n_engine, -(-target // n_shards))) if n_engine else 1


class SparkSources:
    """Timeline inputs from Spark (``toolkit.sweeps.timelines.LocalSources``'s methods): tick
    tables by aggregation; records only when a setting needs them. One aggregate of the log
    (``stats``: first and last arrival, records, keys, partition and event-time minima) is
    taken at once: it sizes the memory guard and the Kafka Streams timeline."""

    def __init__(self, df, full_df, table: pd.DataFrame | None, session, partitions=None) -> None:
        from pyspark.sql import functions as F

        self.df, self.full_df, self.table, self.session = df, full_df, table, session
        self.partitions = None if partitions is None else tuple(partitions)  # declared source partitions
        self.stats = df.agg(F.min("arrival_time").alias("first"), F.max("arrival_time").alias("last"),
                            F.count(F.lit(1)).alias("n"), F.approx_count_distinct("key").alias("keys"),
                            F.min("partition").alias("pmin"), F.max("partition").alias("pmax"),
                            F.min("event_time").alias("tsmin")).first()
        self.first = int(self.stats["first"]) if self.stats["n"] else 0
        self.last = self.stats["last"] if self.stats["n"] else 0
        self._candidates: dict[bool, pd.DataFrame] = {}

    def tick_table(self, interval: int) -> pd.DataFrame:
        """Per (tick bucket, partition): min and max arrival, max event time."""
        from pyspark.sql import functions as F

        bucket = F.expr(f"greatest(1, (arrival_time - {self.first} + {interval - 1}) div {interval}) - 1")
        t = (
            self.df.groupBy(bucket.alias("bucket"), F.col("partition"))
            .agg(F.min("arrival_time").alias("amin"), F.max("arrival_time").alias("amax"), F.max("event_time").alias("tsmax"))
            .toPandas()
        )
        return t.sort_values(["bucket", "partition"], kind="mergesort").reset_index(drop=True)[TICK_TABLE_COLUMNS]

    def span(self) -> dict:
        """A few aggregates of the log (Kafka Streams' timeline), from the one count above."""
        stats = self.stats
        n = int(stats["n"])
        return {"records": n, "first_arrival": self.first, "last_arrival": int(self.last),
                "min_partition": int(stats["pmin"]) if n else 0, "max_partition": int(stats["pmax"]) if n else 0,
                "min_event_time": int(stats["tsmin"]) if n else 0}

    def spread_key(self) -> tuple | None:
        """A key found in more than one partition (only that key's partitions are collected)."""
        from pyspark.sql import functions as F

        df = self.df
        multi = df.groupBy("key").agg(F.countDistinct("partition").alias("np")).where("np > 1").select("key").first()
        if multi is None:
            return None
        ps = df.where(F.col("key") == multi["key"]).select("partition").distinct().toPandas()["partition"]
        return multi["key"], sorted(int(p) for p in ps)

    def batch_maxima(self, interval: int) -> pd.DataFrame:
        """Spark semantics: max event time per (trigger tick, partition), by aggregation."""
        return spark_batch_maxima(self.df, interval)

    def records(self, config: Setting) -> tuple:
        """interval 0 with a bounded strategy and no idleness: only the records that raise
        their source's running max within their sorted range partition are collected (a
        superset of the global raises). Otherwise every record's arrival matters (idleness,
        strategies that look at single records or at processing time): the columns the
        watermark needs are collected, in arrival order."""
        plain = config.strategy in ("bounded", "legacy", "monotonous") and config.idleness is None
        if plain:
            per_source = bool(config.partitions_as_sources)
            if per_source not in self._candidates:
                self._candidates[per_source] = _candidates(self.df, per_source, self.session)
            r = self._candidates[per_source]
            return (r["arrival_time"].to_numpy(np.int64), r["row"].to_numpy(np.int64),
                    r["event_time"].to_numpy(np.int64), r["partition"].to_numpy(np.int64), None, int(self.last))
        need = ["arrival_time", "row", "event_time", "partition"]
        source = self.df
        marker = config.marker_source
        if marker is not None:
            source = self.full_df if self.full_df is not None else self.session.createDataFrame(self.table)
            if isinstance(marker, str):
                if marker not in source.columns:
                    raise ValueError(f"punctuated strategy: marker column {marker!r} is not in the log")
                need = need + [marker]
            else:
                need = need + [c for c in ("key", "value") if c in source.columns]
        r = source.select(*need).orderBy("arrival_time", "row").toPandas()
        if "partition" not in r:
            r["partition"] = 0
        mk = marker_array(r, config) if marker is not None else None
        return (r["arrival_time"].to_numpy(np.int64), r["row"].to_numpy(np.int64),
                r["event_time"].to_numpy(np.int64), r["partition"].to_numpy(np.int64), mk, None)


def _split_jobs(jobs: list[tuple], chunks: int) -> tuple[dict[tuple, list], list[list]]:
    """One split of the log per shard unit (``toolkit.sweeps.semantics``): key shards, cut into
    ``chunks`` of configurations, or whole Kafka Streams tasks per task assignment. Returns the
    jobs per unit (in first-seen order) and, per unit, its chunks of jobs (what is broadcast)."""
    splits: dict[tuple, list] = {}
    for job in jobs:
        splits.setdefault(split_unit(job[1], job[3]), []).append(job)
    split_jobs = [[splits[u][j::chunks] for j in range(chunks)] if u == ("key",) else [splits[u]] for u in splits]
    return splits, split_jobs


def _shard_evaluator(bc, gap_columns: list[str], gap_names: list[str]):
    """The ``mapInPandas`` function: one Spark partition = a set of whole keys or tasks (hash
    partitioned); each (split, chunk) in it is a shard evaluated with its broadcast jobs."""

    def shard_fn(batches):
        """One Spark partition = a set of whole keys or tasks (hash partitioned): evaluate its chunks."""
        from toolkit.fast.evaluate import Shard

        frames = [b for b in batches if len(b)]
        if not frames:
            return
        pdf = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        group = (pdf["split"].to_numpy(dtype=np.int64) << 32) + pdf["chunk"].to_numpy(dtype=np.int64)
        many = len(np.unique(group)) > 1
        for g in np.unique(group):
            part = pdf[group == g] if many else pdf
            shard = Shard(part["key"].to_numpy(dtype=object), part["event_time"].to_numpy(),
                          part["arrival_time"].to_numpy(), part["row"].to_numpy(),
                          gaps={c: part[n].to_numpy(dtype=np.int64) for c, n in zip(gap_columns, gap_names)},
                          partition=part["partition"].to_numpy(dtype=np.int64))
            yield from in_batches(evaluate_shard(shard, bc.value[int(g >> 32)][int(g & 0xFFFFFFFF)]))

    return shard_fn


def _config_merger(spans: dict[int, tuple[int, int]], invalid: int):
    """The ``applyInPandas`` function that merges one configuration's partial rows into its
    summary row."""

    def merge_fn(pdf: pd.DataFrame) -> pd.DataFrame:
        cid = int(pdf["config"].iloc[0])
        start, end = spans[cid]
        out = merge_config(pdf, start_time=start, end_time=end, invalid=invalid)
        out = {"config": cid, **out}
        return pd.DataFrame([out])[["config"] + SUMMARY_COLUMNS]

    return merge_fn


def _shard_rows(df, splits: dict[tuple, list], chunks: int, n_shards: int, session, shard_fn, gap_names: list[str]):
    """Partial rows of every split: the records hash-partitioned so that every key (task) is
    whole inside one partition (a partition is a shard), replicated per chunk of configurations
    when ``chunks > 1``; ``shard_fn`` evaluates each partition."""
    from pyspark.sql import functions as F

    rows = None
    for u_i, unit in enumerate(splits):
        keyed = df.select("row", "event_time", "arrival_time", "key", "partition", *gap_names).withColumn(
            "split", F.lit(u_i).cast("long"))
        if unit != ("key",):
            # whole tasks per partition: the task column from key and partition (a pandas UDF,
            # the replay's own hash), never collecting the log
            keyed = _with_unit(keyed, unit, splits[unit][0][1].semantics).withColumn("chunk", F.lit(0).cast("long"))
            keyed = keyed.repartition(n_shards, "_unit")
        elif chunks > 1:
            ids = session.range(chunks).withColumnRenamed("id", "chunk")
            keyed = keyed.crossJoin(ids).repartition(n_shards * chunks, "key", "chunk")
        else:
            keyed = keyed.withColumn("chunk", F.lit(0).cast("long")).repartition(n_shards, "key")
        part_rows = keyed.mapInPandas(shard_fn, schema=ROW_SCHEMA)
        rows = part_rows if rows is None else rows.unionByName(part_rows)
    return rows


def _merged_rows(rows, span: int, merge_fn) -> tuple[Any, Any]:
    """State deltas (one per record that opens or merges a session: as many rows as records
    for session windows) are folded per range of ``span`` positions in parallel tasks, so that
    no task holds a configuration's every delta; scalar and latency rows (a few per shard)
    travel as they are. Then one merge per configuration (see toolkit.metrics.summary).
    Returns ``(folded, merged)``: the folded rows and the summary rows (both lazy)."""
    from pyspark.sql import functions as F

    state = F.col("kind") == KIND_STATE
    ranged = rows.withColumn("state", state).withColumn(
        "range", F.when(state, F.expr(f"a div {span}")).otherwise(F.lit(0)).cast("long"))
    folded = ranged.groupBy("config", "state", "range").applyInPandas(_fold_ranges, schema=ROW_SCHEMA)
    return folded, folded.groupBy("config").applyInPandas(merge_fn, schema=_summary_schema())


def _collect_merged(sc, folded_merged: tuple[Any, Any], merge_fn, *, total: int, progress: bool | None,
                    bar: Progress | None = None) -> pd.DataFrame:
    """Collect the summary rows; with ``WATERMARK_LAB_SPARK_TIMING`` set, evaluate+fold and the
    merge are timed apart (the folded rows cached, each stage run once)."""
    folded, merged = folded_merged
    if not os.environ.get("WATERMARK_LAB_SPARK_TIMING"):
        return _collect_with_progress(sc, merged, total=total, progress=progress, bar=bar)
    import time as _time

    folded = folded.cache()
    t0 = _time.perf_counter()
    n_rows = folded.count()
    t1 = _time.perf_counter()
    merged = folded.groupBy("config").applyInPandas(merge_fn, schema=_summary_schema())
    result = _collect_with_progress(sc, merged, total=total, progress=progress, bar=bar)
    print(f"[sweep timing] evaluate+fold {t1 - t0:.1f} s ({n_rows} rows), merge {_time.perf_counter() - t1:.1f} s")
    folded.unpersist()
    return result


def _with_empty_configs(result: pd.DataFrame, n_jobs: int, spans: dict[int, tuple[int, int]],
                        invalid: int) -> pd.DataFrame:
    """A configuration with no rows at all (an empty log): merge nothing."""
    have = set(result["config"].tolist())
    extra = [{"config": i, **merge_config(pd.DataFrame(columns=["config", "kind", "a", "b", "c", "d", "e"]).astype(np.int64),
                                           start_time=spans[i][0], end_time=spans[i][1], invalid=invalid)}
             for i in range(n_jobs) if i not in have]
    return pd.concat([result, pd.DataFrame(extra)], ignore_index=True)


_WHOLE_ID = "__whole_config"


#: cost model of a task that holds the whole log (``run_whole``), bytes per record and per (record,
#: window) pair: the task's pandas table plus the replay's per-record state (measured: Beam 410-580
#: B/record for sessions and fixed windows, 2,530 with 10 sliding windows a record; Spark's complete
#: mode 350, over 100,000 records)


def check_whole_memory(limits: Limits, configs: dict[int, Setting], *, session, records: int) -> None:
    """Refuse rows evaluated in one Spark task each (:func:`run_whole`) whose task would hold more
    than it may use: ``max_memory``, else ``spark.executor.pyspark.memory``, else, when the
    executors run on this machine, its memory; the tasks that run at once (one per row, up to the
    parallelism) add up."""
    worst, why = 0, ""
    for c in configs.values():
        base, per_pair = get(c.semantics).whole_bytes()
        need = records * (base + windows_per_record(c.window) * per_pair)
        if need > worst:
            worst, why = need, f"{c.semantics} window {c.window}"
    conf = session.sparkContext.getConf()
    here = session.sparkContext.master.startswith("local")
    at_once = max(1, min(len(configs), int(session.sparkContext.defaultParallelism if here
                                           else conf.get("spark.executor.cores", "1") or 1)))
    if limits.max_memory:
        cap, whose = limits.max_memory, "the limit"
    elif conf.get("spark.executor.pyspark.memory", None):
        cap, whose = _spark_bytes(conf.get("spark.executor.pyspark.memory")), "spark.executor.pyspark.memory"
    elif here and machine_memory():
        cap, whose = machine_memory(), "this machine"
    else:
        return
    if worst * at_once > cap:
        raise SettingError("max_memory", f"{len(configs)} sweep row(s) are evaluated in one piece, each in one Spark task "
                           f"holding the whole log ({records:,} records): about {format_bytes(worst)} a task ({why}), "
                           f"{at_once} at once, more than {whose}'s {format_bytes(cap)}: sweep those settings on a sample "
                           "of the log (log.to_pandas(limit=...)), or raise max_memory (--max-memory) if the estimate "
                           "is too cautious")


def run_whole(spark_df: Any, configs: dict[int, Setting], *, invalid: int, partitions=None, spark: Any = None,
              master: str | None = None, progress: bool | None = None, limits: Limits | None = None,
              bar: Progress | None = None) -> pd.DataFrame:
    """Summary rows (index: config position) of the rows that run in one piece
    (``toolkit.sweeps.whole``) over a Spark-backed log: each configuration's whole log goes to
    ONE Spark task (the log cross-joined with the configuration ids, ``groupBy(id).applyInPandas``),
    where :func:`toolkit.sweeps.whole.whole_figures` evaluates it from the records in the
    in-process table's order (:func:`toolkit.sweeps.whole.canonical_table`); only the figures
    come back to the driver. A setting error inside a task comes back as that error. ``limits``: the
    memory guard (:func:`check_whole_memory`), checked after one count of the log."""
    from pyspark.sql import functions as F

    from toolkit.spark import prepare_executors, spark_session
    from toolkit.sweeps.whole import canonical_table, whole_figures

    session = spark or spark_session(master)
    prepare_executors(session)
    check_whole_memory(limits or Limits(), configs, session=session, records=int(spark_df.count()))
    declared = None if partitions is None else tuple(partitions)
    bc = session.sparkContext.broadcast(dict(configs))
    schema = _summary_schema() + ", error_setting string, error_message string"
    columns = ["config"] + SUMMARY_COLUMNS + ["error_setting", "error_message"]

    def one_row(pdf: pd.DataFrame) -> pd.DataFrame:
        cid = int(pdf[_WHOLE_ID].iloc[0])
        table = canonical_table(pdf.drop(columns=[_WHOLE_ID]))
        out = {"config": cid, **{c: np.nan for c in SUMMARY_COLUMNS}, "error_setting": None, "error_message": None}
        try:
            out.update(whole_figures(table, bc.value[cid], invalid, declared))
        except SettingError as exc:  # the user's error, raised again on the driver
            out.update({c: 0 for c in _INT_COLS}, error_setting=exc.setting, error_message=str(exc))
        frame = pd.DataFrame([out])[columns]
        return frame.astype({c: np.int64 for c in _INT_COLS} | {"config": np.int64})

    ids = session.createDataFrame([(int(i),) for i in configs], f"{_WHOLE_ID} long")
    whole = spark_df.crossJoin(F.broadcast(ids)).groupBy(_WHOLE_ID).applyInPandas(one_row, schema=schema)
    got = _collect_with_progress(session.sparkContext, whole, total=len(configs), progress=progress, bar=bar)
    bc.unpersist()
    for _, r in got.sort_values("config").iterrows():
        if r["error_setting"] is not None and not pd.isna(r["error_setting"]):
            raise SettingError(r["error_setting"], r["error_message"])
    missing = [i for i in configs if i not in set(got["config"].tolist())]
    if missing:  # an empty log: no group at all; the figures of no records, on the driver
        empty = canonical_table(spark_df.limit(0).toPandas())
        extra = [{"config": i, **whole_figures(empty, configs[i], invalid, declared)} for i in missing]
        got = pd.concat([got, pd.DataFrame(extra)], ignore_index=True)
    return got.set_index("config").sort_index()[SUMMARY_COLUMNS]


#: rows per frame a shard task hands back: PySpark ships each yielded frame as one Arrow batch, which
#: the JVM (in local mode the driver's) holds at once; a session shard of 1 M records x 10
#: configurations yields ~4 M partial rows (230 MB) in one frame
OUTPUT_BATCH_ROWS = 65_536


def in_batches(frame: pd.DataFrame, rows: int = OUTPUT_BATCH_ROWS):
    """``frame`` in consecutive slices of at most ``rows`` rows (one slice when it is smaller)."""
    if len(frame) <= rows:
        yield frame
        return
    for start in range(0, len(frame), rows):
        yield frame.iloc[start:start + rows]


def _state_range(timelines: dict, shards: int) -> int:
    """Positions per range of the state fold: the positions of the longest timeline
    (``2 * ticks + 2``) cut into about one range per key shard (every range of every
    configuration is one task's work)."""
    lengths = [len(tl) for tl in timelines.values() if hasattr(tl, "__len__")]
    if len(lengths) != len(timelines) or not lengths:
        return 2**62  # one range: still exact
    return max(1, -(-(2 * max(lengths) + 2) // max(1, shards)))


def _fold_ranges(pdf: pd.DataFrame) -> pd.DataFrame:
    """One (configuration, range) group: state rows folded into one ``KIND_STATE_RANGE`` row;
    the other rows pass through. ``a div span`` truncates, which keeps ranges in position order."""
    cols = ["config", "kind", "a", "b", "c", "d", "e"]
    if not bool(pdf["state"].iloc[0]):
        return pdf[cols]
    row = state_range_row(pdf, int(pdf["range"].iloc[0]))
    return pd.DataFrame([{"config": int(pdf["config"].iloc[0]), **row}])[cols]


#: cost model of the Spark memory guard (bytes), on top of ``Limits``' in-process one: a row of
#: a tick table / batch aggregate on the driver (pandas, the timeline's stand-in records), and
#: a record collected to the driver for a per-record watermark timeline
_DRIVER_BYTES_PER_TICK_ROW = 200
_DRIVER_BYTES_PER_RECORD = 400
#: per record and per (record, window) pair in a task's shard: fast path (columnar), engine
#: and micro-batch paths (per-window state)
_TASK_BYTES = {"fast": (400, 64), "engine": (1500, 150), "microbatch": (600, 150)}


def _with_unit(df, unit: tuple, semantics: str):
    """``df`` with ``_unit``: the group (e.g. Kafka Streams task) of every record under ``unit``
    (``toolkit.sweeps.semantics.split_ids``), computed by a pandas UDF on the executors."""
    from pyspark.sql import functions as F

    def ids(key: pd.Series, partition: pd.Series) -> pd.Series:
        return pd.Series(split_ids(unit, semantics, key.to_numpy(dtype=object), partition.to_numpy(dtype=np.int64)))

    return df.withColumn("_unit", F.pandas_udf(ids, "long")(F.col("key"), F.col("partition")))


def memory_estimate(configs: list[Setting], paths: list[str], *, records: int, span_ms: int, shards: int,
                    keys: int | None = None) -> dict:
    """Estimated peak memory of a Spark sweep (bytes): ``driver`` (tick tables and batch
    aggregates, one row per tick at most, and the records a per-record watermark timeline
    collects) and ``task`` (one key shard's records, assuming the ``keys`` spread evenly
    over the ``shards``: a key is never split, and their window assignments), with the setting
    that dominates each."""
    driver = 0
    driver_why = f"{records:,} records"
    seen: set = set()
    for c in configs:
        what = get(c.semantics).timeline_inputs(c)
        if what is None:
            continue  # its timeline is one aggregate of the log: nothing per record or tick on the driver
        if what in seen:
            continue
        seen.add(what)
        if what[0] == "records":
            need = records * _DRIVER_BYTES_PER_RECORD
            why = f"a watermark after every record (interval 0) or strategy {c.strategy} collects up to {records:,} records"
        else:
            rows = min(records, max(int(span_ms), 0) // max(int(what[1]), 1) + 1)
            need = rows * _DRIVER_BYTES_PER_TICK_ROW
            why = f"{'trigger_interval' if what[0] == 'batches' else 'interval'} {what[1]} ms gives up to {rows:,} ticks"
        if need > driver:
            driver_why = why
        driver += need
    per_shard = -(-records // max(1, min(shards, keys or shards)))
    task, task_why = 0, ""
    fast_fan = sum({windows_per_record(c.window) for c, p in zip(configs, paths) if p == "fast"})
    best = (-1, -1)
    for c, p in zip(configs, paths):
        base, per_pair = _TASK_BYTES.get(p, _TASK_BYTES["engine"])
        own = windows_per_record(c.window) + (windows_per_record(c.second_window) if c.second_window is not None else 0)
        need = per_shard * (base + (fast_fan if p == "fast" else own) * per_pair)
        if (need, own) > best:  # the fast path's shard holds every window's pairs: name the widest
            best = (need, own)
            task, task_why = need, f"window {c.window} over {per_shard:,} records per shard ({p} path)"
    return {"driver": driver, "driver_why": driver_why, "task": task, "task_why": task_why}


def _spark_bytes(text: str) -> int:
    """A Spark memory setting (``512m``, ``2g``, ``1gb``; no unit = MiB) in bytes (binary units, as Spark reads them)."""
    import re

    units = {"": 2**20, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50}
    m = re.fullmatch(r"\s*([0-9]+)\s*([kmgtp]?)(b?)\s*", str(text).lower())
    if not m:
        raise SettingError("spark.executor.pyspark.memory", f"spark.executor.pyspark.memory {text!r}: not a size like 2g")
    unit = m.group(2) or m.group(3)
    return int(m.group(1)) * units[unit]


def check_memory(limits: Limits, configs: list[Setting], paths: list[str], *, session, records: int, span_ms: int,
                 shards: int, keys: int | None = None) -> None:
    """Refuse a Spark sweep whose estimated memory exceeds what it may use, before any work.

    Driver side: ``max_memory``, else this machine's memory. Executor side, per executor (its
    tasks run at once, one shard each): ``max_memory``, else ``spark.executor.pyspark.memory``
    when set, else, when the executors run on this machine (``local[...]``,
    ``local-cluster[...]``), this machine's memory shared with the driver; on another cluster
    without ``spark.executor.pyspark.memory`` the executors' memory is not known here and only
    the driver is checked."""
    est = memory_estimate(configs, paths, records=records, span_ms=span_ms, shards=shards, keys=keys)
    conf = session.sparkContext.getConf()
    master = session.sparkContext.master
    here = master.startswith("local")
    machine = machine_memory()
    cap_driver = limits.max_memory or machine
    fix = "raise max_memory (--max-memory) if the estimate is too cautious"
    if cap_driver and est["driver"] > cap_driver:
        raise SettingError("max_memory", f"this Spark sweep would need about {format_bytes(est['driver'])} on the driver, "
                           f"more than {'the limit' if limits.max_memory else 'this machine'}'s {format_bytes(cap_driver)}: "
                           f"{est['driver_why']}; use a longer interval, or {fix}")
    if here:
        tasks = int(session.sparkContext.defaultParallelism)
    else:
        tasks = int(conf.get("spark.executor.cores", "1") or 1)
    tasks = max(1, min(tasks, shards))
    per_executor = est["task"] * tasks
    if limits.max_memory:
        cap_exec, whose = limits.max_memory, "the limit"
    elif conf.get("spark.executor.pyspark.memory", None):
        cap_exec, whose = _spark_bytes(conf.get("spark.executor.pyspark.memory")), "spark.executor.pyspark.memory"
    elif here and machine:
        cap_exec, whose = machine - est["driver"], "this machine"
    else:
        return
    if per_executor > cap_exec:
        need_shards = -(-max(shards, 1) * per_executor // max(cap_exec, 1))
        more = (f"use more key shards (shards={need_shards}, --shards {need_shards}) or a larger slide"
                if keys is None or need_shards <= keys else
                f"the log has only about {keys:,} keys, so more shards cannot help: use a larger slide")
        raise SettingError("max_memory", f"this Spark sweep would need about {format_bytes(per_executor)} on each executor "
                           f"({tasks} task(s) at once x {format_bytes(est['task'])}: {est['task_why']}), more than "
                           f"{whose}'s {format_bytes(cap_exec)}: {more}, or {fix}")


def _candidates(df, per_source: bool, session) -> pd.DataFrame:
    """Records that raise their source's running event-time max within a range partition of
    the arrival order, sorted by (arrival_time, row)."""
    from pyspark.sql import functions as F

    n_parts = max(1, int(session.sparkContext.defaultParallelism) * 2)
    src = F.col("partition") if per_source else F.lit(0).cast("long")
    ordered = (
        df.select("arrival_time", "row", "event_time", src.alias("partition"))
        .repartitionByRange(n_parts, "arrival_time", "row")
        .sortWithinPartitions("arrival_time", "row")
    )

    def prefix_maxima(batches):
        frames = [b for b in batches if len(b)]
        if not frames:
            return
        pdf = pd.concat(frames, ignore_index=True)
        ts = pdf["event_time"]
        prev = ts.groupby(pdf["partition"]).cummax().groupby(pdf["partition"]).shift(1)
        keep = prev.isna().to_numpy() | (ts.to_numpy() > prev.fillna(0).to_numpy())
        yield pdf[keep]

    schema = "arrival_time long, row long, event_time long, partition long"
    got = ordered.mapInPandas(prefix_maxima, schema=schema).toPandas()
    return got.sort_values(["arrival_time", "row"], kind="mergesort").reset_index(drop=True)


def _collect_with_progress(sc, frame, *, total: int, progress: bool | None, bar: Progress | None = None) -> pd.DataFrame:
    """``frame.toPandas()`` (a job that evaluates ``total`` configurations) while ``bar`` (the
    sweep's, else one of its own when ``progress`` asks or ``total >= 20``) moves by the share of
    the job's Spark tasks done; Ctrl-C cancels the job."""
    if bar is None:
        with Progress(total, show=bool(progress) or (progress is None and total >= 20), desc="sweep on Spark") as own:
            return _collect_with_progress(sc, frame, total=total, progress=progress, bar=own)
    step = bar.within(total)
    if progress is False or bar.bar.disable:
        got = frame.toPandas()
        step.finish()
        return got
    out: dict = {}

    def work():
        try:
            sc.setJobGroup(group, f"sweep of {total} configurations")
            out["frame"] = frame.toPandas()
        except BaseException as exc:  # re-raised in the caller's thread
            out["error"] = exc

    group = f"watermark-lab-sweep-{id(frame)}"
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.5)
            # Spark reveals its stages one after another, so the share of the tasks known so far may
            # drop when a stage appears: the step's share never goes back
            step.update(min(0.99, _tasks_done(sc, group)))
    except KeyboardInterrupt:
        sc.cancelJobGroup(group)
        raise
    if "error" in out:
        raise out["error"]
    step.finish()
    return out["frame"]


def _tasks_done(sc, group: str) -> float:
    """The share of the Spark tasks of a job group's known stages that are done (best effort: 0 when unknown)."""
    tracker = sc.statusTracker()
    done = tot = 0
    try:
        for job in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job)
            if info is None:
                continue
            for sid in info.stageIds:
                st = tracker.getStageInfo(sid)
                if st is not None:
                    done += st.numCompletedTasks
                    tot += st.numTasks
    except Exception:  # the tracker is best effort
        return 0.0
    return done / tot if tot else 0.0


def distribute(log: Any, *, shards: int | None = None, spark: Any = None, master: str | None = None):
    """The log as a Spark-backed EventLog, hash-partitioned by key into ``shards`` partitions
    and cached: sweeps of it then skip the shuffle (Spark sees the partitioning is already
    the one a sweep asks for). ``shards`` defaults to ``spark.sql.shuffle.partitions``."""
    from toolkit.log import EventLog
    from toolkit.spark import prepare_executors, spark_session

    session = spark or spark_session(master)
    prepare_executors(session)
    n = int(shards or int(session.conf.get("spark.sql.shuffle.partitions")))
    if isinstance(log, EventLog):
        sdf = log.spark_df if log.is_spark else None
        table = None if log.is_spark else log.table
        quarantine = log.quarantine
        if not log.has_arrival_time:
            raise ValueError("this log has no arrival times; a sweep needs them")
    else:
        sdf, table = None, log
        quarantine = pd.DataFrame({"row": pd.Series(dtype=np.int64), "column": pd.Series(dtype=object),
                                   "reason": pd.Series(dtype=object), "raw": pd.Series(dtype=object)})
    if sdf is None:
        cols = [c for c in ["row", "event_time", "arrival_time", "key", "partition"] if c in table]
        pdf = table[cols].copy()
        pdf["key"] = pdf["key"].astype(str)
        sdf = session.createDataFrame(pdf)
    sdf = _canonical(sdf).repartition(n, "key").cache()
    count = sdf.count()
    out = EventLog(None, quarantine, spark_df=sdf, n_records=count, has_arrival_time=True, source="distributed")
    if getattr(log, "declared_partitions", None) is not None:  # the partitions the job reads, declared
        out.declared_partitions = log.declared_partitions
        out.silent_partitions = log.silent_partitions
    return out
