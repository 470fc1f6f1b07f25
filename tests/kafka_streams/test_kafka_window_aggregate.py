"""Kafka's ``KStreamWindowAggregateTest`` re-expressed (TimeWindows, emit on update with the cache
off, and ``EmitStrategy.onWindowClose()``), one test per Kafka test method and strategy.

Not re-expressed (outside the model): the ``withCache=true`` variants of update emission (a record
cache coalesces updates until commit; we model the cache off), the join outputs of ``testJoin``
(only its two aggregations are), ``shouldLogAndMeterWhenSkippingNullKey`` (a loaded log has no null
keys), ``shouldEmitFromLastEmitTime`` (a processor restarted from stored metadata) and
``showThrowIfEmitFinalUsedWithUnlimitedWindow`` (in ``test_kafka_suppress_config.py``).
"""
from __future__ import annotations

import pytest
from _kafka_cases import DAY, kvt, out, run, split_at

from toolkit.engine.kafka_streams import TimeWindows

HOP_10_5_GRACE_100 = TimeWindows.of_size_and_grace(10, 100).advance_by(5)

AGG_BASIC_INPUT = [
    ("A", "1", 0), ("B", "2", 1), ("C", "3", 2), ("D", "4", 3), ("A", "1", 4),
    ("A", "1", 5), ("B", "2", 6), ("D", "4", 7), ("B", "2", 8), ("C", "3", 9),
    ("A", "1", 10), ("B", "2", 11), ("D", "4", 12), ("B", "2", 13), ("C", "3", 14),
    ("B", "1", 3), ("B", "2", 2), ("B", "3", 9),
]


def test_KStreamWindowAggregateTest_testAggBasic_onWindowUpdate():
    r = run(AGG_BASIC_INPUT, HOP_10_5_GRACE_100)
    assert out(r) == [
        kvt("A", 0, 10, "0+1", 0), kvt("B", 0, 10, "0+2", 1), kvt("C", 0, 10, "0+3", 2),
        kvt("D", 0, 10, "0+4", 3), kvt("A", 0, 10, "0+1+1", 4),
        kvt("A", 0, 10, "0+1+1+1", 5), kvt("A", 5, 15, "0+1", 5),
        kvt("B", 0, 10, "0+2+2", 6), kvt("B", 5, 15, "0+2", 6),
        kvt("D", 0, 10, "0+4+4", 7), kvt("D", 5, 15, "0+4", 7),
        kvt("B", 0, 10, "0+2+2+2", 8), kvt("B", 5, 15, "0+2+2", 8),
        kvt("C", 0, 10, "0+3+3", 9), kvt("C", 5, 15, "0+3", 9),
        kvt("A", 5, 15, "0+1+1", 10), kvt("A", 10, 20, "0+1", 10),
        kvt("B", 5, 15, "0+2+2+2", 11), kvt("B", 10, 20, "0+2", 11),
        kvt("D", 5, 15, "0+4+4", 12), kvt("D", 10, 20, "0+4", 12),
        kvt("B", 5, 15, "0+2+2+2+2", 13), kvt("B", 10, 20, "0+2+2", 13),
        kvt("C", 5, 15, "0+3+3", 14), kvt("C", 10, 20, "0+3", 14),
        kvt("B", 0, 10, "0+2+2+2+1", 8), kvt("B", 0, 10, "0+2+2+2+1+2", 8),
        kvt("B", 0, 10, "0+2+2+2+1+2+3", 9), kvt("B", 5, 15, "0+2+2+2+2+3", 13),
    ]
    assert r.dropped_records_total == 0


def test_KStreamWindowAggregateTest_testAggBasic_onWindowClose():
    # "Nothing processed since grace is 100L and no window closes"
    assert out(run(AGG_BASIC_INPUT, HOP_10_5_GRACE_100, "on_window_close")) == []


UPDATE_JOIN_T1 = [("A", "1", 0), ("B", "2", 1), ("C", "3", 2), ("D", "4", 3), ("A", "1", 9),
                  ("A", "1", 5), ("B", "2", 6), ("D", "4", 7), ("B", "2", 8), ("C", "3", 9)]
