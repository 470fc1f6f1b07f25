"""The sweep's fast path for Kafka Streams rows (``toolkit.semantics.kafka_streams.fast``): TimeWindows
with emit update (record cache on, off, evicting), final and suppress give the replay's figures,
whole or in shards of tasks, and the sweep says which path each row took."""
from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.engine.kafka_streams.windows import TimeWindows
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.semantics.kafka_streams.fast import fast_applies
from toolkit.semantics.kafka_streams.sweep import sweep_figures
from toolkit.settings import Setting, SettingError

BASE = 1_700_000_000_000
#: what the fast path must give as the replay does: every summary column, and Kafka's own figures
FIGURES = [*SUMMARY_COLUMNS, "dropped_records_sensor", "record_lateness_max_ms", "updates", "finals",
           "tombstones", "cache_evictions"]


def _frame(n=120, seed=1, keys=("a", "bü", "c" * 40, "d", "e"), parts=3, span=20_000, co_partitioned=False):
    rng = np.random.default_rng(seed)
    arrival = BASE + np.sort(rng.integers(0, span, n))
    arrival[n // 2:] += int(rng.integers(0, 3 * span))  # a silence: stream time jumps, the store expires windows
    event = arrival - rng.choice([0, 100, 700, 3_000, 9_000], n)
    key = rng.choice(list(keys), n)
    part = (np.array([len(k) for k in key]) % parts) if co_partitioned else rng.integers(0, parts, n)
    return pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": key, "partition": part,
                         "value": rng.random(n)})


def _differences(a: dict, b: dict) -> list:
    return [(k, a[k], b[k]) for k in FIGURES if not (a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]))]


def _setting(window, grace, emit, tasks, cache, commit, emit_interval, retention_extra):
    size = {"tumbling:1s": 1000, "tumbling:300ms": 300, "sliding:3s/1s": 3000, "sliding:2s/2s": 2000,
            "sliding:5s/700ms": 5000}[window]
    retention = None if retention_extra is None else size + grace + retention_extra
    return Setting.parse(semantics="kafka_streams", window=window, grace=grace, emit=emit, tasks=tasks,
                         cache_max_bytes=cache, commit_interval=commit, emit_interval=emit_interval,
                         retention=retention)


SETTINGS = st.builds(
    _setting,
    st.sampled_from(["tumbling:1s", "tumbling:300ms", "sliding:3s/1s", "sliding:2s/2s", "sliding:5s/700ms"]),
    st.sampled_from([0, 100, 1000, 5000]), st.sampled_from(["update", "final", "suppress"]),
    st.sampled_from([None, 1, 2, 5]),
    # the record cache: off, Kafka's default, or small enough to evict (dirty entries too)
    st.sampled_from([0, "10MB", "2KB", "300B"]), st.sampled_from(["0", "500ms", "2s", "30s"]),
    st.sampled_from(["0", "1s", "3s"]), st.sampled_from([None, 0, 4000]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SETTINGS, st.integers(0, 10_000), st.integers(1, 150))
def test_property_fast_path_equals_the_replay(s, seed, n):
    table = toolkit.load_log(_frame(n=n, seed=seed), time_unit="ms").table
    assert fast_applies(s)
    want = sweep_figures(table, s, path="kafka_streams")
    assert not _differences(want, sweep_figures(table, s, path="fast")), str(s)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SETTINGS, st.integers(0, 10_000))
def test_property_co_partitioned_log_fast_equals_the_replay(s, seed):
    s = s.replace(repartition=False, tasks=None)
    table = toolkit.load_log(_frame(n=90, seed=seed, co_partitioned=True), time_unit="ms").table
    assert not _differences(sweep_figures(table, s, path="kafka_streams"), sweep_figures(table, s, path="fast"))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SETTINGS, st.integers(0, 10_000), st.integers(1, 80), st.sampled_from([1, 2, 3]))
def test_property_sweep_rows_on_the_fast_path_equal_the_replay_in_any_sharding(s, seed, n, shards):
    log = toolkit.load_log(_frame(n=n, seed=seed), time_unit="ms")
    row = toolkit.sweep(log, [s], shards=shards, execution="local", progress=False).iloc[0]
    assert row["path"] == "fast"
    want = toolkit.replay(log, s).summary()
    assert not [k for k in SUMMARY_COLUMNS if not (want[k] == row[k] or (want[k] != want[k] and row[k] != row[k]))]


def test_the_sweep_says_which_path_each_row_took():
    log = toolkit.load_log(_frame(n=150, seed=3), time_unit="ms")
    ss = [Setting.parse(semantics="kafka_streams", window=w, emit=e) for w in
          ("tumbling:1s", "sliding:3s/1s", "session:1s", "kafka_sliding:1s") for e in ("update", "final", "suppress")]
    ss.append(Setting.parse(semantics="kafka_streams", window="tumbling:1s", emit="suppress", suppress_max_records=50))
    auto = toolkit.sweep(log, ss, progress=False)
    assert auto["path"].tolist() == ["fast"] * 6 + ["kafka_streams"] * 7
    assert set(toolkit.sweep(log, ss, path="engine", progress=False)["path"]) == {"kafka_streams"}
    cols = SUMMARY_COLUMNS
    engine = toolkit.sweep(log, ss[:6], path="engine", progress=False)
    pd.testing.assert_frame_equal(auto[cols].iloc[:6].reset_index(drop=True), engine[cols].reset_index(drop=True))
    assert toolkit.sweep(log, ss[:6], path="fast", progress=False)["path"].tolist() == ["fast"] * 6
    with pytest.raises(SettingError) as e:
        toolkit.sweep(log, ss, path="fast", progress=False)
    assert e.value.setting == "path" and "session:1s" in str(e.value)


