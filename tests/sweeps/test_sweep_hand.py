"""A 20-record log whose figures were computed by hand (see the trace in the comments).

Tumbling 10 ms windows, allowed lateness 5, bounded delay 0 (watermark = max - 1) emitted
after every record (interval 0); record i arrives at 10*i ms; one record of key "b".
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
import toolkit.sweeps
from toolkit.fast.evaluate import FixedWindows, Shard, window_frame
from toolkit.log import EventLog
from toolkit.metrics.summary import check_summary
from toolkit.settings import Setting
from toolkit.sweeps.timelines import timeline_from_records

TS = [1, 3, 12, 5, 15, 8, 19, 25, 18, 22, 31, 27, 24, 36, 29, 33, 45, 38, 41, 43]
KEYS = ["a"] * 12 + ["b"] + ["a"] * 7
# fates by hand: late_accepted = records 3 (ts 5) and 11 (ts 27); dropped = 5, 8, 14, 17;
# record 12 (b, ts 24) creates b:[20,30) when the watermark is already 30: it fires at once
# (pane 0, caused by the record) so it is on time by the fate rule.
FATES = ["on_time"] * 20
for i in (3, 11):
    FATES[i] = "late_accepted"
for i in (5, 8, 14, 17):
    FATES[i] = "dropped"


@pytest.fixture(scope="module")
def log():
    return EventLog.from_arrays(np.array(TS), arrival_time=np.arange(20) * 10, key=np.array(KEYS, dtype=object))


@pytest.mark.parametrize("path", ["fast", "engine"])
def test_hand_computed_summary(log, path):
    r = toolkit.sweep(log, window="tumbling:10ms", delay=0, lateness=5, interval=0, path=path, progress=False)
    check_summary(r)
    row = r.iloc[0]
    assert row["path"] == path
    assert (row["records"], row["on_time"], row["late_accepted"], row["dropped"], row["invalid"]) == (20, 14, 2, 4, 0)
    assert row["windows"] == 6
    assert row["completeness_first"] == pytest.approx(14 / 20)
    assert row["completeness_final"] == pytest.approx(16 / 20)
    assert row["exact_windows"] == pytest.approx(2 / 6)
    # first-emission latencies: 10, 50, 70, 90 (record-caused b), 120; the window fired only by
    # the end of input (t=190, 140 after its end) is counted apart, not as a latency
    assert (row["latency_p50_ms"], row["latency_p95_ms"], row["latency_p99_ms"], row["latency_max_ms"]) == (70, 120, 120, 120)
    assert row["at_end_firings"] == 1
    assert (row["firings"], row["late_firings"], row["retractions"]) == (8, 3, 0)
    assert (row["peak_state_windows"], row["peak_state_records"]) == (3, 6)
    assert row["mean_state_records"] == pytest.approx(440 / 190)
    assert row["mean_state_windows"] == pytest.approx(250 / 190)


def test_hand_computed_windows_and_fates(log):
    t = log.in_arrival_order()
    cfg = Setting.parse(window="tumbling:10ms", delay=0, lateness=5, interval=0)
    tl = timeline_from_records(t["arrival_time"].to_numpy(), t["row"].to_numpy(), t["event_time"].to_numpy(), t["partition"].to_numpy(), cfg)
    shard = Shard(t["key"].to_numpy(), t["event_time"].to_numpy(), t["arrival_time"].to_numpy(), t["row"].to_numpy())
    w = window_frame(shard, FixedWindows(10, 10), tl, 5)
    got = w[["key", "window_start", "true_count", "first_count", "final_count", "firings", "first_timing"]]
    expected = pd.DataFrame(
        {
            "key": ["a", "a", "a", "a", "a", "b"],
            "window_start": [0, 10, 20, 30, 40, 20],
            "true_count": [4, 4, 4, 4, 3, 1],
            "first_count": [2, 3, 2, 3, 3, 1],
            "final_count": [3, 3, 3, 3, 3, 1],
            "firings": [2, 1, 2, 1, 1, 1],
            "first_timing": ["on_time", "on_time", "on_time", "on_time", "at_end", "late"],
        }
    )
    pd.testing.assert_frame_equal(got.reset_index(drop=True), expected, check_dtype=False)
    assert w["first_latency_ms"].tolist() == [10, 50, 70, 120, 140, 90]
    assert w["settle_latency_ms"].tolist() == [20, 50, 80, 120, 140, 90]
    fates = toolkit.sweeps.record_fates(log, window="tumbling:10ms", delay=0, lateness=5, interval=0)
    assert fates["fate"].tolist() == FATES
