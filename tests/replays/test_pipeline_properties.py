"""Pipelines, unions and joins: properties over random logs and stages, and named rules.

- fates add up per stage, and a stage's elements are exactly the previous stage's firings;
- stage 1 of a pipeline is today's one-stage replay (emissions and fates unchanged by what
  follows it), and ``second_window``/``second_lateness`` is the alias of one ``stages`` entry;
- every later stage emits what the engine's scenario runner (the path checked against real
  Flink line for line) emits for the interleaving that stage saw.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from toolkit.engine.flink.scenarios.window import run as run_window_scenario
from toolkit.log import EventLog
from toolkit.replays import replay
from toolkit.semantics.flink.export import oracle_lines
from toolkit.settings import Setting, SettingError, Stage, Tumbling

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def logs(draw, max_records=40):
    n = draw(st.integers(1, max_records))
    arrival = sorted(draw(st.lists(st.integers(0, 4000), min_size=n, max_size=n)))
    lag = draw(st.lists(st.integers(0, 1500), min_size=n, max_size=n))
    keys = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    parts = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    values = draw(st.lists(st.integers(-5, 9), min_size=n, max_size=n))
    arr = np.asarray(arrival, dtype=np.int64)
    return EventLog.from_arrays(arr - np.asarray(lag), arr, key=keys, partition=parts, value=values)


def _window(draw) -> str:
    kind = draw(st.sampled_from(["tumbling", "tumbling", "sliding", "session", "global_eos"]))
    if kind == "tumbling":
        return f"tumbling:{draw(st.integers(50, 2000))}ms"
    if kind == "sliding":
        slide = draw(st.integers(50, 800))
        return f"sliding:{slide * draw(st.integers(1, 3))}ms/{slide}ms"
    if kind == "session":
        return f"session:{draw(st.integers(50, 1500))}ms"
    return "global_eos"


@st.composite
def stages(draw):
    out = []
    for _ in range(draw(st.integers(1, 3))):
        w = _window(draw)
        text = f"window={w} lateness={draw(st.sampled_from([0, 100, 1000]))}ms"
        if w != "global_eos":
            text += " trigger=" + draw(st.sampled_from(["default", "default", "count:2", "continuous:300ms", "purging:count:3"]))
        text += " function=" + draw(st.sampled_from(["count_sum", "values"]))
        out.append(text)
    return out


@st.composite
def first_stage(draw):
    return {"window": f"tumbling:{draw(st.integers(50, 1000))}ms", "delay": draw(st.integers(0, 800)),
            "lateness": draw(st.sampled_from([0, 300, 2000])), "interval": draw(st.sampled_from([0, 100, 200])),
            "idleness": draw(st.sampled_from([None, 500])), "source_parallelism": draw(st.sampled_from([1, 2]))}


def _by_key(lines: list[dict]) -> dict:
    out: dict = {}
    for d in lines:
        out.setdefault(d["key"], []).append((d["kind"], d.get("max_ts", d.get("ts")), d.get("count"), d.get("sum")))
    return out


def _same(a: dict, b: dict) -> bool:
    """Equal dicts, NaN equal to NaN (an undefined latency)."""
    return a.keys() == b.keys() and all(a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]) for k in a)


def _no_seq(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=["seq"]).reset_index(drop=True)


@SETTINGS
@given(logs(), first_stage(), stages())
def test_fates_add_up_per_stage_and_stage_one_is_todays_replay(log, first, later) -> None:
    r = replay(log, **first, stages=later)
    assert len(r.pipeline) == 1 + len(later)
    assert r.pipeline[0].fates["fate"].isin(["on_time", "late_accepted", "dropped"]).all()
    assert len(r.pipeline[0].fates) == len(log.table)
    for k in range(2, len(r.pipeline) + 1):
        d = r.stage(k).summary()
        assert d["on_time"] + d["late_accepted"] + d["dropped"] == d["elements"]
        assert d["elements"] == r.stage(k - 1).summary()["firings"]
    # what follows stage 1 changes nothing in stage 1
    alone = replay(log, **first)
    pd.testing.assert_frame_equal(_no_seq(r.emissions), _no_seq(alone.emissions))
    pd.testing.assert_frame_equal(r.fates, alone.fates)
    pd.testing.assert_frame_equal(_no_seq(r.late), _no_seq(alone.late))
    s1, s0 = r.summary(), alone.summary()
    assert _same({k: v for k, v in s1.items() if k in s0 and k != "settings"}, {k: v for k, v in s0.items() if k != "settings"})


@SETTINGS
@given(logs(), first_stage(), stages())
def test_every_later_stage_is_the_scenario_runner_on_what_it_saw(log, first, later) -> None:
    r = replay(log, **first, stages=later)
    for k in range(2, len(r.pipeline) + 1):
        objs = [json.loads(line) for line in r.scenario_lines(k)]
        want = run_window_scenario(objs)
        got = oracle_lines(r, k)
        # per key in order (firings of one timer timestamp across keys: Flink's timer-heap order)
        assert _by_key(got) == _by_key(want), f"stage {k}"


@SETTINGS
@given(logs(), first_stage(), st.integers(50, 3000), st.sampled_from([0, 200, 1000]))
def test_second_window_is_the_alias_of_one_stage(log, first, size, late) -> None:
    a = replay(log, **first, second_window=f"tumbling:{size}ms", second_lateness=late)
    b = replay(log, **first, stages=[f"window=tumbling:{size}ms lateness={late}ms"])
    pd.testing.assert_frame_equal(a.second_emissions, b.second_emissions)
    pd.testing.assert_frame_equal(a.second_late, b.second_late)
    pd.testing.assert_frame_equal(a.stages, b.stages)
    assert a.scenario_lines(2) == b.scenario_lines(2)
    sa, sb = a.summary(), b.summary()
    sa.pop("settings"), sb.pop("settings")
    assert _same(sa, sb)


@SETTINGS
@given(logs(max_records=25), logs(max_records=25), st.integers(100, 2000), st.sampled_from([0, 500]))
def test_a_join_counts_pairs_over_the_windows_of_the_union(a, b, size, late) -> None:
    kw = {"window": f"tumbling:{size}ms", "delay": 100, "lateness": late, "stages": ["window=tumbling:4s"]}
    j = replay([a, b], two_input="join", **kw)
    u = replay([a, b], **kw)
    fires = j.emissions[j.emissions["kind"] == "fire"]
    assert (fires["pairs"] == fires["left"] * fires["right"]).all()
    assert (fires["count"] == fires["left"] + fires["right"]).all()
    # the same window operator over the same union: the same firings, counts, sums and fates
    cols = ["key", "window_start", "window_end", "pane", "count", "sum", "watermark"]
    pd.testing.assert_frame_equal(fires[cols].reset_index(drop=True),
                                  u.emissions[u.emissions["kind"] == "fire"][cols].reset_index(drop=True))
    pd.testing.assert_frame_equal(j.fates, u.fates)
    # the join's next stage is fed its pairs
    assert sorted(j.stage(2).fates["value"].tolist()) == sorted(fires["pairs"].tolist())
    # every record is somewhere: fates by input add up to each log
    assert (j.fates["input"] == 1).sum() == len(a.table) and (j.fates["input"] == 2).sum() == len(b.table)


def test_union_of_two_one_partition_logs_is_one_log_read_by_two_subtasks() -> None:
    """Flink's ``a.union(b)``: each source's subtask is one channel of the window operator's
    valve, exactly as two partitions read by two subtasks of one source."""
    rng = np.random.default_rng(5)
    arr = np.sort(rng.integers(0, 5000, 80))
    ts = arr - rng.integers(0, 1200, 80)
    part = rng.integers(0, 2, 80)
    keys = rng.choice(list("ab"), 80)
    one = EventLog.from_arrays(ts, arr, key=keys, partition=part)
    a = EventLog.from_arrays(ts[part == 0], arr[part == 0], key=keys[part == 0])
    b = EventLog.from_arrays(ts[part == 1], arr[part == 1], key=keys[part == 1])
    kw = {"window": "tumbling:500ms", "delay": 200, "idleness": 600, "lateness": 300}
    u = replay([a, b], **kw)
    o = replay(one, **kw, source_parallelism=2)
    assert u.setting.source_parallelism == 2
    cols = ["key", "window_start", "window_end", "pane", "count", "watermark", "emit_time"]
    pd.testing.assert_frame_equal(u.emissions[cols], o.emissions[cols])
    assert u.watermarks["watermark"].tolist() == o.watermarks["watermark"].tolist()


def test_bad_stages_and_inputs_name_the_option() -> None:
    log = EventLog.from_arrays([1, 2, 3], [1, 2, 3])
    cases = [
        ({"stages": ["window=tumbling:1s latenes=1s"]}, "stages", "did you mean 'lateness'"),
        ({"stages": ["lateness=1s"]}, "stages", "needs a window"),
        ({"stages": ["window=tumbling:0s"]}, "stages", "must be > 0"),
        ({"stages": ["window=tumbling:1s trigger=count:0"]}, "stages", "positive"),
        ({"stages": [42]}, "stages", "a stage is text"),
        ({"stages": ["window=tumbling:1s"], "second_window": "tumbling:2s"}, "stages", "not both"),
        ({"two_input": "join"}, "two_input", "needs a list of logs"),
    ]
    for kw, name, words in cases:
        with pytest.raises(SettingError) as e:
            replay(log, **kw)
        assert e.value.setting == name and words in str(e.value), (kw, str(e.value))
    with pytest.raises(SettingError, match="choose one of union, join") as e:
        replay([log, log], two_input="zip")
    assert e.value.setting == "two_input"
    with pytest.raises(SettingError, match="exactly two logs"):
        replay([log, log, log], two_input="join")
    with pytest.raises(SettingError) as e:
        replay([log, log], two_input="join", function="values")
    assert e.value.setting == "function"
    with pytest.raises(ValueError, match="stage must be 1 to 2"):
        replay(log, stages=["window=tumbling:1s"]).scenario_lines(3)


def test_stage_spelling_reads_back() -> None:
    s = Setting.parse(window="tumbling:1s", stages=["window=sliding:10s/5s lateness=1s trigger=count:3 function=values",
                                                    {"window": "session:2s", "accumulation": "discarding"}])
    assert s.stages[0] == Stage(Tumbling(10_000) if False else s.stages[0].window, lateness=1000,
                                trigger=s.stages[0].trigger, function="values")
    assert Setting.parse(str(s)) == s and Setting.from_row(s.row()) == s
    assert s.row()["stages"] == "window=sliding:10s/5s;trigger=count:3;lateness=1s;function=values|window=session:2s;accumulation=discarding"
    assert Setting.parse(second_window="tumbling:5s", second_lateness="1s").pipeline_stages == (Stage(Tumbling(5000), lateness=1000),)


def test_deploy_writes_every_stage() -> None:
    import toolkit

    s = Setting.parse(window="tumbling:1s", stages=["window=tumbling:5s lateness=1s",
                                                    "window=session:30s trigger=count:3 function=values"])
    code = toolkit.deploy(s).code
    assert "DataStream<Result> second = results" in code and "DataStream<Result> stage3 = second" in code
    assert ".trigger(CountTrigger.of(3))" in code and code.count(".keyBy(result -> result.key)") == 2
    # the alias writes the same second stage
    alias = toolkit.deploy(Setting.parse(window="tumbling:1s", second_window="tumbling:5s", second_lateness="1s")).code
    assert alias.split("// second stage")[1] == code.split("// second stage")[1].split("// stage 3")[0].rstrip("\n") + "\n"
