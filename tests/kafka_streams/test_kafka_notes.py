"""Kafka Streams with ``emit="update"``: a window's first result is partial by design with the record
cache off (Kafka forwards it at the window's first record), leaves at a commit with the cache on, and
the result says so (``toolkit.settings.result_notes``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

import toolkit
from toolkit.cli import main
from toolkit.semantics.kafka_streams import (
    CACHED_UPDATE_NOTE,
    UPDATE_FIRST_RESULT_NOTE as KAFKA_UPDATE_FIRST_RESULT_NOTE,
)
from toolkit.settings import Setting, describe_setting, result_notes

BASE = 1_700_000_000_000


def _log():
    rng = np.random.default_rng(3)
    arrival = BASE + np.sort(rng.integers(0, 20_000, 1000))
    return pd.DataFrame({"event_time": arrival - rng.choice([0, 200], 1000), "arrival_time": arrival,
                         "key": rng.choice(["a", "b"], 1000), "partition": 0})


def test_update_first_results_are_partial_and_the_summary_says_so():
    log = toolkit.load_log(_log(), time_unit="ms")
    upd = toolkit.replay(log, semantics="kafka_streams", window="tumbling:2s", grace="1s", cache_max_bytes=0).summary()
    fin = toolkit.replay(log, semantics="kafka_streams", window="tumbling:2s", grace="1s", emit="final").summary()
    # ~50 records per 2 s window and key: the first update holds one record of each window
    assert upd["completeness_first"] < 0.1 and upd["completeness_final"] == 1.0
    assert fin["completeness_first"] == 1.0
    assert upd["notes"] == [KAFKA_UPDATE_FIRST_RESULT_NOTE] and fin["notes"] == []
    assert "completeness_first" in upd["notes"][0] and upd["settings"]["notes"] == upd["notes"]


def test_with_the_cache_on_first_results_wait_for_a_commit_and_the_summary_says_so():
    log = toolkit.load_log(_log(), time_unit="ms")
    upd = toolkit.replay(log, semantics="kafka_streams", window="tumbling:2s", grace="1s",
                         commit_interval="5s").summary()
    off = toolkit.replay(log, semantics="kafka_streams", window="tumbling:2s", grace="1s", cache_max_bytes=0).summary()
    assert upd["updates"] < off["updates"] / 10 and upd["completeness_first"] > 0.5
    assert upd["latency_p50_ms"] > off["latency_p50_ms"]
    assert upd["notes"] == [CACHED_UPDATE_NOTE]


def test_result_notes_per_setting():
    assert result_notes(Setting.parse(semantics="kafka_streams")) == [CACHED_UPDATE_NOTE]
    assert result_notes(Setting.parse(semantics="kafka_streams", cache_max_bytes=0)) == [KAFKA_UPDATE_FIRST_RESULT_NOTE]
    for s in (Setting.parse(semantics="kafka_streams", emit="suppress"), Setting.parse(), Setting.parse(semantics="spark")):
        assert result_notes(s) == [] and "notes" not in describe_setting(s)
    assert describe_setting(Setting.parse(semantics="kafka_streams", cache_max_bytes="0"))["notes"] == \
        [KAFKA_UPDATE_FIRST_RESULT_NOTE]


def test_cli_replay_prints_the_note(tmp_path, capsys):
    p = tmp_path / "log.csv"
    _log().to_csv(p, index=False)
    assert main(["replay", str(p), "--semantics", "kafka_streams", "--window", "tumbling:2s", "--cache-max-bytes", "0"]) == 0
    assert "note: emit=update: Kafka Streams forwards a window's first result" in capsys.readouterr().out
