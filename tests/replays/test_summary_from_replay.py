"""``replay(...).summary()`` reads its figures off the replay it already ran (issue 24, item 4).

- for a setting off the closed form the window operator runs once: the replay's own run gives
  the emissions, fates and state table *and* the sweep row's figures (no second engine run at
  ``summary()``); in the closed form ``summary()`` asks the closed-form evaluator, no engine;
- those figures are the sweep row's, figure by figure, for sessions, dynamic sessions, count
  and continuous triggers, evictors, staggers, discarding mode, several stages and idleness;
- Flink's replay module imports no sweep code.
"""
from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, reject, settings, strategies as st

import toolkit
from toolkit.engine.flink import config as flink_config, pipeline as flink_pipeline
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.replays.frames import emissions_frame
from toolkit.semantics.flink import replay as flink_replay
from toolkit.semantics.flink.window_operator import closed_form
from toolkit.settings import Setting, SettingError

REPLAY_MODULE = Path(__file__).resolve().parents[2] / "toolkit" / "semantics" / "flink" / "replay.py"

#: settings off the closed form, one per kind of reason (the engine gives their figures)
OFF_CLOSED_FORM = {
    "session": dict(window="session:400ms", lateness="300ms", delay="200ms"),
    "dynamic_session": dict(window="dynamic_session:gap_ms", delay="100ms", idleness="1s"),
    "count_trigger": dict(window="tumbling:1s", trigger="count:3", delay="200ms"),
    "continuous_trigger": dict(window="sliding:2s/1s", trigger="continuous:300ms", lateness="500ms"),
    "evictor": dict(window="tumbling:1s", evictor="count:2", accumulation="discarding"),
    "stagger": dict(window="tumbling:1s", stagger="natural", delay="100ms"),
    "discarding": dict(window="tumbling:1s", accumulation="discarding", lateness="1s"),
    "two_stages": dict(window="tumbling:500ms", stages=["window=tumbling:2s", "window=session:1s trigger=count:2"]),
    "idleness_interval0": dict(window="session:300ms", interval=0, idleness="700ms", strategy="legacy"),
}


