"""``python -m toolkit bench sweep``: fast-path throughput, 100-configuration sweeps in-process
and on local Spark, and the speed-up over the engine and over real Flink measured in the same run.

The log is the Flink oracle's anchor log (``toolkit.bench.anchors.flink_bench_table``: the same
records the oracle's bench job generates, 1,000 keys by default). Sub-cases (``--only a,b,c,s``):
``a`` fast-path record-configurations per second on one core; ``b`` wall time of a
100-configuration sweep in-process and on local Spark (session started beforehand); ``c`` the
same sweep against running each configuration through the engine (measured on a slice,
extrapolated) and against real Flink: the oracle's anchor job is run now over the same records
(one configuration of the grid; the sweep's row for it must have Flink's figures), when the
oracle is found beside the repository (``../shared/oracle`` or ``$WATERMARK_LAB_ORACLE``); if
it is not, the output says so and gives no Flink ratio; then a Spark-semantics sweep (20
delays, :func:`toolkit.bench.anchors.spark_setting`) and real Spark Structured Streaming run
now on the same records for one of them (the sweep's row must have Spark's figures), with the
ratio per setting, or why Spark was not measured; ``s`` session windows on the fast path
(record-configurations per CPU-second; ``bench sessions`` compares them with the engine). Scaling with the log size:
``bench scale``. Figures depend on the machine and on what else runs on it (the load average
is printed).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.bench._timing import Timer, timed
from toolkit.bench import sessions as bench_sessions
from toolkit.bench.anchors import (DELAYS, LATENESS, SPARK_DELAY_MS, Anchor, check_flink, check_spark, flink_anchor,
                                   flink_bench_table, flink_setting, spark_anchor, spark_setting)
from toolkit.fast.evaluate import FixedWindows, Shard, partial
from toolkit.settings import grid
from toolkit.spark import spark_session
from toolkit.sweeps import distribute
from toolkit.sweeps.timelines import build_timelines, local_sources



def bench_table(records: int, keys: int, seed: int) -> pd.DataFrame:
    """The Flink anchor job's records (see :func:`toolkit.bench.anchors.flink_bench_table`)."""
    return flink_bench_table(records, keys, seed)


def _grid():
    """100 configurations around the anchor job's setting (Flink's watermarks: ``legacy``,
    one tick per block of records); the anchor's own setting is one of them."""
    anchor = flink_setting()
    return dict(window=anchor["window"], strategy=anchor["strategy"], delay=DELAYS, lateness=LATENESS,
                interval=anchor["interval"])


def case_a(table: pd.DataFrame) -> float:
    """Fast-path evaluation only (timelines built, pairs shared), one core."""
    configs = grid(**_grid())
    arr, ts = table["arrival_time"].to_numpy(), table["event_time"].to_numpy()
    timelines, build = timed(lambda: build_timelines(configs, local_sources(table)))
    with Timer() as setup:
        shard = Shard(table["key"].to_numpy(), ts, arr, table["row"].to_numpy())
        spec = FixedWindows.of(configs[0].window)
        shard.runs(spec, timelines[0].shape)
    with Timer() as evaluation:
        for i, c in enumerate(configs):
            partial(shard, spec, timelines[i], c.lateness)
    wall, cpu = evaluation.wall, evaluation.cpu
    total = build.wall + setup.wall + wall
    n = len(table) * len(configs)
    print(f"(a) fast path, {len(configs)} configurations x {len(table):,} records, one process:")
    print(f"    timelines (tick table + {len({c.delay for c in configs})} delays): {build.wall:.2f} s")
    print(f"    shared setup (arrival sort, window pairs, runs): {setup.wall:.2f} s")
    print(f"    per-configuration evaluation: {wall:.2f} s = {wall / len(configs) * 1000:.1f} ms/config")
    print(f"    CPU time of the evaluation: {cpu:.2f} s = {cpu / len(configs) * 1000:.1f} ms/config "
          f"=> {n / cpu / 1e6:.1f} M record-configurations per CPU-second")
    print(f"    => {n / wall / 1e6:.1f} M record-configurations/s (evaluation, wall), "
          f"{n / total / 1e6:.1f} M/s including timelines and setup")
    return n / total


def case_b(table: pd.DataFrame, spark) -> tuple[float, float, pd.DataFrame, float]:
    local, in_process = timed(lambda: toolkit.sweep(table, progress=False, execution="local", **_grid()))
    print(f"(b) 100-configuration sweep over {len(table):,} records: in-process {in_process.wall:.1f} s "
          f"({in_process.cpu:.1f} s CPU)")
    shards = spark.sparkContext.defaultParallelism  # one key shard per core: fewest fixed costs
    dist, distributing = timed(lambda: distribute(table, spark=spark, shards=shards))
    _, warm_up = timed(lambda: toolkit.sweep(dist, progress=False, execution="spark", spark=spark, shards=shards,
                                             window="tumbling:1s"))
    remote, on_spark = timed(lambda: toolkit.sweep(dist, progress=False, execution="spark", spark=spark,
                                                   shards=shards, **_grid()))
    print(f"    on local Spark ({spark.sparkContext.master}, {shards} key shards, session started): {on_spark.wall:.1f} s "
          f"(before it, once: {distributing.wall:.1f} s to distribute the log by key and cache it, "
          f"{warm_up.wall:.1f} s for a 1-configuration warm-up that starts the Python workers)")
    same = local.equals(remote)
    print(f"    identical results in-process and on Spark: {same}")
    dist.spark_df.unpersist()
    return in_process.wall, on_spark.wall, local, in_process.cpu


