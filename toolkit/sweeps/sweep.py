"""``toolkit.sweep(log, ...)``: a replay over a grid of settings, in-process or on Spark.

Every setting :func:`toolkit.replay` takes, the sweep takes, each as one value or a list
(``toolkit.settings``: one vocabulary). Each configuration runs on the closed-form path
(``toolkit.fast``) when it applies (tumbling/sliding windows in closed form or session
windows compiled, the event-time trigger, no evictor, accumulating or retracting, one stage) and on the engine path otherwise; the figures
are the same either way (property tests), and the same as ``replay(...).summary()`` for that
setting.

Result columns (one row per configuration): the configuration (``CONFIG_COLUMNS``: ``window,
delay_ms, lateness_ms, interval_ms, strategy, idleness_ms, partitions_as_sources,
source_parallelism, trigger, evictor, function, accumulation, second_window,
second_lateness_ms, semantics, trigger_interval_ms, output_mode, multiple_watermark_policy``),
``path`` (fast | engine; ``microbatch`` for ``semantics="spark"`` rows, evaluated in one piece
by ``toolkit.semantics.structured_streaming.replay`` with the replay's own figures, or, on Spark and with
``shards > 1``, in key shards after the global batch timeline, ``toolkit.sweeps.semantics``:
the same figures; for ``semantics="kafka_streams"`` and ``semantics="beam"`` rows ``fast`` where
the engine's closed form applies (``toolkit.semantics.kafka_streams.fast``: time windows per task;
``toolkit.semantics.beam.fast``: fixed and sliding windows with the watermark trigger), otherwise
``kafka_streams`` (the replay task by task, ``toolkit.semantics.kafka_streams.sweep``) or ``beam``
(``toolkit.semantics.beam.replay``: in one piece, or in key shards when its keys are independent,
``toolkit.semantics.beam.sweep.shardable``); ``path="engine"`` sends every row to its replay). Rows evaluated in one piece (``toolkit.sweeps.whole``) run on
the driver for a local log, and for a Spark-backed log on Spark, each row's whole log in one
task (``toolkit.sweeps.spark.run_whole``); then

- ``records`` (valid + invalid) = ``on_time + late_accepted + dropped + invalid``: a record is
  ``on_time`` when it is in the first firing (pane 0) of a window that accepted it (a late
  record that creates a window fires it at once, pane 0, so it counts as on time),
  ``late_accepted`` when it only reaches later firings, ``dropped`` when no window accepted
  it (or it has no window, or an evictor removed it before every firing), ``invalid`` when
  quarantined at load;
- ``completeness_first`` / ``completeness_final``: record-window pairs in first / any firing
  over all true pairs (batch answer); ``exact_windows``: share of true windows whose first
  firing held every true record (1.0 when there is no window at all);
- ``latency_p50/p95/p99/max_ms``: first firing's processing time minus the window end, over
  the windows that fired, nearest-rank percentiles (an observed latency); firings caused by
  the end of input happen at the replay's last tick;
- ``firings`` (fire results), ``late_firings`` (those caused by a late record, including a
  record-caused first firing), ``retractions`` (retracting mode);
- ``peak_state_windows/records``: most windows / buffered record-window pairs held at once,
  sampled after every record and every watermark; ``mean_state_*``: their time average over
  processing time from the first arrival to the end of input; ``windows``: true windows.

A sweep with ``incidents=[...]`` repeats these rows for each variant of the log (the recorded
log, then each incident applied), with an ``incident`` column before ``path``
(``toolkit.sweeps.variants``).

With a ``second_window`` the figures are the first stage's (the records' fates); the second
stage's own results come from ``toolkit.replay``. Global windows have no batch answer of
their own: their figures treat each key's records as one window.
"""
from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np
import pandas as pd

from toolkit.fast.evaluate import Shard
from toolkit.fast.sessions import gap_array, gap_column
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.semantics import get
from toolkit.settings import (
    CONFIG_COLUMNS,
    Limits,
    Setting,
    SettingError,
    Tumbling,
    format_bytes,
    grid,
    machine_memory,
    staggered_offset,
    windows_per_record,
)
from toolkit.sweeps.evaluate import merge_all
from toolkit.sweeps.progress import Progress, shown_by_default
from toolkit.sweeps.semantics import all_timelines, evaluate_shard, split_ids, split_unit
from toolkit.sweeps.timelines import local_sources
from toolkit.sweeps.variants import check_variant_log, incident_list, sweep_variants
from toolkit.sweeps.whole import in_one_piece, whole_rows

