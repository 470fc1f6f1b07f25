"""The Spark path: same canonical table, quarantine, errors and describe() figures as pandas.

Spark jobs are slow on a shared 2-core machine, so each test loads a few logs and checks
several things at once.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _log_frames import source_frame

import toolkit
from toolkit import synth
from toolkit.log import InvalidRecordsError, LogReadError, MixedUnitsError

pytestmark = pytest.mark.spark
DATA = Path(__file__).resolve().parents[2] / "data"
MAPPING = dict(event_time="ts", arrival_time="arrived", key="user", partition="shard", value="amount")


@pytest.fixture(scope="module")
def expected():
    return toolkit.load_log(source_frame(), **MAPPING)


def test_spark_dataframe_source_and_describe(spark, expected):
    log = toolkit.load_log(spark.createDataFrame(source_frame()), **MAPPING)
    assert log.is_spark and log.n_records == 60 and log.n_invalid == 0
    pd.testing.assert_frame_equal(log.to_pandas(), expected.table)
    assert log.partition_names == expected.partition_names == ["ap-3", "eu-1", "us-2"]
    with pytest.raises(ValueError, match=r"this log is Spark-backed \(60 records stay distributed"):
        _ = log.table
    ds, dp = log.describe(), expected.describe()
    assert (ds.backend, dp.backend) == ("spark", "pandas")
    assert ds.figures() == dp.figures() and ds.arrival_before_event > 0
    assert str(ds) == str(dp)


def test_spark_reads_files_and_folders_like_pandas(spark, tmp_path, expected):
    frame = source_frame()
    for fmt in ("csv", "jsonl"):  # Parquet through Spark: the "lagging" describe case below
        path = tmp_path / f"log.{fmt}"
        synth.write(frame, path)
        log = toolkit.load_log(path, spark=spark, **MAPPING)
        assert log.is_spark
        pd.testing.assert_frame_equal(log.to_pandas(), expected.table, obj=fmt)
    # names sort differently from sizes (Spark packs big files first): rows follow names
    folder = tmp_path / "parts"
    for i, (lo, hi) in enumerate([(0, 5), (5, 50), (50, 60)]):
        synth.write(frame.iloc[lo:hi], folder / f"part-{i:05d}.csv")
    (folder / "_SUCCESS").write_text("")
    log = toolkit.load_log(folder, spark=spark, **MAPPING)
    pd.testing.assert_frame_equal(log.to_pandas(), expected.table, obj="folder")
    broken = tmp_path / "broken"
    synth.write(frame, broken / "part-0.parquet")
    (broken / "part-1.parquet").write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(LogReadError) as err:
        toolkit.load_log(broken, spark=spark, **MAPPING)
    assert str(err.value) == f"cannot read part 'part-1.parquet' of folder {str(broken)!r} as parquet: Spark could not read it"


def test_sample_csv_quarantine_errors_and_describe_match_pandas(spark):
    path = DATA / "sample.csv"
    with pytest.raises(InvalidRecordsError) as pandas_err:
        toolkit.load_log(path)
    with pytest.raises(InvalidRecordsError) as spark_err:
        toolkit.load_log(path, spark=spark)
    assert str(spark_err.value) == str(pandas_err.value)
    p = toolkit.load_log(path, max_invalid_fraction=0.001)
    s = toolkit.load_log(path, spark=spark, max_invalid_fraction=0.001)
    assert (s.n_input, s.n_records, s.n_invalid) == (30_000, 29_994, 6)
    pd.testing.assert_frame_equal(s.quarantine, p.quarantine)
    pd.testing.assert_frame_equal(s.to_pandas(), p.table)
    assert s.describe().figures() == p.describe().figures()


def test_spark_time_parsing_units_overflow_and_mixed_units_match_pandas(spark):
    df = pd.DataFrame({
        "event_time": ["2024-01-01T00:00:00Z", "2024-01-01T02:00:00+02:00", "2024-01-01 00:00:00",
                       "2024-01-01T00:00:00.250-01:30", "1704067200000", "oops", None],
        "seconds": [1.5, -0.0005, 2.0, 3.0, 4.0, 5.0, 6.0],
        "us": np.array([-1, 1_999_999, 2**62, 0, 1, 2, 3], dtype=np.int64),
        "s": np.array([1, 10**16, -5, 1, 2, 3, 4], dtype=np.int64),
    })
    sdf = spark.createDataFrame(df)
    for options in (
        dict(max_invalid_fraction=0.5),
        dict(event_time="seconds", time_unit="s"),
        dict(event_time="us", time_unit="us"),
        dict(event_time="s", time_unit="s", max_invalid_fraction=0.5),
    ):
        p = toolkit.load_log(df, **options)
        s = toolkit.load_log(sdf, **options)
        pd.testing.assert_frame_equal(s.to_pandas(), p.table, obj=str(options))
        pd.testing.assert_frame_equal(s.quarantine, p.quarantine, obj=str(options))
    assert s.quarantine["reason"].tolist() == ["out of int64 range in ms"]
    mixed = pd.DataFrame({"ts": [1_700_000_000_000, 1_700_000_001, 1_700_000_002_000]})
    with pytest.raises(MixedUnitsError) as pandas_err:
        toolkit.load_log(mixed, event_time="ts")
    with pytest.raises(MixedUnitsError) as spark_err:
        toolkit.load_log(spark.createDataFrame(mixed), event_time="ts")
    assert str(spark_err.value) == str(pandas_err.value)


@pytest.mark.parametrize("case", ["small", "no_arrival", "lagging"])
def test_describe_equal_between_pandas_and_spark(spark, case):
    if case == "small":  # the hand-computed log of test_log_describe.py
        p = toolkit.EventLog.from_arrays(
            event_time=[100, 50, 120, 110, 60, 130, 30],
            arrival_time=[1000, 1010, 1020, 1020, 5000, 5010, 5020],
            key=["a", "b", "a", "a", "c", "a", "b"],
            partition=[0, 1, 0, 1, 0, 1, 1],
        )
        s = toolkit.load_log(p.to_spark(spark).drop("row"))  # EventLog.to_spark: the canonical columns
    elif case == "no_arrival":
        p = toolkit.EventLog.from_arrays([5, 3, 9, 1, 9, 2], partition=[0, 1, 0, 1, 1, 0])
        s = toolkit.load_log(spark.createDataFrame(p.table.drop(columns="row")))
    else:
        p = toolkit.load_log(DATA / "lagging.parquet")
        s = toolkit.load_log(DATA / "lagging.parquet", spark=spark)
    dp, ds = p.describe(), s.describe()
    assert ds.figures() == dp.figures()
    if case == "small":
        assert ds.behind == 4 and ds.behind_by["p50"] == 50 and ds.silence == 1000
