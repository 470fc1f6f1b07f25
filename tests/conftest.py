"""Shared fixtures: one Spark session for the whole run, and paths to fixtures."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

os.environ.setdefault("PYSPARK_PYTHON", os.sys.executable)


def pytest_configure(config):
    from toolkit.spark import JAVA_HELP, java_available

    if not java_available():
        raise pytest.UsageError(JAVA_HELP)


@pytest.fixture(scope="session")
def spark():
    """One local Spark session shared by every test (starting one costs seconds)."""
    from toolkit.spark import spark_session

    session = spark_session("local[2]", shuffle_partitions=4)
    yield session


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES
