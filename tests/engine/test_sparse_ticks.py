"""Periodic watermark calls are kept sparse: memory and time follow the records, not the
log's time span divided by the interval, and the results are those of running every call."""
from __future__ import annotations

import time

import numpy as np
import pytest

import toolkit.engine.pipeline as P
from toolkit.engine.pipeline import tick_schedule, watermark_timeline
from toolkit.engine.watermarks import MIN_WATERMARK, Adaptive, BoundedOutOfOrderness, Monotonous, Punctuated

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
            m.setattr(P, "_next_wakeup", lambda gens, t, first, interval: t + 1)
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
