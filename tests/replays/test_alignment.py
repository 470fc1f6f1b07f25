"""Flink's ``alignment`` setting: its spelling and refusals, the replay reading records when the
model says (the real-Flink corpus of tests/fixtures/flink_alignment), sweep rows equal to the
replay (the property test is in tests/sweeps/test_sweep_property.py), the deploy code."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkit
from toolkit.deployment import deploy
from toolkit.incidents import restart
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.replays.arrays import log_arrays
from toolkit.semantics.flink import SEMANTICS
from toolkit.semantics.flink.alignment import Alignment, align_arrays
from toolkit.settings import Setting, SettingError
from toolkit.sweeps.single import evaluate

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "flink_alignment"


def fast_slow_log(n: int = 60) -> toolkit.EventLog:
    """Two partitions draining 100 records/s each; partition 0's event time runs 10 times faster."""
    return toolkit.EventLog.from_arrays(event_time=[i * 100 for i in range(n)] + [i * 10 for i in range(n)],
                                        arrival_time=[i * 10 for i in range(n)] * 2, partition=[0] * n + [1] * n,
                                        key=["a", "b"] * n)


def test_spelling_round_trips_and_defaults():
    s = Setting.parse("window=tumbling:1s alignment=drift=100ms,update=250ms,buffer=0")
    assert s.alignment == Alignment(100, 250, 0)
    assert str(s) == "window=tumbling:1s alignment=drift=100ms,update=250ms,buffer=0"
    assert Setting.parse(str(s)) == s
    assert Setting.parse(alignment="2s").alignment == Alignment(2000, 1000, 3, "default")
    assert Setting.parse(alignment={"max_drift": "1s", "update_interval": "1s", "group": "g"}).alignment.group == "g"
    assert Setting.parse(alignment="off").alignment is None


@pytest.mark.parametrize("bad, words", [
    ("drift=x", "duration"), ("foo=1s", "unknown part 'foo'"), ("update=1s", "drift= is missing"),
    ("drift=1s,buffer=-1", "buffer"), ("drift=1s,update=0", "update"), ("drift", "duration"),
    ({"drift": "1s", "group": "a b"}, "group"),
])
def test_a_bad_spelling_names_alignment(bad, words):
    with pytest.raises(SettingError, match=words) as e:
        Setting.parse(alignment=bad)
    assert e.value.setting == "alignment"


@pytest.mark.parametrize("other, words", [
    (dict(idleness="1s"), "idleness"), (dict(strategy="time_lag"), "strategies"), (dict(interval=0), "interval"),
    (dict(partitions_as_sources=False), "partitions_as_sources"), (dict(split_discovery="at_first_record"), "at_start"),
])
def test_what_the_model_does_not_cover_is_refused(other, words):
    with pytest.raises(SettingError, match=words) as e:
        Setting.parse(alignment="1s", **other)
    assert e.value.setting == "alignment"


def test_a_log_without_arrival_times_is_refused():
    log = toolkit.EventLog.from_arrays(event_time=[1, 2, 3])
    with pytest.raises(SettingError, match="arrival times"):
        toolkit.replay(log, alignment="1s")


@pytest.mark.parametrize("name", ["a01_fast_slow_buffer1", "a05_three_splits_jitter", "a08_source_level_wait"])
def test_the_replay_reads_records_in_real_flinks_order(name):
    """The replay's arrays (what its operators receive) are in the order and at the times real Flink read them."""
    lines = [json.loads(x) for x in (CASES / f"{name}.jsonl").read_text().splitlines() if x.strip()]
    head, recs = lines[0], [x["record"] for x in lines[1:]]
    log = toolkit.EventLog.from_arrays(event_time=[r["t"] for r in recs], arrival_time=[r["arrival"] for r in recs],
                                       partition=[int(r["p"]) for r in recs], key="k")
    s = Setting.parse(delay=head["delay"], interval=head["interval"],
                      alignment=dict(drift=head["drift"], update=head["update"], buffer=head["buffer"]))
    a = align_arrays(log_arrays(log, s, SEMANTICS), s, None)
    reads = [json.loads(x) for x in (CASES / f"{name}.out.jsonl").read_text().splitlines() if '"read"' in x]
    assert a["rows"].tolist() == [o["idx"] for o in reads]
    assert a["arr"].tolist() == [o["at"] for o in reads]


