"""Fast sessions (``toolkit.fast.sessions``) equal the engine and real Flink.

* every session conformance fixture of real Flink 2.3 (tests/fixtures/window) with the
  event-time trigger (or the assigner's default, the same) and no evictor, run through the
  fast path, gives the oracle's output (per key in order; values as multisets, the rule of
  ``tests/engine/test_engine_conformance.py``), errors included;
* hypothesis: on random logs, timelines, gaps, lateness, ties and out-of-order arrival the
  fast run gives the engine's firings (window, count, sum, pane, timing, processing time,
  watermark; per key in emission order), late side output and record fates, fixed and
  dynamic gaps; sweeps and per-window detail through both paths are identical.
"""
from __future__ import annotations

import collections
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.engine.flink.assigners import DynamicEventTimeSessionWindows, EventTimeSessionWindows
from toolkit.engine.flink.config import build_operator
from toolkit.engine.flink.functions import AggregateFunction
from toolkit.engine.flink.results import LateRecord
from toolkit.engine.flink.scenarios import jsonl
from toolkit.engine.flink.scenarios.window import parse
from toolkit.fast import sessions
from toolkit.metrics.summary import check_summary
from toolkit.semantics.flink.paths import choose_paths
from toolkit.settings import Setting, SettingError
from toolkit.sweeps.single import evaluate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "window"


def _fast_session_fixture(path: Path) -> bool:
    cfg = jsonl.read(path, allow_empty=True)[0]
    a = cfg.get("assigner") or {}
    t = (cfg.get("trigger") or {}).get("type", "default")
    return a.get("type") in ("session", "dynamic_session") and t in ("default", "event_time") and not cfg.get("evictor")


SESSION_FIXTURES = sorted(p for p in FIXTURES.glob("*.jsonl") if not p.name.endswith(".out.jsonl") and _fast_session_fixture(p))


