"""``window="dynamic_session:COLUMN"`` (Flink's ``withDynamicGap``, gaps from a log column) and
``stagger=`` (Flink's ``WindowStagger``) as settings, end to end: replay, sweep on both paths
(hypothesis: identical figures), per-window detail, explain, the command line, Spark sweeps,
errors that name the option."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.semantics.flink.paths import choose_paths
from toolkit.semantics.flink.window_operator import operator_kwargs
from toolkit.settings import DynamicSession, Setting, SettingError, Tumbling, grid, staggered_offset
from toolkit.sweeps.single import evaluate


@st.composite
def gap_logs(draw, max_records=40):
    n = draw(st.integers(1, max_records))
    return pd.DataFrame({
        "row": np.arange(n, dtype=np.int64),
        "event_time": np.array(draw(st.lists(st.integers(-40, 40), min_size=n, max_size=n)), dtype=np.int64),
        "arrival_time": np.array(draw(st.lists(st.integers(-20, 60), min_size=n, max_size=n)), dtype=np.int64),
        "key": np.array(draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)), dtype=object),
        "partition": np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64),
        "gap_ms": np.array(draw(st.lists(st.integers(1, 15), min_size=n, max_size=n)), dtype=np.int64),
    })


@st.composite
def watermark_settings(draw):
    s = dict(delay=draw(st.integers(0, 20)), lateness=draw(st.sampled_from([0, 0, 2, 7, 20])),
             interval=draw(st.sampled_from([0, 1, 3, 7, 15])), strategy=draw(st.sampled_from(["bounded", "legacy"])),
             idleness=draw(st.sampled_from([None, None, 2, 9])), partitions_as_sources=draw(st.booleans()),
             accumulation=draw(st.sampled_from(["accumulating", "retracting"])))
    return s


# -- settings ----------------------------------------------------------------------------------

def test_dynamic_session_spelling_round_trips_and_names_its_column():
    s = Setting.parse(window="dynamic_session:gap_ms", delay="1s")
    assert s.window == DynamicSession("gap_ms") and str(s.window) == "dynamic_session:gap_ms"
    assert Setting.parse(str(s)) == s and Setting.from_row(s.row()) == s
    assert s.window.to_dict() == {"type": "dynamic_session", "gap_field": "gap_ms"}
    assert s.log_columns == ("gap_ms",) and s.gap_column == "gap_ms"
    assert Setting.parse(strategy="punctuated", marker="flag").log_columns == ("flag",)


def test_stagger_spellings_round_trip():
    for text, canon in (("aligned", "aligned"), ("NATURAL", "natural"), ("random", "random"), ("random:0", "random"),
                        ("random:7", "random:7")):
        s = Setting.parse(window="tumbling:10s", stagger=text)
        assert s.stagger == canon and Setting.parse(str(s)) == s and Setting.from_row(s.row()) == s
    assert "stagger" not in str(Setting.parse(window="tumbling:10s"))


@pytest.mark.parametrize("given, name, message", [
    (dict(window="dynamic_session:"), "window", "name the log column"),
    (dict(window="dynamic_session:a b"), "window", "no spaces"),
    (dict(window="session:5s", stagger="natural"), "stagger", "applies to tumbling windows"),
    (dict(stagger="sometimes"), "stagger", "choose one of aligned, natural, random"),
    (dict(stagger="natural:3"), "stagger", "only random takes a seed"),
    (dict(stagger="random:x"), "stagger", "seed must be a non-negative integer"),
    (dict(window="dynamic_session:gap_ms", semantics="spark", output_mode="update"), "output_mode", "Spark refuses it"),
    (dict(window="tumbling:10s", stagger="random", semantics="spark"), "stagger", r"Spark.s window\(\) has no stagger"),
])
def test_bad_settings_name_the_option(given, name, message):
    with pytest.raises(SettingError, match=message) as e:
        Setting.parse(**given)
    assert e.value.setting == name


def test_a_stagger_axis_applies_to_the_tumbling_rows_of_a_grid():
    g = grid(window=["tumbling:1s", "session:2s"], stagger=["aligned", "natural"])
    assert [(str(s.window), s.stagger) for s in g] == [("tumbling:1s", "aligned"), ("tumbling:1s", "natural"),
                                                        ("session:2s", "aligned")]


def test_flinks_natural_stagger_numbers():
    """WindowStaggerTest / TumblingEventTimeWindowsTest#testWindowAssignmentWithStagger: NATURAL
    with size 5 s and the first element at processing time 150 gives windows [150, 5150)."""
    assert staggered_offset(Tumbling(5000), "natural", 5500) == 500
    a = operator_kwargs(Setting.parse(window="tumbling:5s", stagger="natural"))["assigner"]
    assert [(w.start, w.end) for w in a.assign_windows(1, 150, 150)] == [(150, 5150)]
    assert [(w.start, w.end) for w in a.assign_windows(1, 5300, 9999)] == [(5150, 10150)]
    r1 = operator_kwargs(Setting.parse(window="tumbling:5s", stagger="random:3"))["assigner"]
    r2 = operator_kwargs(Setting.parse(window="tumbling:5s", stagger="random:3"))["assigner"]
    assert r1.assign_windows(1, 0, 0) == r2.assign_windows(1, 0, 0)  # seeded: reproducible
    assert 0 <= staggered_offset(Tumbling(5000), "random:3", 0) < 5000


# -- sweeps: both paths identical; replays agree ------------------------------------------------

@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gap_logs(), watermark_settings())
def test_dynamic_session_sweep_fast_equals_engine(table, s):
    fast = toolkit.sweep(table, window="dynamic_session:gap_ms", path="fast", progress=False, **s)
    engine = toolkit.sweep(table, window="dynamic_session:gap_ms", path="engine", progress=False, **s)
    pd.testing.assert_frame_equal(fast.drop(columns=["path"]), engine.drop(columns=["path"]), check_exact=True)
    r = fast.iloc[0]
    assert r["on_time"] + r["late_accepted"] + r["dropped"] == len(table)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gap_logs(), watermark_settings())
def test_dynamic_session_detail_and_replay_fates_agree(table, s):
    s.pop("accumulation")
    wf, ff = evaluate(table, window="dynamic_session:gap_ms", path="fast", **s)
    we, fe = evaluate(table, window="dynamic_session:gap_ms", path="engine", **s)
    pd.testing.assert_frame_equal(ff, fe)
    pd.testing.assert_frame_equal(wf, we, check_dtype=False)
    log = toolkit.load_log(table.drop(columns=["row"]), keep=["gap_ms"])
    rep = toolkit.replay(log, window="dynamic_session:gap_ms", **s)
    assert rep.fates["fate"].tolist() == ff["fate"].tolist()
    summ = rep.summary()
    assert summ["dropped"] == int((ff["fate"] == "dropped").sum())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gap_logs(), watermark_settings(), st.sampled_from(["natural", "random", "random:11"]),
       st.sampled_from([7, 10, 25]))
def test_staggered_sweep_equals_engine_and_replay(table, s, stagger, size):
    g = dict(window=f"tumbling:{size}ms", stagger=stagger, **s)
    fast = toolkit.sweep(table, progress=False, **g)
    engine = toolkit.sweep(table, path="engine", progress=False, **g)
    assert fast["path"].tolist() == ["fast"] and fast["stagger"].tolist() == [Setting.parse(stagger=stagger).stagger]
    pd.testing.assert_frame_equal(fast.drop(columns=["path"]), engine.drop(columns=["path"]), check_exact=True)
    log = toolkit.load_log(table.drop(columns=["row", "gap_ms"]))
    rep = toolkit.replay(log, **g)
    counts = rep.fates["fate"].value_counts()
    for fate in ("on_time", "late_accepted", "dropped"):
        assert int(counts.get(fate, 0)) == int(fast[fate].iloc[0]), fate
    # the operator drew the offset the sweep resolved
    first = int(table["arrival_time"].min())
    off = staggered_offset(Tumbling(size), Setting.parse(stagger=stagger).stagger, first)
    starts = rep.emissions["window_start"].to_numpy()
    assert np.all((starts - off) % size == 0)


def test_dynamic_sessions_route_to_the_fast_path():
    c = [Setting.parse(window="dynamic_session:g"), Setting.parse(window="dynamic_session:g", trigger="count:2")]
    assert choose_paths(c, "auto", event_range=(0, 10), gap_max={"g": 5}) == ["fast", "engine"]
    assert choose_paths(c[:1], "auto", event_range=(2**63 - 10, 2**63 - 1), gap_max={"g": 5}) == ["engine"]


# -- bad gaps and missing columns --------------------------------------------------------------

def _log(gaps, keep=True):
    df = pd.DataFrame({"event_time": [1, 2, 3], "arrival_time": [1, 2, 3], "gap_ms": gaps})
    return toolkit.load_log(df, keep=["gap_ms"] if keep else None)


@pytest.mark.parametrize("gaps, shown", [([5, 0, 3], "gap_ms = 0"), ([5, -2, -1], "2 of 3 records"),
                                         ([5, 2.5, 3], "2.5"), ([5, None, 3], "row 1")])
def test_bad_gaps_are_an_error_not_a_quarantine(gaps, shown):
    """Flink's DynamicEventTimeSessionWindows throws on a gap <= 0 and the job fails: the
    replay and the sweep refuse the log (naming the window option, the column and the row)."""
    log = _log(gaps)
    for run in (lambda: toolkit.replay(log, window="dynamic_session:gap_ms"),
                lambda: toolkit.sweep(log, window="dynamic_session:gap_ms", progress=False)):
        with pytest.raises(SettingError, match="window dynamic_session:gap_ms: .*not a positive integer") as e:
            run()
        assert shown in str(e.value) and e.value.setting == "window"


def test_integral_float_gaps_are_read_as_ms():
    r = toolkit.replay(_log([5.0, 1.0, 3.0]), window="dynamic_session:gap_ms")
    assert r.emissions["window_end"].tolist() == [6]


def test_a_gap_column_not_kept_names_the_way_to_keep_it():
    with pytest.raises(SettingError, match=r"no column 'gap_ms'; load it with toolkit.load_log\(..., keep=\['gap_ms'\]\)"):
        toolkit.replay(_log([1, 2, 3], keep=False), window="dynamic_session:gap_ms")


def test_explain_a_dynamic_session_drop():
    df = pd.DataFrame({"event_time": [100, 0], "arrival_time": [0, 10], "gap_ms": [5, 30]})
    r = toolkit.replay(toolkit.load_log(df, keep=["gap_ms"]), window="dynamic_session:gap_ms", interval=0)
    d = r.drops()
    assert d["row"].tolist() == [1] and int(d["window_end"].iloc[0]) == 30


def test_scenario_export_carries_the_gaps(tmp_path):
    """The exported interleaving is a window scenario real Flink's oracle runs (its
    ``gap_field``); the scenario runner reads it back to the replay's own firings."""
    from toolkit.engine.flink.scenarios import run_file

    df = pd.DataFrame({"event_time": [0, 5, 30, 2], "arrival_time": [0, 1, 400, 401], "gap_ms": [3, 4, 2, 40],
                       "key": ["a", "a", "a", "a"]})
    r = toolkit.replay(toolkit.load_log(df, keep=["gap_ms"]), window="dynamic_session:gap_ms", lateness=100)
    lines = [json.loads(x) for x in r.scenario_lines()]
    assert lines[0]["assigner"] == {"type": "dynamic_session", "gap_field": "gap_ms"}
    assert [x["record"]["gap_ms"] for x in lines[1:] if "record" in x] == [3, 4, 2, 40]
    p = r.export_scenario(tmp_path / "s.jsonl")
    fires = [o for o in run_file("window", p) if o["kind"] == "fire"]
    em = r.emissions[r.emissions["kind"] == "fire"]
    assert [(o["start"], o["end"], o["count"]) for o in fires] == list(zip(em["window_start"], em["window_end"], em["count"]))


