"""Kafka's ``SuppressScenarioTest`` re-expressed for windowed counts: the raw (cache-off update) output and
the output of ``suppress(untilWindowCloses(unbounded()))``. Kafka's ``Windowed.toString`` keys
("[k1@0/2]": key, window start, window end) are kept.

Not re-expressed (outside the model): ``shouldImmediatelyEmitEventsWithZeroEmitAfter``,
``shouldSuppressIntermediateEventsWithTimeLimit`` / ``...RecordLimit`` / ``...BytesLimit`` (``untilTimeLimit``
and bounded buffers on a non-windowed KTable), ``shouldWorkBeforeGroupBy``, ``shouldWorkBeforeJoinRight`` /
``...Left`` and ``shouldWorkWithCogrouped`` (suppression inside other topologies).
"""
from __future__ import annotations

from _kafka_cases import run

from toolkit.engine.kafka_streams import SessionWindows, SlidingWindows, TimeWindows

V1 = "1"  # every record counts 1 ("v1" in Kafka's test)


def raw_and_suppressed(records, windows):
    records = [(k, V1, t) for k, t in records]
    raw = [(f"[{k}@{s}/{e}]", (c if kind != "tombstone" else None), t)
           for k, s, e, c, sm, kind, t in run(records, windows).rows()]
    sup = [(f"[{k}@{s}/{e}]", c, t) for k, s, e, c, sm, kind, t in run(records, windows, "suppress").rows()]
    return raw, sup


def test_SuppressScenarioTest_shouldSupportFinalResultsForTimeWindows():
    raw, sup = raw_and_suppressed([("k1", 0), ("k1", 1), ("k1", 2), ("k1", 1), ("k1", 0), ("k1", 5), ("k1", 0)],
                                  TimeWindows.of_size_and_grace(2, 1))
    assert raw == [("[k1@0/2]", 1, 0), ("[k1@0/2]", 2, 1), ("[k1@2/4]", 1, 2), ("[k1@0/2]", 3, 1),
                   ("[k1@0/2]", 4, 1), ("[k1@4/6]", 1, 5)]
    assert sup == [("[k1@0/2]", 4, 1), ("[k1@2/4]", 1, 2)]


def test_SuppressScenarioTest_shouldSupportFinalResultsForTimeWindowsWithLargeJump():
    raw, sup = raw_and_suppressed([("k1", 0), ("k1", 1), ("k1", 2), ("k1", 0), ("k1", 3), ("k1", 0), ("k1", 4),
                                   ("k1", 0), ("k1", 30)], TimeWindows.of_size_and_grace(2, 2))
    assert raw == [("[k1@0/2]", 1, 0), ("[k1@0/2]", 2, 1), ("[k1@2/4]", 1, 2), ("[k1@0/2]", 3, 1),
                   ("[k1@2/4]", 2, 3), ("[k1@0/2]", 4, 1), ("[k1@4/6]", 1, 4), ("[k1@30/32]", 1, 30)]
    assert sup == [("[k1@0/2]", 4, 1), ("[k1@2/4]", 2, 3), ("[k1@4/6]", 1, 4)]


def test_SuppressScenarioTest_shouldSupportFinalResultsForSlidingWindows():
    raw, sup = raw_and_suppressed([("k1", 10), ("k1", 11), ("k1", 10), ("k1", 13), ("k1", 10), ("k1", 24),
                                   ("k1", 5), ("k1", 7), ("k1", 90)], SlidingWindows.of_time_difference_and_grace(5, 15))
    # Kafka sorts the raw output by the Windowed string, then timestamp
    assert sorted(raw, key=lambda r: (r[0], r[2])) == [
        ("[k1@11/16]", 1, 11), ("[k1@11/16]", 2, 13), ("[k1@12/17]", 1, 13), ("[k1@19/24]", 1, 24),
        ("[k1@5/10]", 1, 10), ("[k1@5/10]", 2, 10), ("[k1@5/10]", 3, 10), ("[k1@5/10]", 4, 10),
        ("[k1@5/10]", 5, 10), ("[k1@6/11]", 2, 11), ("[k1@6/11]", 3, 11), ("[k1@6/11]", 4, 11),
        ("[k1@6/11]", 5, 11), ("[k1@8/13]", 4, 13), ("[k1@8/13]", 5, 13), ("[k1@85/90]", 1, 90)]
    assert sup == [("[k1@5/10]", 5, 10), ("[k1@6/11]", 5, 11), ("[k1@8/13]", 5, 13), ("[k1@11/16]", 2, 13),
                   ("[k1@12/17]", 1, 13), ("[k1@19/24]", 1, 24)]


def test_SuppressScenarioTest_shouldSupportFinalResultsForSessionWindows():
    raw, sup = raw_and_suppressed([("k1", 0), ("k1", 5), ("k1", 1), ("k2", 11), ("k1", 5), ("k1", 30)],
                                  SessionWindows.of_inactivity_gap_with_no_grace(5))
    assert raw == [("[k1@0/0]", 1, 0), ("[k1@0/0]", None, 0), ("[k1@0/5]", 2, 5), ("[k1@0/5]", None, 5),
                   ("[k1@0/5]", 3, 5), ("[k2@11/11]", 1, 11), ("[k1@30/30]", 1, 30)]
    assert sup == [("[k1@0/5]", 3, 5), ("[k2@11/11]", 1, 11)]


def test_suppress_releases_a_sliding_window_the_aggregation_still_accepts():
    """Sliding windows end inclusively: at stream time 15 (grace 0) the suppression releases [10,15]
    (end <= 15) while the aggregation still accepts it (end >= 15), so k@12 updates it and it is
    released a second time."""
    windows = SlidingWindows.of_time_difference_with_no_grace(5)
    r = run([("k", "1", 10), ("k", "1", 15), ("k", "1", 12)], windows, "suppress")
    assert [(s, e, c, t) for k, s, e, c, sm, kind, t in r.rows()] == [(5, 10, 1, 10), (10, 15, 2, 15), (10, 15, 3, 15)]


def test_end_of_input_flush_is_flagged():
    windows = TimeWindows.of_size_and_grace(10, 0)
    records = [("a", "1", 5), ("b", "1", 30), ("a", "1", 2)]
    r = run(records, windows, "suppress")
    assert [(k, s, c) for k, s, e, c, sm, kind, t in r.rows()] == [("a", 0, 1)]
    assert r.emissions["emit_index"].tolist() == [1]
    # the end-of-input flush (not a Kafka behaviour) releases the rest, flagged at_end
    r = run(records, windows, "suppress", flush=True)
    assert r.emissions["at_end"].tolist() == [False, True]
    assert r.emissions["emit_time"].tolist() == [1, 2]
