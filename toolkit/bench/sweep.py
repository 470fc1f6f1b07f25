"""``python -m toolkit bench sweep``: fast-path throughput, 100-configuration sweeps in-process
and on local Spark, the speed-up over the engine, and (``--only spark10m``) a 10 M-record
sweep on Spark with the driver's memory measured.

Sub-cases (``--only a,b,c,spark10m``): ``a`` fast-path record-configurations per second on one
core; ``b`` wall time of a 100-configuration sweep in-process and on local Spark (session
started beforehand); ``c`` the same sweep against running each configuration through the
engine (measured on a slice, extrapolated) and against real Flink (the oracle's measured
cost per configuration). Figures depend on the machine and on what else runs on it.
"""
from __future__ import annotations

import os
import resource
import time

import numpy as np
import pandas as pd

import toolkit
from toolkit.bench._timing import Timer, timed
from toolkit.fast.evaluate import Shard, partial
from toolkit.log import EventLog
from toolkit.spark import spark_session
from toolkit.fast.evaluate import FixedWindows
from toolkit.settings import grid
from toolkit.sweeps import distribute
from toolkit.sweeps.timelines import build_timelines, local_sources

# the oracle's anchor (README "Measured performance"): real Flink 2.3, 2 M records, parallelism 1,
# process wall 6.4-6.9 s per configuration including start-up; 1,000 records: 3.7-4.9 s.
FLINK_S_PER_CONFIG_2M = 6.5
FLINK_S_PER_CONFIG_1K = 4.5

DELAYS = [0, 50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500, 3000, 5000]
LATENESS = [0, 250, 500, 1000, 2000]


def bench_table(records: int, keys: int, seed: int, *, rate: int = 10_000, max_delay: int = 2000) -> pd.DataFrame:
    """Like the oracle's Flink bench: record i arrives at i*1000/rate ms, its event time is up to
    ``max_delay`` earlier, keys uniform over ``keys``."""
    rng = np.random.default_rng(seed)
    i = np.arange(records, dtype=np.int64)
    arrival = i * 1000 // rate
    event = arrival - rng.integers(0, max_delay, records)
    key = np.char.add("k", rng.integers(0, keys, records).astype(str)).astype(object)
    return pd.DataFrame({"row": i, "event_time": event, "arrival_time": arrival, "key": key,
                         "partition": np.zeros(records, dtype=np.int64)})


def _grid():
    return dict(window="tumbling:1s", delay=DELAYS, lateness=LATENESS, interval=200)


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


def case_b(table: pd.DataFrame, spark) -> tuple[float, float]:
    local, in_process = timed(lambda: toolkit.sweep(table, progress=False, execution="local", **_grid()))
    print(f"(b) 100-configuration sweep over {len(table):,} records: in-process {in_process.wall:.1f} s")
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
    return in_process.wall, on_spark.wall


def sdf_log(sdf, n):
    q = pd.DataFrame({"row": pd.Series(dtype=np.int64), "column": pd.Series(dtype=object),
                      "reason": pd.Series(dtype=object), "raw": pd.Series(dtype=object)})
    return EventLog(None, q, spark_df=sdf, n_records=n, has_arrival_time=True, source="bench")


