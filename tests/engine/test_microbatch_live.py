"""Live: the real-Spark oracle driver (``oracles/spark/spark_oracle.py``) runs a few cases on the
suite's Spark session and our engine gives the same batches (watermarks, drops, rows).

The committed corpus covers the rules; these keep the driver itself honest (Spark's behaviour
or the driver could drift with a PySpark upgrade). Each query runs in its own ``newSession()``
so the watermark policy does not leak into other tests.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from toolkit.engine.microbatch.cases import run_case, same_output

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "spark"
LIVE = ["corner_equality_update", "corner_metric_inputs_sources_max", "corner_session_evicted",
        "corner_complete_late_complete", "corner_gap_null_append"]


def _oracle():
    spec = importlib.util.spec_from_file_location("spark_oracle", ROOT / "oracles" / "spark" / "spark_oracle.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.spark
@pytest.mark.parametrize("name", LIVE)
def test_live_spark_agrees_with_the_engine(spark, tmp_path, name):
    oracle = _oracle()
    config, records = oracle.read_case(FIXTURES / f"{name}.jsonl")
    got = oracle.run_case(spark.newSession(), config, records, tmp_path / "work")
    diff = same_output(run_case(FIXTURES / f"{name}.jsonl"), got)
    assert diff is None, f"{name}: {diff}"
