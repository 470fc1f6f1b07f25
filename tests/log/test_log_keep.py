"""``load_log(..., keep=[...])``: more source columns survive loading (valid rows only), in
pandas and in Spark; a missing one is an error that names it."""
from __future__ import annotations

import pandas as pd
import pytest

import toolkit
from toolkit.log import MissingColumnError


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"event_time": [5, 1, "bad", 7], "arrival_time": [10, 11, 12, 13], "key": ["a", "b", "a", "a"],
                         "gap_ms": [3, 4, 5, 6], "flag": [True, False, True, False], "other": [0, 0, 0, 0]})


def test_kept_columns_follow_the_valid_rows_and_are_not_reported_unused():
    log = toolkit.load_log(_frame(), keep=["gap_ms", "flag"], max_invalid_fraction=0.5)
    t = log.table
    assert t["row"].tolist() == [0, 1, 3]
    assert t["gap_ms"].tolist() == [3, 4, 6] and t["flag"].tolist() == [True, False, False]
    assert log.unused_columns == ["other"]


def test_keep_accepts_one_name_and_ignores_canonical_names():
    log = toolkit.load_log(_frame().drop(index=2), keep="gap_ms")
    assert "gap_ms" in log.table and list(log.table.columns).count("key") == 1
    log = toolkit.load_log(_frame().drop(index=2), keep=["key", "gap_ms", "gap_ms"])
    assert list(log.table.columns).count("gap_ms") == 1


def test_a_missing_kept_column_is_named(tmp_path):
    p = tmp_path / "log.csv"
    _frame().drop(index=2).to_csv(p, index=False)
    with pytest.raises(MissingColumnError, match=r"column 'gap' \(kept with keep=\) not found.*'gap_ms'"):
        toolkit.load_log(p, keep=["gap"])
    assert toolkit.load_log(p, keep=["gap_ms"]).table["gap_ms"].tolist() == [3, 4, 6]


@pytest.mark.spark
def test_spark_loading_keeps_the_columns_too(spark):
    df = spark.createDataFrame(_frame().drop(index=2).astype({"event_time": "int64"}))
    log = toolkit.load_log(df, keep=["gap_ms"])
    assert log.is_spark and "gap_ms" in log.spark_df.columns
    got = log.spark_df.orderBy("row").select("row", "gap_ms").toPandas()
    assert got["gap_ms"].tolist() == [3, 4, 6]
    assert log.to_pandas()["gap_ms"].tolist() == [3, 4, 6]
    with pytest.raises(MissingColumnError, match="'nope'"):
        toolkit.load_log(df, keep=["nope"])
