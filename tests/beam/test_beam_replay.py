"""toolkit.semantics.beam.replay.replay_beam: log arrays through Beam's semantics, the watermark from
the Flink side's strategies (W_beam = W_flink + 1 ms)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import toolkit
from toolkit.engine.flink.pipeline import watermark_timeline
from toolkit.engine.flink.watermarks import BoundedOutOfOrderness
from toolkit.semantics.beam.replay import replay_beam

TS = [1000, 3000, 12000, 2000, 15000, 9999, 31000, 4000]
ARR = [1000, 3100, 12100, 12500, 15100, 16000, 31100, 31200]
LATE1 = {"type": "after_watermark", "late": {"type": "after_count", "n": 1}}


def test_replay_beam_worked_example():
    """Fixed 10 s windows, AfterWatermark(late=AfterCount(1)), 5 s allowed lateness, delay 1 s:
    the watermark reaches 11 s at 12.2 s (on-time pane of [0, 10 s)); the records of 2 s
    (arriving 12.5 s) and 9.999 s (16 s) are late but within lateness (LATE panes, accumulating);
    4 s arriving at 31.2 s, before the tick of 31.2 s, still sees watermark 14 s <= 10 + 5 s:
    LATE too; [10 s, 20 s) fires on time at 31.2 s; [30 s, 40 s) only at the end of input."""
    r = replay_beam(TS, ARR, ["a"] * 8, [1, 2, 3, 4, 5, 6, 7, 8], window={"type": "fixed", "size": 10000},
                    trigger=LATE1, allowed_lateness=5000, delay=1000, interval=200)
    got = [tuple(x) for x in r.emissions[["window_start", "timing", "pane", "count", "sum", "emit_time",
                                          "at_end", "timestamp"]].itertuples(index=False)]
    assert got == [(0, "ON_TIME", 0, 2, 3, 12200, False, 9999), (0, "LATE", 1, 3, 7, 12500, False, 9999),
                   (0, "LATE", 2, 4, 13, 16000, False, 9999), (0, "LATE", 3, 5, 21, 31200, False, 9999),
                   (10000, "ON_TIME", 0, 2, 8, 31200, False, 19999), (30000, "ON_TIME", 0, 1, 7, 31200, True, 39999)]
    assert r.fates["fate"].tolist() == ["on_time", "on_time", "on_time", "late_accepted", "on_time",
                                        "late_accepted", "on_time", "late_accepted"]
    assert not r.stalled


def test_replay_beam_drops_beyond_lateness_and_names_the_reason():
    r = replay_beam(TS, ARR, ["a"] * 8, [1] * 8, window={"type": "fixed", "size": 10000},
                    trigger=LATE1, allowed_lateness=0, delay=1000)
    # 2 s arrives at 12.5 s with watermark 11 s > 10 s + 0: expired
    assert r.fates.loc[3, "fate"] == "dropped" and r.fates.loc[3, "reason"] == "expired"


def test_replay_beam_watermark_is_flink_watermark_plus_one():
    r = replay_beam(TS, ARR, ["a"] * 8, [1] * 8, window={"type": "fixed", "size": 10000}, delay=1000)
    tl = watermark_timeline(np.array(TS), np.array(ARR), None, BoundedOutOfOrderness(1000), interval=200)
    assert r.watermarks["watermark"].tolist() == (tl.watermark + 1).tolist()
    assert r.watermarks["time"].tolist() == tl.time.tolist()


def test_replay_beam_bad_input_names_the_option():
    with pytest.raises(ValueError, match="allowed_lateness"):
        replay_beam(TS, ARR, ["a"] * 8, [1] * 8, window={"type": "fixed", "size": 10000}, allowed_lateness=-1)
    with pytest.raises(ValueError, match="window type"):
        replay_beam(TS, ARR, ["a"] * 8, [1] * 8, window={"type": "tumbling", "size": 10000})
    with pytest.raises(ValueError, match="unknown trigger type 'early'"):
        replay_beam(TS, ARR, ["a"] * 8, [1] * 8, window={"type": "fixed", "size": 10}, trigger={"type": "early"})
    with pytest.raises(ValueError, match="timestamp_combiner"):
        replay_beam(TS, ARR, ["a"] * 8, [1] * 8, window={"type": "fixed", "size": 10}, timestamp_combiner="min")


records = st.lists(st.tuples(st.integers(0, 30_000), st.integers(0, 5_000), st.sampled_from("ab"),
                             st.integers(1, 9)), min_size=1, max_size=25)


@settings(max_examples=25, deadline=None)
@given(records, st.sampled_from([0, 500, 3000]))
def test_beam_on_time_panes_are_flinks_first_firings(recs, delay):
    """Default trigger, tumbling windows, no lateness: Beam fires a window when W_beam >= end,
    Flink when W_flink >= end - 1, the same watermark advance; so Beam's ON_TIME panes are
    exactly Flink's first firings (key, window, count, sum, emission time). (They differ on
    late data: a record arriving at W_beam == end is a LATE pane in Beam, dropped by Flink.)"""
    ts = np.array([r[0] for r in recs])
    arr = np.sort(ts + np.array([r[1] for r in recs]))  # arrival order = row order
    frame = pd.DataFrame({"event_time": ts, "arrival_time": arr, "key": [r[2] for r in recs],
                          "value": [r[3] for r in recs]})
    log = toolkit.load_log(frame, event_time="event_time", arrival_time="arrival_time", key="key", value="value")
    flink = toolkit.replay(log, window="tumbling:5s", delay=f"{delay}ms", interval="200ms")
    fires = flink.emissions[(flink.emissions["kind"] == "fire") & (flink.emissions["pane"] == 0)]
    want = sorted((k, int(s), int(e), int(c), int(sm), int(t)) for k, s, e, c, sm, t in
                  fires[["key", "window_start", "window_end", "count", "sum", "emit_time"]].itertuples(index=False))
    beam = replay_beam(ts, arr, frame["key"], frame["value"], window={"type": "fixed", "size": 5000},
                       delay=delay, interval=200)
    on_time = beam.emissions[beam.emissions["timing"] == "ON_TIME"]
    got = sorted((k, int(s), int(e), int(c), int(sm), int(t)) for k, s, e, c, sm, t in
                 on_time[["key", "window_start", "window_end", "count", "sum", "emit_time"]].itertuples(index=False))
    assert got == want
    assert len(beam.fates) == len(recs)
