"""Replay semantics: the articles' examples, idleness, the valve in a pipeline, emission
times, fates, multi-stage, settings errors."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from toolkit.engine.flink.pipeline import (
    tick_schedule,
    watermark_timeline,
)
from toolkit.engine.flink.valve import TwoInputValves
from toolkit.engine.flink.watermarks import (
    MAX_WATERMARK,
    MIN_WATERMARK,
    Adaptive,
    BoundedOutOfOrderness,
    IdleAdvance,
    Monotonous,
    Punctuated,
    TimeLag,
)
from toolkit.log import EventLog
from toolkit.replays import replay


def _changes(tl):
    return list(zip(tl.change_time.tolist(), tl.change_watermark.tolist()))


# ---------------------------------------------------------------- the articles' examples

# Bus departures (Flink "watermark" article): events arrive over processing time and every
# 5 s the periodic watermark is "max timestamp seen - 2 s". First record at processing time 0,
# so the periodic calls run at 5 s, 10 s and 15 s. Records (arrival s -> event time s):
#   before 5 s:  0 -> 4,  1.5 -> 9,  3 -> 7        max 9  -> W(7)
#   before 10 s: 6 -> 14, 7 -> 11,   9 -> 12       max 14 -> W(12)
#   before 15 s: 11 -> 22, 12.5 -> 16, 14 -> 19    max 22 -> W(20)
BUS_PT = np.array([0, 1500, 3000, 6000, 7000, 9000, 11000, 12500, 14000])
BUS_TS = np.array([4000, 9000, 7000, 14000, 11000, 12000, 22000, 16000, 19000])


def test_bus_departures_periodic_max_minus_2s_gives_w7_w12_w20() -> None:
    tl = watermark_timeline(BUS_TS, BUS_PT, None, BoundedOutOfOrderness(2000, legacy=True), interval=5000)
    assert tl.tick_time.tolist() == [5000, 10000, 15000]
    assert tl.tick_watermark.tolist() == [7000, 12000, 20000]
    assert _changes(tl) == [(5000, 7000), (10000, 12000), (15000, 20000)]
    # Flink's modern BoundedOutOfOrderness subtracts one more millisecond
    modern = watermark_timeline(BUS_TS, BUS_PT, None, BoundedOutOfOrderness(2000), interval=5000)
    assert modern.tick_watermark.tolist() == [6999, 11999, 19999]
    # the same through replay(): the operator-level timeline, then MAX at the end
    log = EventLog.from_arrays(BUS_TS, BUS_PT)
    r = replay(log, generator="legacy_bounded_out_of_orderness", delay="2s", interval="5s", window="tumbling:5s")
    op = r.watermarks[r.watermarks["level"] == "operator"]
    assert op["watermark"].tolist() == [7000, 12000, 20000, MAX_WATERMARK]
    assert op["time"].tolist() == [5000, 10000, 15000, 15000]
    # window [0,5s) fires at W(7) (tick 5 s), [5s,10s) at W(12) (tick 10 s), [10s,15s) and
    # [15s,20s) at W(20) (tick 15 s); [20s,25s) only at the end of input
    em = r.emissions
    assert em[["window_start", "emit_time", "watermark", "timing"]].values.tolist() == [
        [0, 5000, 7000, "on_time"],
        [5000, 10000, 12000, "on_time"],
        [10000, 15000, 20000, "on_time"],
        [15000, 15000, 20000, "on_time"],
        [20000, 15000, MAX_WATERMARK, "at_end"],
    ]


def test_idle_advance_moves_on_while_the_same_timestamps_repeat() -> None:
    # the same event time 1000 arrives every 100 ms from pt 1000 to 3000
    pt = np.arange(1000, 3001, 100)
    ts = np.full(len(pt), 1000)
    plain = watermark_timeline(ts, pt, None, BoundedOutOfOrderness(0), interval=200)
    assert _changes(plain) == [(1200, 999)]  # stuck
    adv = watermark_timeline(ts, pt, None, IdleAdvance(0, 100), interval=200)
    # first tick: max - 1 = 999; then the max advances by the step at every tick
    assert adv.tick_watermark.tolist() == [999 + 100 * k for k in range(10)]
    # a big step is capped by processing time: the running max never passes pt
    capped = watermark_timeline(ts, pt, None, IdleAdvance(0, 500), interval=200)
    assert capped.tick_watermark.tolist()[:4] == [999, 1399, 1599, 1799]
    assert all(w < t for t, w in zip(capped.tick_time.tolist(), capped.tick_watermark.tolist()))


# Partition 0 sends ts = pt every 100 ms up to 5 s; partition 1 sends one record at pt 0
# and a stale one (ts 100) at pt 3 s. Bounded out-of-orderness 0, ticks every 200 ms.
P0 = np.arange(0, 5001, 100)
_recs = sorted([(p, p, 0) for p in P0.tolist()] + [(0, 0, 1), (3000, 100, 1)], key=lambda r: r[0])
STALL_PT = np.array([r[0] for r in _recs])
STALL_TS = np.array([r[1] for r in _recs])
STALL_PART = np.array([r[2] for r in _recs])


@pytest.mark.parametrize("parallelism", [1, 2])
def test_idle_partition_stalls_the_operator_until_idleness_is_declared(parallelism: int) -> None:
    stuck = watermark_timeline(STALL_TS, STALL_PT, STALL_PART, BoundedOutOfOrderness(0), interval=200, parallelism=parallelism)
    # partition 1 holds the operator at -1 until its stale record moves it to 99
    assert _changes(stuck) == [(200, -1), (3000, 99)]
    idle = watermark_timeline(
        STALL_TS, STALL_PT, STALL_PART, BoundedOutOfOrderness(0).with_idleness(1000), interval=200, parallelism=parallelism
    )
    ch = _changes(idle)
    # countdown starts at the tick at 400 (first call with no event since the previous one);
    # idle at the first call with now - 400 > 1000 (strict): 1600, not 1400
    assert ch[:3] == [(200, -1), (1600, 1599), (1800, 1799)]
    assert (1400, 1399) not in ch


def test_stale_partition_after_idleness_one_subtask_vs_valve_realignment() -> None:
    s = BoundedOutOfOrderness(0).with_idleness(1000)
    one = _changes(watermark_timeline(STALL_TS, STALL_PT, STALL_PART, s, interval=200, parallelism=1))
    # one subtask: the stale partition rejoins the min at 99 and holds the subtask at 2799
    # until it is idle again (countdown from 3200, idle at 4400)
    assert [c for c in one if 2800 <= c[0] <= 4400] == [(2800, 2799), (4400, 4399)]
    two = _changes(watermark_timeline(STALL_TS, STALL_PT, STALL_PART, s, interval=200, parallelism=2))
    # two subtasks: the valve keeps the reactivated channel unaligned (99 < last output), so
    # the operator watermark keeps advancing with partition 0
    assert [c for c in two if 2800 <= c[0] <= 3400] == [(2800, 2799), (3000, 2999), (3200, 3199), (3400, 3399)]
    # the subtask timeline shows subtask 1 going idle and coming back
    r = replay(EventLog.from_arrays(STALL_TS, STALL_PT, partition=STALL_PART), delay=0, idleness="1s", parallelism=2)
    sub1 = r.watermarks[(r.watermarks["level"] == "subtask") & (r.watermarks["id"] == 1)]
    assert sub1[["time", "status"]].values.tolist() == [[200, "active"], [1600, "idle"], [3000, "active"], [3000, "active"], [4400, "idle"]]


def test_all_channels_idle_flushes_to_the_max_watermark() -> None:
    # two partitions on two subtasks stop after pt 0; partition 0 comes back at pt 1000.
    # Both go idle at the tick at 600 (countdown from 200, 600 - 200 > 300): subtask 0 first
    # (the valve moves on to channel 1's 899), then subtask 1 (all idle: IDLE)
    pt = np.array([0, 0, 1000])
    ts = np.array([500, 900, 1200])
    part = np.array([0, 1, 0])
    tl = watermark_timeline(ts, pt, part, BoundedOutOfOrderness(0).with_idleness(300), interval=100, parallelism=2)
    assert _changes(tl) == [(100, 499), (600, 899), (1000, 1199)]
    op = [x for x in tl.log if x[0] == "operator"]
    assert op == [
        ("operator", 0, 100, 499, "active"),
        ("operator", 0, 600, 899, "active"),
        ("operator", 0, 600, 899, "idle"),
        ("operator", 0, 1000, 899, "active"),
        ("operator", 0, 1000, 1199, "active"),
    ]


# ---------------------------------------------------------------- generators

def test_generators_rules() -> None:
    pt = np.array([0, 100, 250, 400])
    ts = np.array([1000, 900, 1300, 1200])
    assert watermark_timeline(ts, pt, None, Monotonous(), interval=200).tick_watermark.tolist() == [999, 1299]
    lag = watermark_timeline(ts, pt, None, TimeLag(150), interval=200)
    assert lag.tick_watermark.tolist() == [50, 250]
    marker = np.array([False, True, False, True])
    pun = watermark_timeline(ts, pt, None, Punctuated(delay=10), interval=200, marker=marker)
    # emitted right after the marked records (positions 2 and 4), at their arrival times
    assert pun.change_pos.tolist() == [2, 4] and pun.change_time.tolist() == [100, 400]
    assert pun.change_watermark.tolist() == [890, 1190]
    ad = watermark_timeline(ts, pt, None, Adaptive(quantile=1.0, window=10), interval=200)
    # lateness seen: 100 (900 after 1000), then 100 (1200 after 1300): delay 100
    assert ad.tick_watermark.tolist() == [1000 - 100 - 1, 1300 - 100 - 1]


def test_interval_zero_is_a_periodic_call_after_every_record() -> None:
    ticks, pos = tick_schedule(np.array([5, 5, 9]), 0)
    assert ticks.tolist() == [5, 5, 9] and pos.tolist() == [1, 2, 3]
    tl = watermark_timeline(np.array([10, 30, 20]), np.array([5, 5, 9]), None, BoundedOutOfOrderness(0), interval=0)
    assert tl.record_watermark(3).tolist() == [MIN_WATERMARK, 9, 29]


def test_ties_records_at_a_tick_come_before_it() -> None:
    ticks, pos = tick_schedule(np.array([0, 200, 200, 201, 450]), 200)
    assert ticks.tolist() == [200, 400, 600] and pos.tolist() == [3, 4, 5]


def test_fast_and_general_timelines_agree() -> None:
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(1, 80))
        arr = np.sort(rng.integers(0, 4000, n))
        ts = arr - rng.integers(0, 700, n)
        part = rng.integers(0, 5, n)
        iv = int(rng.choice([0, 70, 200]))
        par = int(rng.integers(1, 4))
        d = int(rng.integers(0, 300))
        a = watermark_timeline(ts, arr, part, BoundedOutOfOrderness(d), interval=iv, parallelism=par)
        b = watermark_timeline(ts, arr, part, BoundedOutOfOrderness(d), interval=iv, parallelism=par, force_general=True)
        assert _changes(a) == _changes(b) and a.change_pos.tolist() == b.change_pos.tolist()
        assert a.tick_watermark.tolist() == b.tick_watermark.tolist()
        rank = {"partition": 0, "subtask": 1, "operator": 2}
        order = lambda r: (r[2], rank[r[0]], r[1])  # noqa: E731
        assert sorted(a.log, key=order) == sorted(b.log, key=order)
        assert a.record_watermark(n).tolist() == b.record_watermark(n).tolist()
        # the record's watermark by position equals the one by the ordering rule (arrival, row)
        by_rule = a.watermark_before(arr, np.arange(n))
        assert by_rule.tolist() == a.record_watermark(n).tolist()


# ---------------------------------------------------------------- the valve for two inputs

def test_two_input_operator_takes_the_min_and_ignores_an_idle_input() -> None:
    out: list = []
    v = TwoInputValves(1, 2, lambda k, w: out.append(w))
    v.valves[0].input_watermark(0, 10)
    assert out == []  # input 2 still at MIN
    v.valves[1].input_watermark(0, 5)
    v.valves[1].input_watermark(1, 7)
    assert out == [5]
    v.valves[1].input_status(0, "idle")
    assert out == [5, 7]
    v.valves[1].input_status(1, "idle")  # input 2 idle as a whole: input 1 alone decides
    assert out == [5, 7, 10]
    v.valves[0].input_watermark(0, 20)
    assert out == [5, 7, 10, 20]


# ---------------------------------------------------------------- replay results

def _late_log() -> EventLog:
    # tumbling 1 s, delay 0, lateness 2 s, ticks every 200 ms from pt 0
    return EventLog.from_arrays([500, 1500, 700], [0, 1000, 1100], key="k", value=[1, 2, 3])


def test_emission_times_fates_and_at_end() -> None:
    r = replay(_late_log(), window="tumbling:1s", delay=0, lateness="2s", interval=200)
    em = r.emissions
    assert em[["window_start", "pane", "timing", "count", "sum", "watermark", "emit_time", "at_end"]].values.tolist() == [
        [0, 0, "on_time", 1, 1, 1499, 1000, False],  # watermark firing: at its tick
        [0, 1, "late", 2, 4, 1499, 1100, False],  # record-caused firing: at the record's arrival
        [1000, 0, "at_end", 1, 2, MAX_WATERMARK, 1200, True],
    ]
    assert r.fates["fate"].tolist() == ["on_time", "on_time", "late_accepted"]
    assert r.summary()["late_firings"] == 1
    # without lateness the third record is late and goes to the side output
    r0 = replay(_late_log(), window="tumbling:1s", delay=0, interval=200)
    assert r0.fates["fate"].tolist() == ["on_time", "on_time", "dropped"]
    assert r0.late[["row", "event_time", "watermark", "arrival_time"]].values.tolist() == [[2, 700, 1499, 1100]]
    assert r0.state["open_windows"].max() == 1


def test_fates_closed_form_equal_tracked_records(monkeypatch) -> None:
    from toolkit.semantics.flink import replay as flink_replay

    rng = np.random.default_rng(11)
    for trial in range(12):
        n = int(rng.integers(5, 150))
        arr = np.sort(rng.integers(0, 10000, n))
        log = EventLog.from_arrays(arr - rng.integers(0, 2500, n), arr, key=rng.choice(list("ab"), n), partition=rng.integers(0, 3, n))
        kw = dict(window=["tumbling:1s", "sliding:2s/500ms,100ms"][trial % 2], delay=int(rng.integers(0, 1000)),
                  lateness=[0, 800][trial % 2], interval=[0, 150][trial % 2], parallelism=1 + trial % 3, idleness=500)
        fast = replay(log, **kw)
        with monkeypatch.context() as m:
            m.setattr(flink_replay, "fates_closed_form", lambda s: False)
            slow = replay(log, **kw)
        pd.testing.assert_frame_equal(fast.fates, slow.fates)
        pd.testing.assert_frame_equal(fast.late, slow.late)
        pd.testing.assert_frame_equal(fast.emissions.drop(columns="value"), slow.emissions.drop(columns="value"))


def test_other_windows_and_functions_track_fates() -> None:
    log = EventLog.from_arrays([100, 300, 2500, 200], [0, 100, 2000, 2100], key=["a", "a", "a", "a"])
    # the session [100, 800) fires at 2499 (tick 2000); with 1 s lateness it is gone by then
    # and the record ts 200 (pt 2100) is dropped; with 3 s it merges in and re-fires
    r = replay(log, window="session:500ms", delay=0, lateness="1s", interval=100)
    assert r.fates["fate"].tolist() == ["on_time", "on_time", "on_time", "dropped"]
    r = replay(log, window="session:500ms", delay=0, lateness="3s", interval=100)
    assert r.fates["fate"].tolist() == ["on_time", "on_time", "on_time", "late_accepted"]
    assert r.emissions[["window_start", "window_end", "pane", "count", "emit_time"]].values.tolist()[:2] == [
        [100, 800, 0, 2, 2000], [100, 800, 1, 3, 2100]]
    v = replay(log, window="tumbling:1s", function="values", interval=100)
    assert v.emissions["value"].tolist()[0] == [1, 1]
    c = replay(log, window="tumbling:1s", trigger="count:2", interval=100)
    assert c.emissions["count"].tolist() == [2]
    # evictors: keep the last element, before (default) or after the function
    e = replay(log, window="tumbling:1s", evictor="count:1", function="values", interval=100)
    assert e.emissions["value"].tolist()[0] == [1]
    ea = replay(log, window="tumbling:1s", evictor="count:1,after", function="values", interval=100)
    assert ea.emissions["value"].tolist()[0] == [1, 1]
    assert ea.settings["evictor"] == "count:1,after"


def test_multi_stage_forwards_watermarks() -> None:
    rng = np.random.default_rng(2)
    arr = np.sort(rng.integers(0, 20000, 300))
    ts = arr - rng.integers(0, 300, 300)
    log = EventLog.from_arrays(ts, arr, key=rng.choice(list("xy"), 300), value=rng.integers(1, 4, 300))
    r = replay(log, window="tumbling:1s", delay="500ms", second_window="tumbling:5s", interval=200)
    first = r.emissions
    second = r.second_emissions
    assert r.fates["fate"].eq("on_time").all()
    # stage 2 sums stage 1's sums per 5 s window (stage-1 timestamps are the windows' max_ts)
    exp = first.assign(w=(first["max_timestamp"] // 5000) * 5000).groupby(["key", "w"])["sum"].sum()
    got = second.set_index(["key", "window_start"])["sum"].sort_index()
    assert got.tolist() == exp.sort_index().tolist()
    st = r.stages
    assert set(st["stage"]) == {1, 2} and set(st["side"]) == {"input", "output"}
    # each stage forwards its input watermark: stage 2's input = stage 1's output
    s1 = st[(st.stage == 1) & (st.side == "output")]["watermark"].tolist()
    s2 = st[(st.stage == 2) & (st.side == "input")]["watermark"].tolist()
    assert s1 == s2 and s1[-1] == MAX_WATERMARK
    # a stage-2 window fires when the forwarded watermark passes its end (never before stage 1's inputs)
    assert (second["emit_time"] >= 0).all() and second["at_end"].iloc[-1]


def test_setting_aliases() -> None:
    a = replay(_late_log(), source_parallelism=2, idle_timeout="1s", allowed_lateness="2s", max_out_of_orderness=0)
    b = replay(_late_log(), parallelism=2, idleness="1s", lateness="2s", delay=0)
    assert a.settings == b.settings and a.settings["source_parallelism"] == 2 and a.settings["idleness"] == 1000
    pd.testing.assert_frame_equal(a.emissions, b.emissions)
    with pytest.raises(ValueError, match="either 'allowed_lateness' or 'lateness'"):
        replay(_late_log(), lateness=1, allowed_lateness=1)


def test_log_without_arrival_times() -> None:
    log = EventLog.from_arrays([1000, 3000, 500, 5000])
    r = replay(log, window="tumbling:1s")  # row order, a watermark after every record
    assert r.settings["interval"] == 0
    assert r.fates["fate"].tolist() == ["on_time", "on_time", "dropped", "on_time"]
    assert r.emissions["emit_time"].isna().all()
    with pytest.raises(ValueError, match="no arrival times.*idleness"):
        replay(log, idleness="1s")
    with pytest.raises(ValueError, match="no arrival times.*interval"):
        replay(log, interval="200ms")
    with pytest.raises(ValueError, match="no arrival times.*time_lag"):
        replay(log, generator="time_lag", lag="1s", interval=0)


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"delay": "-5s"}, "delay must not be negative"),
        ({"delay": -1}, "delay must not be negative"),
        ({"interval": "-200ms"}, "interval must not be negative"),
        ({"idleness": "-1s"}, r"idleness must not be negative"),
        ({"lateness": "-1s"}, "lateness must not be negative"),
        ({"parallelism": 0}, "source_parallelism must be an integer >= 1"),
        ({"window": "tumbling:0s"}, "window size must be > 0"),
        ({"window": "sliding:10s"}, "SIZE/SLIDE"),
        ({"window": "hopping:1s"}, "unknown kind 'hopping'"),
        ({"generator": "magic"}, "strategy 'magic': choose one of"),
        ({"generator": "idle_advance"}, "needs a step"),
        ({"generator": "punctuated", "marker": "flag"}, "marker column 'flag' is not in the log"),
        ({"trigger": "count:x"}, "count must be a positive integer"),
        ({"accumulation": "sometimes"}, "accumulation 'sometimes': choose one of"),
        ({"delay": "100000d"}, "delay of '100000d' is absurd"),
        ({"lateness": 10**15}, "lateness of .* is absurd"),
    ],
)
def test_bad_settings_are_clear_errors(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        replay(_late_log(), **settings)


def test_strategy_config_validation() -> None:
    with pytest.raises(ValueError, match="delay must not be negative"):
        BoundedOutOfOrderness(-1)
    with pytest.raises(ValueError, match="idle timeout must be greater than zero"):
        Monotonous().with_idleness(0)
    with pytest.raises(ValueError, match="quantile must be within"):
        Adaptive(quantile=1.5)
    with pytest.raises(ValueError, match="step must be > 0"):
        IdleAdvance(0, 0)
    with pytest.raises(ValueError, match="interval must not be negative"):
        watermark_timeline(np.array([1]), np.array([1]), None, Monotonous(), interval=-1)
    with pytest.raises(ValueError, match="arrival order"):
        watermark_timeline(np.array([1, 2]), np.array([5, 1]), None, Monotonous())


def test_skipping_quiet_idle_ticks_changes_nothing(monkeypatch) -> None:
    import toolkit.engine.flink.watermarks as W

    rng = np.random.default_rng(9)
    for _ in range(40):
        n = int(rng.integers(1, 50))
        arr = np.sort(rng.integers(0, 5, n) * 5000 + rng.integers(0, 800, n))  # bursts and long gaps
        ts = arr - rng.integers(0, 500, n)
        part = rng.integers(0, 4, n)
        s = BoundedOutOfOrderness(int(rng.integers(0, 100))).with_idleness(int(rng.choice([1, 100, 300, 1000])))
        kw = dict(interval=int(rng.choice([0, 50, 200])), parallelism=int(rng.integers(1, 4)))
        a = watermark_timeline(ts, arr, part, s, **kw)
        with monkeypatch.context() as m:
            m.setattr(W.WithIdlenessGenerator, "quiescent", lambda self: False)
            b = watermark_timeline(ts, arr, part, s, **kw)
        assert _changes(a) == _changes(b) and a.log == b.log
        assert a.tick_watermark.tolist() == b.tick_watermark.tolist()


def test_parallelism_without_idleness_changes_only_intermediate_watermarks() -> None:
    # all partitions active: the operator watermark after each tick is the min over all
    # partitions whatever the subtask layout, so fates and firing times do not depend on it
    rng = np.random.default_rng(21)
    for _ in range(6):
        n = int(rng.integers(20, 200))
        arr = np.sort(rng.integers(0, 8000, n))
        log = EventLog.from_arrays(arr - rng.integers(0, 1500, n), arr, key=rng.choice(list("ab"), n),
                                   partition=rng.integers(0, 4, n))
        kw = dict(window="sliding:1s/500ms", delay=int(rng.integers(0, 800)), lateness=500, interval=100)
        base = replay(log, parallelism=1, **kw)
        for p in (2, 3, 4, 7):
            other = replay(log, parallelism=p, **kw)
            pd.testing.assert_frame_equal(base.fates, other.fates)
            cols = ["key", "window_start", "pane", "timing", "count", "sum", "emit_time"]
            pd.testing.assert_frame_equal(base.emissions[cols], other.emissions[cols])