def _table(seed: int = 3, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    arrival = np.sort(rng.integers(0, 12_000, n))
    return pd.DataFrame({
        "event_time": arrival - rng.integers(0, 1_500, n), "arrival_time": arrival,
        "key": rng.choice(["a", "b", "c"], n), "partition": rng.integers(0, 3, n), "value": rng.integers(1, 9, n),
        "gap_ms": rng.integers(50, 600, n),
    })


@pytest.fixture(scope="module")
def log():
    return toolkit.load_log(_table(), keep=["gap_ms"])


class _Counts:
    """How many pipelines ran and window operators were built, by patching the engine."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.runs = self.builds = 0
        chain, build = flink_pipeline._stage_chain, flink_config.WindowConfig.build

        def counted_chain(*args, **kwargs):  # every run_pipeline sets up its stages once
            self.runs += 1
            return chain(*args, **kwargs)

        def counted_build(cfg):
            self.builds += 1
            return build(cfg)

        monkeypatch.setattr(flink_pipeline, "_stage_chain", counted_chain)
        monkeypatch.setattr(flink_config.WindowConfig, "build", counted_build)


def _same_figures(summary: dict, row: pd.Series) -> None:
    for col in SUMMARY_COLUMNS:
        a, b = summary[col], row[col]
        if isinstance(b, float) and math.isnan(b):
            assert isinstance(a, float) and math.isnan(a), col
        else:
            assert a == b, (col, a, b)


@pytest.mark.parametrize("name", OFF_CLOSED_FORM)
def test_the_engine_runs_once_off_the_closed_form(log, monkeypatch, name):
    kw = OFF_CLOSED_FORM[name]
    assert not closed_form(Setting.parse(**kw))
    counts = _Counts(monkeypatch)
    r = toolkit.replay(log, **kw)
    assert (counts.runs, counts.builds) == (1, len(r.pipeline))  # the replay's one run, one operator per stage
    s = r.summary()
    assert (counts.runs, counts.builds) == (1, len(r.pipeline))  # summary() ran nothing more
    assert s["peak_state_windows"] >= 1 and s["windows"] >= 1  # the sweep's figures, not only the replay's counts


def test_the_closed_form_asks_the_evaluator_and_runs_no_engine_again(log, monkeypatch):
    kw = dict(window="sliding:2s/1s", delay="300ms", lateness="1s", idleness="2s")
    assert closed_form(Setting.parse(**kw))
    counts = _Counts(monkeypatch)
    s = toolkit.replay(log, **kw).summary()
    assert (counts.runs, counts.builds) == (1, 1)
    _same_figures(s, toolkit.sweep(log, execution="local", progress=False, **kw).iloc[0])


@pytest.mark.parametrize("name", OFF_CLOSED_FORM)
def test_sampling_for_the_figures_changes_none_of_the_replays_tables(log, name):
    """The replay's run with exact samples (``state="both"``) gives the state table, emissions
    and late records of a run without them (``"ticks"``), and a sample after every record."""
    s = Setting.parse(**OFF_CLOSED_FORM[name])
    r = toolkit.replay(log, s)
    a = r._records
    ticks = flink_replay._run_stages(s, a, r.timeline, None, False, False)
    both = flink_replay._run_stages(s, a, r.timeline, None, False, True)
    assert ticks.state == both.state and ticks.exact_state is None
    for stage in range(1, len(r.pipeline) + 1):
        em_t, late_t, _ = emissions_frame(ticks, stage, True, a)
        em_b, late_b, _ = emissions_frame(both, stage, True, a)
        pd.testing.assert_frame_equal(em_t, em_b)
        pd.testing.assert_frame_equal(late_t, late_b)
    assert len(both.exact_state) >= len(a["ts"])


@pytest.mark.parametrize("name", OFF_CLOSED_FORM)
def test_named_settings_equal_the_sweep_row(log, name):
    kw = OFF_CLOSED_FORM[name]
    _same_figures(toolkit.replay(log, **kw).summary(), toolkit.sweep(log, execution="local", progress=False, **kw).iloc[0])


def test_the_replay_module_imports_no_sweep_code():
    tree = ast.parse(REPLAY_MODULE.read_text())
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [m for m in names if m.startswith("toolkit.sweeps")]


def test_a_replay_and_its_summary_load_no_sweep_module():
    """In a fresh interpreter: replay and summary() on and off the closed form, then no
    ``toolkit.sweeps`` module is loaded."""
    import subprocess
    import sys

    code = ("import sys, numpy as np, toolkit\n"
            "from toolkit.log import EventLog\n"
            "log = EventLog.from_arrays(np.arange(100), np.arange(100) + 50, key='a')\n"
            "for kw in (dict(window='session:10ms'), dict(window='tumbling:10ms'), dict(window='tumbling:10ms', trigger='count:2')):\n"
            "    assert toolkit.replay(log, **kw).summary()['windows'] > 0\n"
            "print(sorted(m for m in sys.modules if m.startswith('toolkit.sweeps')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "[]"


# -- property: any log, any setting off the closed form ----------------------------------------

@st.composite
def tables(draw, max_records=40):
    n = draw(st.integers(1, max_records))
    arrival = np.sort(np.asarray(draw(st.lists(st.integers(0, 4000), min_size=n, max_size=n)), dtype=np.int64))
    lag = np.asarray(draw(st.lists(st.integers(0, 1500), min_size=n, max_size=n)), dtype=np.int64)
    return pd.DataFrame({
        "event_time": arrival - lag, "arrival_time": arrival,
        "key": np.asarray(draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)), dtype=object),
        "partition": np.asarray(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64),
        "value": np.asarray(draw(st.lists(st.integers(-5, 9), min_size=n, max_size=n)), dtype=np.int64),
        "gap_ms": np.asarray(draw(st.lists(st.integers(1, 800), min_size=n, max_size=n)), dtype=np.int64),
    })


@st.composite
def off_closed_form(draw) -> dict:
    kind = draw(st.sampled_from(["session", "dynamic_session", "trigger", "evictor", "stagger", "discarding", "stages"]))
    size = draw(st.integers(50, 1500))
    kw: dict = {"window": f"tumbling:{size}ms"}
    if kind == "session":
        kw["window"] = f"session:{draw(st.integers(20, 1000))}ms"
    elif kind == "dynamic_session":
        kw["window"] = "dynamic_session:gap_ms"
    elif kind == "stagger":
        kw["stagger"] = draw(st.sampled_from(["natural", "random:5"]))
    elif draw(st.booleans()):
        slide = draw(st.integers(50, 800))
        kw["window"] = f"sliding:{slide * draw(st.integers(1, 3))}ms/{slide}ms"
    if kind == "trigger" or draw(st.integers(0, 3)) == 0:
        # no processing-time trigger: see test_processing_time_triggers_follow_the_replays_own_emissions
        kw["trigger"] = draw(st.sampled_from(["count:2", "continuous:300ms", "purging:count:3", "purging:continuous:200ms"]))
    if kind == "evictor" or draw(st.integers(0, 4)) == 0:
        kw["evictor"] = draw(st.sampled_from(["count:2", "time:200ms", "count:1,after"]))
    if kind == "discarding":
        kw["accumulation"] = "discarding"
    elif draw(st.integers(0, 3)) == 0:
        kw["accumulation"] = draw(st.sampled_from(["discarding", "retracting"]))
    if kind == "stages":
        kw["stages"] = draw(st.lists(st.sampled_from(["window=tumbling:2s", "window=session:500ms trigger=count:2",
                                                      "window=sliding:2s/1s lateness=1s"]), min_size=1, max_size=2))
    kw.update(delay=draw(st.integers(0, 800)), lateness=draw(st.sampled_from([0, 300, 2000])),
              interval=draw(st.sampled_from([0, 100, 200])), idleness=draw(st.sampled_from([None, 500])),
              source_parallelism=draw(st.sampled_from([1, 2])), partitions_as_sources=draw(st.booleans()))
    return kw


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), off_closed_form())
def test_property_the_replays_summary_is_the_sweep_row(table, kw):
    try:
        s = Setting.parse(**kw)
    except SettingError:
        reject()  # a combination Flink refuses (e.g. an evictor with retracting mode)
    assert not closed_form(s)
    log = toolkit.load_log(table, keep=["gap_ms"])
    summary = toolkit.replay(log, s).summary()
    _same_figures(summary, toolkit.sweep(log, [s], execution="local", progress=False).iloc[0])


# -- processing-time triggers: the replay's clock also moves at its state samples --------------

def _tick_log():
    """Window [82, 102) has a processing-time timer at 101; the next record arrives at 201, and
    a periodic tick (interval 100ms) at 200 moves no watermark."""
    et = np.array([0] * 26 + [82, 201], dtype=np.int64)
    t = pd.DataFrame({"event_time": et, "arrival_time": et, "key": "a", "partition": 0, "value": 1})
    return toolkit.load_log(t)


TICK_SETTING = dict(window="session:20ms", trigger="processing_time", evictor="count:2", delay=0, interval=100,
                    partitions_as_sources=False)


def test_processing_time_triggers_follow_the_replays_own_emissions():
    """The figures are read off the replay's run, so they agree with its emissions; the operator's
    clock passes the timer's own time (101) as a running job's does, so it fires there, before
    the periodic tick at 200 and the record at 201: latency 101 - 102."""
    r = toolkit.replay(_tick_log(), **TICK_SETTING)
    em = r.emissions[r.emissions["kind"] == "fire"]
    first = em.groupby("window_start").first()
    latency = (first["emit_time"] - first["window_end"]).astype("int64")
    assert r.summary()["latency_max_ms"] == float(latency.max()) == -1.0


def test_processing_time_triggers_equal_the_sweep_row():
    """The replay samples its state at periodic ticks, the sweep does not: each timer fires at
    its own time in both, so the figures agree."""
    log = toolkit.load_log(_tick_log().table.drop(columns=["row"]))
    _same_figures(toolkit.replay(log, **TICK_SETTING).summary(),
                  toolkit.sweep(log, execution="local", progress=False, **TICK_SETTING).iloc[0])
