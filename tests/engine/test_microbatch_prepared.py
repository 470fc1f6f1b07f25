"""``MicroBatchLog`` / ``run_prepared``: the work a log needs once, reused by many settings,
changes no figure. Every setting run on one shared prepared log (caches warm, and evicted
when small) equals the per-run code: key codes as ``np.unique`` gives them, the watermark from
the records, and the window aggregation grouping its own pairs (``groups=None``)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import toolkit.engine.microbatch.prepared as prepared_mod
from toolkit.engine.microbatch import MicroBatchConfig, MicroBatchConfigError
from toolkit.engine.microbatch.aggregation import aggregate_windows
from toolkit.engine.microbatch.batches import data_ticks, executed_batches
from toolkit.engine.microbatch.prepared import MicroBatchLog, key_codes
from toolkit.engine.microbatch.run import run_prepared
from toolkit.engine.microbatch.watermark import watermarks_after

records = st.lists(
    st.tuples(st.integers(0, 60_000), st.integers(0, 30_000), st.sampled_from(["a", "b", "c", "dd", "B"]),
              st.integers(0, 2), st.integers(1, 9)),
    min_size=1, max_size=60)
windows = st.sampled_from([("tumbling", 10_000, 0, 0, 0), ("tumbling", 4_000, 0, 0, -1_500),
                           ("sliding", 10_000, 5_000, 0, 0), ("sliding", 6_000, 2_000, 0, 700),
                           ("session", 0, 0, 5_000, 0)])
configs = st.lists(st.tuples(windows, st.sampled_from([0, 1_000, 5_000, 20_000]), st.sampled_from([500, 1_000, 5_000]),
                             st.sampled_from(["append", "update", "complete"]), st.booleans(),
                             st.sampled_from(["min", "max"])), min_size=1, max_size=8)


def _config(window, delay, interval, mode, pas, policy) -> MicroBatchConfig:
    kind, size, slide, gap, offset = window
    if kind == "session" and mode == "update":  # Spark refuses update mode for sessions
        mode = "append"
    return MicroBatchConfig(kind, size=size, slide=slide, gap=gap, offset=offset, delay=delay, trigger_interval=interval,
                            output_mode=mode, partitions_as_sources=pas, multiple_watermark_policy=policy)


def _columns(recs):
    ts = np.array([r[0] for r in recs], dtype=np.int64)
    arr = ts + np.array([r[1] for r in recs], dtype=np.int64)
    keys = np.array([r[2] for r in recs], dtype=object)
    return ts, arr, keys, np.array([r[4] for r in recs], dtype=np.int64), np.array([r[3] for r in recs], dtype=np.int64)


def _same_arrays(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@settings(max_examples=120, deadline=None)
@given(recs=records, cfgs=configs, small_cache=st.booleans())
def test_shared_prepared_log_equals_the_per_run_code(recs, cfgs, small_cache):
    ts, arr, keys, vals, part = _columns(recs)
    old = prepared_mod.CACHE_ENTRIES
    prepared_mod.CACHE_ENTRIES = 1 if small_cache else old  # evictions between settings change nothing
    try:
        log = MicroBatchLog(ts, arr, keys, vals, part)
        uniq, kc = np.unique(keys, return_inverse=True)
        np.testing.assert_array_equal(log.keys, uniq)
        np.testing.assert_array_equal(log.key_code, kc)
        for c in cfgs:
            cfg = _config(*c)
            res = run_prepared(cfg, log)
            # the watermark and batches from the records, as run_microbatch did before preparing
            ticks, data_idx = data_ticks(arr, cfg.trigger_interval)
            src = np.searchsorted(np.unique(part), part) if cfg.partitions_as_sources else np.zeros(len(ts), np.int64)
            n_src = len(np.unique(part)) if cfg.partitions_as_sources else 1
            after = watermarks_after(ts, data_idx, len(ticks), src, n_src, cfg.delay, cfg.multiple_watermark_policy)
            b = executed_batches(ticks, after, cfg.trigger_interval, no_data_batches=cfg.output_mode != "complete")
            np.testing.assert_array_equal(res.batches.tick, b.tick)
            np.testing.assert_array_equal(res.batches.watermark, b.watermark)
            rb = b.of_data[data_idx]
            np.testing.assert_array_equal(res.record_batch, rb)
            if cfg.window_kind == "session":
                continue
            pairs, em, table, dropped = aggregate_windows(kc, ts, vals, rb, b, cfg.size, cfg.slide, cfg.output_mode,
                                                          cfg.offset)
            _same_arrays(table, res.windows)
            _same_arrays(vars(em), vars(res.emissions))
            np.testing.assert_array_equal(dropped, res.rows_dropped_by_watermark)
            assert res.accepted_pairs == int(pairs.accepted.sum())
    finally:
        prepared_mod.CACHE_ENTRIES = old


def test_key_codes_text_mixed_and_numbers():
    k = np.array(["b", "a", "b", "Z", "é", "a"], dtype=object)
    uniq, codes = key_codes(k)
    want_u, want_c = np.unique(k, return_inverse=True)
    assert uniq.tolist() == want_u.tolist() and codes.tolist() == want_c.tolist()
    # keys that do not compare: order of first appearance
    uniq, codes = key_codes(np.array(["x", 3, None, "x", 3], dtype=object))
    assert uniq.tolist() == ["x", 3, None] and codes.tolist() == [0, 1, 2, 0, 1]
    uniq, codes = key_codes(np.array([7, 2, 7, 9]))
    assert uniq.tolist() == [2, 7, 9] and codes.tolist() == [1, 0, 1, 2]


def test_caches_hold_a_few_entries_and_undeclared_partitions_are_named():
    ts = np.arange(0, 10_000, 7, dtype=np.int64)
    log = MicroBatchLog(ts, ts + 50, np.array(["k"] * len(ts), dtype=object), np.ones(len(ts), np.int64), ts % 3)
    for size in range(1000, 1000 + 100 * (prepared_mod.CACHE_ENTRIES + 3), 100):
        log.windows(size, size, 0)
    assert len(log._windows._d) == prepared_mod.CACHE_ENTRIES
    # past CACHE_PAIRS (record, window) pairs in all, only the newest window stays
    old = prepared_mod.CACHE_PAIRS
    prepared_mod.CACHE_PAIRS = 2 * len(ts)
    try:
        log.windows(1000, 100, 0)  # ten pairs a record
        assert list(log._windows._d) == [(1000, 100, 0)]
        log.windows(500, 500, 0)
        assert len(log._windows._d) == 1
    finally:
        prepared_mod.CACHE_PAIRS = old
    with pytest.raises(MicroBatchConfigError, match=r"partitions_as_sources: partition 2 is not among the sources \[0, 1\]"):
        run_prepared(MicroBatchConfig("tumbling", size=1000, partitions_as_sources=True, sources=(0, 1)), log)


def test_bench_microbatch_sweep_case_prints_the_time_per_setting(capsys):
    """``bench microbatch --only sweep``: bench sweep (c)'s 20 Spark settings swept in-process, in
    append and update mode, with the time per setting and the load; an unknown sub-case is named."""
    from toolkit.cli import main

    assert main(["bench", "microbatch", "--records", "3000", "--keys", "10", "--only", "sweep"]) == 0
    out = capsys.readouterr().out
    assert "bench sweep (c)'s log (3,000 records, 10 keys), 20 delays each" in out
    assert "append 20 settings" in out and "update 20 settings" in out and "per setting: wall" in out
    assert "load average" in out
    assert main(["bench", "microbatch", "--records", "3000", "--only", "swep"]) == 2
    assert "--only: unknown sub-case swep" in capsys.readouterr().err