RESULT_COLUMNS = CONFIG_COLUMNS + ["path"] + SUMMARY_COLUMNS
PATHS = ("auto", "fast", "engine")
EXECUTIONS = ("auto", "local", "spark")


def sweep(
    log: Any,
    settings: Any = None,
    /,
    *,
    path: str = "auto",
    execution: str = "auto",
    master: str | None = None,
    spark: Any = None,
    shards: int | None = None,
    progress: bool | None = None,
    max_windows_per_record: int | None = None,
    max_memory: Any = None,
    incidents: Any = None,
    out: Any = None,
    fresh: bool = False,
    **grid_settings: Any,
) -> pd.DataFrame:
    """Evaluate every combination of the settings (each may be a list); one row per configuration.

    Settings are :func:`toolkit.replay`'s (``window`` default ``tumbling:1s``); instead of
    keywords a list of :class:`toolkit.settings.Setting` may be given. ``path``: ``"auto"``
    (closed form when it applies, engine otherwise), ``"fast"`` (error if it does not apply)
    or ``"engine"``. ``execution``: ``"local"`` (in-process), ``"spark"``, or ``"auto"`` = Spark
    when the log is Spark-backed or a master/session is given (``master=``, ``$SPARK_MASTER``),
    in-process otherwise. On Spark the work is split into ``shards`` key shards (default:
    ``spark.sql.shuffle.partitions``) x configuration chunks. Figures are identical whatever
    the execution and sharding. ``max_windows_per_record`` and ``max_memory`` raise the
    guards checked before any work starts (:class:`toolkit.settings.Limits`). ``progress``: a
    bar of the configurations done and the time left (default: for a long sweep).

    ``incidents``: a list of bad days (``toolkit.incidents``: ``stall(...)``, ``restart(...)``, their
    spellings, ``None`` for the recorded log): every configuration is evaluated on each variant of
    the log, and the rows, stacked in that order, carry an ``incident`` column (``"recorded log"``
    or the incident's spelling) before ``path`` (``toolkit.sweeps.variants``). An empty list is
    the plain sweep.

    ``out``: also write the rows to this file (``.parquet``, ``.csv``, ``.json``), resumably: the
    configurations are evaluated in batches, each written as it finishes; the same call after an
    interruption (Ctrl-C, a crash) runs only the rest; another log or other settings are refused
    unless ``fresh=True`` discards the earlier parts (``toolkit.sweeps.resume``, docs/sweeps.md).
    """
    limits = Limits.of(max_windows_per_record, max_memory)
    configs = settings_grid(settings, dict(grid_settings))
    limits.check_settings(configs)
    variants = incident_list(incidents) if incidents is not None else []
    if variants:
        check_variant_log(log)
    if path not in PATHS:
        raise SettingError("path", f"path must be one of {', '.join(PATHS)}, got {path!r}")
    if execution not in EXECUTIONS:
        raise SettingError("execution", f"execution must be one of {', '.join(EXECUTIONS)}, got {execution!r}")
    run = functools.partial(sweep_log, path=path, execution=execution, master=master, spark=spark, shards=shards,
                            limits=limits)
    if out is not None:
        from toolkit.sweeps.resume import sweep_to_file

        return sweep_to_file(log, configs, variants, run, out=out, fresh=fresh, path=path, progress=progress)
    total = len(configs) * max(1, len(variants))
    show = progress if progress is not None else shown_by_default(log_records(log), total)
    with Progress(total, show=show) as bar:
        if variants:
            return sweep_variants(log, variants, lambda v: run(v, configs, bar))
        return run(log, configs, bar)


