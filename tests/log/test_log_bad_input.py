"""Bad input: every case asserts the exact outcome (error message or quarantine contents)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.log import (
    ColumnTypeError,
    EmptyLogError,
    InvalidRecordsError,
    LogReadError,
    MissingColumnError,
    MixedUnitsError,
)

T0 = 1_700_000_000_000


def quarantine_rows(log) -> list[tuple]:
    return [tuple(r) for r in log.quarantine.itertuples(index=False)]


def test_missing_column_names_it_and_lists_the_available_ones():
    df = pd.DataFrame({"event_time": [1, 2], "key": ["a", "b"]})
    with pytest.raises(MissingColumnError) as err:
        toolkit.load_log(df, event_time="ts")
    assert str(err.value) == "column 'ts' (for event_time) not found; available columns: 'event_time', 'key'"


def test_missing_mapped_optional_column():
    df = pd.DataFrame({"event_time": [1, 2]})
    with pytest.raises(MissingColumnError, match=r"^column 'arrived' \(for arrival_time\) not found"):
        toolkit.load_log(df, arrival_time="arrived")


def test_all_null_event_time_leaves_nothing_valid():
    df = pd.DataFrame({"event_time": [None, None, None]}, dtype=object)
    with pytest.raises(EmptyLogError) as err:
        toolkit.load_log(df, max_invalid_fraction=1.0)
    assert str(err.value) == (
        "no valid record in DataFrame: all 3 rows are invalid; "
        "event_time: 3 rows (null: 3; e.g. row 0 null, row 1 null, row 2 null)"
    )


def test_some_nulls_fail_by_default_with_count_sample_and_hint():
    df = pd.DataFrame({"event_time": [T0, None, T0 + 2, None, T0 + 4]}, dtype="Int64")
    with pytest.raises(InvalidRecordsError) as err:
        toolkit.load_log(df)
    assert str(err.value) == (
        "2 of 5 rows (40.00%) of DataFrame are invalid, above max_invalid_fraction=0: "
        "event_time: 2 rows (null: 2; e.g. row 1 null, row 3 null). Fix the source, or pass "
        "max_invalid_fraction=0.40 to load the rest and keep these rows in log.quarantine."
    )


def test_some_nulls_quarantined_when_allowed():
    df = pd.DataFrame({"event_time": [T0, None, T0 + 2, None, T0 + 4]}, dtype="Int64")
    log = toolkit.load_log(df, max_invalid_fraction=0.4)
    assert log.n_records == 3 and log.n_invalid == 2
    assert quarantine_rows(log) == [(1, "event_time", "null", ""), (3, "event_time", "null", "")]
    assert log.table["row"].tolist() == [0, 2, 4]
    assert log.summary()["invalid_by_reason"] == {"event_time: null": 2}


def test_invalid_share_just_above_the_limit_fails():
    df = pd.DataFrame({"event_time": [T0, None, T0 + 2, None, T0 + 4]}, dtype="Int64")
    with pytest.raises(InvalidRecordsError, match=r"^2 of 5 rows \(40\.00%\)"):
        toolkit.load_log(df, max_invalid_fraction=0.39)


def test_unparsable_time_strings_are_quarantined_with_raw_text():
    df = pd.DataFrame({"event_time": ["2024-01-01T00:00:00Z", "yesterday", "2024-13-45", "2024-01-01 00:00:01"]})
    log = toolkit.load_log(df, max_invalid_fraction=0.5)
    assert quarantine_rows(log) == [
        (1, "event_time", "unparsable time", "yesterday"),
        (2, "event_time", "unparsable time", "2024-13-45"),
    ]
    assert log.table["event_time"].tolist() == [1_704_067_200_000, 1_704_067_201_000]


def test_mixed_units_are_an_error_naming_column_and_samples():
    df = pd.DataFrame({"ts": [1_700_000_000_000, 1_700_000_001, 1_700_000_002_000]})
    with pytest.raises(MixedUnitsError) as err:
        toolkit.load_log(df, event_time="ts")
    assert str(err.value) == (
        "column 'ts' mixes epoch units: 1 look like epoch seconds (e.g. row 1: 1700000001), "
        "2 look like epoch milliseconds (e.g. row 0: 1700000000000); write every time in one unit "
        "(time_unit='ms' was given)"
    )


def test_mixed_units_in_numeric_strings_too():
    df = pd.DataFrame({"event_time": ["1700000000", "1700000000000000", "oops"]})
    with pytest.raises(MixedUnitsError, match=r"1 look like epoch seconds \(e\.g\. row 0: 1700000000\), "
                       r"1 look like epoch microseconds \(e\.g\. row 1: 1700000000000000\)"):
        toolkit.load_log(df, max_invalid_fraction=1)


def test_nan_is_null_and_infinity_not_finite():
    df = pd.DataFrame({"event_time": [1.0, np.nan, np.inf, 4.0], "value": [1.0, 2.0, 3.0, np.nan]})
    log = toolkit.load_log(df, max_invalid_fraction=0.75)
    assert quarantine_rows(log) == [
        (1, "event_time", "null", ""),
        (2, "event_time", "not finite", "inf"),
        (3, "value", "null", ""),
    ]
    assert log.table[["event_time", "value"]].values.tolist() == [[1, 1.0]]


def test_timezone_aware_and_naive_strings_in_one_column():
    # naive strings are UTC; zoned ones are converted (not given another string's offset)
    df = pd.DataFrame({"event_time": [
        "2024-01-01T00:00:00Z", "2024-01-01T02:00:00+02:00", "2024-01-01 00:00:00",
        "2024-01-01T00:00:00.250-01:30", "2024-01-01",
    ]})
    log = toolkit.load_log(df)
    base = 1_704_067_200_000
    assert log.table["event_time"].tolist() == [base, base, base, base + 5_400_250, base]


def test_empty_file(tmp_path):
    path = tmp_path / "log.csv"
    path.write_bytes(b"")
    with pytest.raises(EmptyLogError) as err:
        toolkit.load_log(path)
    assert str(err.value) == f"file {str(path)!r} is empty"


def test_empty_dataframe():
    with pytest.raises(EmptyLogError) as err:
        toolkit.load_log(pd.DataFrame())
    assert str(err.value) == "DataFrame has no records"


def test_header_only_csv(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("event_time,key,value\n")
    with pytest.raises(EmptyLogError) as err:
        toolkit.load_log(path)
    assert str(err.value) == f"{path} has no records (only a header)"


def test_non_numeric_value_column():
    df = pd.DataFrame({"event_time": [1, 2, 3, 4], "value": ["1", "2.5", "twelve", ""]})
    log = toolkit.load_log(df, max_invalid_fraction=0.5)
    assert quarantine_rows(log) == [(2, "value", "not a number", "twelve"), (3, "value", "not a number", "")]
    assert log.table["value"].tolist() == [1.0, 2.5]
    assert log.table["value"].dtype == np.float64


def test_non_numeric_value_fails_by_default():
    df = pd.DataFrame({"event_time": [1, 2, 3], "value": ["1", "x", "3"]})
    with pytest.raises(InvalidRecordsError, match=r"value: 1 row \(not a number: 1; e\.g\. row 1 'x'\)"):
        toolkit.load_log(df)


def test_arrival_before_event_time_is_allowed_and_counted():
    log = toolkit.EventLog.from_arrays([100, 200, 300], arrival_time=[150, 190, 299])
    assert log.n_records == 3 and log.n_invalid == 0
    desc = log.describe()
    assert desc.arrival_before_event == 2
    assert desc.delay == {"min": -10, "p50": -1, "p90": 50, "p99": 50, "p99.9": 50, "max": 50}


def test_duplicate_rows_are_kept():
    df = pd.DataFrame({"event_time": [5, 5, 5, 7], "key": ["a", "a", "a", "a"], "value": [1, 1, 1, 1]})
    log = toolkit.load_log(df)
    assert log.n_records == 4
    assert log.table["row"].tolist() == [0, 1, 2, 3]
    assert log.describe().duplicates == 2


def test_int64_overflow_on_unit_conversion():
    df = pd.DataFrame({"event_time": [1_700_000_000, 10**16, -(10**16), 1_700_000_001]})
    log = toolkit.load_log(df, time_unit="s", max_invalid_fraction=0.5)
    assert quarantine_rows(log) == [
        (1, "event_time", "out of int64 range in ms", "10000000000000000"),
        (2, "event_time", "out of int64 range in ms", "-10000000000000000"),
    ]
    assert log.table["event_time"].tolist() == [1_700_000_000_000, 1_700_000_001_000]


def test_overflow_of_a_numeric_string_beyond_int64():
    df = pd.DataFrame({"event_time": ["1", "99999999999999999999", "3"]})
    log = toolkit.load_log(df, max_invalid_fraction=0.5)
    assert quarantine_rows(log) == [(1, "event_time", "out of int64 range in ms", "99999999999999999999")]


def test_folder_with_one_corrupt_part(tmp_path):
    folder = tmp_path / "log"
    folder.mkdir()
    pd.DataFrame({"event_time": [1, 2]}).to_parquet(folder / "part-0.parquet")
    (folder / "part-1.parquet").write_bytes(b"PAR1 this is not parquet")
    pd.DataFrame({"event_time": [3]}).to_parquet(folder / "part-2.parquet")
    with pytest.raises(LogReadError) as err:
        toolkit.load_log(folder)
    assert str(err.value) == (
        f"part 'part-1.parquet' of folder {str(folder)!r}: {str(folder / 'part-1.parquet')!r} is not a Parquet file "
        "(it does not end with Parquet's magic bytes): is it in another format, or was it cut off while being "
        "written or copied?")


def test_boolean_event_time_column_is_a_type_error():
    with pytest.raises(ColumnTypeError) as err:
        toolkit.load_log(pd.DataFrame({"event_time": [True, False]}))
    assert str(err.value) == (
        "column 'event_time' holds booleans; expected epoch numbers, timestamps or ISO-8601 strings"
    )


def test_null_key_and_negative_partition_are_quarantined():
    df = pd.DataFrame({"event_time": [1, 2, 3, 4], "key": ["a", None, "b", "c"], "partition": [0, 1, -1, 1]})
    log = toolkit.load_log(df, max_invalid_fraction=0.5)
    assert quarantine_rows(log) == [(1, "key", "null", ""), (2, "partition", "negative", "-1")]
    assert log.table[["key", "partition"]].values.tolist() == [["a", 0], ["c", 1]]


def test_first_fault_of_a_row_wins():
    df = pd.DataFrame({"event_time": [None, 2], "value": ["x", "1"]}, dtype=object)
    log = toolkit.load_log(df, max_invalid_fraction=0.5)
    assert quarantine_rows(log) == [(0, "event_time", "null", "")]


def test_unknown_time_unit_and_bad_fraction():
    df = pd.DataFrame({"event_time": [1]})
    with pytest.raises(ValueError, match=re.escape("time_unit: unknown unit 'minutes'; use one of s, ms, us, ns")):
        toolkit.load_log(df, time_unit="minutes")
    with pytest.raises(ValueError, match=re.escape("max_invalid_fraction must be between 0 and 1, got 2")):
        toolkit.load_log(df, max_invalid_fraction=2)


def test_json_lines_with_a_string_in_a_number_column(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(
        '{"event_time": 1700000000000, "key": "a"}\n'
        '{"event_time": "oops", "key": "b"}\n'
        '{"event_time": 1700000000002000000, "key": 7}\n'
    )
    with pytest.raises(MixedUnitsError, match="1 look like epoch milliseconds .* 1 look like epoch nanoseconds"):
        toolkit.load_log(path)
    path.write_text('{"event_time": 1700000000000, "key": "a"}\n{"event_time": "oops", "key": "b"}\n'
                    '{"event_time": 1700000000002, "key": 7}\n')
    log = toolkit.load_log(path, max_invalid_fraction=0.5)
    assert quarantine_rows(log) == [(1, "event_time", "unparsable time", "oops")]
    assert log.table[["event_time", "key"]].values.tolist() == [[1_700_000_000_000, "a"], [1_700_000_000_002, "7"]]


def test_nanosecond_csv_with_a_null_keeps_full_precision(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("event_time,value\n1700000000123999999,1\n,2\n1700000000124000001,3\n")
    log = toolkit.load_log(path, time_unit="ns", max_invalid_fraction=0.5)
    assert log.table["event_time"].tolist() == [1_700_000_000_123, 1_700_000_000_124]
    assert quarantine_rows(log) == [(1, "event_time", "null", "")]


def test_unreadable_object_is_a_type_error():
    with pytest.raises(TypeError, match="load_log: cannot read a list"):
        toolkit.load_log([1, 2, 3])


def test_a_continuum_of_small_times_is_not_mixed_units():
    # a week of microseconds from 0 passes through "looks like epoch seconds" and "... ms"
    us = np.linspace(0, 7 * 86_400 * 10**6, 2_000).astype(np.int64)
    log = toolkit.load_log(pd.DataFrame({"event_time": us}), time_unit="us")
    assert log.table["event_time"].iloc[-1] == 7 * 86_400 * 1000
    # the same two extremes alone are ambiguous, and reported
    with pytest.raises(MixedUnitsError):
        toolkit.load_log(pd.DataFrame({"event_time": [700_000_000, 700_000_000_000]}), time_unit="us")


def test_nanosecond_json_lines_with_a_null_keep_full_precision(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"event_time": 1700000000123999999, "value": 1}\n{"event_time": null, "value": null}\n'
                    '{"event_time": 1700000000124000001, "value": 3}\n')
    log = toolkit.load_log(path, time_unit="ns", max_invalid_fraction=0.5)
    assert log.table["event_time"].tolist() == [1_700_000_000_123, 1_700_000_000_124]
    assert log.table["value"].tolist() == [1, 3] and log.table["value"].dtype == np.int64
    assert quarantine_rows(log) == [(1, "event_time", "null", "")]
