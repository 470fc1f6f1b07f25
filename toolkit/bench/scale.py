"""``python -m toolkit bench scale``: sweeps over logs generated in Spark (1 M, 10 M, 100 M records)
with 1 and 10 configurations on local Spark: wall time and driver memory against the log size.

The log never exists on the driver: Spark generates it (``spark.range`` + hashes: record i
arrives at i/10 ms, its event time up to 2 s earlier, keys uniform over ``--keys``) and the
sweep reads it where it is; only tick tables and per-configuration rows reach the driver, so the
driver's memory should stay flat as the log grows. Each cell runs in a fresh Python process with
its own local Spark session, so its peaks are its own: the Python driver's peak RSS
(``ru_maxrss``), the JVM's (driver and, in local mode, the executors' heap too) and the
executors' Python workers' (summed, sampled every 0.5 s). A 1-configuration sweep of a tiny log
starts the Python workers before the timed sweep.

Sub-cases (``--only``): sizes ``1m``, ``10m``, ``100m`` (default ``1m,10m``) and window kinds
``windows`` (tumbling 1 s, default) and ``sessions`` (100 ms session windows, fast path; asked
for explicitly: sessions send about one state delta per record to the exact merge, which the
sweep folds per range of positions on Spark, so they cost several times the windows).
``--records N`` adds a size of its own. Configurations per size: ``1c``, ``10c``, ``100c``
(default 1 and 10; 100 M: 10 only), e.g. ``--only 1m,10m,sessions,1c,10c,100c``.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time

from toolkit.bench._timing import rss_kib as _rss_kib, timed

SIZES = {"1m": 1_000_000, "10m": 10_000_000, "100m": 100_000_000}
WINDOWS = {"windows": "tumbling:1s", "sessions": "session:100ms"}
CONFIGS = {1: dict(delay=[1000], lateness=[0]), 10: dict(delay=[0, 500, 1000, 2000, 5000], lateness=[0, 1000]),
           100: dict(delay=[0, 100, 250, 500, 750, 1000, 1500, 2000, 3000, 5000],
                     lateness=[0, 100, 250, 500, 1000, 1500, 2000, 3000, 4000, 5000])}
COUNTS = {"1c": 1, "10c": 10, "100c": 100}
RATE, MAX_DELAY, INTERVAL = 10_000, 2000, 200
RECORDS_PER_SHARD = 1_000_000  # key shards grow with the log, so a Python worker holds ~1 M records at once


def generated_log(spark, records: int, keys: int, seed: int):
    """A Spark-backed EventLog of ``records`` generated records (see the module doc)."""
    import numpy as np
    import pandas as pd
    from pyspark.sql import functions as F

    from toolkit.log import EventLog

    sdf = (
        spark.range(records)
        .select(
            F.col("id").alias("row"),
            (F.col("id") * 1000 / RATE).cast("long").alias("arrival_time"),
            F.concat(F.lit("k"), F.pmod(F.xxhash64(F.col("id"), F.lit(seed)), F.lit(keys)).cast("string")).alias("key"),
            F.pmod(F.xxhash64(F.col("id"), F.lit(seed + 1)), F.lit(MAX_DELAY)).alias("jitter"),
        )
        .select("row", (F.col("arrival_time") - F.col("jitter")).alias("event_time"), "arrival_time", "key",
                F.lit(0).cast("long").alias("partition"))
    )
    quarantine = pd.DataFrame({"row": pd.Series(dtype=np.int64), "column": pd.Series(dtype=object),
                               "reason": pd.Series(dtype=object), "raw": pd.Series(dtype=object)})
    return EventLog(None, quarantine, spark_df=sdf, n_records=records, has_arrival_time=True, source="generated")


def _descendants(pid: int) -> list[int]:
    """Process ids below ``pid`` (Linux /proc; empty elsewhere)."""
    parents: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def cell(records: int, n_configs: int, window: str, keys: int, seed: int) -> dict:
    """One sweep in this process (a fresh local Spark session): figures for one table row."""
    import toolkit
    from toolkit.spark import spark_session

    spark = spark_session()
    sc = spark.sparkContext
    jvm = int(sc._gateway.proc.pid)
    peaks = {"jvm": 0, "workers": 0}
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            peaks["jvm"] = max(peaks["jvm"], _rss_kib(jvm))
            peaks["workers"] = max(peaks["workers"], sum(_rss_kib(p) for p in _descendants(jvm)))
            time.sleep(0.5)

    shards = max(2 * sc.defaultParallelism, -(-records // RECORDS_PER_SHARD))
    grid = dict(window=window, interval=INTERVAL, **CONFIGS[n_configs])
    _, warm = timed(lambda: toolkit.sweep(generated_log(spark, 1000, keys, seed), execution="spark", spark=spark,
                                          progress=False, window=window, delay=1000))
    th = threading.Thread(target=watch, daemon=True)
    load_start = os.getloadavg()[0]
    th.start()
    result, swept = timed(lambda: toolkit.sweep(generated_log(spark, records, keys, seed), execution="spark",
                                                spark=spark, shards=shards, progress=False, **grid))
    stop.set()
    th.join()
    assert (result["records"] == records).all()
    return {"records": records, "configs": len(result), "window": window, "paths": sorted(set(result["path"])),
            "shards": shards, "cores": sc.defaultParallelism, "wall_s": swept.wall, "cpu_driver_s": swept.cpu,
            "warm_up_s": warm.wall,
            "driver_python_peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "jvm_peak_mib": peaks["jvm"] / 1024, "workers_peak_mib": peaks["workers"] / 1024,
            "driver_memory": sc.getConf().get("spark.driver.memory", "?"),
            "dropped_min": int(result["dropped"].min()), "dropped_max": int(result["dropped"].max()),
            "load_start": load_start, "load": os.getloadavg()[0]}


def _fast_sessions() -> bool:
    from toolkit.semantics.flink.paths import choose_paths
    from toolkit.settings import Setting

    return choose_paths([Setting.parse(window=WINDOWS["sessions"])], "auto") == ["fast"]


def run(args) -> int:
    only = [s.strip().lower() for s in (args.only or "1m,10m,windows").split(",") if s.strip()]
    unknown = [s for s in only if s not in SIZES and s not in WINDOWS and s not in COUNTS]
    if unknown:
        raise ValueError(f"--only: unknown sub-case {', '.join(unknown)} (bench scale has sizes "
                         f"{', '.join(SIZES)}, window kinds {', '.join(WINDOWS)} and configuration counts "
                         f"{', '.join(COUNTS)})")
    counts = [COUNTS[s] for s in COUNTS if s in only]
    sizes = [SIZES[s] for s in SIZES if s in only]
    if args.records != 1_000_000 and args.records not in sizes:
        sizes.append(args.records)
    if args.records < 1:
        raise ValueError(f"--records must be >= 1, got {args.records}")
    sizes = sorted(set(sizes or [SIZES["1m"], SIZES["10m"]]))
    kinds = [k for k in WINDOWS if k in only] or ["windows"]
    if "sessions" in kinds and not _fast_sessions():
        print("note: session windows take the per-record engine path in this build (~0.1 M records/s a core): "
              "expect hours at 10 M records")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; local Spark, "
          f"each cell in a fresh process; {args.keys} keys")
    header = (f"{'window':<14}{'records':>13}{'configs':>8}{'shards':>7}{'wall':>9}{'rec-configs/s':>15}"
              f"{'driver py':>11}{'driver JVM':>12}{'py workers':>12}{'load':>12}")
    print(header)
    for kind in kinds:
        for records in sizes:
            for n_configs in (counts or ([10] if records >= SIZES["100m"] else [1, 10])):
                cmd = [sys.executable, "-m", "toolkit.bench.scale", "--cell", str(records), str(n_configs),
                       WINDOWS[kind], str(args.keys), str(args.seed)]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
                if proc.returncode != 0 or not lines:
                    tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
                    print(f"{WINDOWS[kind]:<14}{records:>13,}{n_configs:>8}  FAILED (exit {proc.returncode}): {tail}")
                    continue
                r = json.loads(lines[-1])
                rate = r["records"] * r["configs"] / r["wall_s"] / 1e6
                print(f"{r['window']:<14}{r['records']:>13,}{r['configs']:>8}{r['shards']:>7}{r['wall_s']:>8.1f}s"
                      f"{rate:>13.2f} M{r['driver_python_peak_mib']:>8.0f} MiB{r['jvm_peak_mib']:>8.0f} MiB"
                      f"{r['workers_peak_mib']:>8.0f} MiB{r.get('load_start', r['load']):>6.1f}-{r['load']:<5.1f}"
                      f"  heap {r['driver_memory']}", flush=True)
    print("wall: the sweep alone (session started, Python workers warm); driver py: the Python driver's peak RSS; "
          "driver JVM: the JVM's peak RSS (in local mode it hosts the executors too, heap capped by "
          "spark.driver.memory, shown as heap); py workers: the executors' Python workers' peak total RSS; "
          "load: the load average at the start and the end of the sweep.")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "--cell":
        out = cell(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
        print(json.dumps(out))
    else:
        print("usage: python -m toolkit bench scale [--only 1m,10m,100m,windows,sessions] [--records N] [--keys K]")
        sys.exit(2)
