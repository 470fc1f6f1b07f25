"""The rules that make a sweep run on a cluster, without a cluster: which Python the executors
run, the package zip the driver ships, and the executor check's messages
(``toolkit.spark``; the real cluster is in ``test_sweep_cluster.py``)."""
from __future__ import annotations

import sys
import zipfile

import pytest

from toolkit.cli import main
from toolkit.errors import SetupError
from toolkit.spark import (
    DRIVER_MEMORY_ENV,
    EXECUTOR_PYTHON_ENV,
    check_executors,
    driver_memory,
    executor_python,
    is_local,
    package_zip,
)


def test_local_masters_and_clusters():
    assert is_local("local") and is_local("local[*]") and is_local("local[2]") and is_local("local[2,3]")
    assert not is_local("local-cluster[2,1,1024]") and not is_local("spark://127.0.0.1:7077")
    assert not is_local("yarn") and not is_local("k8s://https://host:443")


def test_executor_python_rule(monkeypatch):
    monkeypatch.delenv(EXECUTOR_PYTHON_ENV, raising=False)
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    assert executor_python("local[2]") == sys.executable  # the workers are this machine's
    assert executor_python("spark://h:7077") is None  # the cluster's own python3
    assert executor_python("spark://h:7077", "/opt/py/bin/python3") == "/opt/py/bin/python3"
    monkeypatch.setenv("PYSPARK_PYTHON", "/spark/python")
    assert executor_python("spark://h:7077") == "/spark/python"
    monkeypatch.setenv(EXECUTOR_PYTHON_ENV, "/lab/python")
    assert executor_python("spark://h:7077") == "/lab/python"
    assert executor_python("spark://h:7077", "/given") == "/given"


def test_driver_memory_rule(monkeypatch):
    # a local JVM hosts the executors and fills its heap: 1g keeps Python + JVM under 2 GiB
    monkeypatch.delenv(DRIVER_MEMORY_ENV, raising=False)
    assert driver_memory("local[*]") == "1g"
    assert driver_memory("local[2]") == "1g"
    assert driver_memory("spark://host:7077") == "2g"
    assert driver_memory("local-cluster[2,1,512]") == "2g"
    monkeypatch.setenv(DRIVER_MEMORY_ENV, "1536m")
    assert driver_memory("local[*]") == "1536m"
    monkeypatch.setenv(DRIVER_MEMORY_ENV, "lots")
    with pytest.raises(SetupError, match="WATERMARK_LAB_DRIVER_MEMORY='lots'"):
        driver_memory("local[*]")


def test_package_zip_holds_the_package_once(tmp_path):
    z = package_zip(tmp_path)
    assert package_zip(tmp_path) == z and z.name.startswith("toolkit-") and z.suffix == ".zip"
    names = zipfile.ZipFile(z).namelist()
    assert "toolkit/__init__.py" in names and "toolkit/sweeps/evaluate.py" in names and "toolkit/engine/__init__.py" in names
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    assert len(list(tmp_path.iterdir())) == 1


def report(executor="0", **libs):
    have = {"pandas": "2.3.3", "numpy": "2.3.5", "pyarrow": "22.0.0", "numba": "0.68.1", **libs}
    return {"host": "w1", "executor": executor, "python": "3.11.7", "executable": "/usr/bin/python3",
            "libraries": have, "errors": {k: "ModuleNotFoundError: No module named " + repr(k) for k, v in have.items() if v is None},
            "toolkit": "0.1.0"}


def test_check_executors_names_executor_and_library():
    check_executors([report("0"), report("1")])  # all fine: no error
    with pytest.raises(SetupError) as err:
        check_executors([report("0"), report("1", pyarrow=None)], python="python3")
    msg = str(err.value)
    assert "executor 1 on w1 (Python 3.11.7 at /usr/bin/python3): pyarrow is missing" in msg
    assert "executor 0" not in msg and "'python3'" in msg and EXECUTOR_PYTHON_ENV in msg
    with pytest.raises(SetupError, match="numba is missing"):
        check_executors([report(numba=None)])
    with pytest.raises(SetupError, match="pandas 2.1.0 is older than the 2.2.0 PySpark needs"):
        check_executors([report(pandas="2.1.0")])
    with pytest.raises(SetupError, match=r"numpy 1.26.4 is not the driver's major version \(2\."):
        check_executors([report(numpy="1.26.4")])
    bad = report()
    bad["toolkit"], bad["errors"]["toolkit"] = None, "ModuleNotFoundError: No module named 'altair'"
    with pytest.raises(SetupError, match="the shipped toolkit package does not import .*altair"):
        check_executors([bad])


@pytest.mark.spark
def test_cli_executor_python_that_does_not_exist(tmp_path, capsys):
    src = tmp_path / "log.csv"
    src.write_text("event_time,arrival_time,key\n1,2,a\n3,4,b\n")
    code = main(["sweep", str(src), "--executor-python", str(tmp_path / "no-such-python"), "--master", "local[1]"])
    assert code == 2
    err = capsys.readouterr().err
    assert f"--executor-python {tmp_path / 'no-such-python'}: no such Python" in err


def test_jvm_stderr_is_forwarded_without_the_incubator_warning(capsys):
    import io

    from toolkit.spark import _forward

    _forward(io.BytesIO(b"WARNING: Using incubator modules: jdk.incubator.vector\nERROR later line\n"))
    assert capsys.readouterr().err == "ERROR later line\n"  # the JVM's later stderr still shows


@pytest.mark.spark
def test_a_new_spark_session_prints_no_incubator_warning():
    """A JVM started by spark_session: no start-up warning, its later stderr lines still shown."""
    import os
    import subprocess

    code = ("import toolkit; s = toolkit.spark_session('local[1]'); s.range(2).count(); "
            "s.sparkContext._jvm.java.lang.System.err.println('later JVM line'); import time; time.sleep(1)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert run.returncode == 0, run.stderr
    assert "incubator" not in run.stderr and "later JVM line" in run.stderr