UPDATE_JOIN_T2 = [("A", "a", 0), ("B", "b", 1), ("C", "c", 2), ("D", "d", 20), ("A", "a", 20),
                  ("A", "a", 5), ("B", "b", 6), ("D", "d", 7), ("D", "d", 18), ("A", "a", 21)]


def test_KStreamWindowAggregateTest_testJoin_onWindowUpdate_aggregations():
    t1 = split_at(run(UPDATE_JOIN_T1, HOP_10_5_GRACE_100), [4, 9])
    assert t1[0] == [kvt("A", 0, 10, "0+1", 0), kvt("B", 0, 10, "0+2", 1), kvt("C", 0, 10, "0+3", 2),
                     kvt("D", 0, 10, "0+4", 3), kvt("A", 0, 10, "0+1+1", 9), kvt("A", 5, 15, "0+1", 9)]
    assert t1[1] == [kvt("A", 0, 10, "0+1+1+1", 9), kvt("A", 5, 15, "0+1+1", 9),
                     kvt("B", 0, 10, "0+2+2", 6), kvt("B", 5, 15, "0+2", 6),
                     kvt("D", 0, 10, "0+4+4", 7), kvt("D", 5, 15, "0+4", 7),
                     kvt("B", 0, 10, "0+2+2+2", 8), kvt("B", 5, 15, "0+2+2", 8),
                     kvt("C", 0, 10, "0+3+3", 9), kvt("C", 5, 15, "0+3", 9)]
    t2 = split_at(run(UPDATE_JOIN_T2, HOP_10_5_GRACE_100), [4, 9])
    assert t2[0] == [kvt("A", 0, 10, "0+a", 0), kvt("B", 0, 10, "0+b", 1), kvt("C", 0, 10, "0+c", 2),
                     kvt("D", 15, 25, "0+d", 20), kvt("D", 20, 30, "0+d", 20),
                     kvt("A", 15, 25, "0+a", 20), kvt("A", 20, 30, "0+a", 20)]
    assert t2[1] == [kvt("A", 0, 10, "0+a+a", 5), kvt("A", 5, 15, "0+a", 5),
                     kvt("B", 0, 10, "0+b+b", 6), kvt("B", 5, 15, "0+b", 6),
                     kvt("D", 0, 10, "0+d", 7), kvt("D", 5, 15, "0+d", 7),
                     kvt("D", 10, 20, "0+d", 18), kvt("D", 15, 25, "0+d+d", 20),
                     kvt("A", 15, 25, "0+a+a", 21), kvt("A", 20, 30, "0+a+a", 21)]


def test_KStreamWindowAggregateTest_testJoin_onWindowClose_aggregations():
    hop_grace_5 = TimeWindows.of_size_and_grace(10, 5).advance_by(5)
    t1 = [("A", "1", 0), ("B", "2", 1), ("C", "3", 2), ("D", "4", 3), ("A", "1", 9), ("A", "1", 15),
          ("A", "1", 10), ("B", "2", 11), ("D", "4", 12), ("B", "2", 13), ("C", "3", 14), ("A", "1", 20)]
    g = split_at(run(t1, hop_grace_5, "on_window_close"), [5, 11])
    assert g[0] == [kvt("A", 0, 10, "0+1+1", 9), kvt("B", 0, 10, "0+2", 1),
                    kvt("C", 0, 10, "0+3", 2), kvt("D", 0, 10, "0+4", 3)]
    assert g[1] == [kvt("A", 5, 15, "0+1+1", 10), kvt("B", 5, 15, "0+2+2", 13),
                    kvt("C", 5, 15, "0+3", 14), kvt("D", 5, 15, "0+4", 12)]
    # topic2's aggregation, cache off: checked once after all ten records
    t2 = [("A", "a", 0), ("B", "b", 1), ("C", "c", 2), ("D", "d", 10), ("A", "a", 15),
          ("A", "a", 5), ("B", "b", 6), ("D", "d", 7), ("D", "d", 18), ("A", "a", 21)]
    assert out(run(t2, hop_grace_5, "on_window_close")) == [
        kvt("A", 0, 10, "0+a", 0), kvt("B", 0, 10, "0+b", 1), kvt("C", 0, 10, "0+c", 2),
        kvt("A", 5, 15, "0+a", 5), kvt("B", 5, 15, "0+b", 6), kvt("D", 5, 15, "0+d+d", 10)]


