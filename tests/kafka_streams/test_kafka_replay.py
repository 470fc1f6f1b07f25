"""``semantics="kafka_streams"`` end to end: settings, ``toolkit.replay``, ``toolkit.sweep``, the CLI
and ``toolkit.deploy`` (``toolkit.semantics.kafka_streams.replay``). The engine itself is checked against
Kafka's own unit tests in the other files of this folder; here: the replay is the engine's result,
a sweep row is the replay's summary whatever the sharding, and the settings behave."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.cli import main
from toolkit.engine.kafka_streams import Emit, run_windowed_aggregation, tasks_for_keys
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.semantics.kafka_streams.fast import fast_applies
from toolkit.semantics.kafka_streams.figures import (
    ENGINE_EMIT,
    cache_config,
    combine,
    evaluate_task,
    kafka_windows,
    shard_key,
    table_arrays,
)
from toolkit.semantics.kafka_streams.sweep import sweep_figures
from toolkit.settings import KafkaSliding, Setting, SettingError, grid

BASE = 1_700_000_000_000


def _frame(n=300, seed=1, keys=("a", "b", "c", "d"), parts=3, span=30_000, lag=(0, 100, 700, 3_000)):
    rng = np.random.default_rng(seed)
    arrival = BASE + np.sort(rng.integers(0, span, n))
    event = arrival - rng.choice(lag, n)
    return pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": rng.choice(list(keys), n),
                         "partition": rng.integers(0, parts, n), "value": rng.integers(1, 10, n)})


def _log(**kw):
    return toolkit.load_log(_frame(**kw), time_unit="ms")


WINDOWS = ["tumbling:2s", "sliding:4s/1s", "kafka_sliding:1s", "session:1500ms"]


# ------------------------------------------------------------------------------------ settings
def test_settings_in_kafkas_vocabulary_round_trip():
    s = Setting.parse(semantics="kafka_streams", window="kafka_sliding:1s", grace="2s", tasks=4, emit="final")
    assert s.window == KafkaSliding(1000) and s.grace == 2000 and s.tasks == 4 and s.emit == "final"
    assert s.repartition is True  # the default: hash the key through a repartition topic
    assert Setting.parse(str(s)) == s and Setting.from_row(s.row()) == s
    d = Setting.parse(semantics="kafka", emit="on_window_close")  # aliases
    assert d.semantics == "kafka_streams" and d.emit == "final" and d.grace == 0 and d.tasks is None
    assert Setting.parse(semantics="kafka_streams", emit="suppress").replace(semantics="flink") == Setting()


@pytest.mark.parametrize("kw, name, words", [
    (dict(semantics="kafka_streams", delay="1s"), "delay", "use grace"),
    (dict(semantics="kafka_streams", lateness="1s"), "lateness", "grace"),
    (dict(semantics="kafka_streams", strategy="legacy"), "strategy", "not a Kafka Streams setting"),
    (dict(semantics="kafka_streams", trigger="count:3"), "trigger", "emit="),
    (dict(semantics="kafka_streams", output_mode="update"), "output_mode", "not a Kafka Streams setting"),
    (dict(semantics="kafka_streams", window="tumbling:1s,100ms"), "window", "no offset"),
    (dict(semantics="kafka_streams", window="sliding:1s/2s"), "window", "advance"),
    (dict(semantics="kafka_streams", window="global_eos"), "window", "UnlimitedWindows"),
    (dict(semantics="kafka_streams", emit="fnal"), "emit", "did you mean 'final'"),
    (dict(semantics="kafka_streams", tasks=0), "tasks", ">= 1"),
    (dict(semantics="kafka_streams", grace="-1s"), "grace", "negative"),
    (dict(grace="1s"), "grace", "semantics='kafka_streams'"),
    (dict(semantics="spark", tasks=2), "tasks", "Kafka Streams setting"),
    (dict(window="kafka_sliding:1s"), "window", "SlidingWindows"),
])
def test_settings_of_other_engines_are_refused_by_name(kw, name, words):
    with pytest.raises(SettingError) as e:
        Setting.parse(**kw)
    assert e.value.setting == name and words in str(e.value)


def test_a_grid_over_semantics_gives_each_engine_its_own_settings():
    g = grid(semantics=["flink", "kafka_streams"], delay=["0", "1s"], grace=["0", "1s"],
             window=["tumbling:1s", "kafka_sliding:1s"])
    flink = [s for s in g if s.semantics == "flink"]
    kafka = [s for s in g if s.semantics == "kafka_streams"]
    assert len(flink) == 2 and all(s.grace is None and s.window == Setting().window for s in flink)
    assert len(kafka) == 4 and all(s.delay == 0 for s in kafka)


# ------------------------------------------------------------------------------- replay == engine
@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("emit, cache", [("update", 0), ("update", "10MB"), ("update", "300B"), ("final", 0),
                                         ("suppress", 0), ("suppress", "10MB")])
def test_replay_is_the_engines_own_result(window, emit, cache):
    log = _log()
    r = toolkit.replay(log, semantics="kafka_streams", window=window, grace="500ms", emit=emit, tasks=2,
                       cache_max_bytes=cache, commit_interval="3s")
    t = log.table.sort_values(["arrival_time", "row"], kind="stable")
    keys = t["key"].to_numpy(object)
    s = r.setting
    eng = run_windowed_aggregation(keys, t["event_time"].to_numpy(np.int64), t["value"].to_numpy(float),
                                   t["arrival_time"].to_numpy(np.int64), windows=kafka_windows(s),
                                   emit=Emit(ENGINE_EMIT[emit]), tasks=2, assign="key", cache=cache_config(s))
    em = r.emissions
    got = sorted(zip(em["key"], em["window_start"].astype(int), em["kafka_window_end"], em["kafka_kind"],
                     em["count"].fillna(0).astype(int), em["task"]))
    e = eng.emissions
    want = sorted(zip(e["key"], e["window_start"], e["window_end"], e["kind"], e["count"], e["task"]))
    assert got == want
    # window_end is exclusive as Flink's: Kafka's end + 1 for windows Kafka closes inclusively
    off = 1 if window.startswith(("kafka_sliding", "session")) else 0
    assert (em["window_end"].astype(int) - em["kafka_window_end"] == off).all()
    assert (em["max_timestamp"] == em["window_end"].astype(int) - 1).all()
    # fates: dropped = Kafka skipped the record in every window
    dropped = set(t["row"].to_numpy()[eng.accepted_windows == 0])
    assert set(r.fates.loc[r.fates["fate"] == "dropped", "row"]) == dropped == set(r.late["row"].astype(int))
    sm = r.summary()
    assert sm["dropped_records_sensor"] == eng.dropped_records_total
    assert sm["on_time"] + sm["late_accepted"] + sm["dropped"] + sm["invalid"] == sm["records"] == len(log.table)
    assert sm["tasks"] == 2 and "windowedBy" in sm["deployable"]
    # the key -> task mapping is Kafka's murmur2 partitioner
    task_of = dict(zip(keys, tasks_for_keys(keys, 2)))
    assert all(task_of[k] == tk for k, tk in zip(em["key"], em["task"]))


def test_replay_has_the_flink_replays_columns():
    log = _log()
    k = toolkit.replay(log, semantics="kafka_streams", window="tumbling:2s", grace="1s", cache_max_bytes=0)
    f = toolkit.replay(log, window="tumbling:2s", delay="1s")
    assert list(k.emissions.columns)[:len(f.emissions.columns)] == list(f.emissions.columns)
    assert list(k.fates.columns) == list(f.fates.columns)
    assert set(f.summary()) <= set(k.summary())
    assert set(k.emissions["kind"]) == {"fire"} and set(k.emissions["timing"]) <= {"early", "late"}
    assert (k.state["open_windows"] >= 0).all() and (k.state["buffered_records"] >= 0).all()
    w = k.watermarks
    assert set(w["level"]) == {"task"}
    for _, g in w.groupby("id"):  # stream time never goes back
        assert g["watermark"].astype(int).is_monotonic_increasing


def test_fates_late_accepted_is_what_grace_alone_kept():
    log = _log(seed=4)
    no_grace = toolkit.replay(log, semantics="kafka_streams", window="tumbling:2s", cache_max_bytes=0)
    grace = toolkit.replay(log, semantics="kafka_streams", window="tumbling:2s", grace="10s", cache_max_bytes=0)
    assert no_grace.summary()["late_accepted"] == 0
    a, b = no_grace.summary(), grace.summary()
    assert b["dropped"] == 0 and b["late_accepted"] == a["dropped"] > 0
    assert b["late_firings"] == b["late_accepted"]  # tumbling: one late update per late record


def test_session_merges_are_retractions_and_state_stays_non_negative():
    r = toolkit.replay(_log(seed=5), semantics="kafka_streams", window="session:1500ms", grace="2s", cache_max_bytes=0)
    em = r.emissions
    assert (em["kind"] == "retract").sum() == r.summary()["retractions"] > 0
    assert em.loc[em["kind"] == "retract", "count"].isna().all()
    assert (r.state["open_windows"] >= 0).all() and (r.state["buffered_records"] >= 0).all()


def test_co_partitioned_input():
    df = _frame(seed=6)
    df["partition"] = df["key"].map({"a": 0, "b": 1, "c": 1, "d": 2})
    log = toolkit.load_log(df, time_unit="ms")
    r = toolkit.replay(log, semantics="kafka_streams", repartition=False)
    t = log.table.set_index("row")
    assert (r.emissions["task"].to_numpy() == t.loc[:, "partition"].groupby(t["key"]).first()
            .loc[r.emissions["key"]].to_numpy()).all()
    assert r.summary()["tasks"] == 3
    for emit in ("update", "final"):  # a sweep row is the replay's summary here too
        row = toolkit.sweep(log, semantics="kafka_streams", repartition=False, emit=emit).iloc[0]
        sm = toolkit.replay(log, semantics="kafka_streams", repartition=False, emit=emit).summary()
        assert all(_close(sm[c], row[c]) for c in SUMMARY_COLUMNS) and row["repartition"] == "false"
    with pytest.raises(SettingError, match="co-partitioned") as e:
        toolkit.replay(_log(seed=6), semantics="kafka_streams", repartition=False)
    assert e.value.setting == "repartition"
    with pytest.raises(SettingError, match="fewer than"):
        toolkit.replay(log, semantics="kafka_streams", repartition=False, tasks=2)


def test_a_log_without_arrival_times_is_refused():
    df = _frame().drop(columns=["arrival_time"])
    log = toolkit.load_log(df, time_unit="ms", arrival_time=None)
    with pytest.raises(SettingError, match="arrival"):
        toolkit.replay(log, semantics="kafka_streams")


# ------------------------------------------------------------------------------- sweep == replay
def _close(a, b):
    if isinstance(a, float) and np.isnan(a):
        return isinstance(b, float) and np.isnan(b)
    return a == pytest.approx(b, rel=1e-12, abs=1e-9)


SETTINGS = st.builds(
    lambda w, g, e, t: Setting.parse(semantics="kafka_streams", window=w, grace=g, emit=e, tasks=t),
    st.sampled_from(["tumbling:1s", "tumbling:3s", "sliding:3s/1s", "kafka_sliding:700ms", "session:800ms"]),
    st.sampled_from([0, 100, 1000, 5000]), st.sampled_from(["update", "final", "suppress"]), st.sampled_from([None, 1, 3, 5]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SETTINGS, st.integers(0, 10_000), st.integers(20, 120))
def test_sweep_row_equals_the_replay_summary(s, seed, n):
    log = _log(n=n, seed=seed, span=10_000)
    row = toolkit.sweep(log, [s]).iloc[0]
    assert row["path"] == ("fast" if fast_applies(s) else "kafka_streams")  # TimeWindows: the fast path
    sm = toolkit.replay(log, s).summary()
    for k in SUMMARY_COLUMNS:
        assert _close(sm[k], row[k]), (k, sm[k], row[k])


@settings(max_examples=25, deadline=None)
@given(SETTINGS, st.integers(0, 10_000), st.randoms(use_true_random=False))
def test_any_grouping_of_whole_tasks_combines_to_the_same_figures(s, seed, rnd):
    """The shard contract: ``shard_key`` -> ``evaluate_task`` per group of tasks -> ``combine``."""
    table = _log(n=80, seed=seed, span=8_000).table
    a = table_arrays(table)
    task, n_tasks = shard_key(a, s)
    pos = np.arange(len(task))
    end = int(a["arr"][-1])
    group = {t: rnd.randrange(3) for t in range(n_tasks)}
    gid = np.array([group[t] for t in task])
    parts = []
    for g in np.unique(gid):
        sel = np.flatnonzero(gid == g)
        parts.append(evaluate_task({k: (v[sel] if isinstance(v, np.ndarray) else v) for k, v in a.items()},
                                   pos[sel], task[sel], n_tasks, s, end))
    got = combine(parts)
    want = sweep_figures(table, s)
    for k in SUMMARY_COLUMNS:
        assert _close(got[k], want[k]), k


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(WINDOWS), st.integers(0, 3000), st.integers(0, 3000), st.sampled_from([1, 2, 4]),
       st.integers(0, 1000))
def test_more_grace_never_drops_more(window, g1, g2, tasks, seed):
    log = _log(n=60, seed=seed, span=8_000)
    lo, hi = sorted((g1, g2))
    d = [toolkit.replay(log, semantics="kafka_streams", window=window, grace=g, tasks=tasks).summary()
         for g in (lo, hi)]
    assert d[1]["dropped"] <= d[0]["dropped"]
    if window.startswith(("tumbling", "sliding")):  # fixed windows per record: the sensor too
        assert d[1]["dropped_records_sensor"] <= d[0]["dropped_records_sensor"]
    # (sliding and session windows: more grace keeps more windows, which a later record can then
    # be skipped by, one sensor count each: the sensor may grow while fewer records are dropped)


def test_sweep_over_three_semantics():
    log = _log()
    df = toolkit.sweep(log, semantics=["flink", "kafka_streams", "spark"], delay=["0", "1s"], grace=["0", "1s"],
                       emit=["update", "suppress"])
    assert df.groupby("semantics")["path"].first().to_dict() == {"flink": "fast", "kafka_streams": "fast",
                                                                 "spark": "microbatch"}
    k = df[df["semantics"] == "kafka_streams"]
    assert len(k) == 4 and k["grace_ms"].tolist() == [0, 0, 1000, 1000]
    assert df.loc[df["semantics"] != "kafka_streams", "grace_ms"].isna().all()
    # the recommendation's setting deploys in Kafka Streams
    best = toolkit.deploy(Setting.from_row(k.iloc[-1]), engine="kafka-streams")
    assert ".suppress(Suppressed.untilWindowCloses" in best.code


# ------------------------------------------------------------------------------------------ deploy
def test_deploy_writes_the_kafka_streams_topology():
    d = toolkit.deploy(semantics="kafka_streams", window="sliding:10s/5s", grace="2s", tasks=4, emit="final",
                       engine="kafka-streams")
    assert d.language == "java" and d.exact
    for part in ("Repartitioned.<String, Event>numberOfPartitions(4)", ".groupByKey(",
                 "TimeWindows.ofSizeAndGrace(Duration.ofSeconds(10), Duration.ofSeconds(2)).advanceBy(Duration.ofSeconds(5))",
                 ".emitStrategy(EmitStrategy.onWindowClose())", ".withCachingDisabled()",
                 "disables the aggregation's record cache", "TimestampExtractor"):
        assert part in d.code, part
    off = toolkit.deploy(semantics="kafka_streams", window="tumbling:10s", cache_max_bytes=0, engine="kafka-streams").code
    assert "STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L" in off and ".withCachingDisabled()" in off
    on = toolkit.deploy(semantics="kafka_streams", window="tumbling:10s", cache_max_bytes="1MB", commit_interval="5s",
                        engine="kafka-streams").code
    assert "STATESTORE_CACHE_MAX_BYTES_CONFIG, 1048576L" in on and "COMMIT_INTERVAL_MS_CONFIG, 5000L" in on
    assert ".withCachingDisabled()" not in on
    fin = toolkit.deploy(semantics="kafka_streams", window="tumbling:10s", emit="final", emit_interval="5s",
                         engine="kafka-streams").code
    assert '"__emit.interval.ms.kstreams.windowed.aggregation__", 5000L' in fin
    s = toolkit.deploy(semantics="kafka_streams", window="session:30s", emit="suppress", repartition=False,
                       engine="kafka-streams").code
    assert "SessionWindows.ofInactivityGapWithNoGrace(Duration.ofSeconds(30))" in s and "left.merge(right)" in s
    assert ".repartition(" not in s and "Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded())" in s
    k = toolkit.deploy(semantics="kafka_streams", window="kafka_sliding:500ms", grace="1s", engine="kafka-streams").code
    assert "SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(500), Duration.ofSeconds(1))" in k
    with pytest.raises(SettingError, match="kafka-streams"):
        toolkit.deploy(semantics="kafka_streams", engine="flink")
    with pytest.raises(SettingError):
        toolkit.deploy(Setting(), engine="kafka-streams")


# --------------------------------------------------------------------------------------------- CLI
def _csv(tmp_path: Path) -> Path:
    p = tmp_path / "log.csv"
    _frame().to_csv(p, index=False)
    return p


def test_cli_replay_sweep_and_deploy(tmp_path, capsys):
    p = _csv(tmp_path)
    assert main(["replay", str(p), "--semantics", "kafka_streams", "--grace", "2s", "--tasks", "4",
                 "--window", "session:1500ms", "--emit", "final", "--json", "--out", str(tmp_path / "o")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tasks"] == 4 and out["records"] == 300
    em = pd.read_csv(tmp_path / "o" / "emissions.csv")
    assert len(em) == out["firings"] + out["retractions"]
    assert main(["replay", str(p), "--semantics", "kafka_streams", "--grace", "1s"]) == 0
    text = capsys.readouterr().out
    assert "dropped-records sensor" in text and "semantics=kafka_streams" in text
    assert main(["sweep", str(p), "--semantics", "kafka_streams", "--grace", "0,1s", "--emit", "update,final",
                 "--out", str(tmp_path / "s.csv")]) == 0
    capsys.readouterr()
    rows = pd.read_csv(tmp_path / "s.csv")
    assert len(rows) == 4 and set(rows["path"]) == {"fast"}  # tumbling windows: the fast path
    assert main(["deploy", "--semantics", "kafka_streams", "--grace", "1s"]) == 0
    assert "TimeWindows.ofSizeAndGrace(Duration.ofSeconds(1), Duration.ofSeconds(1))" in capsys.readouterr().out


@pytest.mark.parametrize("args, words", [
    (["--semantics", "kafka_streams", "--delay", "1s"], "--delay is not a Kafka Streams setting"),
    (["--grace", "1s"], "--grace is a Kafka Streams setting"),
    (["--semantics", "kafka_streams", "--emit", "fnal"], "--emit"),
    (["--semantics", "kafka_streams", "--tasks", "x"], "--tasks"),
    (["--semantics", "kafka_streams", "--repartition", "maybe"], "--repartition"),
])
def test_cli_bad_settings_name_the_option(tmp_path, capsys, args, words):
    assert main(["replay", str(_csv(tmp_path)), *args]) == 2
    assert words in capsys.readouterr().err


def test_recommendation_says_kafka_settings_in_words_and_deploys_them():
    log = _log(n=400, seed=8)
    df = toolkit.sweep(log, semantics=["flink", "kafka_streams"], delay=["0", "2s"], grace=["0", "2s", "5s"],
                       emit=["update", "suppress"], window="tumbling:2s", cache_max_bytes=0)
    k = df[(df["semantics"] == "kafka_streams") & (df["emit"] == "suppress")]
    rec = toolkit.recommend(k, 0.0)
    assert rec["reason"].startswith("Kafka Streams with ") and "suppress(untilWindowCloses)" in rec["reason"]
    assert list(rec["deploy"]) == ["kafka-streams"]
    assert toolkit.deploy(rec).engine == "kafka-streams"  # the default engine is the setting's own


def test_bench_kafka_streams_small(capsys):
    assert main(["bench", "kafka_streams", "--records", "3000", "--keys", "20", "--only", "update,session"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "rec-cfg/cpu-s" in lines["update"] and "same figures: yes" in lines["update"]
    assert "fast -" in lines["session"] and "replay cpu" in lines["session"]  # no fast path for sessions
