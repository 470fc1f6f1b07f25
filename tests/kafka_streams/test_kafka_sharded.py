"""Kafka Streams rows of a sharded sweep (``toolkit.semantics.kafka_streams.sweep``): shards of whole tasks,
in-process (``shards=2, 3``) and on local Spark, give exactly ``replay(...).summary()``."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.engine.kafka_streams.partitioner import partition_for_key
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.semantics import get
from toolkit.semantics.kafka_streams.sweep import assign_tasks
from toolkit.settings import Setting, SettingError

BASE = 1_700_000_000_000


def _frame(n=120, seed=1, keys=("a", "b", "c", "d", "e", "f"), parts=3, span=10_000, co_partitioned=False):
    rng = np.random.default_rng(seed)
    arrival = BASE + np.sort(rng.integers(0, span, n))
    event = arrival - rng.choice([0, 100, 700, 3_000], n)
    key = rng.choice(list(keys), n)
    part = (np.array([ord(k[0]) for k in key]) % parts) if co_partitioned else rng.integers(0, parts, n)
    return pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": key, "partition": part,
                         "value": rng.integers(1, 10, n)})


def _log(**kw):
    return toolkit.load_log(_frame(**kw), time_unit="ms")


def _close(a, b):
    if isinstance(a, float) and np.isnan(a):
        return isinstance(b, float) and np.isnan(b)
    return a == pytest.approx(b, rel=1e-12, abs=1e-9)


def _same(row, summary, what):
    bad = [(k, summary[k], row[k]) for k in SUMMARY_COLUMNS if not _close(summary[k], row[k])]
    assert not bad, (what, bad)


def test_kafka_streams_is_sharded_by_task():
    entry = get("kafka_streams")
    assert entry.shard_by == "task"
    keys = np.array(["a", "b", "user-17", "ü"], dtype=object)
    assert assign_tasks(("task", True, 5, False), keys, np.zeros(4)).tolist() == [partition_for_key(k, 5) for k in keys]
    assert assign_tasks(("task", False, 3, False), keys, np.array([2, 0, 1, 2])).tolist() == [2, 0, 1, 2]


def _setting(w, g, e, t, c, ci, ei, limit):
    if w == "global":  # UnlimitedWindows: no grace, no onWindowClose
        g, e = 0, ("update" if e == "final" else e)
    sup = dict(suppress_time_limit=limit[0], suppress_max_records=limit[1], suppress_when_full=limit[2]) \
        if e == "suppress" else {}
    return Setting.parse(semantics="kafka_streams", window=w, grace=g, emit=e, tasks=t, cache_max_bytes=c,
                         commit_interval=ci, emit_interval=ei, **sup)


SETTINGS = st.builds(
    _setting,
    st.sampled_from(["tumbling:1s", "sliding:3s/1s", "kafka_sliding:700ms", "session:800ms", "global"]),
    st.sampled_from([0, 100, 1000, 5000]), st.sampled_from(["update", "final", "suppress"]), st.sampled_from([None, 1, 2, 5]),
    # the record cache: off, Kafka's default, or so small it evicts (tasks then share one shard)
    st.sampled_from([0, "10MB", "400B"]), st.sampled_from(["0", "1s", "30s"]), st.sampled_from(["0", "1s", "3s"]),
    # the suppression: until the window closes, or a time limit, unbounded or emitting early when full
    st.sampled_from([(None, None, "shut_down"), ("500ms", None, "shut_down"), ("2s", 2, "emit_early")]))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SETTINGS, st.integers(0, 10_000), st.integers(1, 80), st.sampled_from([2, 3]))
def test_property_sharded_rows_equal_the_replay(s, seed, n, shards):
    log = _log(n=n, seed=seed)
    row = toolkit.sweep(log, [s], shards=shards, execution="local", progress=False).iloc[0]
    _same(row, toolkit.replay(log, s).summary(), (str(s), shards))


def test_co_partitioned_log_sharded_by_its_partitions():
    log = _log(n=150, seed=4, co_partitioned=True)
    for emit in ("update", "suppress"):
        s = Setting.parse(semantics="kafka_streams", window="tumbling:2s", grace="1s", emit=emit, repartition=False)
        want = toolkit.replay(log, s).summary()
        for shards in (2, 3):
            _same(toolkit.sweep(log, [s], shards=shards, progress=False).iloc[0], want, shards)


def test_sharded_sweep_refuses_what_the_replay_refuses():
    log = _log(n=60, seed=2)  # keys spread over partitions
    with pytest.raises(SettingError, match="repartition=False needs a co-partitioned log"):
        toolkit.sweep(log, semantics="kafka_streams", repartition=False, shards=2, progress=False)
    with pytest.raises(SettingError) as e:
        toolkit.sweep(_log(n=60, seed=2, co_partitioned=True), semantics="kafka_streams", repartition=False, tasks=1,
                      shards=2, progress=False)
    assert e.value.setting == "tasks"


@pytest.mark.spark
def test_on_spark_rows_equal_the_replay(spark):
    log = _log(n=200, seed=7, span=15_000)
    co = _log(n=150, seed=8, co_partitioned=True)
    ss = [Setting.parse(semantics="kafka_streams", window=w, grace="1s", emit=e, tasks=t)
          for w, e, t in [("tumbling:2s", "update", None), ("sliding:4s/1s", "final", 2), ("kafka_sliding:1s", "suppress", 5),
                          ("session:1500ms", "update", 3)]]
    got = toolkit.sweep(log, ss, execution="spark", spark=spark, shards=3, progress=False)
    assert got["path"].tolist() == ["fast", "fast", "kafka_streams", "kafka_streams"]  # TimeWindows: the fast path
    for i, s in enumerate(ss):
        _same(got.iloc[i], toolkit.replay(log, s).summary(), str(s))
    s = Setting.parse(semantics="kafka_streams", window="tumbling:2s", grace="1s", repartition=False)
    _same(toolkit.sweep(co, [s], execution="spark", spark=spark, shards=2, progress=False).iloc[0],
          toolkit.replay(co, s).summary(), "repartition=False")
    # the record cache evicting (its tasks share one shard) and the replay's path, on Spark too
    for c in (s.replace(repartition=True, cache_max_bytes="300B", commit_interval="1s", emit="suppress"),
              s.replace(repartition=True, emit="final", emit_interval="3s")):
        for path in ("fast", "engine"):
            _same(toolkit.sweep(log, [c], execution="spark", spark=spark, shards=3, path=path, progress=False).iloc[0],
                  toolkit.replay(log, c).summary(), (str(c), path))
    with pytest.raises(SettingError, match="co-partitioned"):
        toolkit.sweep(log, [s], execution="spark", spark=spark, progress=False)


# ------------------------------------------------ declared partitions: the topic's partition count
def _declared(declared, co_partitioned=False):
    return toolkit.load_log(_frame(n=150, seed=11, parts=3, co_partitioned=co_partitioned), time_unit="ms",
                            partitions=declared)


def test_declared_partitions_set_the_default_task_count():
    """A Kafka Streams app runs one task per partition of its input topic (the repartition topic is
    sized like it): a declared partition without records is a partition, and so a task, all the
    same. With 6 declared partitions the keys hash modulo 6, as ``tasks=6`` says."""
    log = _declared("0-5")
    assert log.silent_partitions == (3, 4, 5)
    r = toolkit.replay(log, semantics="kafka_streams", window="tumbling:1s", grace="1s")
    keys = r.emissions.drop_duplicates("key").set_index("key")["task"]
    assert {k: int(t) for k, t in keys.items()} == {k: partition_for_key(k, 6) for k in keys.index}
    same = toolkit.replay(_declared(None), semantics="kafka_streams", window="tumbling:1s", grace="1s", tasks=6)
    pd.testing.assert_frame_equal(r.emissions, same.emissions)
    undeclared = toolkit.replay(_declared(None), semantics="kafka_streams", window="tumbling:1s", grace="1s")
    assert set(undeclared.emissions["task"]) <= {0, 1, 2}  # the log's own 3 partitions
    # co-partitioned (repartition=False): 6 tasks, three of them without records; tasks=2 is refused
    co = _declared([0, 1, 2, 3, 4, 5], co_partitioned=True)
    toolkit.replay(co, semantics="kafka_streams", window="tumbling:1s", repartition=False)
    with pytest.raises(SettingError, match="tasks=2 is fewer than the log's 6 partitions"):
        toolkit.replay(co, semantics="kafka_streams", window="tumbling:1s", repartition=False, tasks=2)


def test_declared_partitions_sweep_rows_equal_the_replay():
    log = _declared("0-5")
    ss = [Setting.parse(semantics="kafka_streams", window=w, grace="1s", emit=e, tasks=t)
          for w, e, t in [("tumbling:2s", "update", None), ("session:1500ms", "final", None), ("tumbling:2s", "update", 2)]]
    for shards in (1, 3):  # in one piece (the replay's code) and in shards of whole tasks
        got = toolkit.sweep(log, ss, shards=shards, progress=False)
        for i, s in enumerate(ss):
            _same(got.iloc[i], toolkit.replay(log, s).summary(), f"{s} shards={shards}")
    plain = toolkit.sweep(_declared(None), ss[:1], progress=False).iloc[0]
    assert toolkit.sweep(log, ss[:1], progress=False).iloc[0]["firings"] != plain["firings"]  # 6 tasks, not 3


@pytest.mark.spark
def test_declared_partitions_on_spark_rows_equal_the_replay(spark):
    log = _declared("0-5")
    s = Setting.parse(semantics="kafka_streams", window="tumbling:2s", grace="1s")
    _same(toolkit.sweep(log, [s], execution="spark", spark=spark, shards=2, progress=False).iloc[0],
          toolkit.replay(log, s).summary(), "declared, on Spark")
