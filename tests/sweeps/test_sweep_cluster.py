"""Sweeps on a real Spark standalone cluster: a master and two workers started from the PySpark
distribution on 127.0.0.1, whose Python has pandas, numpy and pyarrow but not Watermark Lab.

The driver runs in a subprocess (``helpers/cluster_driver.py``): a cluster session and the
suite's local session cannot share one JVM. The package reaches the executors only because the
driver ships it; the figures equal the in-process sweep's; a worker Python without pyarrow is
refused before the sweep with a message naming the executor and the library; an executor killed
while the shards are evaluated costs a retry and changes no figure. Everything started here is
stopped, also when a test fails.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import toolkit

from helpers.cluster_driver import cluster_log, fault_log, fault_settings, settings
from helpers.standalone import Cluster, python_without_toolkit, spark_home, worker_env

pytestmark = pytest.mark.spark

DRIVER = Path(__file__).resolve().parents[1] / "helpers" / "cluster_driver.py"


@pytest.fixture(scope="module")
def pythons(tmp_path_factory):
    root = tmp_path_factory.mktemp("pythons")
    return {"good": python_without_toolkit(root / "good"), "no_pyarrow": python_without_toolkit(root / "bad", drop=("pyarrow",))}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, pythons):
    if not (spark_home() / "bin" / "spark-class").exists():
        pytest.skip("this PySpark has no bin/spark-class")
    c = Cluster(tmp_path_factory.mktemp("cluster"), pythons["good"], workers=2)
    c.start()
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="module")
def driven(cluster, pythons, tmp_path_factory):
    """One driver process: the sweep with the cluster's Python, then a session asking for the
    Python without pyarrow."""
    out = tmp_path_factory.mktemp("driver") / "out.pkl"
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "SPARK_MASTER")}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    args = [sys.executable, str(DRIVER), cluster.url, str(out), str(pythons["no_pyarrow"])]
    try:
        proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the cluster driver did not finish in 900 s:\n{exc.stderr}\n{cluster.tail()}")
    assert proc.returncode == 0 and out.exists(), f"{proc.stderr[-4000:]}\n{cluster.tail()}"
    got = pickle.loads(out.read_bytes())
    for line in proc.stderr.splitlines():  # shown with -rA / -s: where the time goes
        if line.startswith("timing:"):
            print(line)
    assert "error" not in got, got.get("error")
    return got


def test_worker_python_has_the_libraries_but_not_toolkit(pythons, tmp_path):
    env = worker_env(pythons["good"])
    def imports(python, module):
        return subprocess.run([str(python), "-c", f"import {module}"], env=env, cwd=tmp_path,
                              capture_output=True).returncode == 0
    assert not imports(pythons["good"], "toolkit")
    assert all(imports(pythons["good"], m) for m in ("pandas", "numpy", "pyarrow"))
    assert not imports(pythons["no_pyarrow"], "pyarrow") and imports(pythons["no_pyarrow"], "pandas")


def test_cluster_sweep_equals_in_process(driven):
    # the cluster's own Python ran the workers (Spark's default, not this interpreter's path)...
    assert driven["python"] == "python3"
    executors = driven["executors"]
    assert len({(e["host"], e["executor"]) for e in executors}) == 2
    # ... and imported the package from the zip the driver shipped
    assert all(".zip" in e["toolkit_file"] for e in executors), executors
    expected = toolkit.sweep(cluster_log(), settings(), execution="local", progress=False)
    assert set(expected["path"]) == {"fast", "engine", "microbatch"}
    pd.testing.assert_frame_equal(driven["result"], expected, check_exact=True)


def test_worker_without_pyarrow_is_refused_with_a_clear_message(driven, pythons):
    message = driven["other_error"]
    assert message is not None and message.startswith("Spark executors cannot run a sweep")
    assert "pyarrow is missing" in message and "executor" in message
    assert str(pythons["no_pyarrow"]) in message  # the Python it used, and how to choose another
    assert "WATERMARK_LAB_EXECUTOR_PYTHON" in message


def test_an_executor_lost_mid_sweep_changes_no_figure(driven):
    """Issue 29: an executor JVM killed (SIGKILL) while the shard-evaluation stage runs; Spark
    reruns what it lost and the sweep's rows equal the in-process sweep's exactly (a shard
    counted twice or lost would change the fates, which no longer add up, or the counts)."""
    fault = driven["fault"]
    killed = fault["killed"]
    assert killed is not None, "the evaluation stage never ran long enough to be hit"
    assert killed["executors"] == 2 and killed["active"] >= 2, killed  # a task on each executor (3: one being rerun)
    assert fault["failed_tasks"] >= 1, fault  # Spark saw the killed executor's task fail and ran it again
    expected = toolkit.sweep(fault_log(), fault_settings(), execution="local", progress=False)
    assert set(expected["path"]) == {"engine", "fast", "microbatch"}
    pd.testing.assert_frame_equal(fault["result"], expected, check_exact=True)