EXPIRED_INPUT = [("k", "100", 100), ("k", "0", 0), ("k", "1", 1), ("k", "2", 2), ("k", "3", 3),
                 ("k", "4", 4), ("k", "5", 5), ("k", "6", 6), ("k", "105", 105), ("k", "106", 106)]
EXPIRED_WINDOWS = TimeWindows.of_size_and_grace(10, 90).advance_by(5).with_retention(100)


@pytest.mark.parametrize("emit", ["on_window_update", "on_window_close"])
def test_KStreamWindowAggregateTest_shouldLogAndMeterWhenSkippingExpiredWindow(emit):
    r = run(EXPIRED_INPUT, EXPIRED_WINDOWS, emit)
    assert r.dropped_records.tolist() == [7]  # dropped-records-total
    assert r.record_lateness_max.tolist() == [100]
    assert r.record_lateness_avg[0] == pytest.approx(67.9)
    # the skipped (record, window) pairs the log lines name: window [0,10) for records 0..6
    assert r.dropped_windows.tolist() == [0, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    if emit == "on_window_close":
        # "Window close time is 15 when timestamp is 105"
        assert out(r) == [kvt("k", 5, 15, "+5+6", 6)]
    else:
        assert out(r) == [kvt("k", 95, 105, "+100", 100), kvt("k", 100, 110, "+100", 100),
                          kvt("k", 5, 15, "+5", 5), kvt("k", 5, 15, "+5+6", 6),
                          kvt("k", 100, 110, "+100+105", 105), kvt("k", 105, 115, "+105", 105),
                          kvt("k", 100, 110, "+100+105+106", 106), kvt("k", 105, 115, "+105+106", 106)]


@pytest.mark.parametrize("emit", ["on_window_update", "on_window_close"])
def test_KStreamWindowAggregateTest_shouldLogAndMeterWhenSkippingExpiredWindowByGrace(emit):
    records = [("k", "100", 200), ("k", "0", 100), ("k", "1", 101), ("k", "2", 102), ("k", "3", 103),
               ("k", "4", 104), ("k", "5", 105), ("k", "6", 6)]
    r = run(records, TimeWindows.of_size_and_grace(10, 90), emit)
    assert r.dropped_records.tolist() == [7]
    assert r.record_lateness_max.tolist() == [194]
    assert r.record_lateness_avg[0] == pytest.approx(97.375)
    if emit == "on_window_update":
        assert out(r) == [kvt("k", 200, 210, "+100", 200)]


HOP_10_5_GRACE_5 = TimeWindows.of_size_and_grace(10, 5).advance_by(5).with_retention(DAY)


@pytest.mark.parametrize("emit", ["on_window_update", "on_window_close"])
def test_KStreamWindowAggregateTest_shouldNotEmitFinalIfNotProgressEnough(emit):
    records = [("A", "1", 0), ("B", "2", 5), ("C", "3", 15), ("D", "4", 15), ("E", "5", 19)]
    g = split_at(run(records, HOP_10_5_GRACE_5, emit), [2, 3, 4])
    if emit == "on_window_close":
        assert g == [[kvt("A", 0, 10, "0+1", 0), kvt("B", 0, 10, "0+2", 5)], [], []]
    else:
        assert g == [
            [kvt("A", 0, 10, "0+1", 0), kvt("B", 0, 10, "0+2", 5), kvt("B", 5, 15, "0+2", 5),
             kvt("C", 10, 20, "0+3", 15), kvt("C", 15, 25, "0+3", 15)],
            [kvt("D", 10, 20, "0+4", 15), kvt("D", 15, 25, "0+4", 15)],
            [kvt("E", 10, 20, "0+5", 19), kvt("E", 15, 25, "0+5", 19)],
        ]


@pytest.mark.parametrize("emit", ["on_window_update", "on_window_close"])
def test_KStreamWindowAggregateTest_shouldEmitWithInterval0(emit):
    records = [("A", "1", 0), ("A", "1", 5), ("B", "2", 10), ("C", "3", 15), ("D", "4", 20)]
    r = run(records, HOP_10_5_GRACE_5, emit)
    if emit == "on_window_close":
        assert out(r) == [kvt("A", 0, 10, "0+1+1", 5), kvt("A", 5, 15, "0+1", 5), kvt("B", 5, 15, "0+2", 10)]
    else:
        assert out(r) == [
            kvt("A", 0, 10, "0+1", 0), kvt("A", 0, 10, "0+1+1", 5), kvt("A", 5, 15, "0+1", 5),
            kvt("B", 5, 15, "0+2", 10), kvt("B", 10, 20, "0+2", 10),
            kvt("C", 10, 20, "0+3", 15), kvt("C", 15, 25, "0+3", 15),
            kvt("D", 15, 25, "0+4", 20), kvt("D", 20, 30, "0+4", 20)]


@pytest.mark.parametrize("emit", ["on_window_update", "on_window_close"])
def test_KStreamWindowAggregateTest_shouldEmitWithLargeInterval(emit):
    records = [("A", "1", 0), ("A", "1", 5), ("B", "2", 10), ("C", "3", 15), ("D", "4", 20), ("E", "5", 40)]
    system_time = [0, 0, 0, 0, 10000, 10100]  # context.setSystemTimeMs(...)
    g = split_at(run(records, HOP_10_5_GRACE_5, emit, emit_interval=1000, arrival=system_time), [3, 4, 5])
    if emit == "on_window_close":
        assert g == [[], [kvt("A", 0, 10, "0+1+1", 5), kvt("A", 5, 15, "0+1", 5), kvt("B", 5, 15, "0+2", 10)], []]
    else:
        assert g[1] == [kvt("D", 15, 25, "0+4", 20), kvt("D", 20, 30, "0+4", 20)]
        assert g[2] == [kvt("E", 35, 45, "0+5", 40), kvt("E", 40, 50, "0+5", 40)]


def test_default_retention_expires_windows_the_throttle_left_unemitted():
    """The same records as shouldEmitWithLargeInterval with the default retention (size + grace = 15):
    when the throttle finally lets the check run (stream time 20, store time 20), window [0,10) is
    older than 20 - 15 in the time-ordered store and is never emitted; [5,15) still is."""
    records = [("A", "1", 0), ("A", "1", 5), ("B", "2", 10), ("C", "3", 15), ("D", "4", 20), ("E", "5", 40)]
    windows = TimeWindows.of_size_and_grace(10, 5).advance_by(5)
    r = run(records, windows, "on_window_close", emit_interval=1000, arrival=[0, 0, 0, 0, 10000, 10100])
    assert out(r) == [kvt("A", 5, 15, "0+1", 5), kvt("B", 5, 15, "0+2", 10)]


def test_a_jump_of_stream_time_beyond_the_retention_loses_a_closed_window_on_close():
    """a@5 then a@30 (tumbling 10, grace 0, default retention 10): a@30 writes window [30,40) (store
    time 30) before the close check, whose fetch starts at 30 - 10 = 20, so [0,10) is never emitted.
    With a retention that covers the jump it is."""
    records = [("a", "1", 5), ("a", "1", 30)]
    assert out(run(records, TimeWindows.of_size_with_no_grace(10), "on_window_close")) == []
    assert out(run(records, TimeWindows.of_size_with_no_grace(10).with_retention(30), "on_window_close")) == [
        kvt("a", 0, 10, "0+1", 5)]
