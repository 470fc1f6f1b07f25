"""What dominates the latency tail (issue 30 item 4, ``toolkit.replays.latency``): the year-long
log's tail is its nightly silences, the sample's its silent partition 2, the lagging log's its
partition 3 whose clock is behind; a log without a structural cause (NEXMark-like, a steady
stream) gets no words. Each claim is checked against the log's own arrivals and watermarks, and
the chart the words name draws latency in the unit the words use."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import toolkit
from toolkit.durations import readable
from toolkit.log import synth
from toolkit.replays.latency import COVER_SHARE, first_firings, latency_tail
from toolkit.viz._common import duration_axis_scale

from helpers.spans import year_log

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def sample():
    return toolkit.load_log(DATA / "sample.csv", max_invalid_fraction=0.001)


@pytest.fixture(scope="module")
def year_replay():
    return toolkit.replay(year_log(), window="tumbling:1h", delay="10min")


def _silent_share(arrival: np.ndarray, silence: int, start: int, end: int) -> float:
    """Straight from the definition: the share of [start, end] inside gaps of at least ``silence``
    between consecutive arrivals of the whole log."""
    a = np.sort(arrival)
    lo, hi = a[:-1], a[1:]
    long = hi - lo >= silence
    overlap = np.clip(np.minimum(hi[long], end) - np.maximum(lo[long], start), 0, None)
    return float(overlap.sum()) / (end - start)


def test_the_year_log_tail_is_its_nightly_silences(year_replay) -> None:
    r = year_replay
    tail = r.latency_tail()
    s = r.summary()
    assert tail.cause == "silence" and tail.explained >= tail.windows / 2
    assert tail.threshold_ms == s["latency_p99_ms"] and tail.silence_ms == year_log().describe().silence
    words = str(tail)
    assert s["latency_tail"] == words
    assert f"{tail.explained:,} of the {tail.windows:,} slowest windows" in words
    assert f"first fired {readable(s['latency_p99_ms'])} or more" in words  # the summary's own p99, in its unit
    assert "arrival silence" in words and "every night between 22:00 and 01:00 UTC" in words
    assert "Window firings chart (toolkit.viz.firing_timeline)" in words and tail.chart == "toolkit.viz.firing_timeline"
    # a tail window is a silence's exactly when silent arrivals cover at least half its wait
    arrival = r.arrivals[0]
    for end, emit, cause in tail.data[["window_end", "emit_time", "cause"]].itertuples(index=False):
        assert (_silent_share(arrival, tail.silence_ms, end, emit) >= COVER_SHARE) == (cause == "silence")


def test_the_sample_tail_is_its_silent_partition(sample) -> None:
    tail = toolkit.replay(sample).latency_tail()
    assert (tail.cause, tail.holder, tail.explained) == ("idle", "2", tail.windows)
    assert "waited for partition 2, which sent nothing meanwhile" in str(tail)
    assert "no idle timeout" in str(tail) and "Watermark lag chart, partition 2's line" in str(tail)
    timed = toolkit.replay(sample, idleness="2s").latency_tail()
    assert timed.cause == "idle" and "until its idle timeout (2 s)" in str(timed)
    # partition 2 is silent from +120 s for 40 s: every window it held ended in that span
    start = int(sample.table["event_time"].min())
    assert tail.data["window_end"].between(start + 115_000, start + 165_000).all()


def test_a_partition_whose_clock_is_behind_is_named_late() -> None:
    tail = toolkit.replay(toolkit.load_log(DATA / "lagging.parquet")).latency_tail()
    assert (tail.cause, tail.holder) == ("late", "3")
    assert "whose watermark lagged the other partitions'" in str(tail)


def test_no_cause_is_invented(sample) -> None:
    """NEXMark-like transport delays (on Spark too, whose watermark moves once a 1 s batch: a
    partition that passes a window's end a batch after the other is the batches' resolution, not
    a late partition), a steady stream, and a sample whose silent partition is released early by
    a 1 s idle timeout (it holds half the tail at most): no words."""
    nexmark = toolkit.load_log(DATA / "nexmark.jsonl")
    for log, setting in ((nexmark, {}), (nexmark, dict(semantics="spark")),
                         (synth.generate("steady", 20_000, seed=3), {}),
                         (sample, dict(delay="1s", idleness="1s"))):
        r = toolkit.replay(log, **setting)
        tail = r.latency_tail()
        assert tail.cause is None and str(tail) == "" and r.summary()["latency_tail"] == ""
        assert tail.windows >= 1  # there was a tail to explain


def test_windows_fired_only_at_the_end_of_input_fill_the_tail(sample) -> None:
    r = toolkit.replay(sample, delay="5s", idleness="200ms")
    tail = r.latency_tail()
    at_end = int(first_firings(r.emissions)["at_end"].sum())
    assert tail.cause == "end_of_input" and tail.explained == at_end > tail.windows
    assert f"{at_end:,} of the" in str(tail) and "only at the end of input" in str(tail)


def test_the_engine_says_which_inputs_hold_its_watermark_and_its_word(sample) -> None:
    """Spark holds back by partition under the min policy only; Kafka Streams says stream time."""
    from toolkit.semantics import get

    spark = get("spark")
    assert spark.holding_level({"partitions_as_sources": True, "multiple_watermark_policy": "min"}) == "partition"
    assert spark.holding_level({"partitions_as_sources": True, "multiple_watermark_policy": "max"}) is None
    assert toolkit.replay(sample, semantics="spark").latency_tail().holder == "2"
    assert toolkit.replay(sample, semantics="spark", multiple_watermark_policy="max").latency_tail().cause is None
    assert get("kafka_streams").watermark_word == "stream time" and get("flink").watermark_word == "watermark"


def test_a_kafka_streams_tail_says_stream_time() -> None:
    """A log of silences every 10 s: Kafka Streams' suppressed windows wait for the next record."""
    log = synth.generate("steady", 6_000, seed=4, rate=200.0)
    t = log.table.copy()
    t["arrival_time"] = t["arrival_time"] + (t["arrival_time"] - t["arrival_time"].min()) // 3_000 * 20_000
    t["event_time"] = t["event_time"] + (t["event_time"] - t["event_time"].min()) // 3_000 * 20_000
    gappy = toolkit.EventLog.from_arrays(event_time=t["event_time"], arrival_time=t["arrival_time"],
                                         key=t["key"], partition=t["partition"])
    tail = toolkit.replay(gappy, semantics="kafka_streams", window="tumbling:1s", emit="final").latency_tail()
    assert tail.cause == "silence" and "to move the stream time" in str(tail), str(tail)


