"""``python -m toolkit bench span``: a log spanning 30 days, a 1 ms watermark interval, 1 M
records (issue 16's acceptance), for every watermark strategy: replay and sweep in-process, and
a sweep on local Spark. Memory must follow the records, not the span / interval (2.6 billion
periodic calls here): only the calls that can change something are run.

Each cell runs in a fresh Python process, so its peak is its own. Printed per cell: the wall
time of the replay / sweep alone (the log already built), the process's peak RSS
(``ru_maxrss``, Linux: the Python driver, including the log it holds) and its RSS once the
log was built (so ``peak - log`` is what the run itself added); on Spark also the JVM's peak
RSS (driver and, in local mode, executors; sampled every 0.5 s). The log: arrivals uniform
over 30 days (sorted), event time up to 2 s before arrival, ``--keys`` keys, 4 partitions,
every 100th record a punctuation marker; window tumbling 1 min, delay 1 s, interval 1 ms.

Sub-cases (``--only``): strategies (``bounded, legacy, monotonous, time_lag, punctuated,
idle_advance, adaptive``) and modes (``replay, sweep, spark``); default all. ``--records N``
sets the log size (default 1 M).
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

DAY = 86_400_000
SPAN = 30 * DAY
PARTITIONS = 4
MAX_JITTER = 2000
MARK_EVERY = 100
STRATEGIES = {
    "bounded": dict(strategy="bounded", delay="1s"),
    "legacy": dict(strategy="legacy", delay="1s"),
    "monotonous": dict(strategy="monotonous"),
    "time_lag": dict(strategy="time_lag", delay="1s"),
    "punctuated": dict(strategy="punctuated", delay="1s", marker="marker"),
    "idle_advance": dict(strategy="idle_advance", delay="1s", step="100ms"),
    "adaptive": dict(strategy="adaptive", delay="1s"),
}
MODES = ("replay", "sweep", "spark")
COMMON = dict(window="tumbling:1min", interval="1ms")


def _columns(records: int, keys: int, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    arrival = np.sort(rng.integers(0, SPAN, records, dtype=np.int64))
    return {
        "event_time": arrival - rng.integers(0, MAX_JITTER, records, dtype=np.int64),
        "arrival_time": arrival,
        "key": np.char.add("k", (rng.integers(0, keys, records)).astype(str)),
        "partition": rng.integers(0, PARTITIONS, records, dtype=np.int64),
        "value": np.ones(records, dtype=np.int64),
        "marker": (np.arange(records) % MARK_EVERY) == 0,
    }


def local_log(records: int, keys: int, seed: int):
    import pandas as pd

    from toolkit import load_log

    return load_log(pd.DataFrame(_columns(records, keys, seed)), keep=["marker"])


def spark_log(spark, records: int, keys: int, seed: int):
    """The same kind of log generated in Spark (it never exists on the driver)."""
    import numpy as np
    import pandas as pd
    from pyspark.sql import functions as F

    from toolkit.log import EventLog

    step = SPAN // records
    sdf = (
        spark.range(records)
        .select(
            F.col("id").alias("row"),
            (F.col("id") * step + F.pmod(F.xxhash64(F.col("id"), F.lit(seed + 2)), F.lit(step))).alias("arrival_time"),
            F.concat(F.lit("k"), F.pmod(F.xxhash64(F.col("id"), F.lit(seed)), F.lit(keys)).cast("string")).alias("key"),
            F.pmod(F.xxhash64(F.col("id"), F.lit(seed + 1)), F.lit(MAX_JITTER)).alias("jitter"),
            F.pmod(F.xxhash64(F.col("id"), F.lit(seed + 3)), F.lit(PARTITIONS)).alias("partition"),
            ((F.col("id") % MARK_EVERY) == 0).alias("marker"),
        )
        .select("row", (F.col("arrival_time") - F.col("jitter")).alias("event_time"), "arrival_time", "key",
                "partition", F.lit(1).cast("long").alias("value"), "marker")
    )
    quarantine = pd.DataFrame({"row": pd.Series(dtype=np.int64), "column": pd.Series(dtype=object),
                               "reason": pd.Series(dtype=object), "raw": pd.Series(dtype=object)})
    return EventLog(None, quarantine, spark_df=sdf, n_records=records, has_arrival_time=True, source="generated")


def _mib_now() -> float:
    return _rss_kib(os.getpid()) / 1024


def cell(strategy: str, mode: str, records: int, keys: int, seed: int) -> dict:
    """One run in this process: its figures as a dict."""
    import toolkit

    settings = dict(STRATEGIES[strategy], **COMMON)
    jvm_peak = 0.0
    if mode == "spark":
        from toolkit.spark import spark_session

        spark = spark_session()
        jvm = int(spark.sparkContext._gateway.proc.pid)
        log = spark_log(spark, records, keys, seed)
        toolkit.sweep(spark_log(spark, 1000, keys, seed), execution="spark", spark=spark, progress=False,
                      **{k: [v] for k, v in settings.items()})  # warm the Python workers
        peaks = {"jvm": 0}
        stop = threading.Event()

        def watch():
            while not stop.is_set():
                peaks["jvm"] = max(peaks["jvm"], _rss_kib(jvm))
                time.sleep(0.5)

        th = threading.Thread(target=watch, daemon=True)
        th.start()
        log_mib = _mib_now()
        result, t = timed(lambda: toolkit.sweep(log, execution="spark", spark=spark, progress=False,
                                                **{k: [v] for k, v in settings.items()}))
        stop.set()
        th.join()
        jvm_peak = peaks["jvm"] / 1024
        row = result.iloc[0]
    else:
        log = local_log(records, keys, seed)
        log_mib = _mib_now()
        if mode == "replay":
            result, t = timed(lambda: toolkit.replay(log, **settings))
            row = result.summary()
        else:
            result, t = timed(lambda: toolkit.sweep(log, execution="local", progress=False,
                                                    **{k: [v] for k, v in settings.items()}))
            row = result.iloc[0]
    total = int(row["on_time"]) + int(row["late_accepted"]) + int(row["dropped"])
    return {"strategy": strategy, "mode": mode, "records": records, "wall_s": t.wall,
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "log_mib": log_mib,
            "jvm_peak_mib": jvm_peak, "fates_add_up": total == records, "dropped": int(row["dropped"]),
            "firings": int(row["firings"]), "load": os.getloadavg()[0]}


def run(args) -> int:
    only = [s.strip().lower() for s in (args.only or "").split(",") if s.strip()]
    unknown = [s for s in only if s not in STRATEGIES and s not in MODES]
    if unknown:
        raise ValueError(f"--only: unknown sub-case {', '.join(unknown)} (bench span has strategies "
                         f"{', '.join(STRATEGIES)} and modes {', '.join(MODES)})")
    if args.records < 1:
        raise ValueError(f"--records must be >= 1, got {args.records}")
    strategies = [s for s in STRATEGIES if s in only] or list(STRATEGIES)
    modes = [m for m in MODES if m in only] or list(MODES)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
          f"{args.records:,} records over 30 days, interval 1ms ({SPAN:,} periodic calls), window tumbling 1min, "
          f"{args.keys} keys, {PARTITIONS} partitions; each cell in a fresh process")
    print(f"{'strategy':<14}{'mode':<8}{'wall':>9}{'peak RSS':>11}{'log built':>11}{'run added':>11}"
          f"{'JVM peak':>10}{'firings':>10}{'dropped':>9}{'fates':>7}{'load':>6}")
    failed = 0
    for mode in modes:
        for strategy in strategies:
            cmd = [sys.executable, "-m", "toolkit.bench.span", "--cell", strategy, mode, str(args.records),
                   str(args.keys), str(args.seed)]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            if proc.returncode != 0 or not lines:
                tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
                print(f"{strategy:<14}{mode:<8}  FAILED (exit {proc.returncode}): {tail}", flush=True)
                failed += 1
                continue
            r = json.loads(lines[-1])
            jvm = f"{r['jvm_peak_mib']:>6.0f} MiB" if r["mode"] == "spark" else f"{'-':>10}"
            print(f"{r['strategy']:<14}{r['mode']:<8}{r['wall_s']:>8.1f}s{r['peak_mib']:>7.0f} MiB"
                  f"{r['log_mib']:>7.0f} MiB{r['peak_mib'] - r['log_mib']:>7.0f} MiB{jvm}{r['firings']:>10,}"
                  f"{r['dropped']:>9,}{'ok' if r['fates_add_up'] else 'NO':>7}{r['load']:>6.1f}", flush=True)
    print("wall: the replay / sweep alone (log built; on Spark the session started and its Python workers warm); "
          "peak RSS: the Python process's ru_maxrss; log built: its RSS once the log was built; run added: the "
          "difference; JVM peak: the Spark JVM's peak RSS (local mode: driver and executors), sampled every 0.5 s.")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "--cell":
        print(json.dumps(cell(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))))
    else:
        print("usage: python -m toolkit bench span [--only STRATEGY,...,replay,sweep,spark] [--records N] [--keys K]")
        sys.exit(2)
