"""Beam's own ``TriggerTest`` (sdks/python/apache_beam/transforms/trigger_test.py),
re-expressed for toolkit.engine.beam's TriggerDriver: the same window fns, triggers,
bundlings, late data and expected panes per window. As in Beam's ``run_trigger``: bundles
are processed with watermarks at the minimum, then every timer fires (at the end of time),
then the late bundles arrive with the watermark at the maximum; allowed lateness is
effectively infinite. Times are in seconds, held as microseconds like Beam's Timestamp."""
from __future__ import annotations

from collections import defaultdict

from toolkit.engine.beam.driver import ACCUMULATING, DISCARDING, TriggerDriver, Windowing
from toolkit.engine.beam.runner import END_OF_TIME, MIN_TIME
from toolkit.engine.beam.state import KeyedState
from toolkit.engine.beam.triggers import (
    AfterAll,
    AfterAny,
    AfterCount,
    AfterEach,
    AfterWatermark,
    DefaultTrigger,
    Repeatedly,
)
from toolkit.engine.beam.windows import FixedWindows, IntervalWindow, Sessions

S = 1_000_000  # µs per second


def W(start: int, end: int) -> IntervalWindow:
    return IntervalWindow(start * S, end * S)


def _bundles(window_fn, data, size):
    data = list(data)
    if size < 0:
        data, size = data[::-1], -size
    bundle = []
    for ts, elem in data:
        bundle.append((elem, ts * S, window_fn.assign(ts * S)))
        if len(bundle) == size:
            yield bundle
            bundle = []
    if bundle:
        yield bundle


def _run(window_fn, trigger, mode, bundles, late_bundles):
    panes = defaultdict(list)
    driver = TriggerDriver(Windowing(window_fn, trigger, allowed_lateness=END_OF_TIME,
                                     accumulation=mode), clock=lambda: 0)
    state = KeyedState()

    def record(firings):
        for f in firings:
            assert f.timestamp == f.window.max_timestamp()
            panes[f.window].append(set(f.values))

    def fire_all_timers():
        while state.timers:
            due = state.expired_timers(END_OF_TIME, END_OF_TIME)
            for wid, name, domain, ts in due:
                state.clear_timer_id(wid, name, domain)
            for wid, name, domain, ts in due:
                record(driver.process_timer(state, wid, domain, ts))

    for bundle in bundles:
        firings, _, _ = driver.process_elements(state, bundle, MIN_TIME, MIN_TIME)
        record(firings)
    fire_all_timers()
    for bundle in late_bundles:
        firings, _, _ = driver.process_elements(state, bundle, END_OF_TIME, END_OF_TIME)
        record(firings)
        fire_all_timers()
    return dict(panes)


def run_trigger_simple(window_fn, trigger, mode, data, expected, *groupings, late_data=()):
    data, late_data = list(data), list(late_data)
    for size in groupings or (1,):
        got = _run(window_fn, trigger, mode, _bundles(window_fn, data, size),
                   _bundles(window_fn, late_data, size))
        assert got == expected, f"bundles of {size}"


def test_fixed_watermark():
    run_trigger_simple(FixedWindows(10 * S), AfterWatermark(), ACCUMULATING,
                       [(1, 'a'), (2, 'b'), (13, 'c')],
                       {W(0, 10): [set('ab')], W(10, 20): [set('c')]}, 1, 2, 3, -3, -2, -1)


def test_fixed_watermark_with_early():
    run_trigger_simple(FixedWindows(10 * S), AfterWatermark(early=AfterCount(2)), ACCUMULATING,
                       [(1, 'a'), (2, 'b'), (3, 'c')], {W(0, 10): [set('ab'), set('abc')]}, 2)
    run_trigger_simple(FixedWindows(10 * S), AfterWatermark(early=AfterCount(2)), ACCUMULATING,
                       [(1, 'a'), (2, 'b'), (3, 'c')], {W(0, 10): [set('abc'), set('abc')]}, 3)


def test_fixed_watermark_with_early_late():
    run_trigger_simple(FixedWindows(100 * S), AfterWatermark(early=AfterCount(3), late=AfterCount(2)),
                       DISCARDING, zip(range(9), 'abcdefghi'),
                       {W(0, 100): [set('abcd'), set('efgh'), set('i'), set('vw'), set('xy')]},
                       2, late_data=zip(range(5), 'vwxyz'))


def test_sessions_watermark_with_early_late():
    run_trigger_simple(Sessions(10 * S), AfterWatermark(early=AfterCount(2), late=AfterCount(1)),
                       ACCUMULATING, [(1, 'a'), (15, 'b'), (7, 'c'), (30, 'd')],
                       {W(1, 25): [set('abc'), set('abc'), set('abcxy')],
                        W(30, 40): [set('d')],
                        W(1, 40): [set('abcdxyz')]},
                       2, late_data=[(1, 'x'), (2, 'y'), (21, 'z')])