def test_latency_axes_speak_the_unit_of_the_words(year_replay, sample) -> None:
    """The firing timeline's latency axis and the sentence give the p99 in one unit (the issue:
    "p99 result latency 10 h 50 min" beside an axis of 440-660 min)."""
    for r in (year_replay, toolkit.replay(sample)):
        p99 = r.summary()["latency_p99_ms"]
        spec = toolkit.viz.firing_timeline(r).to_dict()
        titles = str(spec)
        _, unit = duration_axis_scale(np.array([r.summary()["latency_max_ms"]]))
        assert readable(p99).split()[1] == unit or readable(r.summary()["latency_max_ms"]).split()[1] == unit
        if "latency (" in titles:  # the long log's timeline plots latency
            assert f"latency ({unit})" in titles
    assert duration_axis_scale(np.array([660 * 60_000]))[1] == "h" and duration_axis_scale(np.array([90_000]))[1] == "min"


def test_without_arrival_times_only_the_end_of_input_can_be_said() -> None:
    log = toolkit.EventLog.from_arrays(event_time=np.arange(0, 10_000, 10), key=["a"] * 1000)
    r = toolkit.replay(log, window="tumbling:1s")
    assert r.arrivals is None and latency_tail(r).silence_ms is None


def test_the_replay_command_says_it_on_the_sample(capsys) -> None:
    from toolkit.cli import main

    assert main(["replay", str(DATA / "sample.csv"), "--max-invalid-fraction", "0.001"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "The latency tail: 31 of the 31 slowest windows (first fired 37.27 s or more" in out
    assert "result latency (first firing - window end): median 268 ms, p95 25.27 s, p99 37.27 s" in out


def test_the_report_says_it_beside_its_chart_and_in_the_recommendation(sample) -> None:
    from toolkit.reports.report import build

    ctx = build(sample, settings=dict(window="tumbling:1s", delay="500ms"),
                grid=dict(window=["tumbling:1s"], delay=["500ms", "5s"], lateness=["0"]))
    words = ctx["replay_latency"]
    assert words.startswith("The latency tail: ") and ctx["replay_latency_anchor"] == "watermarks"
    section = next(s for s in ctx["sections"] if s["anchor"] == "watermarks")
    assert section["text"] == ctx["replay"].latency_tail().beside_chart() and "this chart shows it in partition 2's line" in section["text"]
    # the recommended setting (another delay than the replayed one) is replayed for its own words
    rec_setting = ctx["recommendation"]["headline"]
    assert "delay" in rec_setting and "The latency tail: " in ctx["recommendation"]["reason"]
