"""A Spark driver in a process of its own (a cluster session and the suite's local session cannot
share one JVM): ``python cluster_driver.py MASTER OUT.pkl [EXECUTOR_PYTHON]``.

Runs :data:`GRID` over :func:`cluster_log` on ``MASTER`` through ``toolkit.spark_session`` (which
ships the package and checks the executors) and pickles the results to ``OUT.pkl``. A
``SetupError`` is printed on stderr with exit code 3.
"""
from __future__ import annotations

import pickle
import sys
import time

import numpy as np

GRID = dict(
    window=["sliding:200ms/50ms", "session:80ms"],
    delay=[0, 150],
    lateness=[0, 100],
    interval=[0, 50],
    partitions_as_sources=True,
)


def cluster_log():
    from toolkit.log import EventLog

    rng = np.random.default_rng(23)
    n = 400
    arrival = np.sort(rng.integers(0, 5000, n))
    event = arrival - rng.integers(0, 300, n)
    keys = rng.choice([f"user-{i}" for i in range(9)], n).astype(object)
    return EventLog.from_arrays(event, arrival_time=arrival, key=keys, partition=rng.integers(0, 3, n))


def main(argv: list[str]) -> int:
    import toolkit
    from toolkit.errors import SetupError

    master, out = argv[0], argv[1]
    python = argv[2] if len(argv) > 2 else None
    t0 = time.perf_counter()
    try:
        spark = toolkit.spark_session(master, python=python, shuffle_partitions=2,
                                      conf={"spark.executor.memory": "512m", "spark.driver.memory": "512m"})
        t1 = time.perf_counter()
        result = toolkit.sweep(cluster_log(), execution="spark", spark=spark, progress=False, **GRID)
    except SetupError as exc:
        print(f"SetupError: {exc}", file=sys.stderr)
        return 3
    print(f"session and executor check {t1 - t0:.1f} s, sweep {time.perf_counter() - t1:.1f} s", file=sys.stderr)
    executors = spark.sparkContext._watermark_lab_executors
    with open(out, "wb") as f:
        pickle.dump({"result": result, "executors": executors, "python": spark.sparkContext.pythonExec}, f)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
