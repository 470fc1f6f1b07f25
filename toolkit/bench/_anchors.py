"""Real engines' cost per setting, measured in the same benchmark run on the same log.

**Real Flink** runs the oracle's anchor job (``../shared/oracle``, beside the repository; its
README, section "bench"): ``DataGeneratorSource`` records, ``keyBy`` key, 1 s tumbling event-time
windows, allowed lateness 0, an incremental count, late records to a side output, and a
watermark ``max event time - lag`` after every ``wm_every`` records, at parallelism 1.
:func:`flink_bench_table` generates exactly the same records in numpy (SplitMix64, as
``Bench.java``), with arrival times that put one watermark tick after each block of
``wm_every`` records, so the setting :func:`flink_setting` (strategy ``legacy``: ``max - delay``)
sees Flink's watermarks: its sweep row must have Flink's firings, counted and late records
(``check_flink``), which makes the comparison one of equal work.

**Real Spark Structured Streaming** runs the query a ``semantics="spark"`` setting stands for
(:func:`spark_setting`: ``withWatermark(ts, "1000 milliseconds")``, ``groupBy(window(ts, "1
second"), key).agg(count, sum)``, append mode, trigger interval 10 s, one input) over the same
records, the way ``oracles/spark/spark_oracle.py`` makes a processing-time run deterministic:
the records of each trigger tick (arrival in ``(T - I, T]``) in one file, read with
``maxFilesPerTrigger=1`` under ``trigger(availableNow=True)`` (one micro-batch per tick), and an
empty file after the last data tick for the no-data batch that closes the last windows. The
anchor log arrives at 10,000 records a second, so 1 M records make 12 tick files (11 with records,
one empty) and 12 micro-batches, a minute or so of Spark. The windows it emits and those left in its
state at the end must be the sweep row's for that setting (:func:`check_spark`), and every
emitted window (key, window, count, micro-batch) must be one our replay emits
(:func:`replay_windows`, :func:`check_spark_windows`). Its CPU time is read from its JVM
(``/proc``) plus this process's, which runs the sink. ``bench sweep`` prints every anchor it gets.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit.bench._timing import process_cpu_s, timed

#: the oracle's bench defaults (``Bench.java``): records per second of event time, max event-time
#: delay, a watermark every WM_EVERY records lagging WM_LAG ms behind the max event time
RATE, MAX_DELAY, WM_EVERY, WM_LAG = 10_000, 2000, 1000, 1000
ORACLE_ENV = "WATERMARK_LAB_ORACLE"

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@dataclass
class Anchor:
    """One real engine's measured cost of one setting over the bench log."""

    engine: str
    records: int
    wall_s: float  # whole process, start-up included: what running the engine once per setting costs
    job_s: float | None = None  # the job alone, start-up excluded
    cpu_s: float | None = None  # CPU seconds of the whole process (all threads), fairer on a busy machine
    figures: dict = field(default_factory=dict)
    note: str = ""
    #: the windows the engine emitted (``batch``, ``key``, ``window_start`` ms, ``count``), when it tells them
    emitted: pd.DataFrame | None = None


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on uint64 (wrapping), as ``Bench.mix64``."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def flink_bench_table(records: int, keys: int, seed: int) -> pd.DataFrame:
    """The anchor job's records: record i has key ``"k" + floorMod(mix64(seed<<32 + 2i), keys)`` and
    event time ``i*1000/RATE - floorMod(mix64(seed<<32 + 2i + 1), MAX_DELAY)``; it arrives at the end
    of its block of WM_EVERY records, ``(i // WM_EVERY + 1) * interval`` ms (record 0 at 0, the
    first arrival), so the periodic tick ``k * interval`` follows exactly the first k blocks, as
    Flink's watermark after every WM_EVERY records does."""
    if records < 1 or keys < 1:
        raise ValueError(f"records and keys must be >= 1, got {records} and {keys}")
    i = np.arange(records, dtype=np.int64)
    base = np.uint64((seed << 32) & (2**64 - 1))
    with np.errstate(over="ignore"):
        key_ix = mix64(base + (2 * i).astype(np.uint64)).view(np.int64) % keys
        delay = mix64(base + (2 * i + 1).astype(np.uint64)).view(np.int64) % MAX_DELAY
    interval = WM_EVERY * 1000 // RATE
    arrival = (i // WM_EVERY + 1) * interval
    arrival[0] = 0
    names = np.array([f"k{k}" for k in range(keys)], dtype=object)
    return pd.DataFrame({"row": i, "event_time": i * 1000 // RATE - delay, "arrival_time": arrival,
                         "key": names[key_ix], "partition": np.zeros(records, dtype=np.int64)})


def flink_setting() -> dict:
    """The toolkit setting of the anchor job: Flink's watermarks (``max - WM_LAG`` once per block)."""
    return dict(window="tumbling:1s", strategy="legacy", delay=WM_LAG, lateness=0, interval=WM_EVERY * 1000 // RATE)


def oracle_dir() -> Path:
    """``$WATERMARK_LAB_ORACLE``, else ``../shared/oracle`` beside the repository."""
    env = os.environ.get(ORACLE_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared" / "oracle"


def flink_anchor(records: int, keys: int, seed: int, *, timeout: float = 900) -> Anchor | str:
    """Run real Flink's anchor job once over ``records`` records; an :class:`Anchor`, or the
    reason (a sentence) why real Flink could not be measured."""
    where = oracle_dir()
    script = where / "flink_oracle.py"
    if not script.exists():
        return f"no Flink oracle at {where} (set ${ORACLE_ENV} to its folder; its README says how to set it up)"
    cmd = [sys.executable, str(script), "bench", "--records", str(records), "--keys", str(keys), "--seed", str(seed),
           "--rate", str(RATE), "--max-delay", str(MAX_DELAY), "--wm-every", str(WM_EVERY), "--wm-lag", str(WM_LAG),
           "--window", "1000", "--parallelism", "1"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc, timer = timed(lambda: subprocess.run(cmd, cwd=where, capture_output=True, text=True, timeout=timeout))
    except subprocess.TimeoutExpired:
        return f"the Flink oracle's bench did not finish within {timeout:.0f} s"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    wall = timer.wall
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        err = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return f"the Flink oracle at {where} failed: {err[:300]}"
    out = json.loads(lines[-1])
    figures = {"firings": out["fires"], "on_time": out["counted"], "dropped": out["late"]}
    return Anchor("real Flink 2.3 (oracle bench job, parallelism 1)", int(out["records"]), wall,
                  job_s=float(out["job_blocking_s"]), cpu_s=cpu, figures=figures,
                  note=f"JVM start {out['jvm_to_main_s']:.1f} s, MiniCluster start {out['cluster_start_s']:.1f} s, "
                       f"job {out['job_blocking_s']:.1f} s")


def check_flink(anchor: Anchor, row: pd.Series) -> str:
    """Whether the sweep row of :func:`flink_setting` has Flink's figures (the same work was done)."""
    diffs = [f"{k} {row[k]:,} vs Flink {v:,}" for k, v in anchor.figures.items() if int(row[k]) != int(v)]
    shown = ", ".join(f"{k} {v:,}" for k, v in anchor.figures.items())
    return f"same figures as real Flink ({shown})" if not diffs else "DIFFERENT from real Flink: " + "; ".join(diffs)


#: the Spark anchor's setting: micro-batches of 10 s of arrivals (the anchor log spans
#: records / 10 s of arrival time), one input, append mode
SPARK_TRIGGER_MS, SPARK_DELAY_MS = 10_000, 1000


def spark_setting(delay: int = SPARK_DELAY_MS, trigger: int = SPARK_TRIGGER_MS) -> dict:
    """A ``semantics="spark"`` setting over the anchor log (see the module doc)."""
    return dict(semantics="spark", window="tumbling:1s", delay=delay, trigger_interval=trigger,
                output_mode="append", partitions_as_sources=False)


def spark_tick_files(table: pd.DataFrame, folder: Path, interval: int = SPARK_TRIGGER_MS) -> int:
    """One Parquet file per trigger tick with records (arrival in ``(T - interval, T]``, the
    oracle's ``ceil_tick``), in tick order, then an empty one for the closing no-data batch;
    returns the number of files."""
    folder.mkdir(parents=True, exist_ok=True)
    arrival = table["arrival_time"].to_numpy(np.int64)
    tick = -(-arrival // interval) * interval
    cols = pd.DataFrame({"event_time": table["event_time"].to_numpy(np.int64), "key": table["key"].astype(str),
                         "value": np.ones(len(table), dtype=np.int64)})
    ticks = np.unique(tick)
    n = 0
    for t in ticks:  # ticks are consecutive on the anchor log: only the last needs a no-data batch after it
        cols[tick == t].to_parquet(folder / f"b{n:05d}.parquet", index=False)
        n += 1
    cols.iloc[:0].to_parquet(folder / f"b{n:05d}.parquet", index=False)
    return n + 1


def spark_anchor(table: pd.DataFrame, spark, work: Path, delay: int = SPARK_DELAY_MS,
                 trigger: int = SPARK_TRIGGER_MS) -> Anchor | str:
    """Run real Spark Structured Streaming once over ``table`` for :func:`spark_setting`; an
    :class:`Anchor` (``job_s``: the streaming query from start to its end, the session already
    running; ``wall_s``: plus writing the tick files; ``cpu_s``: the query's CPU seconds in
    Spark's JVM and in this process, which runs the ``foreachBatch`` sink; ``emitted``: every
    window Spark emitted, with its micro-batch), or why it could not be measured."""
    try:
        from pyspark.sql import functions as F
    except ImportError as exc:
        return f"pyspark is not importable here ({exc})"
    (files, written) = timed(lambda: spark_tick_files(table, work / "in", trigger))
    session = spark.newSession()
    session.conf.set("spark.sql.shuffle.partitions", str(spark.sparkContext.defaultParallelism))
    session.conf.set("spark.sql.session.timeZone", "UTC")
    session.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", "true")
    emitted: list[pd.DataFrame] = []

    def sink(batch_df, batch_id):
        # one small frame a batch: the emitted windows (tens of thousands of rows), not the log
        part = batch_df.select("key", F.unix_millis("w.start").alias("window_start"), "count").toPandas()
        emitted.append(part.assign(batch=int(batch_id)))

    def run():
        src = (session.readStream.schema("event_time LONG, key STRING, value LONG").option("maxFilesPerTrigger", 1)
               .parquet(str(work / "in")).withColumn("ts", F.timestamp_millis("event_time"))
               .withWatermark("ts", f"{delay} milliseconds"))
        out = src.groupBy(F.window("ts", "1000 milliseconds").alias("w"), "key").agg(
            F.count(F.lit(1)).alias("count"), F.sum("value").alias("sum"))
        q = (out.writeStream.outputMode("append").foreachBatch(sink)
             .option("checkpointLocation", str(work / "checkpoint")).trigger(availableNow=True).start())
        q.awaitTermination()
        return q

    jvm = _jvm_pid(spark)
    jvm_before = process_cpu_s(jvm) if jvm else None
    try:
        q, job = timed(run)
    except Exception as exc:  # noqa: BLE001 - reported as "not measured", with Spark's reason
        head = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return f"the Spark Structured Streaming query failed: {head[:300]}"
    jvm_after = process_cpu_s(jvm) if jvm else None
    cpu = job.cpu + (jvm_after - jvm_before) if jvm_before is not None and jvm_after is not None else None
    progress = {p["batchId"]: p for p in q.recentProgress}  # a batch may report twice: keep the last
    last = progress[max(progress)] if progress else {}
    left = sum(int(op.get("numRowsTotal", 0)) for op in last.get("stateOperators", []))
    batches = len(progress)
    windows = (pd.concat(emitted, ignore_index=True) if emitted
               else pd.DataFrame({"key": [], "window_start": [], "count": [], "batch": []}))
    return Anchor(f"real Spark {spark.version} Structured Streaming (local, {spark.sparkContext.defaultParallelism} "
                  "cores)", len(table), job.wall + written.wall, job_s=job.wall, cpu_s=cpu,
                  figures={"emitted windows": len(windows), "windows left in state at the end": left},
                  note=f"{files} tick files written in {written.wall:.1f} s, {batches} micro-batches, "
                       f"query {job.wall:.1f} s", emitted=windows)


def _jvm_pid(spark) -> int | None:
    """The pid of the JVM behind a local PySpark session (the gateway PySpark launched), or None."""
    try:
        return int(spark.sparkContext._gateway.proc.pid)
    except (AttributeError, TypeError, ValueError):
        return None


def check_spark(anchor: Anchor, row: pd.Series) -> str:
    """Whether the sweep's row of :func:`spark_setting` has Spark's figures: the windows Spark
    emitted are the row's firings before the end of input (``firings - at_end_firings``), and
    the windows left in Spark's state when the input ends are the row's ``at_end_firings``
    (what the replay fires at the end of input; append mode emits a window once)."""
    ours = {"emitted windows": int(row["firings"]) - int(row["at_end_firings"]),
            "windows left in state at the end": int(row["at_end_firings"])}
    diffs = [f"{k} {ours[k]:,} vs Spark {v:,}" for k, v in anchor.figures.items() if ours[k] != int(v)]
    shown = ", ".join(f"{k} {v:,}" for k, v in anchor.figures.items())
    return f"same figures as real Spark ({shown})" if not diffs else "DIFFERENT from real Spark: " + "; ".join(diffs)


def replay_windows(table: pd.DataFrame, delay: int = SPARK_DELAY_MS, trigger: int = SPARK_TRIGGER_MS) -> pd.DataFrame:
    """Our replay of :func:`spark_setting` over ``table``: the windows it emits before the end of
    input (``batch``, ``key``, ``window_start`` ms, ``count``), what real Spark's sink receives."""
    from toolkit.log import EventLog
    from toolkit.replays import replay

    log = EventLog.from_arrays(table["event_time"].to_numpy(np.int64), table["arrival_time"].to_numpy(np.int64),
                               key=table["key"].to_numpy(), partition=0, value=1)
    e = replay(log, **spark_setting(delay, trigger)).emissions
    e = e[~e["at_end"].astype(bool)]
    return pd.DataFrame({"batch": e["batch"].astype(np.int64), "key": e["key"].astype(str),
                         "window_start": e["window_start"].astype(np.int64), "count": e["count"].astype(np.int64)})


def check_spark_windows(anchor: Anchor, ours: pd.DataFrame) -> str:
    """Whether our replay emits exactly the windows real Spark emitted: the same (key, window)
    pairs, each with the same count, in the same micro-batch."""
    cols = ["batch", "key", "window_start", "count"]
    if anchor.emitted is None:
        return "not compared: the run did not record Spark's windows"

    def norm(df: pd.DataFrame) -> pd.DataFrame:
        df = df[cols].astype({"batch": np.int64, "key": str, "window_start": np.int64, "count": np.int64})
        return df.sort_values(cols[1:3] + ["batch"], kind="stable").reset_index(drop=True)

    theirs, mine = norm(anchor.emitted), norm(ours)
    if theirs.equals(mine):
        return (f"the same {len(mine):,} windows as real Spark, each with its key, count and micro-batch "
                f"({mine['count'].sum():,} records in them)")
    both = theirs.merge(mine, on=["key", "window_start"], how="outer", suffixes=(" Spark", " ours"), indicator=True)
    only_spark = both[both["_merge"] == "left_only"]
    only_ours = both[both["_merge"] == "right_only"]
    same_pair = both[both["_merge"] == "both"]
    differ = same_pair[(same_pair["count Spark"] != same_pair["count ours"])
                       | (same_pair["batch Spark"] != same_pair["batch ours"])]
    parts = [f"{len(theirs):,} windows from Spark, {len(mine):,} from our replay"]
    if len(only_spark):
        r = only_spark.iloc[0]
        parts.append(f"{len(only_spark):,} only in Spark (e.g. key {r['key']} window {_window_text(r['window_start'])})")
    if len(only_ours):
        r = only_ours.iloc[0]
        parts.append(f"{len(only_ours):,} only in ours (e.g. key {r['key']} window {_window_text(r['window_start'])})")
    if len(differ):
        r = differ.iloc[0]
        parts.append(f"{len(differ):,} with another count or micro-batch (e.g. key {r['key']} window "
                     f"{_window_text(r['window_start'])}: count {int(r['count Spark'])} in batch {int(r['batch Spark'])} "
                     f"in Spark, {int(r['count ours'])} in batch {int(r['batch ours'])} in ours)")
    return "DIFFERENT from real Spark: " + "; ".join(parts)


def _window_text(start_ms) -> str:
    """The anchor's 1 s window starting at ``start_ms``, in seconds of event time: ``[20 s, 21 s)``."""
    return f"[{int(start_ms) / 1000:g} s, {(int(start_ms) + 1000) / 1000:g} s)"


#: the benchmark sweeps' grid: 20 delays x 5 allowed latenesses = 100 configurations (ms)
DELAYS = [0, 50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500, 3000, 5000]
LATENESS = [0, 250, 500, 1000, 2000]
