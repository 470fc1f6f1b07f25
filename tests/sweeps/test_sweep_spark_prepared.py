"""A sweep's Spark-semantics rows share one prepared log (``toolkit.semantics.structured_streaming.sweep.sweep_rows``:
key codes, data batches, window groups, session answers computed once; in key shards each
shard's, ``toolkit.semantics.structured_streaming.sweep``): every row still equals
``toolkit.replay(log, setting).summary()`` of its setting run alone, whatever settings share
the sweep (windows, trigger intervals, modes, inputs, policies, fixed and per-record gaps)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.settings import grid

WINDOWS = ["tumbling:200ms", "tumbling:300ms,-120ms", "sliding:300ms/100ms", "sliding:250ms/100ms", "session:120ms",
           "session:300ms", "dynamic_session:gap_ms"]


def _same(a, b) -> bool:
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)) or abs(a - b) < 1e-9


setting = st.tuples(st.sampled_from(WINDOWS), st.sampled_from([0, 1, 100, 400]), st.sampled_from([1, 50, 300, 1000]),
                    st.sampled_from(["append", "update", "complete"]), st.booleans(), st.sampled_from(["min", "max"]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 1500), st.sampled_from(["k0", "k1", "b", "K", "k10"]),
                            st.integers(0, 2), st.sampled_from([None, -5, 0, 40, 150, 600])),
                  min_size=1, max_size=60),
    chosen=st.lists(setting, min_size=2, max_size=7),
    shards=st.sampled_from([1, 3]),
)
def test_property_sweep_rows_equal_each_settings_replay(data, chosen, shards):
    arrival = np.array([d[0] for d in data], dtype=np.int64)
    frame = pd.DataFrame({"event_time": arrival - np.array([d[1] for d in data], dtype=np.int64), "arrival_time": arrival,
                          "key": [d[2] for d in data], "partition": [d[3] for d in data],
                          "gap_ms": [np.nan if d[4] is None else d[4] for d in data]})
    log = toolkit.load_log(frame, time_unit="ms", keep=["gap_ms"])
    configs = []
    for window, delay, interval, mode, pas, policy in chosen:
        if window.startswith(("session", "dynamic")) and mode == "update":  # Spark refuses it
            mode = "append"
        (s,) = grid(window=window, delay=delay, semantics="spark", trigger_interval=interval, output_mode=mode,
                    partitions_as_sources=pas, multiple_watermark_policy=policy)
        configs.append(s)
    configs = list(dict.fromkeys(configs))
    # one piece: one prepared table for all the settings; key shards: each shard's work shared
    rows = toolkit.sweep(log, configs, execution="local", shards=shards, progress=False)
    assert set(rows["path"]) == {"microbatch"} and len(rows) == len(configs)
    for i, s in enumerate(configs):
        want = toolkit.replay(log, s).summary()
        got = rows.iloc[i]
        assert not [k for k in SUMMARY_COLUMNS if not _same(want[k], got[k])], s


def test_sweep_rows_keep_the_settings_order():
    """Rows come back in the grid's order (they are evaluated grouped by window and interval)."""
    rng = np.random.default_rng(3)
    n = 300
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 5000, n))
    log = toolkit.EventLog.from_arrays(arrival - rng.integers(0, 900, n), arrival_time=arrival,
                                       key=rng.choice(["a", "b", "c"], n).astype(object))
    g = dict(semantics="spark", window=["sliding:600ms/200ms", "tumbling:400ms"], delay=[0, 300],
             trigger_interval=[700, 100])
    rows = toolkit.sweep(log, execution="local", progress=False, **g)
    for i, s in enumerate(grid(**g)):
        assert rows.iloc[i]["window"] == str(s.window) and rows.iloc[i]["delay_ms"] == s.delay
        assert rows.iloc[i]["dropped"] == toolkit.replay(log, s).summary()["dropped"]


def test_shared_work_per_window_and_gap_in_one_piece_and_in_shards():
    """Settings that differ only in the window or the session gap share nothing wrong: one
    piece and key shards (each shard's work kept across settings) give each setting's replay."""
    rng = np.random.default_rng(5)
    n = 400
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 6000, n))
    log = toolkit.EventLog.from_arrays(arrival - rng.choice([0, 50, 200, 900, 2500], n), arrival_time=arrival,
                                       key=rng.choice(["k1", "k2", "k3", "k4", "k5"], n).astype(object))
    g = dict(semantics="spark", window=["session:120ms", "session:600ms", "tumbling:400ms", "tumbling:1s",
                                        "sliding:600ms/200ms"], delay=[0, 250], trigger_interval=[100, 700])
    whole = toolkit.sweep(log, execution="local", progress=False, **g)
    sharded = toolkit.sweep(log, execution="local", shards=3, progress=False, **g)
    for i, s in enumerate(grid(**g)):
        want = toolkit.replay(log, s).summary()
        for rows in (whole, sharded):
            assert not [k for k in SUMMARY_COLUMNS if not _same(want[k], rows.iloc[i][k])], (s, rows is sharded)
