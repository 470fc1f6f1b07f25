"""Kafka's ``KStreamSlidingWindowAggregateTest`` re-expressed: every method's piped records and asserted
outputs, for both emit strategies, come from ``tests/fixtures/kafka_streams/sliding_window_aggregate_tests.json``
(extracted from Kafka's test file by ``extract_sliding_tests.py`` beside it, which also lists the
methods left out and why). Kafka's strings are kept: "0+1+2" (aggregate: initializer "0", values 1
and 2) or "1+2" (reduce) become (count, sum).

The test driver runs with the emit interval 0; update mode uses the test's in-memory store with
retention 50000 ms where the test passes one (else the default ``2 * td + grace``). Kafka's
``withCache``/``inOrderIterator`` variants expect the same outputs; we model the reverse iterator,
cache off.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from _kafka_cases import run

from toolkit.engine.kafka_streams import SlidingWindows

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "kafka_streams" / "sliding_window_aggregate_tests.json"
DATA = json.loads(FIXTURE.read_text())
CASES = [(c, emit) for c in DATA["cases"] for emit in ("on_window_update", "on_window_close")]


def _cs(s: str, reduce: bool) -> tuple[int, float]:
    parts = s.split("+") if reduce else s.split("+")[1:]
    return len(parts), float(sum(int(p) for p in parts))


@pytest.mark.parametrize("case,emit", CASES, ids=[f"test_KStreamSlidingWindowAggregateTest_{c['name']}[{e}]" for c, e in CASES])
def test_KStreamSlidingWindowAggregateTest(case, emit):
    windows = SlidingWindows.of_time_difference_and_grace(case["time_difference"], case["grace"][emit])
    if emit == "on_window_update" and case["update_retention"]:
        windows = windows.with_retention(case["update_retention"])
    r = run([tuple(x) for x in case["records"]], windows, emit)
    red = case["reduce"]
    rows = [(k, s, e, c, sm, t) for k, s, e, c, sm, kind, t in r.rows()]
    if case["style"] == "by_start":  # gatherOutput: start -> set of (value, timestamp)
        actual: dict[int, set] = {}
        for k, s, e, c, sm, t in rows:
            actual.setdefault(s, set()).add((c, sm, t))
        expected = {start: {(*_cs(v, red), t) for v, t in vals} for start, vals in case["expected"][emit]}
        assert actual == expected
    else:  # sorted by key, then window start (a stable sort of the captured outputs)
        actual_l = sorted(rows, key=lambda x: (x[0], x[1]))
        expected_l = [(k, s, e, *_cs(v, red), t) for k, s, e, v, t in case["expected"][emit]]
        assert actual_l == expected_l


def test_the_fixture_lists_what_it_leaves_out():
    assert set(DATA["not_re_expressed"]) == {"testJoin", "shouldLogAndMeterWhenSkippingNullKey",
                                              "testAggregateRandomInput", "shouldLogAndMeterWhenSkippingExpiredWindowByGrace"}
    assert len(DATA["cases"]) == 10


@pytest.mark.parametrize("emit", ["on_window_update", "on_window_close"])
def test_KStreamSlidingWindowAggregateTest_shouldLogAndMeterWhenSkippingExpiredWindowByGrace(emit):
    records = [("k", "100", 200), ("k", "0", 100), ("k", "1", 101), ("k", "2", 102), ("k", "3", 103),
               ("k", "4", 104), ("k", "5", 105), ("k", "6", 15), ("k", "101", 300), ("k", "102", 400)]
    windows = SlidingWindows.of_time_difference_and_grace(10, 90)
    if emit == "on_window_update":
        windows = windows.with_retention(50000)
    r = run(records, windows, emit)
    assert r.dropped_records.tolist() == [7]
    assert r.record_lateness_max.tolist() == [185]
    assert r.record_lateness_avg[0] == pytest.approx(77.0)
    # left windows [90,100] .. [95,105] skipped (expiration 110), and k@15 skipped whole ([15,25])
    assert r.dropped_windows.tolist() == [0, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    got = [(k, s, e, c, sm, t) for k, s, e, c, sm, kind, t in r.rows()]
    expected = [("k", 190, 200, 1, 100.0, 200), ("k", 290, 300, 1, 101.0, 300)]
    if emit == "on_window_update":
        expected.append(("k", 390, 400, 1, 102.0, 400))
    assert got == expected
