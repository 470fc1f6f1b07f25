"""Kafka's ``TimeWindowedKStreamImplTest``, ``SlidingWindowedKStreamImplTest`` and
``SessionWindowedKStreamImplTest`` re-expressed: count/reduce/aggregate outputs (ours count and sum,
so Kafka's three variants of a test assert the same windows) and the store contents of the
``shouldMaterialize*`` tests, where the store's retention decides what is left (``result.state``,
from the record-by-record processors).

Not re-expressed: the ``shouldThrowNullPointer*`` tests (Java API null checks); the cache-on variants
of the ``shouldMaterialize*`` tests and ``SessionWindowedKStreamImplTest.shouldMaterialize*`` in
update mode (a record cache returns entries the store has already expired, "as part of the merge
process"); ``shouldNotEnableCachingWithEmitFinal`` (store wiring).
"""
from __future__ import annotations

import pytest
from _kafka_cases import kvt, out, run

from toolkit.engine.kafka_streams import SessionWindows, SlidingWindows, TimeWindows, run_windowed_aggregation

BOTH = ["on_window_update", "on_window_close"]

# ---- TimeWindowedKStreamImplTest: TimeWindows.ofSizeWithNoGrace(500) ----------------------------
TW_DATA = [("1", "1", 10), ("1", "2", 15), ("1", "3", 500), ("2", "10", 550), ("2", "20", 500), ("2", "30", 1000)]
TW = TimeWindows.of_size_with_no_grace(500)


@pytest.mark.parametrize("emit", BOTH)
@pytest.mark.parametrize("method", ["shouldCountWindowed", "shouldReduceWindowed", "shouldAggregateWindowed"])
def test_TimeWindowedKStreamImplTest(method, emit):
    r = run(TW_DATA, TW, emit)
    if emit == "on_window_close":
        assert out(r) == [kvt("1", 0, 500, "0+1+2", 15), kvt("1", 500, 1000, "0+3", 500),
                          kvt("2", 500, 1000, "0+10+20", 550)]
    else:
        assert out(r) == [kvt("1", 0, 500, "0+1", 10), kvt("1", 0, 500, "0+1+2", 15),
                          kvt("1", 500, 1000, "0+3", 500), kvt("2", 500, 1000, "0+10", 550),
                          kvt("2", 500, 1000, "0+10+20", 550), kvt("2", 1000, 1500, "0+30", 1000)]


def _state(records, windows, emit):
    keys, vals, ts = [r[0] for r in records], [float(r[1]) for r in records], [r[2] for r in records]
    r = run_windowed_aggregation(keys, ts, vals, windows=windows, emit=emit, reference=True, flush_at_end=False)
    return sorted((k, s, e, c, t) for k, s, e, c, sm, t in r.state[0])


@pytest.mark.parametrize("emit", BOTH)
@pytest.mark.parametrize("method", ["shouldMaterializeCount", "shouldMaterializeReduced", "shouldMaterializeAggregated"])
def test_TimeWindowedKStreamImplTest_cachingDisabled(method, emit):
    """"without cache, we get only non-expired record from underlying store": store time 1000,
    retention 500; the update-mode store hides start <= 500, the time-ordered (on close) start < 500."""
    if emit == "on_window_close":
        assert _state(TW_DATA, TW, emit) == [("1", 500, 1000, 1, 500), ("2", 500, 1000, 2, 550), ("2", 1000, 1500, 1, 1000)]
    else:
        assert _state(TW_DATA, TW, emit) == [("2", 1000, 1500, 1, 1000)]


# ---- SlidingWindowedKStreamImplTest: SlidingWindows.ofTimeDifferenceAndGrace(100, 1000) ----------
SW_DATA = [("1", "1", 100), ("1", "2", 150), ("1", "3", 500), ("2", "10", 200), ("2", "20", 150)]
SW = SlidingWindows.of_time_difference_and_grace(100, 1000)
SW_LAST = {("1", 0, 100): (1, 100), ("1", 101, 201): (1, 150), ("1", 50, 150): (2, 150), ("1", 400, 500): (1, 500),
           ("2", 100, 200): (2, 200), ("2", 50, 150): (1, 150), ("2", 151, 251): (1, 200)}


@pytest.mark.parametrize("method", ["shouldCountSlidingWindows", "shouldReduceSlidingWindows", "shouldAggregateSlidingWindows"])
def test_SlidingWindowedKStreamImplTest(method):
    """``lastValueAndTimestampPerKey`` of the captured outputs."""
    last = {}
    for k, s, e, c, sm, t in out(run(SW_DATA, SW)):
        last[(k, s, e)] = (c, t)
    assert last == SW_LAST


@pytest.mark.parametrize("method", ["shouldMaterializeCount", "shouldMaterializeReduced", "shouldMaterializeAggregated"])
def test_SlidingWindowedKStreamImplTest_materialized(method):
    assert _state(SW_DATA, SW, "on_window_update") == sorted((k, s, e, c, t) for (k, s, e), (c, t) in SW_LAST.items())


def test_SlidingWindowedKStreamImplTest_shouldThrowIllegalArgumentWhenRetentionIsTooSmall():
    from toolkit.errors import UserError

    with pytest.raises(UserError, match="retention"):
        SW.with_retention(1)


def test_SlidingWindowedKStreamImplTest_shouldDropWindowsOutsideOfRetention():
    records = [("1", "2", 100), ("1", "3", 500), ("1", "4", 799), ("1", "4", 1000), ("1", "5", 2000)]
    assert _state(records, SW.with_retention(1200), "on_window_update") == [
        ("1", 900, 1000, 1, 1000), ("1", 1900, 2000, 1, 2000)]


# ---- SessionWindowedKStreamImplTest: SessionWindows.ofInactivityGapWithNoGrace(500) --------------
SE_DATA = [("1", "1", 10), ("1", "2", 15), ("1", "3", 600), ("2", "1", 600), ("2", "2", 599)]
SE = SessionWindows.of_inactivity_gap_with_no_grace(500)


@pytest.mark.parametrize("emit", BOTH)
@pytest.mark.parametrize("method", ["shouldCountSessionWindowedWithCachingDisabled", "shouldCountSessionWindowedWithCachingEnabled",
                                    "shouldReduceWindowed", "shouldAggregateSessionWindowed"])
def test_SessionWindowedKStreamImplTest(method, emit):
    r = run(SE_DATA, SE, emit)
    if emit == "on_window_close":
        # Kafka's aggregate string is "0+0+1+2" (the merger joins a fresh "0" and the old "0+1"); count 2, sum 3
        assert out(r) == [kvt("1", 10, 15, "0+1+2", 15)]
    else:
        assert out(r) == [kvt("1", 10, 10, "0+1", 10), ("1", 10, 10, 0, None, 10), kvt("1", 10, 15, "0+1+2", 15),
                          kvt("1", 600, 600, "0+3", 600), kvt("2", 600, 600, "0+1", 600), ("2", 600, 600, 0, None, 600),
                          kvt("2", 599, 600, "0+1+2", 600)]


@pytest.mark.parametrize("method", ["shouldMaterializeCount", "shouldMaterializeReduced", "shouldMaterializeAggregated"])
def test_SessionWindowedKStreamImplTest_onWindowClose(method):
    """On close the store has no cache: store time 600, retention 500, sessions ending <= 100 are gone."""
    assert _state(SE_DATA, SE, "on_window_close") == [("1", 600, 600, 1, 600), ("2", 599, 600, 2, 600)]
