"""Property tests for the Kafka Streams engine (hypothesis): fates add up and match the sensor, more
grace never drops more, tasks are independent, and without lateness the results equal the batch
definition of each window type (the role of Kafka's ``testAggregateRandomInput``)."""
from __future__ import annotations

from collections import defaultdict

import numpy as np
from hypothesis import given, settings, strategies as st

from toolkit.engine.kafka_streams import Emit, SessionWindows, SlidingWindows, TimeWindows, run_windowed_aggregation

KEYS = st.sampled_from(["a", "b", "c", "d", "e"])
RECORDS = st.lists(st.tuples(KEYS, st.integers(0, 120), st.integers(1, 5)), min_size=1, max_size=40)


def windows_st(grace=st.integers(0, 30)):
    time_w = st.builds(lambda size, adv, g: TimeWindows(size, min(adv, size), g), st.integers(1, 20), st.integers(1, 20), grace)
    sliding = st.builds(SlidingWindows, st.integers(1, 20), grace)
    session = st.builds(SessionWindows, st.integers(1, 20), grace)
    return st.one_of(time_w, sliding, session)


EMITS = st.sampled_from(["on_window_update", "on_window_close", "suppress"])


def _run(records, windows, emit="on_window_update", tasks=1, flush=True, interval=0):
    keys = [r[0] for r in records]
    ts = [r[1] for r in records]
    vals = [r[2] for r in records]
    return run_windowed_aggregation(keys, ts, vals, windows=windows, emit=Emit(emit, interval), tasks=tasks, flush_at_end=flush)


@settings(max_examples=150, deadline=None)
@given(RECORDS, windows_st(), EMITS, st.integers(1, 4))
def test_fates_add_up_and_match_the_sensor(records, windows, emit, tasks):
    r = _run(records, windows, emit, tasks)
    fates = r.fates
    assert len(fates) == len(records)
    assert (fates == "on_time").sum() + (fates == "dropped").sum() == len(records)
    assert r.dropped_records_total == int(r.dropped_windows.sum())
    assert ((r.accepted_windows > 0) == (fates == "on_time")).all()
    assert len(r.dropped_records) == tasks


@settings(max_examples=150, deadline=None)
@given(RECORDS, st.one_of(st.tuples(st.integers(1, 20), st.integers(1, 20)).map(lambda t: ("time", t)),
                          st.integers(1, 20).map(lambda t: ("sliding", t)),
                          st.integers(1, 20).map(lambda t: ("session", t))),
       st.integers(0, 30), st.integers(0, 30), st.integers(1, 3))
def test_more_grace_never_drops_more(records, shape, g1, g2, tasks):
    lo, hi = sorted((g1, g2))
    kind, p = shape

    def make(g):
        if kind == "time":
            return TimeWindows(p[0], min(p[1], p[0]), g)
        if kind == "sliding":
            return SlidingWindows(p, g)
        return SessionWindows(p, g, retention=p + 30)

    a, b = _run(records, make(lo), tasks=tasks), _run(records, make(hi), tasks=tasks)
    assert (b.fates == "dropped").sum() <= (a.fates == "dropped").sum()
    assert ((b.fates == "dropped") <= (a.fates == "dropped")).all()


@settings(max_examples=100, deadline=None)
@given(RECORDS, windows_st(), EMITS, st.integers(2, 4))
def test_tasks_are_independent(records, windows, emit, tasks):
    """Each task's emissions are what its records alone, in one task, would produce."""
    r = _run(records, windows, emit, tasks)
    e = r.emissions
    for t in range(tasks):
        mine = [rec for rec, task in zip(records, r.task.tolist()) if task == t]
        rows = [row for row, task in zip(r.rows(), e["task"].tolist()) if task == t]
        if not mine:
            assert rows == []
            continue
        alone = _run(mine, windows, emit, 1)
        assert rows == alone.rows()
        assert alone.dropped_records_total == int(r.dropped_records[t])


