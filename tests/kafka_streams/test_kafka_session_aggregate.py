"""Kafka's ``KStreamSessionWindowAggregateProcessorTest`` re-expressed (session windows, emit on update
with the cache off, and ``EmitStrategy.onWindowClose()``).

Kafka's tests count (``aggregate + 1``) with ``GAP_MS = 5 min`` and a session store retention of
``3 * GAP_MS``; ours count and sum (values 1). Where Kafka's update-mode tests run with the record
cache on and assert what the store holds or what the flushed cache forwarded, we assert the same
through ``table(...)``: the last value our cache-off run emitted for each surviving session. Not
re-expressed: ``shouldLogAndMeterWhenSkippingNullKeyWithBuiltInMetrics`` (a loaded log has no null keys).
"""
from __future__ import annotations

import pytest
from _kafka_cases import kvt, out, run, split_at, table

from toolkit.engine.kafka_streams import SessionWindows

GAP = 5 * 60 * 1000
WINDOWS = SessionWindows.of_inactivity_gap_with_no_grace(GAP).with_retention(3 * GAP)
BOTH = ["on_window_update", "on_window_close"]


def sessions(records, emit):
    """The sessions the store holds at the end (Kafka's ``sessionStore.findSessions`` assertions)."""
    r = run(records, WINDOWS, emit)
    held = {(k, s, e, c) for k, s, e, c, sm, t in r.state[0]}
    if emit == "on_window_update":  # what the cache-off updates left in a table agrees with the store
        assert held == {(k, s, e, c) for k, s, e, c, sm, t in table(r)}
    return held


@pytest.mark.parametrize("emit", BOTH)
def test_KStreamSessionWindowAggregateProcessorTest_shouldCreateSingleSessionWhenWithinGap(emit):
    assert sessions([("john", "1", 0), ("john", "1", 500)], emit) == {("john", 0, 500, 2)}


