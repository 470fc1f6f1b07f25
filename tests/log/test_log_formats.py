"""The same data gives the same canonical table from every source format."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _log_frames import T0, source_frame

import toolkit
from toolkit import synth

MAPPING = dict(event_time="ts", arrival_time="arrived", key="user", partition="shard", value="amount")


@pytest.fixture(scope="module")
def expected() -> toolkit.EventLog:
    return toolkit.load_log(source_frame(), **MAPPING)


def test_pandas_canonical_table(expected):
    frame = source_frame()
    t = expected.table
    assert list(t.columns) == ["row", "event_time", "arrival_time", "key", "partition", "value"]
    assert t.dtypes.astype(str).tolist() == ["int64", "int64", "int64", "object", "int64", "float64"]
    assert t["event_time"].tolist() == frame["ts"].tolist()
    assert expected.partition_names == ["ap-3", "eu-1", "us-2"]
    assert [expected.partition_names[p] for p in t["partition"]] == frame["shard"].tolist()
    assert t["key"].tolist() == frame["user"].tolist()


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_file_formats_equal_pandas(tmp_path, expected, fmt):
    path = tmp_path / f"log.{fmt}"
    synth.write(source_frame(), path)
    log = toolkit.load_log(path, **MAPPING)
    pd.testing.assert_frame_equal(log.table, expected.table)
    assert log.partition_names == expected.partition_names


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_folder_of_parts_equals_one_file(tmp_path, expected, fmt):
    folder = tmp_path / "parts"
    frame = source_frame()
    for i, (lo, hi) in enumerate([(0, 25), (25, 26), (26, 60)]):
        synth.write(frame.iloc[lo:hi], folder / f"part-{i:05d}.{fmt}")
    (folder / "_SUCCESS").write_text("")
    (folder / ".part-00000.crc").write_text("x")
    log = toolkit.load_log(folder, **MAPPING)
    pd.testing.assert_frame_equal(log.table, expected.table)


def test_parquet_timestamps_equal_epoch_numbers(tmp_path, expected):
    frame = source_frame()
    frame["ts"] = pd.to_datetime(frame["ts"], unit="ms", utc=True).dt.tz_convert("Europe/Berlin")
    frame["arrived"] = pd.to_datetime(frame["arrived"], utc=True).dt.tz_localize(None).astype("datetime64[us]")
    path = tmp_path / "log.parquet"
    frame.to_parquet(path)
    log = toolkit.load_log(path, **MAPPING)
    pd.testing.assert_frame_equal(log.table, expected.table)


@pytest.mark.parametrize("unit,scale", [("s", 1_000), ("ms", 1), ("us", 1e-3), ("ns", 1e-6)])
def test_units(unit, scale):
    ms = np.array([T0, T0 + 1_000, T0 + 2_000], dtype=np.int64)
    raw = (ms / scale).astype(np.int64) if scale <= 1 else ms // 1000
    log = toolkit.load_log(pd.DataFrame({"event_time": raw}), time_unit=unit)
    assert log.table["event_time"].tolist() == ms.tolist()


def test_fractions_of_a_millisecond_are_floored():
    df = pd.DataFrame({"event_time": [1.9991, -0.0005, 2.5]})
    assert toolkit.load_log(df, time_unit="s").table["event_time"].tolist() == [1999, -1, 2500]
    df = pd.DataFrame({"event_time": [1_999_999, -1, 2_000_000]})
    assert toolkit.load_log(df, time_unit="us").table["event_time"].tolist() == [1999, -1, 2000]


def test_defaults_when_columns_are_not_mapped():
    log = toolkit.load_log(pd.DataFrame({"event_time": [3, 1, 2], "key": ["a", "b", "c"]}), key=None)
    t = log.table
    assert t["key"].tolist() == ["default"] * 3
    assert t["partition"].tolist() == [0, 0, 0]
    assert t["value"].tolist() == [1, 1, 1] and t["value"].dtype == np.int64
    assert not log.has_arrival_time and "arrival_time" not in t.columns
    assert log.arrival_order().tolist() == [0, 1, 2]


def test_numeric_keys_are_names_and_integer_partitions_stay():
    df = pd.DataFrame({"event_time": [1, 2, 3], "key": [1.0, 2.0, np.nan], "partition": [2, 0, 2]})
    log = toolkit.load_log(df, max_invalid_fraction=0.5)
    assert log.table["key"].tolist() == ["1", "2"]
    assert log.table["partition"].tolist() == [2, 0] and log.partition_names is None


def test_from_arrays_and_arrival_order():
    log = toolkit.EventLog.from_arrays([5, 3, 9, 1], arrival_time=[10, 8, 10, 8], key="k", partition=[0, 1, 0, 1])
    assert log.arrival_order().tolist() == [1, 3, 0, 2]
    assert log.in_arrival_order()["row"].tolist() == [1, 3, 0, 2]
    assert log.table["key"].tolist() == ["k"] * 4
    assert repr(log) == "<EventLog 4 records, 0 quarantined, with arrival times; source=arrays>"
    with pytest.raises(ValueError, match="no valid record in arrays"):
        toolkit.EventLog.from_arrays([np.nan])