def _final_table(r):
    last = {}
    for k, s, e, c, sm, kind, t in r.rows():
        last[(k, s, e)] = None if kind == "tombstone" else (c, sm, t)
    return {w: v for w, v in last.items() if v is not None}


BIG = 10**6


@settings(max_examples=150, deadline=None)
@given(RECORDS, st.integers(1, 20), st.integers(1, 20))
def test_time_windows_without_lateness_equal_the_batch_answer(records, size, adv):
    w = TimeWindows(size, min(adv, size), BIG)
    want = defaultdict(lambda: [0, 0.0, -1])
    for k, ts, v in records:
        for s, e in w.windows_for(ts):
            a = want[(k, s, e)]
            a[0] += 1
            a[1] += v
            a[2] = max(a[2], ts)
    want = {k: tuple(v) for k, v in want.items()}
    assert _final_table(_run(records, w)) == want
    closed = _run(records, w, "on_window_close")
    assert {(k, s, e): (c, sm, t) for k, s, e, c, sm, kind, t in closed.rows()} == want
    assert len(closed.rows()) == len(want)  # each window once


@settings(max_examples=200, deadline=None)
@given(RECORDS, st.integers(1, 20))
def test_sliding_windows_without_lateness_equal_their_definition(records, td):
    """Kafka's sliding windows: for each record time r a left window [max(0, r - td) .. + td] and,
    when a record of the key lies in (r, r + td], a right window [r + 1, r + 1 + td]; each holds the
    key's records within it (both ends inclusive)."""
    w = SlidingWindows(td, BIG)
    by_key = defaultdict(list)
    for k, ts, v in records:
        by_key[k].append((ts, v))
    want = {}
    for k, recs in by_key.items():
        times = sorted({t for t, _ in recs})
        starts = {max(0, t - td) for t in times}
        starts |= {t + 1 for t in times if any(t < u <= t + td for u in times)}
        for s in starts:
            inside = [(t, v) for t, v in recs if s <= t <= s + td]
            if inside:
                want[(k, s, s + td)] = (len(inside), float(sum(v for _, v in inside)), max(t for t, _ in inside))
    assert _final_table(_run(records, w)) == want


@settings(max_examples=200, deadline=None)
@given(RECORDS, st.integers(1, 20))
def test_session_windows_without_lateness_equal_their_definition(records, gap):
    """Sessions: a key's sorted record times split where consecutive times differ by more than gap."""
    w = SessionWindows(gap, BIG)
    by_key = defaultdict(list)
    for k, ts, v in records:
        by_key[k].append((ts, v))
    want = {}
    for k, recs in by_key.items():
        recs.sort()
        cur = [recs[0]]
        for t, v in recs[1:]:
            if t - cur[-1][0] > gap:
                want[(k, cur[0][0], cur[-1][0])] = (len(cur), float(sum(x for _, x in cur)), cur[-1][0])
                cur = []
            cur.append((t, v))
        want[(k, cur[0][0], cur[-1][0])] = (len(cur), float(sum(x for _, x in cur)), cur[-1][0])
    assert _final_table(_run(records, w)) == want
    closed = _run(records, w, "on_window_close")
    assert {(k, s, e): (c, sm, t) for k, s, e, c, sm, kind, t in closed.rows()} == want


@settings(max_examples=100, deadline=None)
@given(RECORDS, windows_st(), st.integers(0, 50))
def test_on_close_and_suppress_emit_only_what_update_mode_last_said(records, windows, interval):
    """Whatever on-close or suppress emits for a window (before the end-of-input flush) is a value the
    cache-off update stream also emitted for it."""
    upd = _run(records, windows)
    seen = {(k, s, e, c, sm, t) for k, s, e, c, sm, kind, t in upd.rows() if kind == "update"}
    for emit in ("on_window_close", "suppress"):
        r = _run(records, windows, emit, flush=False, interval=interval)
        for k, s, e, c, sm, kind, t in r.rows():
            assert (k, s, e, c, sm, t) in seen


