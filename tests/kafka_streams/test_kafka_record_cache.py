"""Kafka Streams' record cache (``toolkit.engine.kafka_streams.record_cache``): Kafka's
``NamedCacheTest``, ``ThreadCacheTest`` and ``CachingPersistentWindowStoreTest`` re-expressed on the
cache's own API, then the cache in front of the windowed aggregation (``KStreamWindowAggregateTest``
run with ``withCache=true`` in a ``TopologyTestDriver``, which commits after every record), the
compaction that a longer commit interval brings (``KStreamAggregationDedupIntegrationTest``), and the
acceptance figure on ``data/sample.csv``.

Kafka's tests put raw byte strings; here a window key ``(key, start, end)`` and a value
``(count, sum, timestamp)`` stand for them (``count=None``: Kafka's ``null``).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from _kafka_cases import kvt, out, run
from test_kafka_window_aggregate import AGG_BASIC_INPUT, HOP_10_5_GRACE_100

import toolkit
from toolkit.engine.kafka_streams import SessionWindows, TimeWindows, run_windowed_aggregation
from toolkit.engine.kafka_streams.record_cache import CacheConfig, NamedCache, RecordSizes, ThreadCache

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample.csv"


def _named():
    flushed: list[tuple] = []
    return NamedCache(lambda wkey, value, index: flushed.append((wkey[0], value[0]))), flushed


def _v(x):
    return (x, float(x), 0)


def _null():
    return (None, float("nan"), 0)


# ------------------------------------------------------------------------------- NamedCacheTest
def test_NamedCacheTest_shouldKeepTrackOfMostRecentlyAndLeastRecentlyUsed():
    cache, _ = _named()
    for i in range(1, 6):
        cache.put((f"K{i}", 0, 1), _v(i), 10)
        assert list(cache.entries)[-1] == (f"K{i}", 0, 1)  # head: the newest
        assert list(cache.entries)[0] == ("K1", 0, 1)  # tail: the eldest


def test_NamedCacheTest_shouldOverwriteAll():
    cache, _ = _named()
    for v in (0, 1, 2):
        cache.put(("k", 0, 1), _v(v), 10)
    assert len(cache.entries) == 1 and cache.entries[("k", 0, 1)][0] == _v(2) and cache.size == 10


def test_NamedCacheTest_shouldEvictEldestEntry():
    cache, _ = _named()
    for i in range(3):
        cache.put((i, 0, 1), _v(10 * (i + 1)), 10)
    cache.evict(0)
    assert (0, 0, 1) not in cache.entries and len(cache.entries) == 2 and cache.size == 20


def test_NamedCacheTest_shouldFlushDirtEntriesOnEviction():
    # the evicted entry first, then the other dirty entries in the order of their last write
    cache, flushed = _named()
    cache.put((0, 0, 1), _v(10), 10)
    cache.put((2, 0, 1), _v(30), 10)
    cache.evict(0)
    assert flushed == [(0, 10), (2, 30)]
    assert not cache.dirty and list(cache.entries) == [(2, 0, 1)]


def test_NamedCacheTest_shouldRemoveDeletedValuesOnFlush():
    cache, flushed = _named()
    cache.put((0, 0, 1), _null(), 10)
    cache.put((1, 0, 1), _v(20), 10)
    cache.flush(0)
    assert list(cache.entries) == [(1, 0, 1)] and cache.size == 10
    assert flushed == [(1, 20)]  # a null for a window the store never held is not forwarded


# ------------------------------------------------------------------------------ ThreadCacheTest
def _thread(max_bytes, session=False):
    got: list[tuple] = []
    tc = ThreadCache(CacheConfig(max_bytes, 0, RecordSizes(aggregate_bytes=2, topic="")),
                     lambda task: (lambda kind, key, s, e, c, sm, t, i: got.append((task, kind, key, c))), session)
    return tc, got


def test_ThreadCacheTest_evict():
    one = RecordSizes(aggregate_bytes=2, topic="").entry(2, False, False)
    tc, got = _thread(one)
    put = tc.put_for(0)
    for i in range(1, 6):
        put("update", f"K{i}", 0, 10, i, float(i), 0, i)
    assert got[0] == (0, "update", "K1", 1) and tc.evictions == 4 and len(tc.caches[0].entries) == 1


def test_ThreadCacheTest_shouldFlushDirtyEntriesForNamespace():
    tc, got = _thread(100_000)
    for k in ("a", "b", "c"):
        tc.put_for(1)("update", k, 0, 10, 1, 1.0, 0, 0)
    tc.put_for(2)("update", "d", 0, 10, 1, 1.0, 0, 0)
    tc.flush(1, 0)
    assert got == [(1, "update", "a", 1), (1, "update", "b", 1), (1, "update", "c", 1)]


def test_ThreadCacheTest_shouldNotFlushCleanEntriesForNamespace():
    tc, got = _thread(100_000)
    tc.put_for(1)("update", "a", 0, 10, 1, 1.0, 0, 0)
    tc.flush(1, 0)
    tc.flush(1, 0)  # the entry is clean now: nothing more
    assert got == [(1, "update", "a", 1)]


def test_eviction_only_takes_from_the_cache_just_written():
    # ThreadCache.maybeEvict: the put on task 1 overflows the thread's cache; task 1's own entries go
    one = RecordSizes(aggregate_bytes=2, topic="").entry(1, False, False)
    tc, got = _thread(2 * one)
    tc.put_for(0)("update", "a", 0, 10, 1, 1.0, 0, 0)
    tc.put_for(1)("update", "b", 0, 10, 1, 1.0, 0, 1)
    tc.put_for(1)("update", "c", 0, 10, 1, 1.0, 0, 2)
    assert got == [(1, "update", "b", 1), (1, "update", "c", 1)] and list(tc.caches[0].entries) == [("a", 0, 10)]


# ------------------------------------------------------------------ CachingPersistentWindowStoreTest
def test_CachingPersistentWindowStoreTest_shouldForwardDirtyItemsWhenFlushCalled():
    tc, got = _thread(100_000)
    tc.put_for(0)("update", "1", 10, 20, 1, 1.0, 10, 0)
    tc.commit(0)
    assert got == [(0, "update", "1", 1)]


def test_CachingPersistentWindowStoreTest_shouldForwardOldValuesWhenDisabled():
    tc, got = _thread(100_000)
    put = tc.put_for(0)
    put("update", "1", 10, 20, 1, 1.0, 10, 0)  # "a"
    put("update", "1", 10, 20, 2, 2.0, 10, 0)  # "b"
    tc.commit(0)
    assert got == [(0, "update", "1", 2)]  # only the latest value
    put("update", "1", 10, 20, 3, 3.0, 10, 0)  # "c"
    tc.commit(0)
    put("tombstone", "1", 10, 20, 0, float("nan"), 10, 0)  # null: the store holds the window
    tc.commit(0)
    assert got[1:] == [(0, "update", "1", 3), (0, "tombstone", "1", 0)]
    got.clear()
    put("update", "1", 10, 20, 1, 1.0, 10, 0)
    put("update", "1", 10, 20, 2, 2.0, 10, 0)
    put("tombstone", "1", 10, 20, 0, float("nan"), 10, 0)
    tc.commit(0)
    assert got == []  # neither the store nor the cache had it: nothing forwarded


def test_CachingPersistentWindowStoreTest_shouldFlushEvictedItemsIntoUnderlyingStore():
    # MAX_CACHE_SIZE_BYTES 150, topic "topic", one-byte keys and values, raw (untimestamped) values:
    # each entry is 72 bytes, so the third put evicts "0", which flushes every dirty entry
    tc = ThreadCache(CacheConfig(150, 0, RecordSizes(aggregate_bytes=1, topic="topic", timestamped=False)),
                     lambda task: (lambda *row: forwarded.append(row[1:3])), False)
    forwarded: list = []
    put = tc.put_for(0)
    for i in range(3):  # addItemsToCache: until Kafka's estimate reaches 150 bytes
        put("update", str(i), 10, 20, i, float(i), 10, i)
    assert RecordSizes(aggregate_bytes=1, topic="topic", timestamped=False).entry(1, False, False) == 72
    assert len(tc.caches[0].entries) == 3 - 1  # added - 1
    assert ("0", 10, 20) in tc.caches[0].stored  # "0" is in the underlying store
    assert len(forwarded) == 3  # shouldForwardDirtyItemToListenerWhenEvicted


# ------------------------------------------------------------------- the cache in the aggregation
def test_KStreamWindowAggregateTest_testAggBasic_withCache():
    # TopologyTestDriver commits after every record: the cache forwards what the cache-off run does
    keys = [r[0] for r in AGG_BASIC_INPUT]
    ts = [r[2] for r in AGG_BASIC_INPUT]
    vals = [float(r[1]) for r in AGG_BASIC_INPUT]
    cached = run_windowed_aggregation(keys, ts, vals, windows=HOP_10_5_GRACE_100, flush_at_end=False,
                                      cache=CacheConfig(commit_interval=0))
    assert out(cached) == out(run(AGG_BASIC_INPUT, HOP_10_5_GRACE_100))
    assert cached.description["cache_commits"] == len(AGG_BASIC_INPUT) - 1  # the first record starts the clock


def test_KStreamAggregationDedupIntegrationTest_shouldReduceWindowed():
    # one batch of A..E at t1, two batches at t2, 500 ms windows, the cache at its defaults: each
    # window's updates are compacted, so each key sends one result per window ("A" and "A:A")
    letters = list("ABCDE")
    t1, t2 = 1000, 2000
    keys = letters * 3
    ts = [t1] * 5 + [t2] * 10
    r = run_windowed_aggregation(keys, ts, [1.0] * 15, arrival=list(range(15)),
                                 windows=TimeWindows.of_size_with_no_grace(500), cache=CacheConfig(), flush_at_end=True)
    want = sorted([(k, 1000, 1500, 1, 1.0, t1) for k in letters] + [(k, 2000, 2500, 2, 2.0, t2) for k in letters])
    assert sorted(out(r)) == want
    off = run_windowed_aggregation(keys, ts, [1.0] * 15, windows=TimeWindows.of_size_with_no_grace(500))
    assert len(off) == 15  # without the cache every update is a result


def test_updates_of_a_window_are_compacted_until_the_commit():
    w = TimeWindows.of_size_and_grace(10, 0)
    r = run_windowed_aggregation(["A"] * 4 + ["B"], [1, 2, 3, 4, 12], [1.0] * 5, arrival=[0, 10, 20, 40, 45],
                                 windows=w, cache=CacheConfig(commit_interval=30), flush_at_end=True)
    # the commit after the record at arrival 40 (40 - 0 > 30) forwards A's window once, with 4 records;
    # B's window leaves at the end (a shutdown commits)
    assert out(r) == [kvt("A", 0, 10, "0+1+1+1+1", 4), kvt("B", 10, 20, "0+1", 12)]
    assert r.emissions["emit_index"].tolist() == [3, -1]


def test_a_session_merged_before_a_commit_sends_no_tombstone():
    # CachingSessionStore: the merged-away session never reached the store, so its null is skipped;
    # the session leaves once, timestamped by the record that wrote it (its record context)
    w = SessionWindows(5, 100)
    r = run_windowed_aggregation(["A", "A", "A"], [1, 10, 5], [1.0] * 3, windows=w,
                                 cache=CacheConfig(commit_interval=1000), flush_at_end=True)
    assert r.rows() == [("A", 1, 10, 3, 3.0, "update", 5)]
    off = run_windowed_aggregation(["A", "A", "A"], [1, 10, 5], [1.0] * 3, windows=w)
    assert off.summary()["tombstones"] == 2 and off.summary()["updates"] == 3


def test_emit_final_never_caches():
    w = TimeWindows.of_size_and_grace(10, 0)
    kw = dict(windows=w, emit="on_window_close", flush_at_end=True)
    keys, ts = ["A", "A", "B"], [1, 12, 25]
    assert out(run_windowed_aggregation(keys, ts, **kw, cache=CacheConfig())) == out(run_windowed_aggregation(keys, ts, **kw))


@pytest.mark.parametrize("bad", [-1, True, 1.5])
def test_cache_settings_are_checked(bad):
    with pytest.raises(Exception, match="cache max_bytes"):
        CacheConfig(bad)


# -------------------------------------------------------------------------------- the acceptance
def test_with_the_cache_on_at_kafkas_defaults_the_sample_log_shows_fewer_updates():
    log = toolkit.load_log(SAMPLE, max_invalid_fraction=0.01)
    on = toolkit.replay(log, semantics="kafka_streams", window="tumbling:10s").summary()
    off = toolkit.replay(log, semantics="kafka_streams", window="tumbling:10s", cache_max_bytes=0).summary()
    assert on["updates"] < off["updates"] / 50  # 281 against 29,709
    assert on["completeness_final"] == off["completeness_final"] and on["dropped"] == off["dropped"]
    assert "withCachingDisabled" not in on["deployable"] and "withCachingDisabled" in off["deployable"]
