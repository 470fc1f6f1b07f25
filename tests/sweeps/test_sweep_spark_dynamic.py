"""``window="dynamic_session:COLUMN"`` with ``semantics=["flink", "spark"]`` swept on local Spark:
the gap column reaches each key shard through ``toolkit.sweeps.spark._canonical`` (the log is
never collected) and every row equals the in-process sweep (one piece and 3 shards, checked
against the replay in tests/replays/test_replay_spark_dynamic_session.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.settings import SettingError

pytestmark = pytest.mark.spark


def _frame(null_every: int = 0, n: int = 500, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    et = np.sort(rng.integers(0, 80_000, n))
    gap = rng.integers(200, 4000, n).astype(float)
    if null_every:
        gap[::null_every] = np.nan
        gap[3::null_every * 2] = 0
        gap[5::null_every * 3] = -1000
    return pd.DataFrame({"event_time": et, "arrival_time": et + rng.integers(0, 5000, n),
                         "key": rng.choice(list("abcdefgh"), n), "value": rng.integers(1, 9, n),
                         "partition": rng.integers(0, 3, n), "gap_ms": gap})


def test_flink_and_spark_rows_on_spark_equal_in_process(spark):
    df = _frame()
    log = toolkit.load_log(df, time_unit="ms", keep=["gap_ms"])
    g = dict(semantics=["flink", "spark"], window="dynamic_session:gap_ms", delay=["500ms", "3s"], progress=False)
    local = toolkit.sweep(log, **g)
    pd.testing.assert_frame_equal(local, toolkit.sweep(log, execution="spark", spark=spark, shards=3, **g), check_exact=True)
    slog = toolkit.load_log(spark.createDataFrame(df), time_unit="ms", keep=["gap_ms"])
    pd.testing.assert_frame_equal(local, toolkit.sweep(slog, spark=spark, shards=2, **g), check_exact=True)


def test_null_zero_negative_gaps_on_spark(spark):
    df = _frame(null_every=9)
    log = toolkit.load_log(df, time_unit="ms", keep=["gap_ms"])
    g = dict(semantics="spark", window="dynamic_session:gap_ms", delay=["1s", "4s"], partitions_as_sources=[True, False],
             progress=False)
    local = toolkit.sweep(log, **g)
    assert (local["invalid"] > 0).all()
    slog = toolkit.load_log(spark.createDataFrame(df), time_unit="ms", keep=["gap_ms"])
    pd.testing.assert_frame_equal(local, toolkit.sweep(slog, spark=spark, shards=3, **g), check_exact=True)
    pd.testing.assert_frame_equal(local, toolkit.sweep(log, execution="spark", spark=spark, shards=2, **g), check_exact=True)
    bad = df.assign(gap_ms=np.where(np.arange(len(df)) == 7, 2.5, df["gap_ms"]))
    with pytest.raises(SettingError, match=r"1 of 500 records.*whole number.*row 7, gap_ms = 2.5") as e:
        toolkit.sweep(toolkit.load_log(spark.createDataFrame(bad), time_unit="ms", keep=["gap_ms"]), spark=spark, shards=2,
                      **g)
    assert e.value.setting == "window"
