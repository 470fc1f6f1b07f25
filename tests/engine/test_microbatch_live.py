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


class _Batch:
    """A micro-batch whose collect fails ``fails`` times the way PySpark does when the JVM's local
    socket is gone (an UnboundLocalError raised over CANNOT_OPEN_SOCKET), or with ``error``."""

    def __init__(self, fails: int, error: Exception | None = None) -> None:
        self.fails, self.error, self.calls = fails, error, 0

    def collect(self):
        self.calls += 1
        if self.error is not None:
            raise self.error
        if self.calls <= self.fails:
            try:
                raise RuntimeError("[CANNOT_OPEN_SOCKET] Can not open socket: connection refused")
            except RuntimeError:
                raise UnboundLocalError("cannot access local variable 'sockfile'")
        return [(1, 2)]


def test_the_oracle_asks_a_collect_again_only_when_its_socket_was_gone():
    oracle = _oracle()
    batch = _Batch(fails=2)
    assert oracle.collect_rows(batch) == [[1, 2]] and batch.calls == 3
    with pytest.raises(UnboundLocalError):
        oracle.collect_rows(_Batch(fails=3))
    other = _Batch(fails=0, error=ValueError("Spark's own error"))
    with pytest.raises(ValueError):
        oracle.collect_rows(other)
    assert other.calls == 1