# -- Spark ---------------------------------------------------------------------------------------

@pytest.mark.spark
def test_spark_sweep_equals_in_process(spark):
    rng = np.random.default_rng(4)
    n = 600
    et = np.sort(rng.integers(0, 60_000, n))
    df = pd.DataFrame({"event_time": et, "arrival_time": et + rng.integers(0, 2000, n),
                       "key": rng.choice(list("abcdefg"), n), "gap_ms": rng.integers(1, 3000, n)})
    g = dict(window=["dynamic_session:gap_ms", "tumbling:5s"], stagger="natural", delay=[0, 800], lateness=1000)
    local = toolkit.sweep(toolkit.load_log(df, keep=["gap_ms"]), progress=False, execution="local", **g)
    slog = toolkit.load_log(spark.createDataFrame(df), keep=["gap_ms"])
    on_spark = toolkit.sweep(slog, progress=False, execution="spark", spark=spark, shards=3, **g)
    pd.testing.assert_frame_equal(local, on_spark, check_exact=True)
    bad = df.assign(gap_ms=np.where(np.arange(n) == 7, -1, df["gap_ms"]))
    with pytest.raises(SettingError, match="1 of 600 records.*row 7"):
        toolkit.sweep(toolkit.load_log(spark.createDataFrame(bad), keep=["gap_ms"]), window="dynamic_session:gap_ms",
                      execution="spark", spark=spark, shards=2, progress=False)