def sweep_log(log: Any, configs: list[Setting], bar: Progress, *, path: str, execution: str, master: str | None,
              spark: Any, shards: int | None, limits: Limits) -> pd.DataFrame:
    """The rows of ``configs`` over one log (a variant, or a batch of a resumable sweep: the same
    rows as in the whole sweep); ``bar`` counts each configuration as it is done."""
    all_configs = configs
    table, invalid, spark_df = _inputs(log, all_configs)
    # declared source partitions (load_log(..., partitions=...)), some perhaps without records
    declared = getattr(log, "declared_partitions", None)
    use_spark = execution == "spark" or (
        execution == "auto" and (spark_df is not None or master is not None or spark is not None or bool(os.environ.get("SPARK_MASTER")))
    )
    # sharded (Spark, or in-process shards > 1): every row the registry (toolkit.sweeps.semantics)
    # shards; the others, and every non-Flink row of an unsharded sweep, in one piece by the replay's
    # own code (toolkit.sweeps.whole: on the driver, or in one Spark task for a Spark-backed log)
    in_shards = use_spark or (shards or 1) > 1
    micro = [i for i, c in enumerate(configs) if in_one_piece(c, in_shards)]
    if path == "fast" and micro:
        c = configs[micro[0]]
        raise SettingError("path", f"path='fast': the {get(c.semantics).title} row {c} has no closed form here "
                           "(it runs in one piece by its engine's replay); use path='auto'")
    flink = sorted(set(range(len(configs))) - set(micro))
    configs = [all_configs[i] for i in flink]
    shown = configs  # the rows show the settings as given; the work runs on them resolved
    configs = resolve_staggers(configs, table, spark_df)
    gap_max = dynamic_gap_max([c for c in configs if not get(c.semantics).null_gap_is_no_session], table, spark_df)
    check_gaps(configs, table, spark_df)
    paths = _paths(configs, path, table, spark_df, gap_max)
    if table is not None and len(table):  # the guards of the work done here (Spark's: toolkit.sweeps.spark)
        if not use_spark:
            arr = table["arrival_time"].to_numpy(dtype=np.int64)
            limits.check_cost(configs, len(table), int(arr.max()) - int(arr.min()), "sweep")
        check_whole_local(limits, [all_configs[i] for i in micro], len(table))
    summary = None
    if not configs:
        pass
    elif use_spark:
        from toolkit.sweeps.faults import spark_memory_errors
        from toolkit.sweeps.spark import run_spark

        with spark_memory_errors(spark):
            summary = run_spark(table, spark_df, configs, paths, invalid=invalid, master=master, spark=spark,
                                shards=shards, limits=limits, partitions=declared, bar=bar)
    else:
        if table is None:
            raise SettingError("execution", "this log is Spark-backed: run the sweep with execution='spark' (or 'auto')")
        summary = run_local(table, configs, paths, invalid=invalid, shards=shards or 1, partitions=declared, bar=bar)
    if not micro:
        return assemble(shown, paths, summary)
    whole = _whole_rows(all_configs, micro, table, spark_df, invalid, declared, use_spark=use_spark, spark=spark,
                        master=master, bar=bar, limits=limits)
    return _with_whole_rows(all_configs, flink, paths, summary, micro, whole)


def log_records(log: Any) -> int | None:
    """The records of a log (an EventLog knows them, Spark-backed too), None when not known."""
    from toolkit.log import EventLog

    if isinstance(log, EventLog):
        return int(log.n_records)
    return len(log) if isinstance(log, pd.DataFrame) else None


def check_whole_local(limits: Limits, configs: list[Setting], records: int) -> None:
    """Refuse rows evaluated in one piece on this machine (``toolkit.sweeps.whole``, one at a time)
    whose estimate (each engine's ``whole_bytes``) exceeds ``max_memory`` (this machine's memory)."""
    cap = limits.max_memory or machine_memory()
    for c in configs:
        base, per_pair = get(c.semantics).whole_bytes()
        need = records * (base + windows_per_record(c.window) * per_pair)
        if cap and need > cap:
            raise SettingError("max_memory", f"this sweep evaluates {c.semantics} window {c.window} in one piece over "
                               f"{records:,} records: about {format_bytes(need)}, more than "
                               f"{'the limit' if limits.max_memory else 'this machine'}'s {format_bytes(cap)}; sweep it "
                               "on Spark or on a sample of the log, or raise max_memory (--max-memory) if the estimate "
                               "is too cautious")


def _paths(configs: list[Setting], path: str, table: pd.DataFrame | None, spark_df: Any, gap_max: dict) -> list[str]:
    """Each row's path, as its engine chooses (Flink: the closed form where it applies)."""
    out: list[str] = [""] * len(configs)
    by_engine: dict[str, list[int]] = {}
    for i, c in enumerate(configs):
        by_engine.setdefault(c.semantics, []).append(i)
    for name, idx in by_engine.items():
        chosen = get(name).sweep_paths([configs[i] for i in idx], path, gap_max=gap_max,
                                       event_range=lambda: _event_range(table, spark_df))
        for i, p in zip(idx, chosen):
            out[i] = p
    return out


