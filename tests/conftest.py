"""Shared test set-up: paths, and one Spark session for the tests that need Spark.

Spark needs Java. Without a JVM the tests that need Spark are skipped with the install hint
(``toolkit.spark.JAVA_HELP``) and everything else runs, so the engine, the log and the
replay can be tested on a machine without Java. With ``WATERMARK_LAB_REQUIRE_SPARK=1`` (set
by ``.ci/run``) those tests fail instead, so CI still runs the whole suite.

A test needs Spark when it uses the ``spark`` fixture, carries ``@pytest.mark.spark``, or is a
cell of a notebook that starts Spark (see :data:`SPARK_IN_NOTEBOOK`).
"""
from __future__ import annotations

import json
import os
import re
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent  # the repository
# The commands wrap what they print to the terminal's width (toolkit/commands/_width.py: $COLUMNS,
# else 160 off a terminal). pytest-xdist's workers get COLUMNS=80, a single process none: the
# tests read the commands at their widest, the same in both; a test of wrapping sets its own.
os.environ["COLUMNS"] = "160"
FIXTURES = ROOT / "tests" / "fixtures"  # oracle scenarios and their Flink outputs, replay logs
DATA = ROOT / "data"  # the sample logs shipped with the project

REQUIRE_SPARK = "WATERMARK_LAB_REQUIRE_SPARK"
# a notebook whose code matches this starts Spark: all its cells need Java
SPARK_IN_NOTEBOOK = re.compile(
    r"spark_session\(|execution\s*=\s*[\"']spark[\"']|\bspark\s*=(?!=)\s*(?!None\b|False\b)|--spark\b|--master\b"
)

# The representative part of the suite that .ci/run's second environment runs (``-m compat``)
# against the installed package with the lowest supported numpy, pandas, pyarrow and PySpark
# (requirements/lowest.txt) and no notebook extra: loading every file format (pyarrow) and
# files and a DataFrame on Spark, replay in each engine, the demo (sweeps in-process and the
# report), a sweep on Spark equal to in-process, the report command, the version and the
# one-line message of a missing extra. A test file, or one test of it ("file::name").
COMPAT = frozenset({
    "tests/foundation/test_demo.py",
    "tests/foundation/test_environment.py",
    "tests/foundation/test_metadata.py",
    "tests/log/test_log_formats.py",
    "tests/log/test_log_spark.py::test_spark_reads_files_and_folders_like_pandas",
    "tests/log/test_log_spark.py::test_spark_dataframe_source_and_describe",
    "tests/replays/test_replay_semantics.py",
    "tests/sweeps/test_sweep_spark.py::test_spark_equals_in_process",
    "tests/sweeps/test_sweep_spark_dynamic.py::test_null_zero_negative_gaps_on_spark",  # Column.try_cast: PySpark 4
    "tests/apps/test_report_cli.py",
    "tests/apps/test_notebook_extra.py",
})
COMPAT_FILES = frozenset(entry.split("::")[0] for entry in COMPAT)

# Spark's Python workers must run this interpreter (same pandas, pyarrow and toolkit)
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


def spark_required() -> bool:
    """True when a missing Java must fail the Spark tests instead of skipping them (CI)."""
    return os.environ.get(REQUIRE_SPARK, "").strip().lower() in ("1", "true", "yes")


def need_spark() -> None:
    """Skip the calling test when no JVM is found; fail it when Spark is required."""
    from toolkit.spark import JAVA_HELP, java_available

    if java_available():
        return
    if spark_required():
        pytest.fail(f"{JAVA_HELP} ({REQUIRE_SPARK}=1: a test that needs Spark fails without Java)", pytrace=False)
    pytest.skip(JAVA_HELP)


@cache
def _notebook_starts_spark(path: Path) -> bool:
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    code = "\n".join("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "code")
    return SPARK_IN_NOTEBOOK.search(code) is not None


def pytest_ignore_collect(collection_path, config):
    """Under ``-m compat`` only the COMPAT files are collected: the others may import what the
    second environment lacks on purpose (the notebook extra)."""
    if config.getoption("markexpr", "") != "compat" or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_") or not collection_path.is_relative_to(ROOT):
        return None
    return collection_path.relative_to(ROOT).as_posix() not in COMPAT_FILES


def pytest_collection_modifyitems(config, items):
    """Mark every test that needs Spark with ``spark``, and skip them all when Java is missing.

    This hook sees every collected item, the nbval notebook cells included (``runtest_setup``
    below only sees the items under ``tests/``). When Spark is required, nothing is skipped:
    tests under ``tests/`` fail in ``runtest_setup``, and a notebook fails at its own Spark
    call, whose SetupError carries the same install hint.
    """
    from toolkit.spark import JAVA_HELP, java_available

    skip = not java_available() and not spark_required()
    for item in items:
        path = Path(str(getattr(item, "path", "")))
        if path.is_relative_to(ROOT):
            file = path.relative_to(ROOT).as_posix()
            if file in COMPAT or f"{file}::{getattr(item, 'originalname', item.name)}" in COMPAT:
                item.add_marker(pytest.mark.compat)
        if path.suffix == ".ipynb":
            if _notebook_starts_spark(path):
                item.add_marker(pytest.mark.spark)
        elif "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
        if skip and item.get_closest_marker("spark") is not None:
            item.add_marker(pytest.mark.skip(reason=JAVA_HELP))


def pytest_runtest_setup(item):
    """``@pytest.mark.spark`` tests under tests/ skip or fail like the ``spark`` fixture."""
    if item.get_closest_marker("spark") is not None:
        need_spark()


@pytest.fixture(scope="session")
def spark():
    """One local Spark session shared by every test (starting one costs seconds).

    Skips the test when no JVM is found (fails it with ``WATERMARK_LAB_REQUIRE_SPARK=1``).
    """
    need_spark()
    from toolkit.spark import spark_session

    session = spark_session("local[2]", shuffle_partitions=4)
    yield session


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA
