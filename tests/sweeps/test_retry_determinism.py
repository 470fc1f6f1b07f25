"""What a retried Spark task may change, and why no figure changes with it (issue 29).

A task Spark reruns (an executor lost, a fetch failure) reads the same records of its key
shards, but in another order (shuffle blocks arrive as they come), in a Python worker with
another string-hash seed, and its partial rows reach the merge in another order. Each of these
is checked here on every engine's semantics (``semantics_names()``, not named one by one):

- records in any order within a shard: the sweep's figures are the same (``Shard`` sorts by
  ``(arrival_time, row)``, and ``row`` is unique);
- partial rows in any order: ``merge_config`` and the per-range state fold give the same row;
- another ``PYTHONHASHSEED``: the same rows (no set or dict of strings decides a figure);
- a shard's partial merged twice (what a merge that counted a retried task's output again
  would do) changes the figures: the equality the cluster fault test asserts would catch it.

The executor-loss test on the real standalone cluster is ``test_sweep_cluster.py``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.metrics.summary import SUMMARY_COLUMNS, check_summary, merge_config, state_range_row
from toolkit.settings import grid, semantics_names
from toolkit.sweeps.semantics import all_timelines, evaluate_shard
from toolkit.sweeps.sweep import _paths, resolve_staggers, run_local
from toolkit.sweeps.timelines import local_sources

ROOT = Path(__file__).resolve().parents[2]
BASE = 1_700_000_000_000


def _frame(seed: int = 31) -> pd.DataFrame:
    """Ties in arrival time (several records per ms) and keys spread over partitions."""
    rng = np.random.default_rng(seed)
    n = 300
    arrival = BASE + np.sort(rng.integers(0, 6_000, n)) // 4 * 4
    return pd.DataFrame({"event_time": arrival - rng.choice([0, 120, 700, 1_900], n), "arrival_time": arrival,
                         "key": rng.choice([f"user-{i}" for i in range(7)], n), "partition": rng.integers(0, 3, n),
                         "value": rng.integers(1, 10, n)})


def _configs():
    rows = grid(semantics=list(semantics_names()), window=["tumbling:1s", "session:600ms"], delay=[0, 500],
                grace=[0, 500], output_mode=["append"])
    return rows + grid(window="sliding:1s/250ms", delay=300, lateness=400, trigger="count:3")


@pytest.fixture(scope="module")
def table():
    return toolkit.load_log(_frame(), time_unit="ms").table


@pytest.fixture(scope="module")
def expected(table):
    return toolkit.sweep(table, _configs(), execution="local", shards=3, progress=False)


def test_records_in_any_order_within_the_shards_give_the_same_rows(table, expected):
    shuffled = table.sample(frac=1.0, random_state=5).reset_index(drop=True)
    got = toolkit.sweep(shuffled, _configs(), execution="local", shards=3, progress=False)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert len(set(expected["semantics"])) == len(semantics_names())


def _partials(table: pd.DataFrame, shards: int = 3) -> tuple[pd.DataFrame, dict]:
    """Every shard's partial rows of the sharded configurations, and each one's span."""
    from toolkit.fast.evaluate import Shard
    from toolkit.sweeps.sweep import _shard_ids
    from toolkit.sweeps.whole import in_one_piece

    configs = resolve_staggers([c for c in _configs() if not in_one_piece(c, True)], table, None)
    paths = _paths(configs, "auto", table, None, {})
    timelines = all_timelines(configs, local_sources(table, None))
    jobs = [(i, c, p, timelines[i]) for i, (c, p) in enumerate(zip(configs, paths)) if get_shard_by(c) == "key"]
    keys = table["key"].to_numpy(dtype=object)
    shard_of = _shard_ids(keys, shards)
    frames = []
    for s in range(shards):
        sel = shard_of == s
        shard = Shard(keys[sel], table["event_time"].to_numpy()[sel], table["arrival_time"].to_numpy()[sel],
                      table["row"].to_numpy()[sel], partition=table["partition"].to_numpy()[sel])
        frames.append(evaluate_shard(shard, jobs).assign(shard=s))
    spans = {i: (tl.start_time, tl.end_time) for i, tl in timelines.items()}
    return pd.concat(frames, ignore_index=True), spans


def get_shard_by(config) -> str:
    from toolkit.semantics import get

    return get(config.semantics).shard_by


@pytest.fixture(scope="module")
def partials(table):
    return _partials(table)


def _merge(rows: pd.DataFrame, spans: dict) -> dict:
    return {int(c): merge_config(g, start_time=spans[int(c)][0], end_time=spans[int(c)][1])
            for c, g in rows.groupby("config", sort=True)}


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        all((x == y) or (x != x and y != y) for x, y in ((a[c][k], b[c][k]) for k in SUMMARY_COLUMNS)) for c in a)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31), cut=st.integers(1, 40))
def test_partial_rows_in_any_order_merge_to_the_same_row(partials, seed, cut):
    rows, spans = partials
    reference = _merge(rows, spans)
    shuffled = rows.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    assert _same(_merge(shuffled, spans), reference)
    # the Spark path folds state deltas per range of positions first, in any order too
    state = shuffled[shuffled["kind"] == 2]
    folded = [pd.DataFrame([{"config": c, **state_range_row(g, int(r))}])
              for (c, r), g in state.groupby([state["config"], state["a"] // cut])]
    other = shuffled[shuffled["kind"] != 2]
    refolded = pd.concat([other, *folded], ignore_index=True).sample(frac=1.0, random_state=seed + 1)
    assert _same(_merge(refolded, spans), reference)


def test_a_shard_merged_twice_changes_the_figures(partials, table):
    """What the cluster test's equality would see if a retried task's output were counted again."""
    rows, spans = partials
    reference = _merge(rows, spans)
    biggest = rows["shard"].value_counts().idxmax()
    twice = pd.concat([rows, rows[rows["shard"] == biggest]], ignore_index=True)
    doubled = _merge(twice, spans)
    assert not _same(doubled, reference)
    for c in reference:  # every configuration counts more records than the log holds
        assert reference[c]["records"] == len(table) < doubled[c]["records"]
    frame = pd.DataFrame(list(doubled.values()))
    check_summary(frame)  # still self-consistent: only a comparison with the true figures catches it


_CHILD = """
import json, sys
sys.path.insert(0, {tests!r})
from sweeps.test_retry_determinism import _configs, _frame
import toolkit
t = toolkit.load_log(_frame(), time_unit="ms").table
got = toolkit.sweep(t, _configs(), execution="local", shards=3, progress=False)
print(got.to_json(orient="split", double_precision=15))
"""


def test_another_string_hash_seed_gives_the_same_rows(expected):
    """This process's seed is random (unless set); the child's is fixed and differs."""
    env = {**os.environ, "PYTHONHASHSEED": "4242" if os.environ.get("PYTHONHASHSEED") != "4242" else "7"}
    code = _CHILD.format(tests=str(ROOT / "tests"))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    want = json.loads(expected.to_json(orient="split", double_precision=15))
    assert got["data"] == want["data"]


def test_run_local_merges_every_shard_once(table):
    """The in-process merge gives the log's record count once per configuration, whatever the shards."""
    from toolkit.sweeps.whole import in_one_piece

    configs = [c for c in _configs() if not in_one_piece(c, True)]
    paths = _paths(configs, "auto", table, None, {})
    for shards in (1, 4):
        got = run_local(table, configs, paths, invalid=0, shards=shards, progress=False)
        assert (got["records"] == len(table)).all()
