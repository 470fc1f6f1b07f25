"""The Spark path: same canonical table, quarantine, errors and describe() figures as pandas."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit import synth
from toolkit.log import InvalidRecordsError, MixedUnitsError

from test_log_formats import MAPPING, source_frame  # noqa: E402  (same data as the pandas format tests)

pytestmark = pytest.mark.spark
DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def expected():
    return toolkit.load_log(source_frame(), **MAPPING)


def test_spark_dataframe_source(spark, expected):
    sdf = spark.createDataFrame(source_frame())
    log = toolkit.load_log(sdf, **MAPPING)
    assert log.is_spark and log.n_records == 60 and log.n_invalid == 0
    pd.testing.assert_frame_equal(log.to_pandas(), expected.table)
    assert log.partition_names == expected.partition_names
    with pytest.raises(ValueError, match=r"this log is Spark-backed \(60 records stay distributed"):
        log.table


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_spark_reads_files_like_pandas(spark, tmp_path, expected, fmt):
    path = tmp_path / f"log.{fmt}"
    synth.write(source_frame(), path)
    log = toolkit.load_log(path, spark=spark, **MAPPING)
    assert log.is_spark
    pd.testing.assert_frame_equal(log.to_pandas(), expected.table)


def test_spark_reads_a_folder_of_parts_in_name_order(spark, tmp_path, expected):
    folder = tmp_path / "parts"
    frame = source_frame()
    # names sort differently from sizes: Spark packs big files first, rows must still follow names
    for i, (lo, hi) in enumerate([(0, 5), (5, 50), (50, 60)]):
        synth.write(frame.iloc[lo:hi], folder / f"part-{i:05d}.csv")
    log = toolkit.load_log(folder, spark=spark, **MAPPING)
    pd.testing.assert_frame_equal(log.to_pandas(), expected.table)


def test_spark_quarantine_and_errors_match_pandas(spark, tmp_path):
    path = DATA / "sample.csv"
    with pytest.raises(InvalidRecordsError) as pandas_err:
        toolkit.load_log(path)
    with pytest.raises(InvalidRecordsError) as spark_err:
        toolkit.load_log(path, spark=spark)
    assert str(spark_err.value) == str(pandas_err.value)
    p = toolkit.load_log(path, max_invalid_fraction=0.001)
    s = toolkit.load_log(path, spark=spark, max_invalid_fraction=0.001)
    pd.testing.assert_frame_equal(s.quarantine, p.quarantine)
    pd.testing.assert_frame_equal(s.to_pandas(), p.table)
    assert (s.n_input, s.n_records, s.n_invalid) == (30_000, 29_994, 6)


def test_spark_mixed_units_message_matches_pandas(spark):
    df = pd.DataFrame({"ts": [1_700_000_000_000, 1_700_000_001, 1_700_000_002_000]})
    with pytest.raises(MixedUnitsError) as pandas_err:
        toolkit.load_log(df, event_time="ts")
    with pytest.raises(MixedUnitsError) as spark_err:
        toolkit.load_log(spark.createDataFrame(df), event_time="ts")
    assert str(spark_err.value) == str(pandas_err.value)


def test_spark_time_representations(spark):
    df = pd.DataFrame({
        "event_time": ["2024-01-01T00:00:00Z", "2024-01-01T02:00:00+02:00", "2024-01-01 00:00:00",
                       "2024-01-01T00:00:00.250-01:30", "1704067200000", "oops", None],
        "seconds": [1.5, -0.0005, 2.0, 3.0, 4.0, 5.0, 6.0],
    })
    p = toolkit.load_log(df, max_invalid_fraction=0.5)
    s = toolkit.load_log(spark.createDataFrame(df), max_invalid_fraction=0.5)
    pd.testing.assert_frame_equal(s.to_pandas(), p.table)
    pd.testing.assert_frame_equal(s.quarantine, p.quarantine)
    p = toolkit.load_log(df, event_time="seconds", time_unit="s")
    s = toolkit.load_log(spark.createDataFrame(df), event_time="seconds", time_unit="s")
    assert s.to_pandas()["event_time"].tolist() == p.table["event_time"].tolist() == [1500, -1, 2000, 3000, 4000, 5000, 6000]


def test_spark_units_and_overflow(spark):
    df = pd.DataFrame({"us": np.array([-1, 1_999_999, 2**62], dtype=np.int64), "s": np.array([1, 10**16, -5], dtype=np.int64)})
    p = toolkit.load_log(df, event_time="us", time_unit="us")
    s = toolkit.load_log(spark.createDataFrame(df), event_time="us", time_unit="us")
    assert s.to_pandas()["event_time"].tolist() == p.table["event_time"].tolist() == [-1, 1999, 2**62 // 1000]
    p = toolkit.load_log(df, event_time="s", time_unit="s", max_invalid_fraction=0.5)
    s = toolkit.load_log(spark.createDataFrame(df), event_time="s", time_unit="s", max_invalid_fraction=0.5)
    pd.testing.assert_frame_equal(s.quarantine, p.quarantine)
    assert s.quarantine["reason"].tolist() == ["out of int64 range in ms"]


def small_log():
    from test_log_describe import small_log as make

    return make()


@pytest.mark.parametrize("case", ["small", "no_arrival", "sample", "lagging"])
def test_describe_equal_between_pandas_and_spark(spark, case):
    if case == "small":
        p = small_log()
        s = toolkit.load_log(spark.createDataFrame(p.table.drop(columns="row")))
    elif case == "no_arrival":
        p = toolkit.EventLog.from_arrays([5, 3, 9, 1, 9, 2], partition=[0, 1, 0, 1, 1, 0])
        s = toolkit.load_log(spark.createDataFrame(p.table.drop(columns="row")))
    elif case == "sample":
        p = toolkit.load_log(DATA / "sample.csv", max_invalid_fraction=0.001)
        s = toolkit.load_log(DATA / "sample.csv", max_invalid_fraction=0.001, spark=spark)
    else:
        p = toolkit.load_log(DATA / "lagging.parquet")
        s = toolkit.load_log(DATA / "lagging.parquet", spark=spark)
    dp, ds = p.describe(), s.describe()
    assert ds.backend == "spark" and dp.backend == "pandas"
    assert ds.figures() == dp.figures()
    assert str(ds) == str(dp)
