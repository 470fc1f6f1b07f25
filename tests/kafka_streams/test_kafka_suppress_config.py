"""``Suppressed.untilTimeLimit``, bounded suppression buffers (``emitEarlyWhenFull``,
``shutDownWhenFull``) and ``UnlimitedWindows``: Kafka's ``KTableSuppressProcessorTest``,
``UnlimitedWindowsTest`` and ``KStreamWindowAggregateTest.showThrowIfEmitFinalUsedWithUnlimitedWindow``
re-expressed (``toolkit.engine.kafka_streams.suppress`` / ``windows``), then the settings end to end.

Kafka's processor tests feed ``Change`` values straight into the suppression processor; here the
same records go into :class:`Suppress` as the aggregation would forward them (windowed keys;
``kind="tombstone"`` is a ``Change(null, ...)``).
"""
from __future__ import annotations

import pytest

import toolkit
from toolkit.engine.kafka_streams import UnlimitedWindows, run_windowed_aggregation
from toolkit.engine.kafka_streams.record_cache import RecordSizes
from toolkit.engine.kafka_streams.suppress import EMIT_EARLY, Suppress, SuppressBufferFull, SuppressConfig
from toolkit.engine.kafka_streams.windows import LONG_MAX
from toolkit.errors import UserError
from toolkit.settings import Setting, SettingError

DAYS_100 = 100 * 24 * 3600 * 1000
SIZES = RecordSizes(aggregate_bytes=8, topic="")  # a Long value, the mock context's empty topic


def _suppress(config: SuppressConfig | None = None, grace: int = 0):
    got: list[tuple] = []
    sup = Suppress(grace, lambda kind, key, s, e, c, sm, t, i: got.append((kind, key, s, e, t)), config)
    return sup, got


def _time_limit(ms, **kw):
    return SuppressConfig(time_limit=ms, sizes=SIZES, **kw)


# ------------------------------------------------------------------------ KTableSuppressProcessorTest
def test_KTableSuppressProcessorTest_windowedZeroTimeLimitShouldImmediatelyEmit():
    sup, got = _suppress(_time_limit(0))
    sup.forward("update", "hey", 0, 100, 1, 1.0, 1234, 0)
    assert got == [("update", "hey", 0, 100, 1234)]


def test_KTableSuppressProcessorTest_intermediateSuppressionShouldBufferAndEmitLater():
    sup, got = _suppress(_time_limit(1))
    sup.forward("update", "k", 0, 100, 1, 1.0, 0, 0)
    assert got == []
    sup.forward("update", "tick", 0, 100, 1, 1.0, 1, 1)  # stream time 1: the first is 1 ms old
    assert got == [("update", "k", 0, 100, 0)]


def test_KTableSuppressProcessorTest_finalResultsSuppressionShouldBufferAndEmitAtGraceExpiration():
    sup, got = _suppress(grace=1)
    sup.forward("update", "hey", 99, 100, 1, 1.0, 99, 0)
    assert got == []
    sup.forward("update", "dummyKey", 100, 101, 1, 1.0, 101, 1)  # stream time = window end + grace
    assert got == [("final", "hey", 99, 100, 99)]


def test_KTableSuppressProcessorTest_finalResultsWithZeroGraceShouldStillBufferUntilTheWindowEnd():
    sup, got = _suppress(grace=0)
    sup.forward("update", "hey", 0, 100, 1, 1.0, 5, 0)
    assert got == []
    sup.forward("update", "dummyKey", 100, 200, 1, 1.0, 100, 1)
    assert got == [("final", "hey", 0, 100, 5)]


def test_KTableSuppressProcessorTest_finalResultsWithZeroGraceAtWindowEndShouldImmediatelyEmit():
    sup, got = _suppress(grace=0)
    sup.forward("update", "hey", 0, 100, 1, 1.0, 100, 0)
    assert got == [("final", "hey", 0, 100, 100)]


def test_KTableSuppressProcessorTest_finalResultsShouldDropTombstonesForTimeWindows():
    sup, got = _suppress(grace=0)
    sup.forward("tombstone", "hey", 0, 100, 0, float("nan"), 100, 0)
    assert got == []


def test_KTableSuppressProcessorTest_suppressShouldNotDropTombstonesForTimeWindows():
    sup, got = _suppress(_time_limit(0, max_records=0, when_full=EMIT_EARLY))
    sup.forward("tombstone", "hey", 0, 100, 0, float("nan"), 100, 0)
    assert got == [("tombstone", "hey", 0, 100, 100)]


@pytest.mark.parametrize("cap", [dict(max_records=1), dict(max_bytes=60)])
def test_KTableSuppressProcessorTest_suppressShouldEmitWhenOverCapacity(cap):
    sup, got = _suppress(_time_limit(DAYS_100, when_full=EMIT_EARLY, **cap))
    sup.forward("update", "hey", 0, 100, 1, 1.0, 100, 0)
    sup.forward("update", "dummyKey", 0, 100, 1, 1.0, 101, 1)
    assert got == [("update", "hey", 0, 100, 100)]  # the oldest leaves early


@pytest.mark.parametrize("cap", [dict(max_records=1), dict(max_bytes=60)])
def test_KTableSuppressProcessorTest_suppressShouldShutDownWhenOverCapacity(cap):
    sup, got = _suppress(_time_limit(DAYS_100, **cap))
    sup.forward("update", "hey", 0, 100, 1, 1.0, 100, 0)
    with pytest.raises(SuppressBufferFull, match="buffer exceeded its max capacity"):
        sup.forward("update", "dummyKey", 0, 100, 1, 1.0, 101, 1)
    assert got == []