def resolve_staggers(configs: list[Setting], table: pd.DataFrame | None, spark_df: Any) -> list[Setting]:
    """Staggered tumbling windows as the aligned windows they become: one window operator
    instance resolves its stagger at its first element (the first arrival of the log, as in a
    replay), so ``(offset + stagger offset) % size`` is the offset for the whole run
    (:func:`toolkit.settings.staggered_offset`); every path and shard then agrees."""
    if not any(c.stagger != "aligned" for c in configs):
        return configs
    first = _first_arrival(table, spark_df)
    out = []
    for c in configs:
        if c.stagger != "aligned" and isinstance(c.window, Tumbling):
            w = c.window
            c = c.replace(window=Tumbling(w.size, staggered_offset(w, c.stagger, first)), stagger="aligned")
        out.append(c)
    return out


def _first_arrival(table: pd.DataFrame | None, spark_df: Any) -> int:
    if table is not None:
        return int(table["arrival_time"].min()) if len(table) else 0
    from pyspark.sql import functions as F

    v = spark_df.agg(F.min("arrival_time")).first()[0]
    return 0 if v is None else int(v)


def dynamic_gap_max(configs: list[Setting], table: pd.DataFrame | None, spark_df: Any) -> dict[str, int]:
    """Per dynamic-session gap column: its largest gap, after checking every gap (an error
    naming ``window`` and the column when one is missing or not a positive integer)."""
    cols = list(dict.fromkeys(c.gap_column for c in configs if c.gap_column is not None))
    out: dict[str, int] = {}
    for col in cols:
        if table is not None:
            g = gap_column(table, col)
            out[col] = int(g.max()) if len(g) else 0
        else:
            out[col] = _spark_gap_max(spark_df, col)
    return out


def check_gaps(configs: list[Setting], table: pd.DataFrame | None, spark_df: Any) -> None:
    """The gap columns that only engines reading a null or non-positive gap as "no session" read,
    checked by that engine (``Semantics.check_gap_column``). A column an engine that refuses such
    gaps reads too is checked by :func:`dynamic_gap_max` (every gap > 0)."""
    strict = {c.gap_column for c in configs if not get(c.semantics).null_gap_is_no_session}
    seen: set[str] = set()
    for c in configs:
        col = c.gap_column
        if col is None or col in strict or col in seen:
            continue
        seen.add(col)
        get(c.semantics).check_gap_column(col, table, spark_df)


def _spark_gap_max(spark_df: Any, col: str) -> int:
    """:func:`dynamic_gap_max` in Spark: one aggregate; the first bad row collected to name it."""
    from pyspark.sql import functions as F

    if col not in spark_df.columns:
        raise SettingError("window", f"window dynamic_session:{col}: the log has no column {col!r}; load it with "
                           f"toolkit.load_log(..., keep=[{col!r}]) (the command line keeps it by itself)")
    x = F.col(f"`{col}`").cast("double")
    bad = x.isNull() | F.isnan(x) | (x <= 0) | (x != F.floor(x)) | (F.abs(x) >= F.lit(2.0**63))
    agg = spark_df.agg(F.sum(F.when(bad, 1).otherwise(0)).alias("bad"), F.count(F.lit(1)).alias("n"),
                       F.max(F.when(~bad, F.col(f"`{col}`").cast("long"))).alias("mx")).first()
    if agg["bad"]:
        first = spark_df.where(bad).orderBy("row").select("row", F.col(f"`{col}`").alias("g")).first()
        try:  # the pandas rule's message, on the first bad row
            gap_array(np.asarray([first["g"]], dtype=object), col, [first["row"]])
        except ValueError as exc:
            raise SettingError("window", str(exc).replace("1 of 1 records", f"{int(agg['bad']):,} of {int(agg['n']):,} records")) from None
    return int(agg["mx"] or 0)


