"""A Spark driver in a process of its own (a cluster session and the suite's local session cannot
share one JVM): ``python cluster_driver.py MASTER OUT.pkl [OTHER_PYTHON]``.

Runs :func:`settings` over :func:`cluster_log` on ``MASTER`` through ``toolkit.spark_session`` (which
ships the package and checks the executors); then, given OTHER_PYTHON, starts a session whose
executors run it. Pickles to ``OUT.pkl``: ``result``, ``executors`` (what each reported),
``python`` (the executors' Python), ``other_error`` (the SetupError text, or None), or ``error``.
"""
from __future__ import annotations

import pickle
import sys
import time

import numpy as np


def settings():
    """The cluster sweep's settings: Flink on the fast path (windows and sessions, periodic and
    per-record watermarks), one on the engine path (a count trigger), and Spark semantics rows
    (micro-batches, sharded by key after the global batch timeline): kept few, since every
    configuration costs a Python evaluation per shard."""
    from toolkit.settings import grid

    fast = grid(window=["sliding:200ms/50ms", "session:80ms"], delay=150, lateness=100, interval=[0, 50],
                partitions_as_sources=True)
    engine = grid(window="sliding:200ms/50ms", delay=150, lateness=100, interval=50, partitions_as_sources=True,
                  trigger="count:3")
    spark = grid(semantics="spark", window=["sliding:200ms/50ms", "session:80ms"], delay=150, trigger_interval=400,
                 partitions_as_sources=True)
    return fast + engine + spark


def cluster_log():
    from toolkit.log import EventLog

    rng = np.random.default_rng(23)
    n = 240
    arrival = np.sort(rng.integers(0, 3000, n))
    event = arrival - rng.integers(0, 300, n)
    keys = rng.choice([f"user-{i}" for i in range(9)], n).astype(object)
    return EventLog.from_arrays(event, arrival_time=arrival, key=keys, partition=rng.integers(0, 3, n))


def main(argv: list[str]) -> int:
    """Sweep on MASTER with the cluster's Python; then, with a second argument, try a session
    whose executors run that Python (one driver process for both: a JVM start saved)."""
    import toolkit
    from toolkit.errors import SetupError

    master, out = argv[0], argv[1]
    other_python = argv[2] if len(argv) > 2 else None
    # the first job (the executor check) waits until both workers' executors have registered
    conf = {"spark.executor.memory": "512m", "spark.driver.memory": "512m", "spark.cores.max": "2",
            "spark.scheduler.minRegisteredResourcesRatio": "1.0"}
    got: dict = {}
    t0 = time.perf_counter()
    try:
        spark = toolkit.spark_session(master, shuffle_partitions=2, conf=conf)
        t1 = time.perf_counter()
        got["result"] = toolkit.sweep(cluster_log(), settings(), execution="spark", spark=spark, progress=False)
        got["executors"] = spark.sparkContext._watermark_lab_executors
        got["python"] = spark.sparkContext.pythonExec
        print(f"timing: session and executor check {t1 - t0:.1f} s, sweep {time.perf_counter() - t1:.1f} s", file=sys.stderr)
    except SetupError as exc:
        got["error"] = str(exc)
    else:
        spark.stop()
    if other_python:
        t2 = time.perf_counter()
        try:
            toolkit.spark_session(master, python=other_python, conf=conf).stop()
            got["other_error"] = None
        except SetupError as exc:
            got["other_error"] = str(exc)
        print(f"timing: session with {other_python}: {time.perf_counter() - t2:.1f} s", file=sys.stderr)
    with open(out, "wb") as f:
        pickle.dump(got, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