def _timeline_of(events: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scenario events -> (changes before each record, watermark changes, change positions):
    the operator ignores a watermark that is not above the current one."""
    seg, wm, pos = [], [], []
    cur = None
    n_rec = 0
    for ev in events:
        if ev[0] == "record":
            seg.append(len(wm))
            n_rec += 1
        elif cur is None or ev[1] > cur:
            cur = ev[1]
            wm.append(ev[1])
            pos.append(n_rec)
    return np.array(seg, dtype=np.int64), np.array(wm, dtype=np.int64), np.array(pos, dtype=np.int64)


def fast_scenario_output(config: dict, events: list) -> list[dict]:
    """A window scenario's output lines computed by the fast path (see the oracle's format)."""
    recs = [ev for ev in events if ev[0] == "record"]
    keys = np.array([k for _, k, _ in recs], dtype=object)
    codes, uniques = pd.factorize(keys, sort=True) if len(keys) else (np.zeros(0, np.int64), np.zeros(0, object))
    ts = np.array([e.ts for _, _, e in recs], dtype=np.int64)
    values = np.array([e.value for _, _, e in recs], dtype=np.int64)
    a = config["assigner"]
    gap = int(a["gap"]) if a["type"] == "session" else np.array([e.gap for _, _, e in recs], dtype=np.int64)
    seg, wm, pos = _timeline_of(events)
    n = len(ts)
    arrival = np.arange(n, dtype=np.int64)
    run = sessions.simulate(codes, ts, gap, values, seg, arrival, wm, pos, n, int(config.get("allowed_lateness", 0) or 0),
                            with_end=config.get("final_watermark", True), members=True)
    fn = config.get("function", "process") or "process"
    lines = []  # (position, order, line): records at 2 * index, a change after p records at 2 * p - 1
    for i in range(run.n_firings):
        o = {"kind": "fire", "key": uniques[run.key[i]], "start": int(run.start[i]), "end": int(run.end[i]),
             "max_ts": int(run.end[i]) - 1}
        mem = run.firing_members(i)
        o["values"] = values[mem].tolist() if fn == "process" else None
        o["count"] = int(run.count[i])
        o["sum"] = int(run.sum[i])
        o["watermark"] = int(run.watermark[i])
        if fn == "process" and config.get("emit_timestamps"):
            o["timestamps"] = ts[mem].tolist()
        if run.cause[i] >= 0:
            where = 2 * int(run.cause[i])
        elif run.tick[i] < len(wm):
            where = 2 * int(pos[run.tick[i]]) - 1
        else:
            where = 2 * n + 1
        lines.append((where, i, o))
    if config.get("side_output_late", True):
        for j in np.flatnonzero(run.side):
            lines.append((2 * int(j), -1, {"kind": "late", "key": uniques[codes[j]], "ts": int(ts[j]), "value": int(values[j])}))
    lines.sort(key=lambda x: (x[0], x[1]))
    return [o for _, _, o in lines]


def _per_key(lines: list[dict]) -> dict:
    groups = collections.defaultdict(list)
    for line in lines:
        line = dict(line)
        for f in ("values", "timestamps"):
            if isinstance(line.get(f), list):
                line[f] = sorted(line[f])
        groups[line.get("key")].append(json.dumps(line, sort_keys=True))
    return dict(groups)


def test_fixture_selection_covers_fixed_and_dynamic_sessions():
    kinds = collections.Counter(jsonl.read(p, allow_empty=True)[0]["assigner"]["type"] for p in SESSION_FIXTURES)
    assert kinds["session"] >= 10 and kinds["dynamic_session"] >= 8, kinds


@pytest.mark.parametrize("path", SESSION_FIXTURES, ids=lambda p: p.stem)
def test_fast_sessions_reproduce_real_flink(path: Path):
    expected = jsonl.read(path.with_name(path.stem + ".out.jsonl"), allow_empty=True)
    if len(expected) == 1 and expected[0].get("kind") == "error":
        try:  # a configuration Flink refuses is refused when the operator is built, before any path runs
            build_operator(jsonl.read(path, allow_empty=True)[0])
        except ValueError:
            return
    config, events = parse(jsonl.read(path, allow_empty=True), path.name)
    if len(expected) == 1 and expected[0].get("kind") == "error":
        # the oracle refused the scenario: a merge that would move a window behind the watermark,
        # or a config Flink's reader/assigner rejects (the engine raises ValueError, as here)
        with pytest.raises((RuntimeError, ValueError)) as err:
            fast_scenario_output(config, events)
        assert isinstance(err.value, ValueError) or "cannot become earlier than the current watermark" in str(err.value)
        return
    recs = [ev[2] for ev in events if ev[0] == "record"]
    ts = [e.ts for e in recs]
    gaps = [e.gap for e in recs] if config["assigner"]["type"] != "session" else [int(config["assigner"]["gap"])]
    if ts and not sessions.in_range(min(ts), max(ts), max(max(gaps), 0), int(config.get("allowed_lateness", 0) or 0)):
        # int64 edges: Flink's long arithmetic wraps; the fast path refuses and sweeps use the engine
        with pytest.raises(sessions.OutsideFastRange):
            fast_scenario_output(config, events)
        return
    assert _per_key(fast_scenario_output(config, events)) == _per_key(expected)


def test_comparison_notices_a_changed_firing():
    path = FIXTURES / "gen30_session_lateness.jsonl"
    config, events = parse(jsonl.read(path), path.name)
    out = fast_scenario_output(config, events)
    expected = jsonl.read(path.with_name(path.stem + ".out.jsonl"))
    assert _per_key(out) == _per_key(expected)
    fires = [i for i, o in enumerate(out) if o["kind"] == "fire"]
    changed = [dict(o) for o in out]
    changed[fires[0]]["count"] += 1
    assert _per_key(changed) != _per_key(expected)
    assert _per_key(out[::-1]) != _per_key(expected)


# -- property tests: fast run == engine run --------------------------------------------------


@st.composite
def runs(draw):
    """Records (key, ts, gap, value) in arrival order with watermark changes between them."""
    n = draw(st.integers(0, 40))
    keys = draw(st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n))
    ts = draw(st.lists(st.integers(-30, 60), min_size=n, max_size=n))
    dynamic = draw(st.booleans())
    gap = draw(st.integers(1, 12))
    gaps = draw(st.lists(st.integers(1, 12), min_size=n, max_size=n)) if dynamic else [gap] * n
    values = draw(st.lists(st.integers(-5, 9), min_size=n, max_size=n))
    steps = draw(st.lists(st.integers(-3, 12), min_size=n + 1, max_size=n + 1))  # watermark moves before record i
    lateness = draw(st.sampled_from([0, 0, 1, 3, 10, 40]))
    return keys, ts, gaps if dynamic else gap, values, steps, lateness


class _SumCount(AggregateFunction):
    """(count, sum of values) of elements ``(value, gap)``."""

    def create_accumulator(self):
        return (0, 0)

    def add(self, e, acc):
        return (acc[0] + 1, acc[1] + e[0])

    def get_result(self, acc):
        return acc

    def merge(self, a, b):
        return (a[0] + b[0], a[1] + b[1])


def _engine(keys, ts, gap, values, seg, wm, tick_time, arrival, end_time, lateness, retracting=False):
    """The engine's outputs per key in order, late side output and fates (record ids = index)."""
    assigner = (DynamicEventTimeSessionWindows(lambda e: e[1]) if isinstance(gap, list) else EventTimeSessionWindows(gap))
    op = build_operator(assigner, allowed_lateness=lateness, track_records=True, function=_SumCount(),
                        accumulation="accumulating_and_retracting" if retracting else "accumulating")
    fires = collections.defaultdict(list)
    late = []
    retractions = 0
    fate = np.full(len(ts), 2, dtype=np.int8)
    k = 0

    def drain():
        nonlocal retractions
        for it in op.drain():
            if isinstance(it, LateRecord):
                late.append(it.record_id)
            elif it.kind == "retract":
                retractions += 1
            else:
                fires[it.key].append((it.window.start, it.window.end, it.value[0], it.value[1], it.pane, it.timing,
                                      it.processing_time, it.watermark))
                ids = np.asarray(it.record_ids, dtype=np.int64)
                fate[ids] = 0 if it.pane == 0 else np.minimum(fate[ids], 1)

    for i in range(len(ts)):
        while k < seg[i]:
            op.set_processing_time(int(tick_time[k]))
            op.process_watermark(int(wm[k]))
            drain()
            k += 1
        op.set_processing_time(int(arrival[i]))
        g = gap[i] if isinstance(gap, list) else gap
        op.process_element(keys[i], int(ts[i]), (values[i], g), i)
        drain()
    while k < len(wm):
        op.set_processing_time(int(tick_time[k]))
        op.process_watermark(int(wm[k]))
        drain()
        k += 1
    op.set_processing_time(int(end_time))
    op.end_input()
    drain()
    return dict(fires), sorted(late), fate, retractions