def case_c(table: pd.DataFrame, sweep_s: tuple[float, float] | None) -> None:
    part = table.iloc[: min(len(table), 50_000)]
    _, engine = timed(lambda: toolkit.sweep(part, path="engine", progress=False, window="tumbling:1s", delay=1000,
                                            lateness=500, interval=200))
    per_config = engine.wall * len(table) / len(part)
    engine_total = per_config * len(DELAYS) * len(LATENESS)
    print(f"(c) engine path: {engine.wall:.2f} s for one configuration over {len(part):,} records "
          f"=> ~{per_config:.0f} s per configuration over {len(table):,}, ~{engine_total:.0f} s for 100")
    # real Flink per configuration, interpolated between the oracle's 1k and 2M runs (linear in records)
    flink = FLINK_S_PER_CONFIG_1K + (FLINK_S_PER_CONFIG_2M - FLINK_S_PER_CONFIG_1K) * len(table) / 2_000_000
    print(f"    real Flink (oracle anchor): ~{flink:.1f} s per configuration over {len(table):,} records "
          f"=> ~{flink * 100:.0f} s for 100")
    if sweep_s:
        for name, secs in zip(("in-process", "local Spark"), sweep_s):
            print(f"    sweep {name} ({secs:.1f} s): {engine_total / secs:.0f}x faster than the engine per setting, "
                  f"{flink * 100 / secs:.0f}x faster than real Flink per setting "
                  f"({FLINK_S_PER_CONFIG_2M * 100 / secs:.0f}x against the 6.5 s/config 2 M-record anchor)")


def spark10m(records: int, keys: int, seed: int, spark) -> None:
    """A generated log that never exists on the driver: made and swept in Spark."""
    import threading

    from pyspark.sql import functions as F

    rate, max_delay = 10_000, 2000
    sdf = (
        spark.range(records)
        .select(
            F.col("id").alias("row"),
            (F.col("id") * 1000 / rate).cast("long").alias("arrival_time"),
            F.concat(F.lit("k"), F.pmod(F.xxhash64(F.col("id"), F.lit(seed)), F.lit(keys)).cast("string")).alias("key"),
            F.pmod(F.xxhash64(F.col("id"), F.lit(seed + 1)), F.lit(max_delay)).alias("jitter"),
        )
        .select("row", (F.col("arrival_time") - F.col("jitter")).alias("event_time"), "arrival_time", "key",
                F.lit(0).cast("long").alias("partition"))
    )
    peak = {"jvm": 0}
    stop = threading.Event()
    jvm_pid = _jvm_pid(spark)

    def watch():
        while not stop.is_set():
            peak["jvm"] = max(peak["jvm"], _rss(jvm_pid))
            time.sleep(0.5)

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    r, swept = timed(lambda: toolkit.sweep(sdf_log(sdf, records), progress=True, execution="spark", spark=spark,
                                           window="tumbling:1s", delay=[0, 500, 1000, 2000, 5000],
                                           lateness=[0, 1000], interval=200))
    stop.set()
    th.join()
    py_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"spark10m: {records:,} generated records, {len(r)} configurations on {spark.sparkContext.master}: {swept.wall:.1f} s")
    print(f"    driver memory: Python driver peak RSS {py_peak:.0f} MiB; JVM (driver, and executors in local mode) "
          f"peak RSS {peak['jvm'] / 1024:.0f} MiB, heap capped by spark.driver.memory="
          f"{spark.sparkContext.getConf().get('spark.driver.memory', '?')}")
    print(r[["delay_ms", "lateness_ms", "records", "on_time", "late_accepted", "dropped", "completeness_first",
             "latency_p99_ms", "peak_state_records"]].to_string(index=False))


def _jvm_pid(spark) -> int | None:
    try:
        return int(spark.sparkContext._gateway.proc.pid)
    except Exception:
        return None


def _rss(pid: int | None) -> int:
    """Resident set size in KiB (0 when unknown)."""
    if pid is None:
        return 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


def run(args) -> int:
    only = set((args.only or "a,b,c").split(","))
    print(f"machine: {os.cpu_count()} cores (shared with other work: treat timings as indicative)")
    spark = None
    if only & {"b", "spark10m"}:
        spark = spark_session()
    if "spark10m" in only:
        spark10m(args.records if args.records != 1_000_000 else 10_000_000, args.keys, args.seed, spark)
        only.discard("spark10m")
        if not only:
            return 0
    table = bench_table(args.records, args.keys, args.seed)
    if "a" in only:
        case_a(table)
    sweep_s = None
    if "b" in only:
        sweep_s = case_b(table, spark)
    if "c" in only:
        case_c(table, sweep_s)
    return 0
