"""Property tests: the fast path equals the reference engine; the merge is exact for any sharding;
the sweep's timelines and driver reproduce the replay pipeline's emissions."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
import toolkit.sweeps
from toolkit.metrics.summary import SUMMARY_COLUMNS, check_summary
from toolkit.semantics.flink.paths import choose_paths
from toolkit.settings import Setting, grid
from toolkit.sweeps.single import evaluate
from toolkit.sweeps.sweep import run_local

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def logs(draw, max_records=30):
    n = draw(st.integers(0, max_records))
    ts = draw(st.lists(st.integers(-40, 40), min_size=n, max_size=n))
    arrival = draw(st.lists(st.integers(-20, 60), min_size=n, max_size=n))
    keys = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    parts = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return pd.DataFrame(
        {
            "row": np.arange(n, dtype=np.int64),
            "event_time": np.array(ts, dtype=np.int64),
            "arrival_time": np.array(arrival, dtype=np.int64),
            "key": np.array(keys, dtype=object),
            "partition": np.array(parts, dtype=np.int64),
        }
    )


@st.composite
def windows(draw):
    if draw(st.booleans()):
        size = draw(st.integers(1, 15))
        off = draw(st.integers(-(size - 1), size - 1))
        return f"tumbling:{size}ms,{off}ms"
    size = draw(st.integers(1, 20))
    slide = draw(st.integers(1, 12))
    off = draw(st.integers(0, slide - 1))
    return f"sliding:{size}ms/{slide}ms+{off}ms"


@st.composite
def settings_(draw):
    s = dict(
        window=draw(windows()),
        delay=draw(st.integers(0, 20)),
        lateness=draw(st.integers(0, 20)),
        interval=draw(st.sampled_from([0, 1, 3, 7, 15])),
        strategy=draw(st.sampled_from(["bounded", "bounded", "legacy", "monotonous"])),
        idleness=draw(st.sampled_from([None, None, 2, 9])),
        partitions_as_sources=draw(st.booleans()),
        source_parallelism=draw(st.sampled_from([1, 1, 2])),
        accumulation=draw(st.sampled_from(["accumulating", "accumulating", "retracting"])),
    )
    if s["strategy"] == "monotonous":  # bounded with delay 0: a delay is an error for it
        s["delay"] = 0
    return s


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    a = a.drop(columns=["path"]).reset_index(drop=True)
    b = b.drop(columns=["path"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


@SETTINGS
@given(logs(), settings_())
def test_fast_path_equals_engine(table, s):
    fast = toolkit.sweep(table, path="fast", progress=False, **s)
    engine = toolkit.sweep(table, path="engine", progress=False, **s)
    assert fast["path"].tolist() == ["fast"] and engine["path"].tolist() == ["engine"]
    check_summary(fast)
    _same(fast, engine)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs(), settings_())
def test_window_figures_and_fates_equal_engine(table, s):
    wf, ff = evaluate(table, path="fast", **s)
    we, fe = evaluate(table, path="engine", **s)
    pd.testing.assert_frame_equal(ff, fe)
    pd.testing.assert_frame_equal(wf, we, check_dtype=False)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs(), st.lists(windows(), min_size=1, max_size=2), st.sampled_from([1, 2, 3, 7]))
def test_merge_is_exact_for_any_sharding(table, wins, shards):
    configs = grid(window=wins + ["session:5ms"], delay=[0, 6], lateness=[0, 8], interval=[0, 4])
    paths = choose_paths(configs, "auto")
    one = run_local(table, configs, paths, invalid=0, shards=1, progress=False)
    many = run_local(table, configs, paths, invalid=0, shards=shards, progress=False)
    check_summary(one)
    pd.testing.assert_frame_equal(one, many, check_exact=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs(), settings_())
def test_driver_and_timeline_match_replay_pipeline(table, s):
    """The sweep's timeline (from the tick table) and operator driver emit exactly what the
    replay pipeline emits for the same log and settings."""
    from toolkit.engine.flink.pipeline import run_pipeline, watermark_timeline
    from toolkit.fast.evaluate import Shard
    from toolkit.semantics.flink.engine_path import drive, make_operator
    from toolkit.sweeps.timelines import build_timelines, local_sources

    if not len(table):
        return
    config = Setting.parse(s)
    t = table.iloc[np.lexsort((table["row"].to_numpy(), table["arrival_time"].to_numpy()))]
    arr, row, ts = t["arrival_time"].to_numpy(), t["row"].to_numpy(), t["event_time"].to_numpy()
    part = t["partition"].to_numpy() if config.partitions_as_sources else np.zeros(len(t), dtype=np.int64)
    ref_tl = watermark_timeline(ts, arr, part, config.watermark_strategy(), interval=config.interval,
                                parallelism=config.source_parallelism, with_log=False, rows=row)
    ref = run_pipeline(ref_tl, t["key"].to_numpy(), ts, arr, np.ones(len(t), dtype=np.int64), row,
                       [lambda: make_operator(config)])
    tl = build_timelines([config], local_sources(table))[0]
    shard = Shard(t["key"].to_numpy(), ts, arr, row)
    out, _ = drive(shard, config, tl)

    def norm(items, ids_to_rows):
        got = []
        for it in items:
            if getattr(it, "kind", None) in ("fire", "retract"):
                rids = None if it.record_ids is None else sorted(ids_to_rows(r) for r in it.record_ids)
                got.append((it.kind, it.key, it.window.start, it.window.end, it.pane, it.timing, it.watermark,
                            it.processing_time, rids))
        return sorted(got, key=repr)

    mine = norm(out, lambda i: int(shard.row[i]))
    theirs = norm([o[2] for o in ref.outputs], int)
    assert mine == theirs
    assert tl.end_time == ref.end_time


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs(max_records=25), settings_(), st.sampled_from(["fast", "engine"]))
def test_fates_agree_with_replay(table, s, path):
    """Record fates of the sweep's metrics equal ``toolkit.replay``'s for the same settings
    (replay reads the log's partitions as sources)."""
    from toolkit.log import EventLog

    if not len(table):
        return
    log = EventLog.from_arrays(table["event_time"].to_numpy(), arrival_time=table["arrival_time"].to_numpy(),
                               key=table["key"].to_numpy(), partition=table["partition"].to_numpy())
    s = dict(s, partitions_as_sources=True)
    if s["strategy"] == "monotonous":
        s["strategy"] = "bounded"
    mine = toolkit.sweeps.record_fates(log, path=path, **s)
    r = toolkit.replay(log, **s)
    theirs = r.fates[["row", "fate"]].sort_values("row").reset_index(drop=True)
    pd.testing.assert_frame_equal(mine.reset_index(drop=True), theirs, check_dtype=False)


@st.composite
def aligned_cases(draw):
    """A small log and a Flink setting with watermark alignment the model covers."""
    n = draw(st.integers(1, 30))
    table = pd.DataFrame({
        "row": np.arange(n, dtype=np.int64),
        "event_time": np.array(draw(st.lists(st.integers(-40, 200), min_size=n, max_size=n)), dtype=np.int64),
        "arrival_time": np.array(draw(st.lists(st.integers(0, 60), min_size=n, max_size=n)), dtype=np.int64),
        "key": np.array(draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n)), dtype=object),
        "partition": np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64),
    })
    s = dict(window=draw(st.sampled_from(["tumbling:10ms", "sliding:20ms/5ms", "session:7ms"])),
             delay=draw(st.integers(0, 10)), lateness=draw(st.integers(0, 10)),
             interval=draw(st.sampled_from([1, 3, 7])), source_parallelism=draw(st.sampled_from([1, 2])),
             alignment=dict(drift=draw(st.integers(0, 30)), update=draw(st.sampled_from([1, 4, 10])),
                            buffer=draw(st.integers(0, 3))))
    return table, s


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(aligned_cases())
def test_sweep_equals_replay_with_alignment(case):
    """A setting with watermark alignment: its sweep row (evaluated in one piece) has the replay's figures."""
    table, s = case
    log = toolkit.EventLog.from_arrays(table["event_time"].to_numpy(), arrival_time=table["arrival_time"].to_numpy(),
                                       key=table["key"].to_numpy(), partition=table["partition"].to_numpy())
    row = toolkit.sweep(log, progress=False, **s).iloc[0]
    r = toolkit.replay(log, **s).summary()
    for k in SUMMARY_COLUMNS:
        assert r[k] == row[k] or (pd.isna(r[k]) and pd.isna(row[k])), k