def case_c(table: pd.DataFrame, sweep_s: tuple[float, float] | None, keys: int, seed: int,
           results: pd.DataFrame | None, in_process_cpu: float | None = None) -> None:
    n_configs = len(DELAYS) * len(LATENESS)
    part = table.iloc[: min(len(table), 50_000)]
    _, engine = timed(lambda: toolkit.sweep(part, path="engine", progress=False, **flink_setting()))
    per_config = engine.wall * len(table) / len(part)
    engine_total = per_config * n_configs
    print(f"(c) engine path: {engine.wall:.2f} s for one configuration over {len(part):,} records "
          f"=> ~{per_config:.0f} s per configuration over {len(table):,}, ~{engine_total:.0f} s for {n_configs}")
    anchors: list[Anchor] = []
    flink = flink_anchor(len(table), keys, seed)
    if isinstance(flink, str):
        print(f"    real Flink: not measured in this run: {flink}")
    else:
        anchors.append(flink)
        print(f"    {flink.engine}, measured now over the same {flink.records:,} records, the grid's setting "
              f"{_setting_text()}: {flink.wall_s:.1f} s process wall, {flink.cpu_s:.1f} s CPU ({flink.note})")
        if results is None:
            results = toolkit.sweep(table, progress=False, execution="local", **flink_setting())
        print(f"    the sweep's row for that setting: {check_flink(flink, _anchor_row(results))}")
    _spark_anchor(table)
    if not sweep_s:
        return
    for name, secs in zip(("in-process", "local Spark"), sweep_s):
        line = f"    sweep {name} ({secs:.1f} s for {n_configs}): {engine_total / secs:.0f}x the engine per setting"
        for a in anchors:
            line += (f"; {a.wall_s * n_configs / secs:.0f}x {a.engine.split(' (')[0]} run once per setting "
                     f"({a.wall_s:.1f} s each)")
            if a.job_s:
                line += f", {a.job_s * n_configs / secs:.0f}x its job time alone ({a.job_s:.1f} s, start-up excluded)"
        print(line)
    if in_process_cpu:
        for a in anchors:
            if a.cpu_s:
                print(f"    by CPU time (fairer on a busy machine): the in-process sweep's {in_process_cpu:.1f} s CPU for "
                      f"{n_configs} settings against {a.cpu_s:.1f} s CPU for one in {a.engine.split(' (')[0]}: "
                      f"{a.cpu_s * n_configs / in_process_cpu:.0f}x")


def _spark_anchor(table: pd.DataFrame) -> None:
    """Real Spark Structured Streaming against our sweep of Spark-semantics settings, same log:
    the sweep of 20 delays in-process (time per setting), one of them run on real Spark now."""
    n = len(DELAYS)
    results, ours = timed(lambda: toolkit.sweep(table, progress=False, execution="local",
                                                **{**spark_setting(), "delay": DELAYS}))
    per = ours.wall / n
    print(f"    Spark semantics ({_spark_text()} and {n - 1} other delays): our sweep in-process {ours.wall:.1f} s "
          f"for {n} settings = {per:.2f} s per setting ({ours.cpu / n:.2f} s CPU)")
    try:
        session = spark_session()
    except Exception as exc:  # noqa: BLE001 - no Java / no pyspark: said, not raised
        print(f"    real Spark Structured Streaming: not measured in this run: no Spark session ({exc})")
        return
    with tempfile.TemporaryDirectory(prefix="bench-spark-") as work:
        spark = spark_anchor(table, session, Path(work))
    if isinstance(spark, str):
        print(f"    real Spark Structured Streaming: not measured in this run: {spark}")
        return
    row = results[results["delay_ms"] == SPARK_DELAY_MS].iloc[0]
    print(f"    {spark.engine}, measured now over the same {spark.records:,} records, setting {_spark_text()}: "
          f"{spark.job_s:.1f} s for the query ({spark.note}; session already running)")
    print(f"    the sweep's row for that setting: {check_spark(spark, row)}")
    print(f"    => our sweep {spark.job_s / per:.0f}x real Spark Structured Streaming per setting "
          f"({per:.2f} s against {spark.job_s:.1f} s)")


def _spark_text() -> str:
    return str(toolkit.Setting.parse(**spark_setting()))


def _setting_text() -> str:
    return str(toolkit.Setting.parse(**flink_setting()))


def _anchor_row(results: pd.DataFrame) -> pd.Series:
    a = flink_setting()
    hit = results[(results["delay_ms"] == a["delay"]) & (results["lateness_ms"] == a["lateness"])
                  & (results["interval_ms"] == a["interval"]) & (results["strategy"] == a["strategy"])]
    return hit.iloc[0]


def run(args) -> int:
    only = set((args.only or "a,b,c,s").split(","))
    unknown = only - {"a", "b", "c", "s"}
    if unknown:
        raise ValueError(f"--only: unknown sub-case {', '.join(sorted(unknown))} (bench sweep has a, b, c, s; "
                         "the 10 M-record run moved to 'bench scale')")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start "
          "(shared with other work: treat timings as indicative)")
    table = bench_table(args.records, args.keys, args.seed)
    if "a" in only:
        case_a(table)
    sweep_s = results = None
    if "b" in only:
        in_process, on_spark, results, in_process_cpu = case_b(table, spark_session())
        sweep_s = (in_process, on_spark)
    if "c" in only:
        case_c(table, sweep_s, args.keys, args.seed, results, in_process_cpu if sweep_s else None)
    if "s" in only:
        # session windows on the fast path, the same records and grid (bench sessions has the engine comparison)
        print("(s) session windows (200 ms gap) on the fast path, the same log:")
        bench_sessions.warm_up()
        bench_sessions.case_a(table, "200ms")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0