# -- the command line --------------------------------------------------------------------------

def _csv(tmp_path, **extra):
    rng = np.random.default_rng(2)
    n = 300
    et = np.sort(rng.integers(0, 30_000, n))
    df = pd.DataFrame({"event_time": et, "arrival_time": et + rng.integers(0, 1500, n), "key": rng.choice(list("abc"), n),
                       "gap_ms": rng.integers(1, 900, n), "mk": rng.random(n) < 0.1, **extra})
    p = tmp_path / "log.csv"
    df.to_csv(p, index=False)
    return p, df


def test_cli_replay_and_sweep_keep_the_gap_column(tmp_path, capsys):
    from toolkit.cli import main

    p, df = _csv(tmp_path)
    assert main(["replay", str(p), "--window", "dynamic_session:gap_ms", "--delay", "300ms", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    expected = toolkit.replay(toolkit.load_log(p, keep=["gap_ms"]), window="dynamic_session:gap_ms", delay=300).summary()
    assert out["dropped"] == expected["dropped"] and out["setting"] == "window=dynamic_session:gap_ms delay=300ms"
    assert main(["sweep", str(p), "--window", "dynamic_session:gap_ms", "--window", "tumbling:5s", "--stagger",
                 "natural,random:2", "--delay", "0,1s", "--out", str(tmp_path / "r.csv")]) == 0
    r = pd.read_csv(tmp_path / "r.csv")
    assert sorted(set(zip(r["window"], r["stagger"]))) == [("dynamic_session:gap_ms", "aligned"), ("tumbling:5s", "natural"),
                                                           ("tumbling:5s", "random:2")]
    assert set(r["path"]) == {"fast"}
    assert main(["replay", str(p), "--strategy", "punctuated", "--marker", "mk"]) == 0


@pytest.mark.parametrize("args, message", [
    (["--window", "dynamic_session:gaps"], "error: --window dynamic_session:gaps: column 'gaps' not found in"),
    (["--strategy", "punctuated"], "error: --strategy punctuated (its marker column, default 'marker'"),
    (["--window", "tumbling:1s", "--stagger", "nat"], "error: --stagger 'nat': choose one of aligned, natural"),
    (["--window", "session:1s", "--stagger", "natural"], "error: --stagger natural applies to tumbling windows"),
    (["--window", "dynamic_session:bad"], "error: --window dynamic_session:bad: 1 of 300 records have a gap"),
])
def test_cli_errors_name_the_option(tmp_path, capsys, args, message):
    from toolkit.cli import main

    p, _ = _csv(tmp_path, bad=[5] * 299 + [0])
    assert main(["replay", str(p), *args]) == 2
    assert message in capsys.readouterr().err


def test_staggered_replay_exports_the_offset_it_drew_and_explains_with_it(tmp_path):
    from toolkit.engine.flink.scenarios import run_file

    df = pd.DataFrame({"event_time": [7, 12, 3, 30, 1], "arrival_time": [1234, 1300, 1400, 1500, 1600]})
    r = toolkit.replay(toolkit.load_log(df), window="tumbling:10ms", stagger="natural", interval=0)
    cfg = json.loads(r.scenario_lines()[0])
    assert cfg["assigner"] == {"type": "tumbling", "size": 10, "offset": 4}  # 1234 - 1230
    fires = [o for o in run_file("window", r.export_scenario(tmp_path / "s.jsonl")) if o["kind"] == "fire"]
    em = r.emissions[r.emissions["kind"] == "fire"]
    assert [(o["start"], o["end"], o["count"]) for o in fires] == list(zip(em["window_start"], em["window_end"], em["count"]))
    d = r.drops()
    assert len(d) and set(d["window_start"] % 10) == {4}


def test_window_operator_test_dynamic_event_time_session_windows():
    """Flink's WindowOperatorTest#testDynamicEventTimeSessionWindows on the fast path: gaps per
    key/value (key1: 3 s; key2: 1 s for value 10, else 2 s), watermarks 8999, 12999, 16999; a
    gap whose end falls before the session's current end keeps the furthest end."""
    from toolkit.fast import sessions

    recs = [("key1", 3, 10), ("key2", 4, 5000), ("key2", 5, 6000), ("key2", 1, 9000), ("key2", 2, 10000),
            ("key2", 10, 10500), ("key2", 10, 13000), ("key2", 10, 13500), ("key2", 1, 14000)]
    key = np.array([0 if k == "key1" else 1 for k, _, _ in recs])
    val = np.array([v for _, v, _ in recs])
    ts = np.array([t for _, _, t in recs])
    gap = np.array([3000 if k == "key1" else (1000 if v == 10 else 2000) for k, v, _ in recs])
    seg = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    wm = np.array([8999, 12999, 16999])
    run = sessions.simulate(key, ts, gap, val, seg, ts, wm, wm, 17000, 0, with_end=False)
    got = sorted(zip(run.key.tolist(), run.start.tolist(), run.end.tolist(), run.sum.tolist(), run.watermark.tolist()))
    assert got == [(0, 10, 3010, 3, 8999), (1, 5000, 8000, 9, 8999), (1, 9000, 12000, 13, 12999),
                   (1, 13000, 16000, 21, 16999)]
