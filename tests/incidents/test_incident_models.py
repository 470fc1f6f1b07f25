"""Each incident's model on small logs worked out by hand."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.incidents import (
    DUPLICATE_OF,
    burst,
    clock_skew,
    collect,
    late_upload,
    restart,
    silence,
    stall,
)
from toolkit.settings import SettingError


def _log(arrival, partition, event=None, key=None):
    arrival = np.asarray(arrival, dtype=np.int64)
    event = arrival - 10 if event is None else event
    return toolkit.EventLog.from_arrays(event, arrival_time=arrival, partition=partition,
                                        key=key if key is not None else "k")


def _arrivals(log):
    return log.table["arrival_time"].tolist()


def test_stall_drains_in_order_and_later_records_queue_until_caught_up():
    log = _log([0, 100, 200, 300, 400, 500, 5000, 150, 250], [0, 0, 0, 0, 0, 0, 0, 1, 1])
    s = stall(partition=0, at=100, duration=200, drain="10/s")  # one record per 100 ms from 300
    out = s.apply(log)
    assert _arrivals(out) == [0, 300, 400, 500, 600, 700, 5000, 150, 250]
    assert out.table["row"].tolist() == log.table["row"].tolist()
    assert out.table["event_time"].tolist() == log.table["event_time"].tolist()
    assert out.incidents == [
        "partition 0 stalled at 0:00:00.100 for 200 ms, drained at 10 records/s "
        "(2 records held, 5 records delayed, the last read at 0:00:00.700)"]
    assert "incidents" in str(out.describe()) and out.incidents[0] in str(out.describe())
    assert s.describe(log) == out.incidents[0]
    assert _arrivals(log) == [0, 100, 200, 300, 400, 500, 5000, 150, 250]  # the input is untouched


def test_restart_exactly_once_moves_the_replayed_records():
    # rows 0-3 on partition 0, rows 4-6 on partition 1
    log = _log([0, 1000, 2000, 3000, 500, 1500, 2500], [0, 0, 0, 0, 1, 1, 1])
    r = restart(at=2000, downtime=1000, replay_from=1000, source_rate="100/s")  # 10 ms per record
    out = r.apply(log)
    assert _arrivals(out) == [0, 3000, 3010, 3020, 500, 3000, 3010]
    assert DUPLICATE_OF not in out.table.columns and len(out) == len(log)
    assert "2 records read again, 5 records delayed" in out.incidents[0]


def test_restart_at_least_once_adds_marked_copies():
    log = _log([0, 1000, 2000, 3000, 500, 1500, 2500], [0, 0, 0, 0, 1, 1, 1])
    r = restart(at=2000, downtime=1000, replay_from=1000, source_rate="100/s", duplicates=True)
    t = r.apply(log).table
    assert t["row"].tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    assert t["arrival_time"].tolist() == [0, 1000, 3010, 3020, 500, 1500, 3010, 3000, 3000]
    assert t[DUPLICATE_OF].tolist() == [-1] * 7 + [1, 5]
    copies = t[t[DUPLICATE_OF] >= 0]
    originals = t.set_index("row").loc[copies[DUPLICATE_OF]]
    for c in ("event_time", "key", "partition", "value"):
        assert copies[c].tolist() == originals[c].tolist()
    # a second restart copies again; copies of copies name the first original
    again = restart(at=3005, downtime=0, replay_from=10, source_rate="100/s", duplicates=True).apply(r.apply(log))
    extra = again.table[again.table["row"] > 8]
    assert set(extra[DUPLICATE_OF]) <= {1, 5} and len(extra) == 2


def test_silence_removes_exactly_the_span_and_keeps_the_partition_declared():
    log = _log([0, 100, 200, 300, 50, 150], [0, 0, 0, 0, 1, 1])
    out = silence(partition=1, at=0, duration=200).apply(log)
    assert out.table["row"].tolist() == [0, 1, 2, 3]
    assert out.declared_partitions == (0, 1) and out.silent_partitions == (1,)
    assert "2 records removed" in out.incidents[0]
    assert "declared, no records" in str(out.describe())
    mid = silence(partition=0, at=100, duration=200).apply(log)  # [100, 300): rows 1 and 2
    assert mid.table["row"].tolist() == [0, 3, 4, 5] and mid.declared_partitions is None
    with pytest.raises(SettingError, match="leaves no record"):
        (silence(partition=0, at=0, duration="1s") + silence(partition=1, at=0, duration="1s")).apply(log)


def test_burst_compresses_the_span_and_pulls_the_rest_forward():
    log = _log([0, 100, 200, 300, 400, 1000], [0, 1, 0, 1, 0, 1])
    out = burst(factor=2, at=100, duration=300).apply(log)
    assert _arrivals(out) == [0, 100, 150, 200, 250, 850]
    assert "3 records in 150 ms; 2 records after it moved by -150 ms" in out.incidents[0]
    slow = burst(factor=0.5, at=100, duration=300).apply(log)
    assert _arrivals(slow) == [0, 100, 300, 500, 700, 1300]


def test_clock_skew_by_partition_or_key():
    log = _log([0, 10, 20, 30], [0, 1, 0, 1], event=[0, 10, 20, 30], key=["a", "b", "b", "a"])
    by_part = clock_skew(partition=1, offset="-5s").apply(log)
    assert by_part.table["event_time"].tolist() == [0, -4990, 20, -4970]
    assert _arrivals(by_part) == _arrivals(log)
    by_key = clock_skew(key="b", offset="1min").apply(log)
    assert by_key.table["event_time"].tolist() == [0, 60_010, 60_020, 30]
    assert by_key.incidents == ["key b's clock ran 1 min ahead (2 records with event times shifted by +1 min)"]
    assert clock_skew(key="nobody", offset="1s").apply(log).table.equals(log.table)


def test_late_upload_is_seeded_and_independent_of_table_order():
    log = _log(np.arange(0, 10_000, 1000), [0, 1] * 5)
    a = late_upload(fraction=0.5, delay="1s", seed=3).apply(log)
    late = a.table["arrival_time"].to_numpy() - log.table["arrival_time"].to_numpy()
    assert sorted(late.tolist()) == [0] * 5 + [1000] * 5
    assert a.table.equals(late_upload(fraction=0.5, delay="1s", seed=3).apply(log).table)
    others = {tuple(late_upload(fraction=0.5, delay="1s", seed=s).apply(log).table["arrival_time"]) for s in range(6)}
    assert len(others) > 1
    shuffled = toolkit.EventLog(log.table.iloc[::-1].reset_index(drop=True), log.quarantine)
    b = late_upload(fraction=0.5, delay="1s", seed=3).apply(shuffled)
    pd.testing.assert_frame_equal(b.table.sort_values("row").reset_index(drop=True), a.table)
    exp = late_upload(fraction=1, delay="exponential:1min", seed=1).apply(log)
    assert (exp.table["arrival_time"] >= log.table["arrival_time"]).all()
    uni = late_upload(fraction=1, delay="uniform:1s..2s", seed=1).apply(log)
    d = uni.table["arrival_time"] - log.table["arrival_time"]
    assert d.between(1000, 2000).all()


def test_times_count_from_the_first_arrival():
    log = _log([1_700_000_000_000 + x for x in (0, 1000, 2000)], [0, 0, 0])
    out = stall(partition=0, at="1s", duration="1s", drain="1/s").apply(log)
    assert _arrivals(out) == [1_700_000_000_000, 1_700_000_002_000, 1_700_000_003_000]


def test_named_partitions_are_matched_by_name():
    frame = pd.DataFrame({"event_time": [0, 1, 2], "arrival_time": [0, 1, 2], "partition": ["eu", "us", "eu"]})
    log = toolkit.load_log(frame)
    out = stall(partition="us", at=0, duration=10, drain=1).apply(log)
    assert _arrivals(out) == [0, 10, 2]
    assert out.incidents[0].startswith("partition us stalled")
    with pytest.raises(SettingError, match=r"partition 1 is not in the log \(partitions: eu, us\)"):
        stall(partition=1, at=0, duration=10, drain=1).apply(log)


def test_logs_without_arrival_times_and_spark_logs():
    log = toolkit.EventLog.from_arrays([0, 1, 2], partition=[0, 0, 1])
    with pytest.raises(SettingError, match="stall: this log has no arrival times") as e:
        stall(partition=0, at=0, duration=1, drain=1).apply(log)
    assert e.value.setting == "stall"
    assert clock_skew(partition=1, offset=5).apply(log).table["event_time"].tolist() == [0, 1, 7]
    spark_like = toolkit.EventLog(None, log.quarantine, spark_df=object(), n_records=3, has_arrival_time=True)
    with pytest.raises(ValueError, match=r"Spark-backed .* toolkit\.incidents\.collect\(log\)"):
        burst(2, 0, 10).apply(spark_like)
    assert collect(log) is log


def test_order_of_composition_matters():
    log = _log([0, 100, 200, 300], [0, 0, 0, 0])
    s = stall(partition=0, at=100, duration=100, drain="1000/s")  # 100 -> 200, 200 -> 201
    q = silence(partition=0, at=200, duration=50)
    assert (s + q).apply(log).table["row"].tolist() == [0, 3]
    assert (q + s).apply(log).table["row"].tolist() == [0, 1, 3]
    assert _arrivals((q + s).apply(log)) == [0, 200, 300]
    assert len((s + q).apply(log).incidents) == 2


def test_collect_brings_a_spark_backed_log_to_pandas_keeping_what_it_knows():
    log = _log([0, 100, 200], [0, 1, 0])
    spark_like = toolkit.EventLog(None, log.quarantine, spark_df=object(), n_records=3, has_arrival_time=True,
                                  source="parts/")
    spark_like.to_pandas = lambda limit=None: log.table.iloc[::-1]  # what Spark would collect, any order
    local = collect(spark_like)
    assert not local.is_spark and local.source == "parts/"
    pd.testing.assert_frame_equal(local.table, log.table)
    assert _arrivals(stall(partition=1, at=0, duration=150, drain=1).apply(local)) == [0, 150, 200]


def test_words_without_a_log():
    s = stall(partition=2, at="1min", duration="2min", drain="500/s")
    r = restart(at="2min", downtime="30s", replay_from="1min", source_rate="1000/s", duplicates=True)
    assert s.describe() == "partition 2 stalled at 0:01:00 for 2 min, drained at 500 records/s"
    assert (s + r).describe() == s.describe() + "; then " + (
        "the job restarted at 0:02:00 after 30 s down, re-reading 1 min of backlog at 1,000 records/s per "
        "partition (replayed records duplicated)")
    assert late_upload(0.1, "uniform:1s..2s", 4).describe() == \
        "0.1 of the records uploaded late by a delay uniform between 1 s and 2 s (seed 4)"
