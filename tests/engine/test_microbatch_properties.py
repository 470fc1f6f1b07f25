"""Property tests of the Spark micro-batch semantics on random logs (hypothesis)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from toolkit.engine.microbatch import MicroBatchConfig, run_microbatch
from toolkit.engine.microbatch.run import DROPPED

records = st.lists(
    st.tuples(st.integers(0, 60_000), st.integers(0, 30_000), st.sampled_from("abc"), st.integers(0, 2),
              st.integers(1, 9)),
    min_size=1, max_size=60)
windows = st.sampled_from([("tumbling", 10_000, 0, 0), ("sliding", 10_000, 5_000, 0), ("sliding", 6_000, 2_000, 0),
                           ("session", 0, 0, 5_000)])


def _config(window, delay, interval, mode, pas, policy):
    kind, size, slide, gap = window
    if kind == "session" and mode == "update":  # Spark refuses update mode for sessions
        mode = "append"
    return MicroBatchConfig(kind, size=size, slide=slide, gap=gap, delay=delay, trigger_interval=interval,
                            output_mode=mode, partitions_as_sources=pas, multiple_watermark_policy=policy)


def _run(cfg, recs, order=None):
    a = np.array([(r[0], r[0] + r[1]) for r in recs], dtype=np.int64)
    keys = np.array([r[2] for r in recs], dtype=object)
    part = np.array([r[3] for r in recs], dtype=np.int64)
    vals = np.array([r[4] for r in recs], dtype=np.int64)
    idx = np.arange(len(recs)) if order is None else np.asarray(order)
    return run_microbatch(cfg, a[idx, 0], a[idx, 1], keys[idx], vals[idx], partition=part[idx]), idx


common = dict(recs=records, window=windows, delay=st.sampled_from([0, 1_000, 5_000, 20_000]),
              interval=st.sampled_from([500, 1_000, 5_000]), mode=st.sampled_from(["append", "update", "complete"]),
              pas=st.booleans(), policy=st.sampled_from(["min", "max"]))


@settings(max_examples=150, deadline=None)
@given(**common)
def test_fates_add_up_and_counts_match_emissions(recs, window, delay, interval, mode, pas, policy):
    cfg = _config(window, delay, interval, mode, pas, policy)
    r, _ = _run(cfg, recs)
    assert len(r.fate) == len(recs)
    assert set(np.unique(r.fate).tolist()) <= {0, 1, 2}
    # the watermark never decreases, batches tick forward, the late filter lags one batch
    assert (np.diff(r.batches.watermark) >= 0).all() and (np.diff(r.batches.tick) > 0).all()
    assert (r.batches.late_watermark[1:] == r.batches.watermark[:-1]).all()
    assert r.input_rows.sum() == len(recs)
    # every accepted row is counted once per window that accepted it
    assert r.windows["count"].sum() == r.accepted_pairs
    if mode == "complete":  # nothing is evicted: the last batch emits every window, no-data batches never run
        assert r.batches.is_data.all()
        last = r.emissions.batch == len(r.batches) - 1
        assert last.sum() == len(r.windows["key"])
        if window[0] != "session":
            assert (r.fate != DROPPED).all()
    elif mode == "append" or window[0] == "session":
        em = r.emissions
        assert len(set(zip(em.key.tolist(), em.start.tolist()))) == len(em.key)  # never twice


@settings(max_examples=120, deadline=None)
@given(**common, more=st.integers(1, 20_000))
def test_more_delay_never_drops_more(recs, window, delay, interval, mode, pas, policy, more):
    a, _ = _run(_config(window, delay, interval, mode, pas, policy), recs)
    b, _ = _run(_config(window, delay + more, interval, mode, pas, policy), recs)
    assert not ((b.fate == DROPPED) & (a.fate != DROPPED)).any()


@settings(max_examples=120, deadline=None)
@given(**common, seed=st.integers(0, 2**31 - 1))
def test_row_order_is_irrelevant(recs, window, delay, interval, mode, pas, policy, seed):
    cfg = _config(window, delay, interval, mode, pas, policy)
    a, _ = _run(cfg, recs)
    perm = np.random.default_rng(seed).permutation(len(recs))
    b, idx = _run(cfg, recs, perm)
    assert a.batch_rows() == b.batch_rows()
    fate_b = np.empty_like(b.fate)
    fate_b[idx] = b.fate
    assert (a.fate == fate_b).all()
