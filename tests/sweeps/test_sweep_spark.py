"""The same sweep gives identical figures in-process and on Spark, for several partitionings."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.log import EventLog
from toolkit.metrics.summary import check_summary

pytestmark = pytest.mark.spark

GRID = dict(
    window=["tumbling:100ms", "sliding:200ms/50ms", "session:80ms"],
    delay=[0, 150],
    lateness=[0, 100],
    interval=[0, 50],
    partitions_as_sources=True,
    trigger=["event_time", "count:3"],  # the second takes the engine path (sessions too)
)


@pytest.fixture(scope="module")
def log():
    rng = np.random.default_rng(11)
    n = 300
    arrival = np.sort(rng.integers(0, 4000, n))
    event = arrival - rng.integers(0, 300, n)
    keys = rng.choice(["k1", "k2", "k3", "k4", "k5", "k6"], n).astype(object)
    return EventLog.from_arrays(event, arrival_time=arrival, key=keys, partition=rng.integers(0, 3, n))


@pytest.fixture(scope="module")
def local_result(log):
    r = toolkit.sweep(log, execution="local", progress=False, **GRID)
    check_summary(r)
    assert set(r["path"]) == {"fast", "engine"}
    return r


@pytest.mark.parametrize("partitions", [1, 2, 7])
def test_spark_equals_in_process(spark, log, local_result, partitions):
    old = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    try:
        r = toolkit.sweep(log, execution="spark", spark=spark, progress=False, **GRID)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", old)
    check_summary(r)
    pd.testing.assert_frame_equal(r, local_result, check_exact=True)


def test_spark_backed_dataframe_and_explicit_shards(spark, log, local_result):
    """A log given as a Spark DataFrame stays distributed; shards may differ from partitions."""
    sdf = spark.createDataFrame(log.table.assign(key=log.table["key"].astype(str)))
    spark_log = EventLog(None, log.quarantine, spark_df=sdf, n_records=log.n_records, has_arrival_time=True)
    grid = dict(GRID, window=["tumbling:100ms", "session:80ms"], partitions_as_sources=False, idleness=[None, 40],
                trigger="event_time")
    r = toolkit.sweep(spark_log, shards=5, progress=False, **grid)
    expected = toolkit.sweep(log, execution="local", progress=False, **grid)
    pd.testing.assert_frame_equal(r, expected, check_exact=True)
    # a key-partitioned, cached copy (what repeated sweeps use) gives the same figures
    dist = toolkit.distribute(log, shards=3, spark=spark)
    assert dist.is_spark and dist.n_records == log.n_records
    again = toolkit.sweep(dist, shards=3, progress=False, **grid)
    dist.spark_df.unpersist()
    pd.testing.assert_frame_equal(again, expected, check_exact=True)


def test_spark_progress_bar_counts_configurations(spark, log, capsys):
    """The bar counts the configurations done (a Spark job moves it by the share of its tasks done,
    rounded down), never goes back or changes its total as Spark reveals stages, and ends at every
    configuration."""
    r = toolkit.sweep(log, execution="spark", spark=spark, progress=True, **GRID)
    err = capsys.readouterr().err
    counts = [(int(n), int(t)) for n, t in re.findall(r"\| *(\d+)/(\d+) \[", err)]
    assert counts and counts[-1] == (len(r), len(r)) and {t for _, t in counts} == {len(r)}
    assert [n for n, _ in counts] == sorted(n for n, _ in counts)