def test_a_wide_drift_changes_nothing_and_a_tight_one_holds_the_fast_partition_back():
    log = fast_slow_log()
    plain = toolkit.replay(log, window="tumbling:100ms", interval="50ms").summary()
    wide = toolkit.replay(log, window="tumbling:100ms", interval="50ms", alignment="1h").summary()
    assert {k: wide[k] for k in SUMMARY_COLUMNS} == {k: plain[k] for k in SUMMARY_COLUMNS}
    tight = toolkit.replay(log, window="tumbling:100ms", interval="50ms",
                           alignment="drift=100ms,update=100ms,buffer=1")
    assert tight.summary()["settings"]["alignment"] == "drift=100ms,update=100ms,buffer=1"
    assert tight.summary()["mean_state_records"] < plain["mean_state_records"]


def test_after_a_restart_alignment_keeps_less_state():
    """A restart makes every partition drain its backlog at the same rate: the sparse partition's
    event time runs ahead and waits in window state, unless alignment pauses it (here soon: the
    default buffer of 3 update intervals would let its whole backlog through first)."""
    ts0, ts1 = [i * 100 for i in range(200)], [i * 10 for i in range(2000)]
    log = toolkit.EventLog.from_arrays(event_time=ts0 + ts1, arrival_time=ts0 + ts1, partition=[0] * 200 + [1] * 2000,
                                       key=["a", "b"] * 1100)
    bad_day = restart(at="10s", downtime="2s", replay_from="5s", source_rate="500/s").apply(log)
    kw = dict(window="tumbling:100ms", interval="50ms")
    plain = toolkit.replay(bad_day, **kw).summary()
    aligned = toolkit.replay(bad_day, alignment="drift=200ms,update=20ms,buffer=1", **kw).summary()
    assert aligned["peak_state_records"] < plain["peak_state_records"]
    assert aligned["records"] == plain["records"] and aligned["dropped"] == plain["dropped"] == 0


def test_sweep_rows_with_alignment_equal_the_replay():
    log = fast_slow_log()
    t = toolkit.sweep(log, window="tumbling:100ms", interval="50ms", lateness=[0, 300], progress=False,
                      alignment=[None, "drift=100ms,update=100ms,buffer=1", "drift=0ms,update=50ms,buffer=0"])
    assert len(t) == 6
    for _, row in t.iterrows():
        a = None if row["alignment"] == "none" else row["alignment"]
        r = toolkit.replay(log, window="tumbling:100ms", interval="50ms", lateness=int(row["lateness_ms"]),
                           alignment=a).summary()
        assert {k: r[k] for k in SUMMARY_COLUMNS} == {k: row[k] for k in SUMMARY_COLUMNS}


def test_per_window_detail_is_the_replays():
    with pytest.raises(SettingError, match="replay") as e:
        evaluate(fast_slow_log(), window="tumbling:100ms", alignment="1s")
    assert e.value.setting == "alignment"


def test_deploy_writes_the_alignment():
    code = deploy(window="tumbling:1s", delay="2s", alignment="drift=20s,update=2s").code
    assert '.withWatermarkAlignment("default", Duration.ofSeconds(20), Duration.ofSeconds(2))' in code
    assert "WATERMARK_ALIGNMENT_BUFFER_SIZE" not in code  # Flink's default, 3
    code = deploy(window="tumbling:1s", alignment="drift=1s,buffer=0,group=orders").code
    assert '.withWatermarkAlignment("orders", Duration.ofSeconds(1), Duration.ofSeconds(1))' in code
    assert "config.set(PipelineOptions.WATERMARK_ALIGNMENT_BUFFER_SIZE, 0);" in code