def test_cli_sweep_rows_take_the_fast_path(tmp_path):
    from toolkit.cli import main

    p = tmp_path / "log.csv"
    _frame(n=100, seed=5).to_csv(p, index=False)
    assert main(["sweep", str(p), "--semantics", "kafka_streams", "--window", "tumbling:1s", "--window", "session:1s",
                 "--out", str(tmp_path / "s.csv")]) == 0
    rows = pd.read_csv(tmp_path / "s.csv")
    assert rows["path"].tolist() == ["fast", "kafka_streams"]


# ------------------------------------------ the conformance corpus: Kafka's own tests, re-expressed
_CORPUS = ("test_kafka_window_aggregate", "test_kafka_record_cache", "test_kafka_suppress", "test_kafka_windowed_streams")


def _corpus_logs() -> list[tuple[pd.DataFrame, TimeWindows, int]]:
    """Every input the re-expressed Kafka tests give a TimeWindows aggregation: (log table, windows, tasks)."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    seen: list = []

    def record(keys, timestamps, values=None, arrival=None, partitions=None, *, windows, tasks=None, **kw):
        if isinstance(windows, TimeWindows) and len(timestamps):
            seen.append((list(keys), list(timestamps), values, arrival, windows, tasks or 1))
        return original(keys, timestamps, values, arrival, partitions, windows=windows, tasks=tasks, **kw)

    from toolkit.engine.kafka_streams import run_windowed_aggregation as original

    mods = [importlib.import_module("_kafka_cases")] + [importlib.import_module(m) for m in _CORPUS]
    mp = pytest.MonkeyPatch()
    try:
        for m in mods:
            if hasattr(m, "run_windowed_aggregation"):
                mp.setattr(m, "run_windowed_aggregation", record)
        for m in mods[1:]:
            for name, f in vars(m).items():
                if name.startswith("test_") and callable(f) and not inspect.signature(f).parameters:
                    f()
    finally:
        mp.undo()
    out = []
    for keys, ts, vals, arr, w, tasks in seen:
        n = len(ts)
        arr = np.arange(n) if arr is None else np.asarray(arr)
        vals = np.ones(n) if vals is None else np.asarray(vals, dtype=float)
        out.append((pd.DataFrame({"event_time": np.asarray(ts, np.int64), "arrival_time": np.asarray(arr, np.int64),
                                  "key": np.asarray([str(k) for k in keys], dtype=object),
                                  "partition": np.zeros(n, np.int64), "value": vals, "row": np.arange(n)}), w, tasks))
    return out


def test_fast_path_equals_the_replay_on_every_conformance_corpus_log():
    logs = _corpus_logs()
    assert len(logs) >= 20
    checked = 0
    for table, w, tasks in logs:
        window = f"tumbling:{w.size}ms" if w.advance == w.size else f"sliding:{w.size}ms/{w.advance}ms"
        for emit in ("update", "final", "suppress"):
            for cache, commit in ((0, "0"), ("10MB", "30s"), ("10MB", "0"), ("200B", "5ms")):
                s = Setting.parse(semantics="kafka_streams", window=window, grace=w.grace, emit=emit, tasks=tasks,
                                  cache_max_bytes=cache, commit_interval=commit, emit_interval="0")
                want = sweep_figures(table, s, path="kafka_streams")
                assert not _differences(want, sweep_figures(table, s, path="fast")), (str(s), table.to_dict("list"))
                checked += 1
    assert checked >= 240


@pytest.mark.parametrize("emit", ["update", "final", "suppress"])
def test_state_does_not_depend_on_the_record_cache(emit):
    """The store and its cache hold the same windows whatever the cache forwards: the state figures
    are those of the cache-off run. The cache's flushes (at commits, at the end) once stood in for
    the updates, so on a log of four tasks the windows closed before they opened: peak 0, mean
    state -194.8 windows (data/lagging.parquet)."""
    log = toolkit.load_log(Path(__file__).resolve().parents[2] / "data" / "lagging.parquet")
    cols = ["peak_state_windows", "peak_state_records", "mean_state_windows", "mean_state_records"]
    rows = pd.concat([toolkit.sweep(log, semantics="kafka_streams", window="tumbling:1s", emit=emit,
                                    cache_max_bytes=[0, "10MB"], path=path, progress=False) for path in ("auto", "engine")])
    assert (rows[cols].nunique() == 1).all(), rows[["path", "cache_max_bytes", *cols]]
    assert (rows[cols] > 0).all().all()
    assert (rows["peak_state_windows"] >= rows["mean_state_windows"]).all()