def _whole_rows(configs: list[Setting], micro: list[int], table: pd.DataFrame | None, spark_df: Any, invalid: int,
                partitions, *, use_spark: bool, spark: Any, master: str | None, bar: Progress,
                limits: Limits | None = None) -> pd.DataFrame:
    """The figures of the rows that run in one piece (``toolkit.sweeps.whole``), index: config
    position. A local log: in-process, on the driver. A Spark-backed log: on Spark, each row's
    whole log in one Spark task (``toolkit.sweeps.spark.run_whole``); only the figures come back."""
    if table is not None:
        rows = whole_rows(table, {i: configs[i] for i in micro}, invalid, partitions)
        bar.add(len(micro))
        return pd.DataFrame.from_dict(rows, orient="index", columns=SUMMARY_COLUMNS)
    if not use_spark:
        raise SettingError("execution", "this log is Spark-backed: run the sweep with execution='spark' (or 'auto')")
    from toolkit.sweeps.faults import spark_memory_errors
    from toolkit.sweeps.spark import run_whole

    with spark_memory_errors(spark):
        return run_whole(spark_df, {i: configs[i] for i in micro}, invalid=invalid, partitions=partitions, spark=spark,
                         master=master, limits=limits, bar=bar)


def _with_whole_rows(configs: list[Setting], flink: list[int], paths: list[str], summary: pd.DataFrame | None,
                     micro: list[int], whole: pd.DataFrame) -> pd.DataFrame:
    """Add the rows evaluated in one piece (``whole``: their figures by config position), path
    ``microbatch`` / ``kafka_streams`` / ``beam``, to the sharded rows' ``summary``."""
    frame = whole[SUMMARY_COLUMNS]
    if summary is not None:
        s = summary.sort_index()
        s.index = flink
        frame = pd.concat([s[SUMMARY_COLUMNS], frame])
    all_paths = [""] * len(configs)
    for i, p in zip(flink, paths):
        all_paths[i] = p
    for i in micro:
        all_paths[i] = get(configs[i].semantics).path
    return assemble(configs, all_paths, frame.sort_index())


def settings_grid(settings: Any, grid_settings: dict) -> list[Setting]:
    """The configurations of a sweep: a Setting, a list of them, or keyword lists."""
    if settings is not None:
        if grid_settings:
            raise SettingError("settings", "give either Setting objects or keyword settings, not both")
        items = settings if isinstance(settings, (list, tuple)) else [settings]
        configs = [s if isinstance(s, Setting) else Setting.parse(s) for s in items]
        if not configs:
            raise SettingError("settings", "no settings to sweep")
        return list(dict.fromkeys(configs))
    grid_settings.setdefault("window", "tumbling:1s")
    return grid(**grid_settings)


def _event_range(table: pd.DataFrame | None, spark_df: Any) -> tuple[int, int] | None:
    """(min, max) event time of the valid records, None for an empty log."""
    if table is not None:
        if not len(table):
            return None
        et = table["event_time"].to_numpy()
        return int(et.min()), int(et.max())
    if spark_df is None:
        return None
    from pyspark.sql import functions as F

    lo, hi = spark_df.agg(F.min("event_time"), F.max("event_time")).first()
    return None if lo is None else (int(lo), int(hi))


_INT_COLUMNS = {"records", "at_end_firings", "on_time", "late_accepted", "dropped", "invalid", "firings", "late_firings", "retractions",
                "peak_state_windows", "peak_state_records", "windows", "delay_ms", "lateness_ms", "interval_ms",
                "source_parallelism", "second_lateness_ms"}


def assemble(configs: list[Setting], paths: list[str], summary: pd.DataFrame) -> pd.DataFrame:
    """Config columns, path, then the summary columns, one row per configuration."""
    summary = summary.sort_index()
    rows = [c.row() for c in configs]
    data: dict = {}
    for col in CONFIG_COLUMNS:
        values = [r[col] for r in rows]
        if col in ("idleness_ms", "trigger_interval_ms", "grace_ms", "tasks"):
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


def _inputs(log: Any, configs: list[Setting] = ()) -> tuple[pd.DataFrame | None, int, Any]:
    """(valid records as pandas or None, invalid count, Spark DataFrame or None)."""
    from toolkit.log import EventLog

    if isinstance(log, EventLog):
        if not log.has_arrival_time:
            raise SettingError(
                "arrival_time",
                "this log has no arrival times: a sweep measures latency and periodic watermarks over "
                "processing time, so map an arrival-time column when loading the log",
            )
        if log.is_spark:
            return None, log.n_invalid, log.spark_df
        return log.table, log.n_invalid, None
    if isinstance(log, pd.DataFrame):
        missing = [c for c in ("event_time", "arrival_time") if c not in log.columns]
        if missing:
            raise SettingError(missing[0], f"the log table lacks column(s) {', '.join(missing)}")
        t = log.copy()
        if "row" not in t:
            t["row"] = np.arange(len(t), dtype=np.int64)
        if "key" not in t:
            t["key"] = "default"
        if "partition" not in t:
            t["partition"] = 0
        if "value" not in t:
            t["value"] = 1
        return t, 0, None
    raise SettingError("log", f"sweep needs an EventLog (toolkit.load_log) or a pandas DataFrame, got {type(log).__name__}")