def _arrays(keys, ts, gap, values, steps):
    n = len(ts)
    wm, tick_time, seg = [], [], []
    cur = -50
    for i in range(n + 1):
        if steps[i] > 0:
            cur += steps[i]
            wm.append(cur)
            tick_time.append(10 * i - 1)
        if i < n:
            seg.append(len(wm))
    arrival = 10 * np.arange(n, dtype=np.int64)
    return (np.array(seg, dtype=np.int64), np.array(wm, dtype=np.int64), np.array(tick_time, dtype=np.int64), arrival,
            10 * n + 5)


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(runs(), st.booleans())
def test_fast_run_equals_engine_run(case, retracting):
    keys, ts, gap, values, steps, lateness = case
    seg, wm, tick_time, arrival, end_time = _arrays(keys, ts, gap, values, steps)
    fires, late, fate, retractions = _engine(keys, ts, gap, values, seg, wm, tick_time, arrival, end_time, lateness, retracting)
    run = sessions.simulate(np.array(keys, dtype=np.int64), np.array(ts, dtype=np.int64), gap if isinstance(gap, int) else np.array(gap),
                            np.array(values, dtype=np.int64), seg, arrival, wm, tick_time, end_time, lateness)
    timing = sessions.TIMING_NAMES
    got = collections.defaultdict(list)
    for i in range(run.n_firings):
        got[int(run.key[i])].append((int(run.start[i]), int(run.end[i]), int(run.count[i]), int(run.sum[i]), int(run.pane[i]),
                                     timing[run.timing[i]], int(run.time[i]), int(run.watermark[i])))
    assert dict(got) == fires
    assert np.flatnonzero(run.side).tolist() == late
    # fate 3: contents left behind by Flink's merging window set (dynamic gaps), never fired
    assert np.where(run.fate == 3, 2, run.fate).tolist() == fate.tolist()
    if retracting:
        assert int(run.retract.sum()) == retractions