@pytest.mark.parametrize("emit", BOTH)
def test_KStreamSessionWindowAggregateProcessorTest_shouldMergeSessions(emit):
    r = run([("mel", "1", 0), ("mel", "1", GAP + 1)], WINDOWS, "on_window_update")
    assert table(r) == {("mel", 0, 0, 1, 1.0, 0), ("mel", GAP + 1, GAP + 1, 1, 1.0, GAP + 1)}  # both still exist
    assert sessions([("mel", "1", 0), ("mel", "1", GAP + 1), ("mel", "1", GAP // 2)], emit) == {
        ("mel", 0, GAP + 1, 3)}


@pytest.mark.parametrize("emit", BOTH)
def test_KStreamSessionWindowAggregateProcessorTest_shouldUpdateSessionIfTheSameTime(emit):
    assert sessions([("mel", "1", 0), ("mel", "1", 0)], emit) == {("mel", 0, 0, 2)}


@pytest.mark.parametrize("emit", BOTH)
def test_KStreamSessionWindowAggregateProcessorTest_shouldHaveMultipleSessionsForSameIdWhenTimestampApartBySessionGap(emit):
    now = 2 * (GAP + 1)
    records = [("mel", "1", 0), ("mel", "1", GAP + 1), ("mel", "1", GAP + 1),
               ("mel", "1", now), ("mel", "1", now), ("mel", "1", now)]
    r = run(records, WINDOWS, emit)
    if emit == "on_window_close":
        assert out(r) == [kvt("mel", 0, 0, "0+1", 0), kvt("mel", GAP + 1, GAP + 1, "0+1+1", GAP + 1)]
    else:
        assert table(r) == {kvt("mel", 0, 0, "0+1", 0), kvt("mel", GAP + 1, GAP + 1, "0+1+1", GAP + 1),
                            kvt("mel", now, now, "0+1+1+1", now)}


@pytest.mark.parametrize("emit", BOTH)
def test_KStreamSessionWindowAggregateProcessorTest_shouldRemoveMergedSessionsFromStateStore(emit):
    assert sessions([("a", "1", 0), ("a", "1", 100)], emit) == {("a", 0, 100, 2)}


@pytest.mark.parametrize("emit", BOTH)
def test_KStreamSessionWindowAggregateProcessorTest_shouldHandleMultipleSessionsAndMerging(emit):
    h = GAP // 2
    records = [("a", "1", 0), ("b", "1", 0), ("c", "1", 0), ("d", "1", 0), ("d", "1", h),
               ("a", "1", GAP + 1), ("b", "1", GAP + 1), ("a", "1", GAP + 1 + h), ("c", "1", GAP + 1 + h)]
    r = run(records, WINDOWS, emit)
    if emit == "on_window_close":
        assert out(r) == [kvt("a", 0, 0, "0+1", 0), kvt("b", 0, 0, "0+1", 0), kvt("c", 0, 0, "0+1", 0),
                          kvt("d", 0, h, "0+1+1", h)]
    else:
        assert table(r) == {
            kvt("a", 0, 0, "0+1", 0), kvt("b", 0, 0, "0+1", 0), kvt("c", 0, 0, "0+1", 0),
            kvt("d", 0, h, "0+1+1", h), kvt("b", GAP + 1, GAP + 1, "0+1", GAP + 1),
            kvt("a", GAP + 1, GAP + 1 + h, "0+1+1", GAP + 1 + h),
            kvt("c", GAP + 1 + h, GAP + 1 + h, "0+1", GAP + 1 + h)}


@pytest.mark.parametrize("emit", BOTH)
def test_KStreamSessionWindowAggregateProcessorTest_shouldGetAggregatedValuesFromValueGetter(emit):
    assert sessions([("a", "1", 0), ("a", "1", GAP + 1), ("a", "2", GAP + 1)], emit) == {
        ("a", 0, 0, 1), ("a", GAP + 1, GAP + 1, 2)}


def test_KStreamSessionWindowAggregateProcessorTest_shouldImmediatelyForwardNewSessionWhenNonCachedStore():
    r = run([("a", "1", 0), ("b", "1", 0), ("c", "1", 0)], WINDOWS)
    assert out(r) == [kvt("a", 0, 0, "0+1", 0), kvt("b", 0, 0, "0+1", 0), kvt("c", 0, 0, "0+1", 0)]


def test_KStreamSessionWindowAggregateProcessorTest_shouldImmediatelyForwardRemovedSessionsWhenMerging():
    r = run([("a", "1", 0), ("a", "1", 5)], WINDOWS)
    assert out(r) == [kvt("a", 0, 0, "0+1", 0), ("a", 0, 0, 0, None, 0), kvt("a", 0, 5, "0+1+1", 5)]
    assert r.emissions["kind"].tolist() == ["update", "tombstone", "update"]


def test_KStreamSessionWindowAggregateProcessorTest_shouldLogAndMeterWhenSkippingLateRecordWithZeroGrace():
    windows = SessionWindows.of_inactivity_gap_and_grace(10, 0).with_retention(3 * GAP)
    records = [("dummy", "1", 0), ("OnTime1", "1", 0), ("dummy", "1", 11), ("Late1", "1", 0)]
    r = run(records, windows)
    assert r.dropped_records.tolist() == [1]
    assert r.dropped_windows.tolist() == [0, 0, 0, 1]  # "window=[0,0] expiration=[1] streamTime=[11]"
    assert r.fates.tolist() == ["on_time", "on_time", "on_time", "dropped"]


def test_KStreamSessionWindowAggregateProcessorTest_shouldLogAndMeterWhenSkippingLateRecordWithNonzeroGrace():
    windows = SessionWindows.of_inactivity_gap_and_grace(10, 1).with_retention(3 * GAP)
    records = [("dummy", "1", 0), ("OnTime1", "1", 0), ("dummy", "1", 11), ("OnTime2", "1", 0),
               ("dummy", "1", 12), ("Late1", "1", 0)]
    r = run(records, windows)
    assert r.dropped_records.tolist() == [1]
    assert r.dropped_windows.tolist() == [0, 0, 0, 0, 0, 1]  # "expiration=[1] streamTime=[12]"


def test_session_store_retention_hides_a_session_still_open():
    """Default retention (gap + grace): the store hides sessions with end <= store time - retention,
    one millisecond earlier than the aggregation closes them (end < stream time - gap - grace), so a
    record that would merge with a session ending exactly at the close time starts a new one."""
    windows = SessionWindows.of_inactivity_gap_with_no_grace(10)
    r = run([("k", "1", 0), ("x", "1", 10), ("k", "1", 10)], windows)
    # close time at the third record is 10 - 10 = 0: session k[0,0] is still open (0 >= 0), but the
    # store (time 10, retention 10) no longer returns it: k@10 starts its own session
    assert table(r) == {kvt("k", 0, 0, "0+1", 0), kvt("x", 10, 10, "0+1", 10), kvt("k", 10, 10, "0+1", 10)}
    r = run([("k", "1", 0), ("x", "1", 10), ("k", "1", 10)], windows.with_retention(100))
    assert table(r) == {kvt("x", 10, 10, "0+1", 10), kvt("k", 0, 10, "0+1+1", 10)}


def test_on_close_emission_order_is_end_then_key():
    r = run([("b", "1", 0), ("a", "1", 3), ("c", "1", 1), ("z", "1", 100)], SessionWindows(5, 0), "on_window_close")
    assert [(k, s, e) for k, s, e, *_ in out(r)] == [("b", 0, 0), ("c", 1, 1), ("a", 3, 3)]
    assert split_at(r, [2, 3])[0] == []