def run_local(
    table: pd.DataFrame, configs: list[Setting], paths: list[str], *, invalid: int, shards: int = 1, progress: bool | None = None,
    partitions=None, bar: Progress | None = None,
) -> pd.DataFrame:
    """In-process execution (``shards > 1`` splits the log as Spark would, to test the merge: by
    key, or by whole groups of keys such as Kafka Streams' tasks, ``toolkit.sweeps.semantics``);
    ``partitions``: the declared source partitions (``EventLog.declared_partitions``). ``bar``: the
    sweep's progress, moved by ``1 / shards`` configuration per shard evaluated (else its own,
    shown as ``progress`` says)."""
    if bar is None:
        show = progress if progress is not None else shown_by_default(len(table), len(configs))
        with Progress(len(configs), show=show) as own:
            return run_local(table, configs, paths, invalid=invalid, shards=shards, partitions=partitions, bar=own)
    src = local_sources(table, partitions)
    timelines = all_timelines(configs, src)
    spans = {i: (tl.start_time, tl.end_time) for i, tl in timelines.items()}
    jobs = [(i, c, p, timelines[i]) for i, (c, p) in enumerate(zip(configs, paths))]
    keys = table["key"].to_numpy(dtype=object)
    part = table["partition"].to_numpy(dtype=np.int64) if "partition" in table else np.zeros(len(keys), np.int64)
    ts = table["event_time"].to_numpy(dtype=np.int64)
    arrival = table["arrival_time"].to_numpy(dtype=np.int64)
    row = table["row"].to_numpy(dtype=np.int64)
    values = _values(table)
    gaps = shard_gaps(table, configs)
    # one split of the log per shard unit: key shards, or (Kafka Streams) whole tasks per assignment
    splits: dict[tuple, list] = {}
    for job in jobs:
        splits.setdefault(split_unit(job[1], job[3]), []).append(job)
    frames = []
    advance = bar.add
    for unit, unit_jobs in splits.items():
        if shards == 1:
            shard_of = np.zeros(len(keys), dtype=np.int64)
        elif unit == ("key",):
            shard_of = _shard_ids(keys, shards)
        else:  # whole groups (tasks) per shard
            shard_of = split_ids(unit, unit_jobs[0][1].semantics, keys, part) % shards
        for s in range(shards):
            sel = shard_of == s
            shard = Shard(keys[sel], ts[sel], arrival[sel], row[sel], values=values[sel],
                          gaps={c: g[sel] for c, g in gaps.items()}, partition=part[sel])
            frames.append(evaluate_shard(shard, unit_jobs, on_done=lambda: advance(1 / shards)))
    rows = pd.concat(frames, ignore_index=True)
    return merge_all(rows, spans, invalid)


def shard_gaps(table: pd.DataFrame, configs: list[Setting]) -> dict[str, np.ndarray]:
    """Each dynamic-session gap column as int64 ms for the shards: checked Flink's way (every gap
    > 0) when a row of an engine that refuses a non-positive gap reads it, else by the reading
    engine's own rule (Spark's: null read as 0, no session)."""
    strict = {c.gap_column for c in configs if not get(c.semantics).null_gap_is_no_session}
    readers: dict[str, Any] = {}
    for c in configs:
        if c.gap_column is not None:
            readers.setdefault(c.gap_column, get(c.semantics))
    return {col: gap_column(table, col) if col in strict else eng.gap_array(table, col) for col, eng in readers.items()}


def _values(table: pd.DataFrame) -> np.ndarray:
    if "value" not in table:
        return np.ones(len(table), dtype=np.int64)
    v = table["value"].to_numpy()
    return v if v.dtype != object else np.asarray(v)


def _shard_ids(keys: np.ndarray, shards: int) -> np.ndarray:
    codes, uniques = pd.factorize(keys, sort=True)
    h = pd.util.hash_array(np.asarray(uniques, dtype=object)) % np.uint64(shards)
    return h.astype(np.int64)[codes]