@pytest.mark.parametrize("lateness", [0, 1000])
def test_many_live_sessions_of_one_key(lateness):
    """Hundreds of sessions of one key live at once (the kernel's session table grows), some
    bridged by later records, the watermark moving through them."""
    rng = np.random.default_rng(4)
    n = 600
    ts = (rng.permutation(n) * 20).tolist()
    keys = [0] * (n - 50) + [1] * 50
    values = rng.integers(0, 9, n).tolist()
    steps = [0] * (n + 1)
    for i in range(300, n + 1, 25):
        steps[i] = 500
    seg, wm, tick_time, arrival, end_time = _arrays(keys, ts, 15, values, steps)
    fires, late, fate, _ = _engine(keys, ts, 15, values, seg, wm, tick_time, arrival, end_time, lateness)
    run = sessions.simulate(np.array(keys), np.array(ts), 15, np.array(values), seg, arrival, wm, tick_time, end_time, lateness)
    got = collections.defaultdict(list)
    for i in range(run.n_firings):
        got[int(run.key[i])].append((int(run.start[i]), int(run.end[i]), int(run.count[i]), int(run.sum[i]), int(run.pane[i]),
                                     sessions.TIMING_NAMES[run.timing[i]], int(run.time[i]), int(run.watermark[i])))
    assert dict(got) == fires and len(fires[0]) > 300
    assert np.flatnonzero(run.side).tolist() == late and run.fate.tolist() == fate.tolist()


def test_a_late_record_bridges_two_sessions_and_refires_them():
    """Two sessions fired on time and kept (lateness): a late record between them merges them
    into one window that fires at once, pane 1, with every record."""
    keys, ts, values = [0, 0, 0], [0, 10, 5], [1, 2, 4]
    seg, wm, tick_time, arrival = np.array([0, 0, 1]), np.array([30]), np.array([15]), np.array([0, 10, 20])
    run = sessions.simulate(np.array(keys), np.array(ts), 5, np.array(values), seg, arrival, wm, tick_time, 40, 100)
    assert run.start.tolist() == [0, 10, 0] and run.end.tolist() == [5, 15, 15]
    assert run.count.tolist() == [1, 1, 3] and run.sum.tolist() == [1, 2, 7]
    assert sessions.TIMING_NAMES[run.timing].tolist() == ["on_time", "on_time", "late"]
    assert run.pane.tolist() == [0, 0, 1] and run.time.tolist() == [15, 15, 20]
    assert run.fate.tolist() == [0, 0, 1]


def test_a_session_cleaned_up_leaves_a_later_record_to_start_a_new_one():
    """[0, 10) fired and was cleaned up at watermark 9; a record at 5 starts [5, 15)."""
    run = sessions.simulate(np.array([0, 0]), np.array([0, 5]), 10, np.array([1, 1]), np.array([0, 1]), np.array([0, 10]),
                            np.array([9]), np.array([5]), 20, 0)
    assert list(zip(run.start.tolist(), run.end.tolist())) == [(0, 10), (5, 15)]
    assert run.fate.tolist() == [0, 0] and run.cleanup_tick.tolist() == [0]


def test_bad_dynamic_gap_is_named():
    with pytest.raises(ValueError, match="0 < gap"):
        sessions.simulate(np.array([0]), np.array([1]), np.array([0]), np.array([1]), np.array([0]), np.array([0]),
                          np.zeros(0, np.int64), np.zeros(0, np.int64), 1, 0)


# -- sweeps: session configurations take the fast path, figures equal the engine's -----------


@st.composite
def logs(draw, max_records=40):
    n = draw(st.integers(0, max_records))
    return pd.DataFrame(
        {
            "row": np.arange(n, dtype=np.int64),
            "event_time": np.array(draw(st.lists(st.integers(-40, 40), min_size=n, max_size=n)), dtype=np.int64),
            "arrival_time": np.array(draw(st.lists(st.integers(-20, 60), min_size=n, max_size=n)), dtype=np.int64),
            "key": np.array(draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)), dtype=object),
            "partition": np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64),
        }
    )