def test_a_buffered_window_keeps_its_place_when_updated():
    # InMemoryTimeOrderedKeyValueChangeBuffer is non-resetting: a newer value of a buffered window
    # replaces the older one at the older one's buffer time
    sup, got = _suppress(_time_limit(10))
    sup.forward("update", "a", 0, 100, 1, 1.0, 0, 0)
    sup.forward("update", "a", 0, 100, 2, 2.0, 9, 1)
    sup.forward("update", "b", 0, 100, 1, 1.0, 10, 2)
    assert got == [("update", "a", 0, 100, 9)] and len(sup.buffer) == 1


def test_untilWindowCloses_takes_only_a_strict_buffer_config():
    with pytest.raises(UserError, match="strict buffer config"):
        SuppressConfig(max_records=5, when_full=EMIT_EARLY)


# ------------------------------------------------------------------------------- UnlimitedWindowsTest
def test_UnlimitedWindowsTest_shouldSetWindowStartTime():
    assert UnlimitedWindows(10).start == 10


def test_UnlimitedWindowsTest_startTimeMustNotBeNegative():
    with pytest.raises(UserError, match="must not be negative"):
        UnlimitedWindows(-1)


def test_UnlimitedWindowsTest_shouldIncludeRecordsThatHappenedOnWindowStart():
    assert UnlimitedWindows(10).windows_for(10) == [(10, LONG_MAX)]


def test_UnlimitedWindowsTest_shouldIncludeRecordsThatHappenedAfterWindowStart():
    assert UnlimitedWindows(10).windows_for(11) == [(10, LONG_MAX)]


def test_UnlimitedWindowsTest_shouldExcludeRecordsThatHappenedBeforeWindowStart():
    assert UnlimitedWindows(10).windows_for(9) == []


def test_KStreamWindowAggregateTest_showThrowIfEmitFinalUsedWithUnlimitedWindow():
    with pytest.raises(UserError, match="onWindowClose"):
        run_windowed_aggregation(["A"], [1], windows=UnlimitedWindows(), emit="on_window_close")


def test_an_unlimited_window_counts_every_record_and_never_closes():
    r = run_windowed_aggregation(["A", "A", "B", "A"], [5, 1, 3, 2], [1.0, 2.0, 3.0, 4.0], windows=UnlimitedWindows(2))
    assert r.rows() == [("A", 2, LONG_MAX, 1, 1.0, "update", 5), ("B", 2, LONG_MAX, 1, 3.0, "update", 3),
                        ("A", 2, LONG_MAX, 2, 5.0, "update", 5)]
    assert r.summary()["dropped_records_sensor"] == 0 and r.accepted_windows.tolist() == [1, 0, 1, 1]


# ------------------------------------------------------------------------------ the settings, end to end
def _log():
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(2)
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 60_000, 600))
    return toolkit.load_log(pd.DataFrame({"event_time": arrival - rng.choice([0, 300], 600), "arrival_time": arrival,
                                          "key": rng.choice(["a", "b", "c"], 600), "partition": 0}), time_unit="ms")


def test_time_limit_and_bounded_buffers_in_a_replay():
    log = _log()
    kw = dict(semantics="kafka_streams", window="tumbling:10s", emit="suppress", cache_max_bytes=0)
    final = toolkit.replay(log, **kw).summary()
    limited = toolkit.replay(log, **kw, suppress_time_limit="2s").summary()
    early = toolkit.replay(log, **kw, suppress_time_limit="2s", suppress_max_records=1,
                           suppress_when_full="emit_early").summary()
    assert final["updates"] == 0 and final["finals"] > 0
    assert limited["finals"] == 0 and 0 < limited["updates"] < early["updates"]
    assert "untilTimeLimit(Duration.ofMillis(2000), Suppressed.BufferConfig.maxRecords(1).emitEarlyWhenFull())" in \
        early["deployable"]
    with pytest.raises(SettingError) as e:  # shutDownWhenFull: a clear stop, naming the setting
        toolkit.replay(log, **kw, suppress_max_records=1)
    assert e.value.setting == "suppress_max_records" and "shuts down" in str(e.value)


@pytest.mark.parametrize("kw, name, words", [
    (dict(suppress_time_limit="1s"), "suppress_time_limit", "emit=suppress"),
    (dict(emit="suppress", suppress_when_full="emit_early", suppress_max_records=3), "suppress_when_full",
     "strict buffer config"),
    (dict(emit="suppress", suppress_time_limit="1s", suppress_when_full="emit_early"), "suppress_when_full",
     "bounded buffer"),
    (dict(emit="suppress", suppress_max_bytes="lots"), "suppress_max_bytes", "size in bytes"),
    (dict(window="global", emit="final"), "emit", "UnlimitedWindows"),
    (dict(window="global", grace="1s"), "grace", "no grace period"),
    (dict(cache_max_bytes="-5"), "cache_max_bytes", "must not be negative"),
    (dict(cache_max_bytes="10 parsecs"), "cache_max_bytes", "size in bytes"),
])
def test_suppression_and_unlimited_settings_are_checked_by_name(kw, name, words):
    with pytest.raises(SettingError) as e:
        Setting.parse(semantics="kafka_streams", **kw)
    assert e.value.setting == name and words in str(e.value)


def test_unlimited_windows_in_a_replay_and_a_sweep_row():
    log = _log()
    s = Setting.parse(semantics="kafka_streams", window="global", emit="suppress", suppress_time_limit="5s")
    summary = toolkit.replay(log, s).summary()
    assert summary["windows"] == 3 and summary["dropped"] == 0 and "UnlimitedWindows.of()" in summary["deployable"]
    row = toolkit.sweep(log, [s], progress=False).iloc[0]
    assert int(row["firings"]) == summary["firings"] and row["completeness_final"] == summary["completeness_final"]
