"""``semantics="beam"`` end to end: ``toolkit.replay`` gives the panes of the corpus-checked engine
(``toolkit.semantics.beam.replay.replay_beam``), its ``summary()`` is the sweep's row, and a sweep over
every engine of ``toolkit.settings.semantics_names()`` gives identical figures in one piece, in key
shards and on local Spark."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.log import EventLog
from toolkit.metrics.summary import SUMMARY_COLUMNS, check_summary
from toolkit.semantics import names as registered
from toolkit.semantics.beam.fast import fast_applies
from toolkit.semantics.beam.replay import replay_beam
from toolkit.semantics.beam.sweep import shardable
from toolkit.semantics.beam.windowing import window_spec
from toolkit.settings import Setting, SettingError, semantics_names

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def log():
    rng = np.random.default_rng(12)
    n = 500
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 8000, n))
    event = arrival - rng.choice([0, 30, 200, 900, 2500], n)
    keys = rng.choice(["k1", "k2", "k3", "k4", "k5", "k6"], n).astype(object)
    return EventLog.from_arrays(event, arrival_time=arrival, key=keys, partition=rng.integers(0, 2, n))


CONFIGS = [
    dict(window="tumbling:1s"),
    dict(window="tumbling:1s,300ms", delay="300ms", lateness="1s"),
    dict(window="sliding:1s/500ms", beam_trigger="after_watermark(early=count:3,late=count:1)", lateness="2s",
         accumulation="discarding"),
    dict(window="session:400ms", beam_trigger="after_watermark(late=count:1)", lateness="1s", delay="200ms"),
    dict(window="tumbling:2s", beam_trigger="repeatedly(after_count:4)", timestamp_combiner="earliest"),
    dict(window="session:300ms", beam_trigger="after_any(after_count:5,after_watermark)", timestamp_combiner="latest",
         accumulation="discarding", lateness="500ms"),
    dict(window="tumbling:1s", beam_trigger="after_watermark(early=processing:1s,late=count:2)", lateness="1s",
         delay="100ms", interval="0ms"),
    dict(window="tumbling:1s", beam_trigger="repeatedly(after_processing_time:1s)", idleness="1s"),
]


def _same(a, b) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)) or (
        isinstance(a, float) and abs(a - b) < 1e-9)


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: " ".join(f"{k}={v}" for k, v in kw.items()))
def test_replay_gives_the_corpus_checked_engines_panes(log, kw):
    """The panes of ``replay(semantics="beam")`` are those of ``replay_beam`` (the driver checked
    against the 652 real-Beam cases) on the same records and watermark; only the emission time of
    a processing-time pane differs: the replay fires a timer at its own time, ``replay_beam`` at
    the next event."""
    r = toolkit.replay(log, semantics="beam", **kw)
    s = r.setting
    if s.source_parallelism != 1 or s.idleness is not None or s.interval == 0 or log.table["partition"].nunique() > 1:
        one = EventLog.from_arrays(log.table["event_time"], arrival_time=log.table["arrival_time"],
                                   key=log.table["key"], value=log.table["value"])
        r = toolkit.replay(one, semantics="beam", **kw)
        t = one.table
    else:
        t = log.table
    ref = replay_beam(t["event_time"], t["arrival_time"], t["key"], t["value"], window=window_spec(s),
                      trigger=s.beam_trigger.to_spec(), allowed_lateness=s.lateness, accumulation=s.accumulation,
                      timestamp_combiner=s.timestamp_combiner, strategy=s.watermark_strategy(), interval=s.interval)
    cols = ["key", "window_start", "window_end", "timestamp", "pane", "nonspeculative_index", "is_first", "is_last",
            "count", "sum"]
    mine = r.emissions.rename(columns={"beam_timing": "beam"})[cols + ["beam"]].astype(str)
    theirs = ref.emissions.rename(columns={"timing": "beam"})[cols + ["beam"]].astype(str)
    for k in sorted(set(mine["key"])):
        a = mine[mine["key"] == k].reset_index(drop=True)
        b = theirs[theirs["key"] == k].reset_index(drop=True)
        pd.testing.assert_frame_equal(a, b)
    assert (r.fates["fate"].to_numpy() == ref.fates["fate"].to_numpy()[np.argsort(np.argsort(t["row"].to_numpy()))]).all() or \
        sorted(r.fates["fate"]) == sorted(ref.fates["fate"])
    assert r.summary()["stalled"] == ref.stalled


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: " ".join(f"{k}={v}" for k, v in kw.items()))
def test_summary_is_the_sweep_row_in_one_piece_and_in_key_shards(log, kw):
    r = toolkit.replay(log, semantics="beam", **kw)
    sm = r.summary()
    one = toolkit.sweep(log, [r.setting], progress=False)
    three = toolkit.sweep(log, [r.setting], shards=3, progress=False)
    step = toolkit.sweep(log, [r.setting], shards=2, path="engine", progress=False)
    check_summary(one)
    for c in SUMMARY_COLUMNS:
        assert _same(sm[c], one.iloc[0][c]), c
        assert _same(one.iloc[0][c], three.iloc[0][c]), c
        assert _same(one.iloc[0][c], step.iloc[0][c]), c
    assert one.iloc[0]["path"] == ("fast" if fast_applies(r.setting) else "beam")
    assert step.iloc[0]["path"] == "beam"
    assert sm["records"] == sm["on_time"] + sm["late_accepted"] + sm["dropped"] + sm["invalid"]
    f = r.fates["fate"].value_counts()
    assert (f.get("on_time", 0), f.get("dropped", 0)) == (sm["on_time"], sm["dropped"])
    assert sm["firings"] == len(r.emissions)
    assert sm["late_firings"] == int((r.emissions["beam_timing"] == "LATE").sum())
    assert sm["early_panes"] + sm["on_time_panes"] + sm["late_panes"] == sm["firings"]


def test_emissions_carry_beams_pane_info_and_the_common_columns(log):
    r = toolkit.replay(log, semantics="beam", window="tumbling:1s",
                       beam_trigger="after_watermark(early=count:3,late=count:1)", lateness="2s")
    em = r.emissions
    for c in ("key", "window_start", "window_end", "max_timestamp", "pane", "timing", "kind", "count", "sum", "value",
              "watermark", "emit_time", "at_end", "beam_timing", "is_first", "is_last", "nonspeculative_index",
              "timestamp"):
        assert c in em.columns, c
    assert set(em["beam_timing"]) <= {"EARLY", "ON_TIME", "LATE"}
    assert set(em["timing"]) <= {"early", "on_time", "late", "at_end"}
    assert (em.loc[em["beam_timing"] == "EARLY", "nonspeculative_index"] == -1).all()
    assert (em["is_first"] == (em["pane"] == 0)).all()
    assert (em.loc[~em["at_end"], "emit_time"].astype("int64") >= log.table["arrival_time"].min()).all()
    # a dropped record is listed with Beam's watermark at its arrival and why
    late = r.late
    assert set(late["reason"]) <= {"expired", "finished", "never_fired"}
    assert len(late) == int((r.fates["fate"] == "dropped").sum())
    exp = late[late["reason"] == "expired"]
    assert (exp["watermark"] > 0).all()


def test_shardable_configurations():
    assert shardable(Setting.parse(semantics="beam", beam_trigger="after_watermark(early=count:2)"))
    assert not shardable(Setting.parse(semantics="beam", timestamp_combiner="earliest"))
    assert not shardable(Setting.parse(semantics="beam", beam_trigger="repeatedly(after_count:2)"))
    assert not shardable(Setting.parse(semantics="beam", window="session:1s"))
    assert not shardable(Setting.parse(semantics="beam", beam_trigger="after_watermark(early=processing:1s)"))


def test_the_key_independence_guard_catches_a_session_whose_hold_lags(log):
    """Why sessions are evaluated in one piece: a merged session's hold lags the input watermark
    (the guard ``drive(check_independent=True)`` raises on this log)."""
    from toolkit.fast.evaluate import Shard
    from toolkit.semantics.beam.figures import drive
    from toolkit.sweeps.timelines import build_timelines, local_sources

    s = Setting.parse(semantics="beam", window="session:400ms", beam_trigger="after_watermark(late=count:1)",
                      lateness="1s", delay="200ms")
    tl = build_timelines([s], local_sources(log.table))[0]
    t = log.table
    sh = Shard(t["key"], t["event_time"], t["arrival_time"], t["row"])
    with pytest.raises(RuntimeError, match="not independent"):
        drive(sh.keys[sh.key_code], sh.ts, sh.arrival, sh.row, s, tl, check_independent=True)


def test_flink_only_explanations_refuse_beam(log):
    r = toolkit.replay(log, semantics="beam")
    with pytest.raises(SettingError, match="semantics='beam'"):
        r.drops()


def test_a_log_without_arrival_times_is_refused_naming_semantics():
    lg = EventLog.from_arrays(np.arange(10) * 100, key=["a"] * 10)
    with pytest.raises(SettingError) as e:
        toolkit.replay(lg, semantics="beam")
    assert e.value.setting == "semantics" and "arrival" in str(e.value)


# -- one sweep over every engine: in one piece == key shards == local Spark -----------------------

GRID = dict(semantics=list(semantics_names()), window=["tumbling:1s", "session:400ms"], delay=[0, 300], lateness=[0, 1000],
            beam_trigger=["default", "after_watermark(early=count:4,late=count:1)", "repeatedly(after_count:3)"])


def _diff(a: pd.DataFrame, b: pd.DataFrame) -> list:
    assert len(a) == len(b)
    return [(i, k, a.loc[i, k], b.loc[i, k]) for i in range(len(a)) for k in SUMMARY_COLUMNS if not _same(a.loc[i, k], b.loc[i, k])]


@pytest.fixture(scope="module")
def whole(log):
    return toolkit.sweep(log, execution="local", progress=False, **GRID)


def test_every_engine_is_a_row_of_one_sweep(whole):
    assert list(dict.fromkeys(whole["semantics"])) == list(semantics_names())
    assert "beam" in registered()
    check_summary(whole)
    beam = whole[whole["semantics"] == "beam"]
    assert len(beam) == 2 * 2 * 2 * 3
    fast = (beam["beam_trigger"] == "default") & beam["window"].str.startswith("tumbling")
    assert set(beam.loc[fast, "path"]) == {"fast"} and set(beam.loc[~fast, "path"]) == {"beam"}


def test_one_sweep_over_every_engine_in_key_shards_equals_one_piece(log, whole):
    three = toolkit.sweep(log, execution="local", shards=3, progress=False, **GRID)
    assert not _diff(whole, three)


#: on Spark a smaller grid (every configuration costs a Python evaluation per shard)
SPARK_GRID = dict(GRID, window="tumbling:1s", lateness=1000)


@pytest.mark.spark
def test_one_sweep_over_every_engine_on_spark_equals_one_piece(log, spark):
    one = toolkit.sweep(log, execution="local", progress=False, **SPARK_GRID)
    on_spark = toolkit.sweep(log, execution="spark", spark=spark, shards=3, progress=False, **SPARK_GRID)
    assert list(dict.fromkeys(on_spark["semantics"])) == list(semantics_names())
    assert not _diff(one, on_spark)


def test_cli_replay_semantics_beam(tmp_path, log):
    path = tmp_path / "log.csv"
    log.table[["event_time", "arrival_time", "key", "partition", "value"]].to_csv(path, index=False)
    out = subprocess.run([sys.executable, "-m", "toolkit", "replay", str(path), "--semantics", "beam", "--window", "tumbling:1s",
                          "--beam-trigger", "after_watermark(early=count:3,late=count:1)", "--lateness", "1s",
                          "--timestamp-combiner", "end_of_window", "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, cwd=tmp_path, env=_env())
    assert out.returncode == 0, out.stderr
    assert "semantics=beam beam_trigger=after_watermark(early=after_count:3,late=after_count:1)" in out.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["records"] == len(log.table) and "stalled" in summary
    em = pd.read_csv(tmp_path / "out" / "emissions.csv")
    assert {"beam_timing", "nonspeculative_index", "is_last"} <= set(em.columns)
    bad = subprocess.run([sys.executable, "-m", "toolkit", "replay", str(path), "--semantics", "beam", "--trigger", "count:3"],
                         capture_output=True, text=True, cwd=tmp_path, env=_env())
    assert bad.returncode != 0 and "--trigger is not a Beam setting" in bad.stderr


def _env():
    import os

    return {**os.environ, "PYTHONPATH": str(REPO)}
