"""A Spark driver in a process of its own (a cluster session and the suite's local session cannot
share one JVM): ``python cluster_driver.py MASTER OUT.pkl [OTHER_PYTHON]``.

Runs :func:`settings` over :func:`cluster_log` on ``MASTER`` through ``toolkit.spark_session`` (which
ships the package and checks the executors); then, given OTHER_PYTHON, starts a session whose
executors run it. Pickles to ``OUT.pkl``: ``result``, ``executors`` (what each reported),
``python`` (the executors' Python), ``fault`` (:func:`fault_sweep`: a sweep during which an
executor is killed), ``other_error`` (the SetupError text, or None), or ``error``.
"""
from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
from pathlib import Path

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


def _random_log(seed: int, n: int, span: int, disorder: int, keys: list[str]):
    """``n`` records arriving over ``span`` ms, each up to ``disorder`` ms late, over ``keys`` and 3 partitions."""
    from toolkit.log import EventLog

    rng = np.random.default_rng(seed)
    arrival = np.sort(rng.integers(0, span, n))
    event = arrival - rng.integers(0, disorder, n)
    key = rng.choice(keys, n).astype(object)
    return EventLog.from_arrays(event, arrival_time=arrival, key=key, partition=rng.integers(0, 3, n))


def cluster_log():
    return _random_log(23, 240, 3000, 300, [f"user-{i}" for i in range(9)])


def fault_settings():
    """The executor-loss sweep: two engine-path rows (seconds of Python per shard, so the kill
    lands while the shards are evaluated) beside a fast-path and a Spark semantics row."""
    from toolkit.settings import grid

    engine = grid(window="sliding:2s/500ms", delay=[300, 900], lateness=200, interval=200, trigger="count:3")
    return engine + grid(window="session:800ms", delay=500, interval=200) + grid(
        semantics="spark", window="tumbling:1s", delay=500, trigger_interval=1000)


def fault_log():
    return _random_log(29, 6000, 240_000, 2500, [f"k{i}" for i in range(16)])


#: the shard-evaluation stage of :func:`fault_sweep`: 2 key shards x 2 configuration chunks
EVALUATION_TASKS = 4


def executor_pids(app_id: str) -> list[int]:
    """The process ids of this application's executor JVMs (``CoarseGrainedExecutorBackend``)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"CoarseGrainedExecutorBackend" in c for c in cmd) and app_id.encode() in cmd:
            pids.append(int(entry.name))
    return sorted(pids)


def fault_sweep(spark) -> dict:
    """The :func:`fault_settings` sweep with an executor JVM killed (SIGKILL) once the
    shard-evaluation stage has had a task running on both executors (one core each) for half a
    second: Spark reruns the lost
    tasks (and any lost shuffle output) on the executors left or the one the worker starts
    in its place. Returns the rows, what was killed and when, and the stage's failed tasks."""
    import toolkit

    sc = spark.sparkContext
    tracker = sc.statusTracker()
    state: dict = {"killed": None}
    done = threading.Event()

    def watch() -> None:
        running_since: dict[int, float] = {}
        while not done.is_set() and state["killed"] is None:
            for sid in tracker.getActiveStageIds():
                info = tracker.getStageInfo(sid)
                if info is None or info.numTasks != EVALUATION_TASKS or info.numActiveTasks < 2:
                    continue
                since = running_since.setdefault(sid, time.monotonic())
                if time.monotonic() - since >= 0.5:
                    pids = executor_pids(sc.applicationId)
                    os.kill(pids[0], signal.SIGKILL)
                    state["killed"] = {"pid": pids[0], "executors": len(pids), "stage": sid,
                                       "active": info.numActiveTasks, "completed": info.numCompletedTasks}
                    break
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    t0 = time.perf_counter()
    try:
        result = toolkit.sweep(fault_log(), fault_settings(), execution="spark", spark=spark, shards=2, progress=False)
    finally:
        done.set()
        thread.join()
    killed = state["killed"]
    stage = tracker.getStageInfo(killed["stage"]) if killed else None
    out = {"result": result, "killed": killed, "failed_tasks": stage.numFailedTasks if stage else None,
           "executors_after": len(executor_pids(sc.applicationId))}
    print(f"timing: sweep with an executor killed {time.perf_counter() - t0:.1f} s ({ {k: v for k, v in out.items() if k != 'result'} })",
          file=sys.stderr)
    return out


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
        got["fault"] = fault_sweep(spark)
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