@st.composite
def session_settings(draw):
    s = dict(
        window=f"session:{draw(st.integers(1, 15))}ms",
        delay=draw(st.integers(0, 20)),
        lateness=draw(st.sampled_from([0, 0, 2, 7, 20])),
        interval=draw(st.sampled_from([0, 1, 3, 7, 15])),
        strategy=draw(st.sampled_from(["bounded", "bounded", "legacy", "monotonous"])),
        idleness=draw(st.sampled_from([None, None, 2, 9])),
        partitions_as_sources=draw(st.booleans()),
        source_parallelism=draw(st.sampled_from([1, 1, 2])),
        accumulation=draw(st.sampled_from(["accumulating", "accumulating", "retracting"])),
    )
    if s["strategy"] == "monotonous":
        s["delay"] = 0
    return s


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs(), session_settings())
def test_session_sweep_fast_equals_engine(table, s):
    fast = toolkit.sweep(table, path="fast", progress=False, **s)
    engine = toolkit.sweep(table, path="engine", progress=False, **s)
    assert fast["path"].tolist() == ["fast"] and engine["path"].tolist() == ["engine"]
    check_summary(fast)
    pd.testing.assert_frame_equal(fast.drop(columns=["path"]), engine.drop(columns=["path"]), check_exact=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs(), session_settings())
def test_session_window_figures_and_fates_equal_engine(table, s):
    wf, ff = evaluate(table, path="fast", **s)
    we, fe = evaluate(table, path="engine", **s)
    pd.testing.assert_frame_equal(ff, fe)
    pd.testing.assert_frame_equal(wf, we, check_dtype=False)


def test_session_sweeps_route_to_the_fast_path():
    configs = [Setting.parse(window="session:5s"), Setting.parse(window="session:5s", lateness="1s", accumulation="retracting"),
               Setting.parse(window="session:5s", trigger="count:3"), Setting.parse(window="session:5s", evictor="count:2"),
               Setting.parse(window="session:5s", accumulation="discarding")]
    assert choose_paths(configs, "auto") == ["fast", "fast", "engine", "engine", "engine"]
    with pytest.raises(SettingError, match="session windows"):
        choose_paths(configs[2:3], "fast")


@pytest.mark.parametrize("model", ["lagging", "pareto"])
def test_synthetic_log_session_sweep_fast_equals_engine(model):
    """Synthetic logs (many keys, partitions, a lagging partition / heavy-tailed delays), a grid
    of gaps, delays and lateness: every figure equal."""
    log = toolkit.synth.generate(model, records=4000, seed=3)
    grid = dict(window=["session:20ms", "session:1s"], delay=["0ms", "100ms"], lateness=["0ms", "500ms"], interval=[200, 0])
    fast = toolkit.sweep(log, progress=False, **grid)
    engine = toolkit.sweep(log, path="engine", progress=False, **grid)
    assert set(fast["path"]) == {"fast"}
    assert fast["late_accepted"].sum() > 0 and fast["dropped"].sum() > 0
    pd.testing.assert_frame_equal(fast.drop(columns=["path"]), engine.drop(columns=["path"]), check_exact=True)


def test_bench_sessions_command_runs_and_checks_both_paths(capsys):
    from toolkit.cli import main

    assert main(["bench", "sessions", "--records", "3000", "--keys", "30"]) == 0
    out = capsys.readouterr().out
    assert "M record-configurations/s" in out and "all paths: ['fast']" in out
    assert "identical figures on both paths: True" in out
    assert "(d) dynamic sessions" in out and out.count("identical figures on both paths: True") == 2


@pytest.mark.parametrize("args, message", [
    (["--gap", "0s"], "--gap must be a positive"), (["--gap", "soon"], "--gap"),
    (["--only", "z"], "--only"), (["--engine-records", "0"], "--engine-records"),
])
def test_bench_sessions_names_the_bad_option(args, message, capsys):
    from toolkit.cli import main

    assert main(["bench", "sessions", "--records", "100", *args]) == 2
    assert message in capsys.readouterr().err


def test_sessions_at_the_int64_edge_go_to_the_engine():
    """A sentinel timestamp near Long.MAX: ``ts + gap`` wraps in Flink; the sweep routes the
    session setting to the engine (which models the wrap) and keeps the fast path elsewhere."""
    edge = (0, 2**63 - 500)
    assert choose_paths([Setting.parse(window="session:1s")], "auto", event_range=edge) == ["engine"]
    assert choose_paths([Setting.parse(window="session:1s")], "auto", event_range=(0, 10**12)) == ["fast"]
    assert choose_paths([Setting.parse(window="tumbling:1s")], "auto", event_range=edge) == ["fast"]
    with pytest.raises(sessions.OutsideFastRange):
        sessions.check_range(np.array([5, 2**63 - 500]), 1000, 0)
