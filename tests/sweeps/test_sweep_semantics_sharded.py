"""Flink and Spark semantics in one sweep, sharded: in-process in one piece == in-process in key
shards == on local Spark, for several shard counts (``toolkit.sweeps.semantics``).

One piece evaluates Spark settings with the replay's own code (``replay(...).summary()``);
sharded runs compute the micro-batch timeline from an aggregate and evaluate keys apart, so
equality here is the exactness of that split."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit import semantics as engines
from toolkit.log import EventLog
from toolkit.metrics.summary import SUMMARY_COLUMNS, check_summary
from toolkit.semantics.base import Semantics
from toolkit.settings import SettingError, grid

GRID = dict(
    semantics=["flink", "spark"],
    window=["tumbling:400ms", "sliding:600ms/200ms", "tumbling:400ms,-150ms"],
    delay=[0, 250],
    output_mode=["append", "update"],
    trigger_interval=[100, 700],
    partitions_as_sources=[False, True],
    multiple_watermark_policy=["min", "max"],
)
#: on Spark a smaller grid (each configuration costs a Python evaluation per shard)
SPARK_GRID = dict(GRID, window="sliding:600ms/200ms", partitions_as_sources=True)
SESSION_GRID = dict(semantics=["flink", "spark"], window="session:150ms", delay=[0, 300], trigger_interval=[100, 450],
                    partitions_as_sources=[False, True])


def _same(a, b) -> bool:
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)) or abs(a - b) < 1e-9


def _diff(a: pd.DataFrame, b: pd.DataFrame) -> list:
    assert len(a) == len(b)
    return [(i, k, a.loc[i, k], b.loc[i, k]) for i in range(len(a)) for k in SUMMARY_COLUMNS if not _same(a.loc[i, k], b.loc[i, k])]


@pytest.fixture(scope="module")
def log():
    rng = np.random.default_rng(5)
    n = 400
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 6000, n))
    event = arrival - rng.choice([0, 50, 200, 900, 2500], n)
    keys = rng.choice(["k1", "k2", "k3", "k4", "k5"], n).astype(object)
    return EventLog.from_arrays(event, arrival_time=arrival, key=keys, partition=rng.integers(0, 3, n))


@pytest.fixture(scope="module")
def whole(log):
    r = toolkit.sweep(log, execution="local", progress=False, **GRID)
    s = toolkit.sweep(log, execution="local", progress=False, **SESSION_GRID)
    check_summary(r)
    assert set(r.loc[r["semantics"] == "spark", "path"]) == {"microbatch"}
    return r, s


@pytest.mark.parametrize("shards", [2, 3, 6])
def test_in_process_shards_equal_one_piece(log, whole, shards):
    r = toolkit.sweep(log, execution="local", shards=shards, progress=False, **GRID)
    s = toolkit.sweep(log, execution="local", shards=shards, progress=False, **SESSION_GRID)
    assert not _diff(whole[0], r)
    assert not _diff(whole[1], s)
    pd.testing.assert_frame_equal(whole[0].drop(columns=SUMMARY_COLUMNS), r.drop(columns=SUMMARY_COLUMNS))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 1500), st.integers(0, 4), st.integers(0, 2)),
                  min_size=1, max_size=60),
    window=st.sampled_from(["tumbling:200ms", "sliding:300ms/100ms", "sliding:250ms/100ms", "session:120ms"]),
    delay=st.sampled_from([0, 1, 100, 400]),
    interval=st.sampled_from([1, 50, 300, 1000]),
    mode=st.sampled_from(["append", "update"]),
    pas=st.booleans(),
    policy=st.sampled_from(["min", "max"]),
    shards=st.integers(2, 5),
)
def test_property_sharded_spark_rows_equal_the_replay(data, window, delay, interval, mode, pas, policy, shards):
    if window.startswith("session"):
        mode = "append"
    arrival = np.array([d[0] for d in data], dtype=np.int64)
    event = arrival - np.array([d[1] for d in data], dtype=np.int64)
    log = EventLog.from_arrays(event, arrival_time=arrival, key=np.array([f"k{d[2]}" for d in data], dtype=object),
                               partition=np.array([d[3] for d in data]))
    (s,) = grid(window=window, delay=delay, semantics="spark", trigger_interval=interval, output_mode=mode,
                partitions_as_sources=pas, multiple_watermark_policy=policy)
    got = toolkit.sweep(log, [s], execution="local", shards=shards, progress=False).iloc[0]
    want = toolkit.replay(log, s).summary()
    assert not [k for k in SUMMARY_COLUMNS if not _same(want[k], got[k])]


def test_registry_contract():
    assert {"flink", "spark"} <= set(engines.names())
    assert all(isinstance(e, Semantics) for e in engines.all_semantics())
    # key shards, or groups of keys (Kafka Streams' tasks) with their own unit and assignment
    assert all(e.shard_by == "key" or type(e).assign is not Semantics.assign for e in engines.all_semantics())
    with pytest.raises(SettingError, match="semantics 'nope': choose one of"):
        engines.get("nope")
    # an engine can be replaced (how other engines plug in), and the sweep uses it
    old = engines.get("spark")
    calls = []

    class Counting(type(old)):
        def evaluate(self, shard, config, path, timeline):
            calls.append(shard.n)
            return super().evaluate(shard, config, path, timeline)

    engines.register(Counting())
    try:
        log = EventLog.from_arrays(np.arange(10), arrival_time=np.arange(10) + 5, key=np.array(["a", "b"] * 5, dtype=object))
        toolkit.sweep(log, semantics="spark", window="tumbling:3ms", shards=2, execution="local", progress=False)
    finally:
        engines.register(old)
    assert sorted(calls) == [5, 5]


@pytest.mark.spark
@pytest.mark.parametrize("partitions", [2, 4, 7])
def test_spark_execution_equals_in_process(spark, log, whole, partitions):
    """semantics=flink and semantics=spark rows in one sweep on local Spark: identical figures."""
    r = toolkit.sweep(log, execution="spark", spark=spark, shards=partitions, progress=False, **SPARK_GRID)
    want = whole[0]
    want = want[(want["window"] == "sliding:600ms/200ms") & want["partitions_as_sources"]].reset_index(drop=True)
    assert len(want) == len(r) == 18
    assert not _diff(want, r)
    assert set(r.loc[r["semantics"] == "spark", "path"]) == {"microbatch"}
    if partitions == 4:
        s = toolkit.sweep(log, execution="spark", spark=spark, shards=partitions, progress=False, **SESSION_GRID)
        assert not _diff(whole[1], s)


@pytest.mark.spark
def test_spark_backed_log_with_spark_semantics(spark, log, whole):
    """A Spark-backed log (never collected) sweeps Spark settings too."""
    sdf = spark.createDataFrame(log.table.assign(key=log.table["key"].astype(str)))
    spark_log = EventLog(None, log.quarantine, spark_df=sdf, n_records=log.n_records, has_arrival_time=True)
    grid = dict(SPARK_GRID, semantics="spark", multiple_watermark_policy="min")
    r = toolkit.sweep(spark_log, shards=3, progress=False, **grid)
    want = whole[0]
    want = want[(want["semantics"] == "spark") & want["partitions_as_sources"] & (want["multiple_watermark_policy"] == "min")
                & (want["window"] == "sliding:600ms/200ms")]
    assert not _diff(want.reset_index(drop=True), r)


def test_complete_mode_rows_in_a_sharded_sweep_are_the_replays(log):
    """Spark's complete mode (re-emits every window every batch, never evicts) is evaluated in one
    piece by the replay's own code even when the rest of the sweep runs in shards."""
    r = toolkit.sweep(log, execution="local", shards=3, progress=False, semantics="spark", window="tumbling:400ms,-150ms",
                      delay=[0, 250], output_mode="complete", trigger_interval=100)
    assert set(r["path"]) == {"microbatch"}
    for _, row in r.iterrows():
        want = toolkit.replay(log, semantics="spark", window="tumbling:400ms,-150ms", delay=int(row["delay_ms"]),
                              output_mode="complete", trigger_interval=100).summary()
        for col in ("dropped", "late_accepted", "completeness_first", "firings"):
            assert _same(row[col], want[col]), col
