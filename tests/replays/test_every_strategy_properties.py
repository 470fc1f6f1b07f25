"""Issue 16's properties for every watermark strategy (the processing-time ones, time_lag and
idle_advance, are replayed at the calls that reach a timer only): fates add up, replay ==
sweep (both paths), more delay or more lateness never drops more, the row order of the
input is irrelevant, and (tests/sweeps/test_sweep_spark.py's session) Spark == in-process."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.log import EventLog

STRATEGIES = {
    "bounded": {}, "legacy": {}, "monotonous": {}, "time_lag": {},
    "punctuated": {"marker": "marker"}, "idle_advance": {"step": "7ms"}, "adaptive": {},
}
FIGURES = ["records", "on_time", "late_accepted", "dropped", "invalid", "firings", "late_firings", "at_end_firings",
           "completeness_first", "completeness_final", "latency_p50_ms", "latency_max_ms", "windows"]
PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def frames(draw):
    n = draw(st.integers(1, 25))
    arrival = draw(st.lists(st.integers(0, 3000), min_size=n, max_size=n, unique=True))  # distinct: no ties
    late = draw(st.lists(st.integers(-50, 400), min_size=n, max_size=n))
    return pd.DataFrame({
        "event_time": np.array(arrival, np.int64) - np.array(late, np.int64),
        "arrival_time": np.array(arrival, np.int64),
        "key": draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n)),
        "partition": draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)),
        "marker": draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        "id": np.arange(n),
    })


@st.composite
def setups(draw):
    strategy = draw(st.sampled_from(sorted(STRATEGIES)))
    s = dict(strategy=strategy, window=draw(st.sampled_from(["tumbling:100ms", "sliding:200ms/50ms", "session:80ms"])),
             lateness=draw(st.sampled_from([0, 60])), interval=draw(st.sampled_from([1, 7, 50])),
             idleness=draw(st.sampled_from([None, None, 150])), **STRATEGIES[strategy])
    if strategy != "monotonous":
        s["delay"] = draw(st.integers(0, 120))
    return s


def _same(a, b) -> bool:
    a, b = float(a), float(b)
    return (a != a and b != b) or a == b


def _log(frame: pd.DataFrame) -> EventLog:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return toolkit.load_log(frame, keep=["marker", "id"])


def _fates_by_id(log: EventLog, r) -> pd.Series:
    ids = log.table.set_index("row")["id"]
    f = r.fates
    return pd.Series(f["fate"].to_numpy(), index=ids.loc[f["row"]].to_numpy()).sort_index()


@PROPS
@given(frames(), setups())
def test_fates_add_up_and_replay_equals_sweep(frame, s) -> None:
    log = _log(frame)
    r = toolkit.replay(log, **s)
    row = r.summary()
    assert row["on_time"] + row["late_accepted"] + row["dropped"] + row["invalid"] == len(frame)
    for path in ("auto", "engine"):
        sw = toolkit.sweep(log, **{k: [v] for k, v in s.items()}, path=path, progress=False).iloc[0]
        for k in FIGURES:
            assert _same(row[k], sw[k]), (path, k, row[k], sw[k])


@PROPS
@given(frames(), setups(), st.integers(1, 300), st.integers(1, 300))
def test_more_delay_or_lateness_never_drops_more(frame, s, more_delay, more_lateness) -> None:
    log = _log(frame)
    base = _fates_by_id(log, toolkit.replay(log, **s))
    bigger = [dict(s, lateness=s["lateness"] + more_lateness)]
    if "delay" in s:
        bigger.append(dict(s, delay=s["delay"] + more_delay))
    for b in bigger:
        other = _fates_by_id(log, toolkit.replay(log, **b))
        assert not ((other == "dropped") & (base != "dropped")).any(), b


@PROPS
@given(frames(), setups(), st.randoms(use_true_random=False))
def test_row_order_of_the_input_is_irrelevant(frame, s, rnd) -> None:
    log = _log(frame)
    a = toolkit.replay(log, **s)
    order = list(range(len(frame)))
    rnd.shuffle(order)
    shuffled = _log(frame.iloc[order].reset_index(drop=True))
    b = toolkit.replay(shuffled, **s)
    assert _fates_by_id(log, a).to_dict() == _fates_by_id(shuffled, b).to_dict()
    sa, sb = a.summary(), b.summary()
    assert all(_same(sa[k], sb[k]) for k in FIGURES), (sa, sb)


@pytest.fixture(scope="module")
def thirty_days():
    rng = np.random.default_rng(3)
    n = 400
    arrival = np.sort(rng.integers(0, 30 * 86_400_000, n))
    return pd.DataFrame({"event_time": arrival - rng.integers(0, 2000, n), "arrival_time": arrival,
                         "key": rng.choice(["a", "b", "c"], n), "partition": rng.integers(0, 3, n),
                         "marker": rng.random(n) < 0.1, "id": np.arange(n)})


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_spark_sweep_equals_in_process_over_30_days_at_1ms(spark, thirty_days, strategy) -> None:
    """Every strategy over a 30-day span at a 1 ms interval (2.6 billion periodic calls): local
    and Spark sweeps give the same row, and the same figures as the replay."""
    log = _log(thirty_days)
    s = dict(strategy=strategy, window="tumbling:1min", interval="1ms", **STRATEGIES[strategy])
    if strategy != "monotonous":
        s["delay"] = "1s"
    grid = {k: [v] for k, v in s.items()}
    local = toolkit.sweep(log, execution="local", progress=False, **grid)
    on_spark = toolkit.sweep(log, execution="spark", spark=spark, progress=False, **grid)
    pd.testing.assert_frame_equal(on_spark, local, check_exact=True)
    row = toolkit.replay(log, **s).summary()
    assert all(_same(row[k], local.iloc[0][k]) for k in FIGURES)