def test_sums_are_float64_in_arrival_order():
    r = _run([("a", 1, 1), ("a", 2, 2)], TimeWindows(10, 10, 0))
    assert r.emissions["sum"].dtype == np.float64
    assert r.rows()[-1][4] == 3.0


ARRIVALS = st.lists(st.integers(0, 40), min_size=40, max_size=40)


@settings(max_examples=300, deadline=None)
@given(RECORDS, st.integers(1, 20), st.integers(1, 20), st.integers(0, 30), EMITS, st.integers(1, 3),
       st.sampled_from([0, 5, 25]), ARRIVALS, st.booleans(), st.booleans(),
       st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=40, max_size=40))
def test_columnar_time_windows_equal_the_record_by_record_processors(records, size, adv, grace, emit, tasks, interval,
                                                                   gaps, flush, tight, values):
    """Same emissions (bit-equal float sums), fates, sensors and stream times on every input."""
    w = TimeWindows(size, min(adv, size), grace, retention=None if tight else size + grace + 40)
    keys = [r[0] for r in records]
    ts = [r[1] for r in records]
    vals = values[:len(records)]
    arr = np.cumsum(gaps[:len(records)])
    kw = dict(windows=w, emit=Emit(emit, interval), tasks=tasks, flush_at_end=flush)
    a = run_windowed_aggregation(keys, ts, vals, arr, **kw)
    b = run_windowed_aggregation(keys, ts, vals, arr, reference=True, **kw)
    for col in ("key", "window_start", "window_end", "count", "kind", "timestamp", "emit_index", "emit_time", "task", "at_end"):
        assert a.emissions[col].tolist() == b.emissions[col].tolist(), col
    assert a.emissions["sum"].tobytes() == b.emissions["sum"].tobytes()
    assert a.accepted_windows.tolist() == b.accepted_windows.tolist()
    assert a.dropped_windows.tolist() == b.dropped_windows.tolist()
    assert a.stream_time.tolist() == b.stream_time.tolist()


def test_summary_counts():
    r = _run([("a", 5, 1), ("a", 12, 1), ("a", 2, 1)], TimeWindows(10, 10, 0), "on_window_close")
    s = r.summary()
    assert (s["records"], s["on_time"], s["dropped"], s["dropped_records_sensor"]) == (3, 2, 1, 1)
    assert (s["finals"], s["at_end"], s["updates"]) == (2, 1, 0)
    assert s["deployable"] == (".windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMillis(10)))"
                               ".emitStrategy(EmitStrategy.onWindowClose())"
                               ".aggregate(initializer, aggregator, Materialized.with(keySerde, aggSerde).withCachingDisabled())")
    r = _run([("a", 5, 1)], SessionWindows(10, 5).with_retention(100), "suppress")
    assert r.description["deployable"] == (
        ".windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)))"
        ".aggregate(initializer, aggregator, merger, Materialized.with(keySerde, aggSerde)"
        ".withRetention(Duration.ofMillis(100)).withCachingDisabled())"
        ".suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))")
    assert Emit("on_window_close", np.int64(5)).emit_interval == 5


def test_pane_and_stream_time_columns():
    r = _run([("a", 5, 1), ("b", 6, 1), ("a", 7, 1), ("a", 30, 1)], TimeWindows(10, 10, 0))
    assert r.emissions["pane"].tolist() == [0, 0, 1, 0]
    assert r.emissions["stream_time"].tolist() == [5, 6, 7, 30]
    r = _run([("a", 5, 1), ("a", 30, 1)], TimeWindows(10, 10, 0).with_retention(30), "on_window_close")
    assert r.emissions["stream_time"].tolist() == [30, 30] and r.emissions["at_end"].tolist() == [False, True]
