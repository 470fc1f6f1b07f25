"""The Spark sweep folds state deltas per range of positions (``KIND_STATE_RANGE``) before the
per-configuration merge: the peak and the final state must be exactly those of the running sum
over every delta, however the positions are cut into ranges (hypothesis)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from toolkit.metrics.summary import KIND_STATE, merge_config, state_range_row
from toolkit.sweeps.spark import OUTPUT_BATCH_ROWS, in_batches

ROW = st.tuples(st.integers(0, 40), st.integers(-5, 5), st.integers(0, 3), st.integers(-3, 3), st.integers(-50, 50))


def _rows(items) -> pd.DataFrame:
    pos, arr, row, dw, dr = (np.array(x, dtype=np.int64) for x in zip(*items))
    n = len(pos)
    return pd.DataFrame({"config": np.zeros(n, np.int64), "kind": np.full(n, KIND_STATE, np.int64), "a": pos,
                         "b": arr, "c": row, "d": dw, "e": dr})


@settings(max_examples=200, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=60), st.integers(1, 45))
def test_range_folds_give_the_running_sums_peak(items, span):
    rows = _rows(items)
    whole = merge_config(rows, start_time=0, end_time=0)
    ranges = rows["a"] // span
    folded = pd.DataFrame([{"config": 0, **state_range_row(rows[ranges == r], int(r))} for r in sorted(set(ranges))])
    parts = merge_config(folded.sample(frac=1.0, random_state=0), start_time=0, end_time=0)
    for col in ("peak_state_windows", "peak_state_records", "mean_state_windows", "mean_state_records"):
        assert parts[col] == whole[col], col


def test_rows_per_position_and_per_range_are_not_mixed():
    rows = _rows([(0, 0, 0, 1, 1)])
    folded = pd.DataFrame([{"config": 0, **state_range_row(rows, 0)}])
    try:
        merge_config(pd.concat([rows, folded]), start_time=0, end_time=0)
    except ValueError as exc:
        assert "per position and per range" in str(exc)
    else:
        raise AssertionError("mixed state rows were merged")


def test_in_batches_cuts_a_frame_into_consecutive_slices():
    frame = pd.DataFrame({"a": np.arange(10)})
    parts = list(in_batches(frame, 4))
    assert [len(p) for p in parts] == [4, 4, 2]
    assert pd.concat(parts)["a"].tolist() == list(range(10))
    assert [len(p) for p in in_batches(frame, 10)] == [10]


def test_a_shard_whose_rows_come_back_in_many_batches_gives_the_same_figures(spark):
    # one shard of 40 k session records (1,000 keys) x 10 configurations: ~190 k partial rows, 3 output batches
    import toolkit

    n = 40_000
    rng = np.random.default_rng(5)
    arrival = np.arange(n, dtype=np.int64) // 10
    table = pd.DataFrame({"row": np.arange(n, dtype=np.int64), "event_time": arrival - rng.integers(0, 2000, n),
                          "arrival_time": arrival, "key": [f"k{k}" for k in rng.integers(0, 1000, n)], "partition": 0})
    grid = dict(window="session:100ms", interval=200, delay=[0, 500, 1000, 2000, 5000], lateness=[0, 1000])
    here = toolkit.sweep(table, progress=False, **grid)
    there = toolkit.sweep(table, execution="spark", spark=spark, shards=1, progress=False, **grid)
    assert set(there["path"]) == {"fast"} and _partial_rows(table, grid) > 2 * OUTPUT_BATCH_ROWS
    pd.testing.assert_frame_equal(there.reset_index(drop=True), here.reset_index(drop=True), check_like=True)


def test_timing_diagnostics_time_the_stages_once_and_give_the_same_figures(spark, monkeypatch, capsys):
    """``WATERMARK_LAB_SPARK_TIMING``: evaluate+fold and merge timed apart, the merge collected
    once (as many collects as without it), the figures those of the sweep without it."""
    import toolkit

    DataFrame = type(spark.range(1))  # the session's own DataFrame class (classic or Connect)

    n = 3_000
    arrival = np.arange(n, dtype=np.int64)
    table = pd.DataFrame({"row": np.arange(n, dtype=np.int64), "event_time": arrival - (arrival * 7919) % 1500,
                          "arrival_time": arrival, "key": [f"k{i % 50}" for i in range(n)], "partition": 0})
    grid = dict(window="session:100ms", interval=200, delay=[0, 1000])
    collects: list[int] = []
    real = DataFrame.toPandas
    monkeypatch.setattr(DataFrame, "toPandas", lambda self, *a, **k: collects.append(1) or real(self, *a, **k))
    plain = toolkit.sweep(table, execution="spark", spark=spark, shards=2, progress=False, **grid)
    plain_collects, collects[:] = len(collects), []
    monkeypatch.setenv("WATERMARK_LAB_SPARK_TIMING", "1")
    timed = toolkit.sweep(table, execution="spark", spark=spark, shards=2, progress=False, **grid)
    assert capsys.readouterr().out.count("[sweep timing] evaluate+fold ") == 1
    assert len(collects) == plain_collects > 0
    pd.testing.assert_frame_equal(timed.reset_index(drop=True), plain.reset_index(drop=True))


def _partial_rows(table: pd.DataFrame, grid: dict) -> int:
    """How many partial rows one shard of the whole ``table`` yields under ``grid``."""
    import itertools

    from toolkit.fast.evaluate import Shard
    from toolkit.settings import Setting
    from toolkit.sweeps.semantics import all_timelines, evaluate_shard
    from toolkit.sweeps.sweep import local_sources

    configs = [Setting.parse(window=grid["window"], interval=grid["interval"], delay=d, lateness=l)
               for d, l in itertools.product(grid["delay"], grid["lateness"])]
    timelines = all_timelines(configs, local_sources(table, None))
    shard = Shard(table["key"].to_numpy(dtype=object), table["event_time"].to_numpy(), table["arrival_time"].to_numpy(),
                  table["row"].to_numpy(), partition=table["partition"].to_numpy(dtype=np.int64))
    return len(evaluate_shard(shard, [(i, c, "fast", timelines[i]) for i, c in enumerate(configs)]))
