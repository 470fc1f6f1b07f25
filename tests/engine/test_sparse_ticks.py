"""Periodic watermark calls are kept sparse: memory and time follow the records, not the
log's time span divided by the interval, and the results are those of running every call."""
from __future__ import annotations

import time

import numpy as np
import pytest

import toolkit.engine.flink.pipeline as P
from toolkit.engine.flink.pipeline import tick_schedule, watermark_timeline
from toolkit.engine.flink.watermarks import MIN_WATERMARK, Adaptive, BoundedOutOfOrderness, Monotonous, Punctuated

YEAR_9999 = 253402300799999  # 9999-12-31T23:59:59.999Z in epoch ms


def _changes(tl):
    return list(zip(tl.change_time.tolist(), tl.change_watermark.tolist()))


def _dense_bounded(ts, arr, part, subtract, interval):
    """Naive reference: run every periodic call (one partition per source, parallelism 1)."""
    first, last = int(arr[0]), int(arr[-1])
    k = max(1, -(-(last - first) // interval))
    out, cur = [], MIN_WATERMARK
    parts = np.unique(part)
    for i in range(1, k + 1):
        T = first + i * interval
        seen = arr <= T
        ws = [int(ts[seen & (part == p)].max()) - subtract if (seen & (part == p)).any() else MIN_WATERMARK for p in parts]
        cur = max(cur, min(ws))
        out.append(cur)
    return out


def test_schedule_lists_at_most_two_calls_per_record_whatever_the_span() -> None:
    ticks, pos = tick_schedule(np.array([0, 10, YEAR_9999]), 1)
    assert ticks.tolist() == [1, 2, 10, 11, YEAR_9999] and pos.tolist() == [1, 1, 2, 2, 3]


def test_sparse_calls_give_every_calls_watermark() -> None:
    rng = np.random.default_rng(5)
    for _ in range(30):
        n = int(rng.integers(1, 40))
        arr = np.sort(rng.integers(0, 6, n) * 3000 + rng.integers(0, 400, n))  # bursts and gaps
        ts = arr - rng.integers(0, 300, n)
        part = rng.integers(0, 3, n)
        iv = int(rng.choice([7, 50, 200]))
        d = int(rng.integers(0, 100))
        for force in (False, True):
            tl = watermark_timeline(ts, arr, part, BoundedOutOfOrderness(d), interval=iv, force_general=force)
            assert tl.tick_watermark.tolist() == _dense_bounded(ts, arr, part, d + 1, iv)
            assert len(tl.ticks.time) <= 2 * n


@pytest.mark.parametrize("offset", [0, 123_456])
def test_jumping_over_an_idleness_countdown_changes_nothing(monkeypatch, offset) -> None:
    rng = np.random.default_rng(11)
    for _ in range(40):
        n = int(rng.integers(1, 50))
        arr = np.sort(rng.integers(0, 5, n) * 5000 + rng.integers(0, 800, n))
        ts = arr - rng.integers(0, 500, n)
        part = rng.integers(0, 4, n)
        inner = [BoundedOutOfOrderness(int(rng.integers(0, 100))), Monotonous(), Adaptive(quantile=0.9, window=5)][int(rng.integers(0, 3))]
        s = inner.with_idleness(int(rng.choice([1, 100, 300, 1000])), clock_offset_nanos=offset)
        kw = dict(interval=int(rng.choice([0, 7, 50, 200])), parallelism=int(rng.integers(1, 4)))
        a = watermark_timeline(ts, arr, part, s, **kw)
        with monkeypatch.context() as m:
            m.setattr(P, "next_wakeup", lambda gens, t, first, interval: t + 1)  # the name the loop calls
            b = watermark_timeline(ts, arr, part, s, **kw)
        assert _changes(a) == _changes(b) and a.log == b.log
        assert a.tick_watermark.tolist() == b.tick_watermark.tolist()
        assert len(a.ticks.time) <= len(b.ticks.time)


def test_punctuated_over_a_long_gap_runs_no_empty_calls() -> None:
    arr = np.array([0, 5, YEAR_9999 - 1, YEAR_9999])
    ts = arr.copy()
    tl = watermark_timeline(ts, arr, None, Punctuated(delay=0), interval=1, marker=np.array([True, False, False, True]))
    assert _changes(tl) == [(0, 0), (YEAR_9999, YEAR_9999)]
    assert len(tl.ticks.time) <= 8


def test_year_9999_arrival_times_a_few_calls() -> None:
    arr = np.array([0, 1000, YEAR_9999])
    ts = np.array([0, 900, 2000])
    t0 = time.perf_counter()
    tl = watermark_timeline(ts, arr, None, BoundedOutOfOrderness(0).with_idleness(60_000), interval=1)
    assert time.perf_counter() - t0 < 5
    assert len(tl.ticks) == YEAR_9999 and len(tl.ticks.time) < 10
    assert _changes(tl) == [(1, -1), (1000, 899), (YEAR_9999, 1999)]
    times, wms = tl.ticks.sample(4)
    assert times.tolist()[:2] == [1, 1 + 63350575200000] and wms.tolist() == [-1, 899, 899, 899]


# ----------------------------------------------------------------------------------------
# processing-time watermarks (time_lag, idle_advance): only the calls that reach a timer
# ----------------------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings as hsettings, strategies as hst  # noqa: E402

from toolkit.engine.flink.config import build_operator  # noqa: E402
from toolkit.engine.flink.jumps import window_timer_targets  # noqa: E402
from toolkit.engine.flink.pipeline import run_pipeline  # noqa: E402
from toolkit.engine.flink.timeline import TimerTargets  # noqa: E402
from toolkit.engine.flink.watermarks import IdleAdvance, TimeLag  # noqa: E402
from toolkit.semantics.flink.window_operator import operator_kwargs  # noqa: E402
from toolkit.settings import Setting  # noqa: E402


@hst.composite
def _pt_cases(draw):
    n = draw(hst.integers(1, 25))
    bursts = draw(hst.lists(hst.integers(0, 4), min_size=n, max_size=n))
    jitter = draw(hst.lists(hst.integers(0, 500), min_size=n, max_size=n))
    arr = np.sort(np.array(bursts, np.int64) * 3000 + np.array(jitter, np.int64))
    late = np.array(draw(hst.lists(hst.integers(-200, 600), min_size=n, max_size=n)), np.int64)
    part = np.array(draw(hst.lists(hst.integers(0, 2), min_size=n, max_size=n)), np.int64)
    keys = draw(hst.lists(hst.integers(0, 1), min_size=n, max_size=n))
    if draw(hst.booleans()):
        strat = TimeLag(draw(hst.integers(0, 500)))
    else:
        strat = IdleAdvance(draw(hst.integers(0, 300)), draw(hst.sampled_from([1, 7, 40, 300])))
    if draw(hst.booleans()):
        strat = strat.with_idleness(draw(hst.sampled_from([1, 100, 1000])))
    setting = Setting.parse(window=draw(hst.sampled_from(["tumbling:500ms", "tumbling:700ms,100ms", "sliding:1s/300ms",
                                                         "session:400ms"])),
                            lateness=draw(hst.sampled_from([0, 300])))
    return (arr - late, arr, part, keys, strat, draw(hst.sampled_from([1, 7, 50, 200])), draw(hst.integers(1, 3)), setting)


def _run(tl, keys, ts, arr, setting):
    kw = operator_kwargs(setting)
    n = len(ts)
    r = run_pipeline(tl, keys, ts, arr, np.ones(n, np.int64), np.arange(n),
                     [lambda: build_operator(**kw, track_records=True)])
    return r.outputs, r.state


@hsettings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_pt_cases())
def test_processing_time_watermark_sparse_equals_every_call(case) -> None:
    """Dense (every periodic call) and sparse (the calls that reach a timer, precede a record,
    end a countdown or reactivate a source) give the same firings (time, watermark, contents),
    the same state over time and the same watermark at every record."""
    ts, arr, part, keys, strat, iv, par, setting = case
    dense = watermark_timeline(ts, arr, part, strat, interval=iv, parallelism=par)
    sparse = watermark_timeline(ts, arr, part, strat, interval=iv, parallelism=par, targets=setting.timer_targets(ts))
    n = len(ts)
    assert sparse.record_watermark(n).tolist() == dense.record_watermark(n).tolist()
    records_only = watermark_timeline(ts, arr, part, strat, interval=iv, parallelism=par, targets=TimerTargets())
    assert records_only.record_watermark(n).tolist() == dense.record_watermark(n).tolist()
    assert _run(sparse, keys, ts, arr, setting) == _run(dense, keys, ts, arr, setting)
    # every sparse change carries the dense watermark at its time (after that whole call)
    d_end = {t: w for t, w in _changes(dense)}
    s_end = {t: w for t, w in _changes(sparse)}
    assert all(d_end.get(t) == w for t, w in s_end.items())
    assert len(sparse.ticks.time) <= len(dense.ticks.time)


def test_time_lag_over_thirty_days_at_one_ms_runs_a_few_calls_per_record() -> None:
    day = 86_400_000
    arr = np.array([0, 1, 10 * day, 30 * day])
    ts = arr - 500
    s = Setting.parse(window="tumbling:1min", strategy="time_lag", delay="1s", interval="1ms")
    t0 = time.perf_counter()
    tl = watermark_timeline(ts, arr, None, s.watermark_strategy(), interval=1, targets=s.sparse_targets(ts))
    assert time.perf_counter() - t0 < 5
    assert len(tl.ticks) == 30 * day and len(tl.ticks.time) < 40
    # the watermark reaches each window's end (maxTimestamp -1 for the first two records, 10 days
    # - 1 for the third) at the first call with T - 1000 >= it; every record sees T_before - 1000
    assert (999, -1) in _changes(tl) and (10 * day + 999, 10 * day - 1) in _changes(tl)
    assert tl.record_watermark(4).tolist() == [MIN_WATERMARK, MIN_WATERMARK, 10 * day - 1001, 30 * day - 1001]


def test_idle_advance_reaches_a_target_in_closed_form() -> None:
    """max moves by ``step`` per call without records, capped at processing time (call k at
    ``first + k * interval``): the call reaching a target is the one a call-by-call run finds."""
    for step, interval in [(1, 1), (40, 7), (7, 40), (300, 200)]:
        g = IdleAdvance(5, step).create()
        g.on_event(100, 100, None)
        out = []

        class O:
            def emit_watermark(self, w):
                out.append(w)
        g.on_periodic_emit(100 + interval, O())
        for x in (200, 1000, 5000):
            k = g.first_call_reaching(x, 1, 100, interval)
            h = IdleAdvance(5, step).create()
            h.max_ts, h.last = g.max_ts, g.last
            for j in range(2, k + 1):
                out.clear()
                h.on_periodic_emit(100 + j * interval, O())
                assert (out[-1] >= x) == (j == k), (step, interval, x, j, k)


def test_timer_targets_of_windows() -> None:
    ts = np.array([0, 250, 999, 5000])
    t = window_timer_targets(ts, size=1000, slide=500)  # windows [-500,500), [0,1000), [500,1500), [4500,5500), [5000,6000)
    got, w = [], -10**9
    while (w := t.next_above(w)) is not None:
        got.append(w)
    assert got == [499, 999, 1499, 5499, 5999]
    lat = window_timer_targets(ts, size=1000, lateness=100)
    got, w = [], -10**9
    while (w := lat.next_above(w)) is not None:
        got.append(w)
    assert got == [999, 1099, 5999, 6099]
    sess = window_timer_targets(ts, gaps=np.array([10, 20, 30, 40]))
    assert [sess.next_above(x) for x in (-1, 9, 269, 1028, 5039)] == [9, 269, 1028, 5039, None]
    assert TimerTargets().next_above(0) is None


@hsettings(max_examples=300, deadline=None)
@given(hst.lists(hst.integers(0, 2**40), min_size=1, max_size=60),
       hst.one_of(hst.sampled_from([0.0, 0.25, 0.5, 0.9, 0.99, 1.0]), hst.floats(0, 1)))
def test_adaptive_quantile_is_numpys_bit_for_bit(sample, q) -> None:
    """The adaptive generator's quantile (run on every periodic call, so without np.quantile's
    overhead) is np.quantile's linear method exactly."""
    from toolkit.engine.flink.watermarks import linear_quantile

    x = np.array(sample, np.int64)
    assert linear_quantile(x, q) == float(np.quantile(x, q))
