"""The same setting gives the same figures on every path a user can take: ``replay(...).summary()``,
``sweep`` in-process and on Spark, and the ``replay``, ``sweep`` and ``report`` commands."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.cli import main
from toolkit.metrics.summary import SUMMARY_COLUMNS

#: (python keywords, command-line options): one closed-form setting, two on the engine path
SETTINGS = {
    "closed_form": (
        dict(window="sliding:2s/1s", delay="300ms", lateness="1s", interval="100ms", idleness="2s", source_parallelism=2),
        ["--window", "sliding:2s/1s", "--delay", "300ms", "--lateness", "1s", "--interval", "100ms", "--idleness", "2s",
         "--source-parallelism", "2"],
    ),
    "sessions_evictor_idle_advance": (
        dict(window="session:400ms", evictor="count:5", lateness="500ms", strategy="idle_advance", step="50ms",
             accumulation="retracting", partitions_as_sources=False),
        ["--window", "session:400ms", "--evictor", "count:5", "--lateness", "500ms", "--strategy", "idle_advance",
         "--step", "50ms", "--accumulation", "retracting", "--no-partitions-as-sources"],
    ),
    "count_trigger_adaptive_two_stages": (
        dict(window="tumbling:1s", trigger="count:3", strategy="adaptive", quantile=0.9, delay="200ms",
             second_window="tumbling:5s", function="values"),
        ["--window", "tumbling:1s", "--trigger", "count:3", "--strategy", "adaptive", "--quantile", "0.9", "--delay",
         "200ms", "--second-window", "tumbling:5s", "--function", "values"],
    ),
}


@pytest.fixture(scope="module")
def log_file(tmp_path_factory):
    rng = np.random.default_rng(7)
    n = 600
    arrival = np.sort(rng.integers(0, 20_000, n))
    frame = pd.DataFrame({
        "event_time": arrival - rng.integers(0, 1_500, n), "arrival_time": arrival,
        "key": rng.choice(["a", "b", "c", "d"], n), "partition": rng.integers(0, 3, n), "value": rng.integers(1, 9, n),
    })
    path = tmp_path_factory.mktemp("same") / "log.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def log(log_file):
    return toolkit.load_log(str(log_file))


@pytest.fixture(scope="module")
def expected(log):
    return {name: toolkit.replay(log, **kw).summary() for name, (kw, _) in SETTINGS.items()}


def _same(figures: dict, expected: dict) -> None:
    for col in SUMMARY_COLUMNS:
        a, b = figures[col], expected[col]
        if isinstance(b, float) and math.isnan(b):
            assert a is None or math.isnan(float(a)), col
        else:
            assert float(a) == pytest.approx(float(b), rel=1e-12, abs=0), col


@pytest.mark.parametrize("name", SETTINGS)
def test_replay_summary_counts_are_its_own_fates(log, name):
    r = toolkit.replay(log, **SETTINGS[name][0])
    s = r.summary()
    counts = r.fates["fate"].value_counts()
    assert (s["on_time"], s["late_accepted"], s["dropped"]) == tuple(int(counts.get(f, 0)) for f in ("on_time", "late_accepted", "dropped"))
    assert s["records"] == len(r.fates) + log.n_invalid


@pytest.mark.parametrize("name", SETTINGS)
def test_sweep_in_process(log, expected, name):
    row = toolkit.sweep(log, execution="local", progress=False, **SETTINGS[name][0]).iloc[0]
    _same(row.to_dict(), expected[name])


@pytest.mark.spark
@pytest.mark.parametrize("name", SETTINGS)
def test_sweep_on_spark(log, expected, name, spark):
    row = toolkit.sweep(log, execution="spark", spark=spark, shards=3, progress=False, **SETTINGS[name][0]).iloc[0]
    _same(row.to_dict(), expected[name])


@pytest.mark.parametrize("name", SETTINGS)
def test_replay_command(log_file, expected, name, capsys):
    assert main(["replay", str(log_file), *SETTINGS[name][1], "--json"]) == 0
    _same(json.loads(capsys.readouterr().out), expected[name])


@pytest.mark.parametrize("name", SETTINGS)
def test_sweep_command(log_file, expected, name, tmp_path, capsys):
    out = tmp_path / "results.csv"
    assert main(["sweep", str(log_file), *SETTINGS[name][1], "--out", str(out), "--no-progress"]) == 0
    _same(pd.read_csv(out).iloc[0].to_dict(), expected[name])


@pytest.mark.parametrize("name", ["closed_form", "sessions_evictor_idle_advance"])
def test_report_command(log_file, expected, name, tmp_path, capsys):
    out, results = tmp_path / "r.html", tmp_path / "results.csv"
    assert main(["report", str(log_file), *SETTINGS[name][1], "--out", str(out), "--results", str(results)]) == 0
    _same(pd.read_csv(results).iloc[0].to_dict(), expected[name])
    assert out.stat().st_size > 0


def _every_third(ts, key, value):
    return ts % 3 == 0


@pytest.mark.parametrize("kw", [
    dict(window="tumbling:1s", strategy="punctuated", marker=_every_third, delay="100ms"),
    dict(window="session:300ms", strategy="time_lag", delay="1s", interval="50ms"),
    dict(window="sliding:1s/500ms", strategy="legacy", delay="250ms", interval=0, idleness="1s"),
    dict(window="tumbling:500ms", strategy="monotonous", accumulation="discarding", evictor="time:200ms"),
], ids=["punctuated", "time_lag", "legacy_interval0_idle", "monotonous_discarding_evictor"])
def test_every_strategy_sweeps_as_it_replays(log, kw):
    expected = toolkit.replay(log, **kw).summary()
    _same(toolkit.sweep(log, execution="local", progress=False, **kw).iloc[0].to_dict(), expected)