def test_fixed_after_count():
    run_trigger_simple(FixedWindows(10 * S), AfterCount(2), ACCUMULATING,
                       [(1, 'a'), (2, 'b'), (3, 'c'), (11, 'z')], {W(0, 10): [set('ab')]}, 1, 2)
    run_trigger_simple(FixedWindows(10 * S), AfterCount(2), ACCUMULATING,
                       [(1, 'a'), (2, 'b'), (3, 'c'), (11, 'z')], {W(0, 10): [set('abc')]}, 3, 4)


def test_fixed_after_first():
    run_trigger_simple(FixedWindows(10 * S), AfterAny((AfterCount(2), AfterWatermark())), ACCUMULATING,
                       [(1, 'a'), (2, 'b'), (3, 'c')], {W(0, 10): [set('ab')]}, 1, 2)
    run_trigger_simple(FixedWindows(10 * S), AfterAny((AfterCount(5), AfterWatermark())), ACCUMULATING,
                       [(1, 'a'), (2, 'b'), (3, 'c')], {W(0, 10): [set('abc')]}, 1, 2,
                       late_data=[(1, 'x'), (2, 'y'), (3, 'z')])


def test_repeatedly_after_first():
    run_trigger_simple(FixedWindows(100 * S), Repeatedly(AfterAny((AfterCount(3), AfterWatermark()))),
                       ACCUMULATING, zip(range(7), 'abcdefg'),
                       {W(0, 100): [set('abc'), set('abcdef'), set('abcdefg'), set('abcdefgx'),
                                    set('abcdefgxy'), set('abcdefgxyz')]},
                       1, late_data=zip(range(3), 'xyz'))


def test_sessions_after_all():
    run_trigger_simple(Sessions(10 * S), AfterAll((AfterCount(2), AfterWatermark())), ACCUMULATING,
                       [(1, 'a'), (2, 'b'), (3, 'c')], {W(1, 13): [set('abc')]}, 1, 2)
    run_trigger_simple(Sessions(10 * S), AfterAll((AfterCount(5), AfterWatermark())), ACCUMULATING,
                       [(1, 'a'), (2, 'b'), (3, 'c')], {W(1, 13): [set('abcxy')]}, 1, 2,
                       late_data=[(1, 'x'), (2, 'y'), (3, 'z')])


def test_sessions_default():
    run_trigger_simple(Sessions(10 * S), DefaultTrigger(), ACCUMULATING, [(1, 'a'), (2, 'b')],
                       {W(1, 12): [set('ab')]}, 1, 2, -2, -1)
    run_trigger_simple(Sessions(10 * S), AfterWatermark(), ACCUMULATING,
                       [(1, 'a'), (2, 'b'), (15, 'c'), (16, 'd'), (30, 'z'), (9, 'e'), (10, 'f'),
                        (30, 'y')],
                       {W(1, 26): [set('abcdef')], W(30, 40): [set('yz')]},
                       1, 2, 3, 4, 5, 6, -4, -2, -1)


def test_sessions_watermark():
    run_trigger_simple(Sessions(10 * S), AfterWatermark(), ACCUMULATING, [(1, 'a'), (2, 'b')],
                       {W(1, 12): [set('ab')]}, 1, 2, -2, -1)


def test_sessions_after_count():
    run_trigger_simple(Sessions(10 * S), AfterCount(2), ACCUMULATING,
                       [(1, 'a'), (15, 'b'), (6, 'c'), (30, 's'), (31, 't'), (50, 'z'), (50, 'y')],
                       {W(1, 25): [set('abc')], W(30, 41): [set('st')], W(50, 60): [set('yz')]},
                       1, 2, 3)


def test_sessions_repeatedly_after_count():
    data = [(1, 'a'), (15, 'b'), (6, 'c'), (2, 'd'), (7, 'e')]
    run_trigger_simple(Sessions(10 * S), Repeatedly(AfterCount(2)), ACCUMULATING, data,
                       {W(1, 25): [set('abc'), set('abcde')]}, 1, 3)
    run_trigger_simple(Sessions(10 * S), Repeatedly(AfterCount(2)), DISCARDING, data,
                       {W(1, 25): [set('abc'), set('de')]}, 1, 3)


def test_sessions_after_each():
    run_trigger_simple(Sessions(10 * S), AfterEach((AfterCount(2), AfterCount(3))), ACCUMULATING,
                       zip(range(10), 'abcdefghij'),
                       {W(0, 11): [set('ab')], W(0, 15): [set('abcdef')]}, 2)
    run_trigger_simple(Sessions(10 * S), Repeatedly(AfterEach((AfterCount(2), AfterCount(3)))),
                       ACCUMULATING, zip(range(10), 'abcdefghij'),
                       {W(0, 11): [set('ab')], W(0, 15): [set('abcdef')], W(0, 17): [set('abcdefgh')]},
                       2)
