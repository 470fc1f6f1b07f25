"""Beam's ``TriggerPipelineTest`` streaming cases (apache_beam/transforms/trigger_test.py),
re-expressed on toolkit.engine.beam's GroupByKeyStep: the same TestStream (elements without
a timestamp take the current watermark, as TestStream gives them), the same WindowInto and
the same asserted GroupByKey output. Times in seconds, held as microseconds."""
from __future__ import annotations

from toolkit.engine.beam.driver import ACCUMULATING, DISCARDING, Windowing
from toolkit.engine.beam.runner import MIN_TIME, GroupByKeyStep
from toolkit.engine.beam.triggers import AfterAll, AfterAny, AfterCount, AfterProcessingTime, AfterWatermark, Repeatedly
from toolkit.engine.beam.windows import FixedWindows

S = 1_000_000


class Stream:
    """A TestStream feeding one GroupByKeyStep."""

    def __init__(self, windowing: Windowing):
        self.step = GroupByKeyStep(windowing)
        self.wm = MIN_TIME

    def elements(self, key, values, ts=None):
        self.step.bundle(key, [(v, self.wm if ts is None else ts) for v in values])
        return self

    def watermark(self, seconds):
        self.wm = round(seconds * S)
        self.step.advance_watermark(self.wm)
        return self

    def processing_time(self, seconds):
        self.step.advance_processing_time(round(seconds * S))
        return self

    def to_infinity(self):
        self.step.finish()
        return self

    def outputs(self):
        return [(p.key, list(p.values)) for p in self.step.panes]


def test_after_processing_time():
    s = Stream(Windowing(FixedWindows(10 * S), AfterProcessingTime(2 * S), accumulation=DISCARDING))
    for i in range(4):
        s.processing_time(2 / 4).elements("key", [i])
    s.processing_time(2)
    s.processing_time(0.1).elements("key", ["dropped-1"]).processing_time(0.1).elements("key", ["dropped-2"])
    s.processing_time(2).to_infinity()
    assert [vs for _, vs in s.outputs()] == [[0, 1, 2, 3]]


def test_repeatedly_after_processing_time():
    s = Stream(Windowing(FixedWindows(10 * S), Repeatedly(AfterProcessingTime(2 * S)), accumulation=DISCARDING))
    for i in range(7):
        s.processing_time(2 - 0.01).elements("key", [i])
    s.processing_time(2).to_infinity()
    assert sorted(vs for _, vs in s.outputs()) == [[0, 1], [2, 3], [4, 5], [6]]


def test_after_count_streaming():
    s = Stream(Windowing(FixedWindows(10 * S), AfterCount(3), accumulation=ACCUMULATING))
    s.watermark(0)
    s.elements("A", [1, 2, 3]).elements("A", [4, 5, 6]).elements("B", [1, 2, 3]).to_infinity()
    assert sorted(s.outputs()) == [("A", [1, 2, 3]), ("B", [1, 2, 3])]  # A's 4-6: the trigger finished
    assert [(d.key, d.value, d.reason) for d in s.step.drops] == [("A", 4, "finished"), ("A", 5, "finished"),
                                                                  ("A", 6, "finished")]


def test_multiple_accumulating_firings():
    s = Stream(Windowing(FixedWindows(10 * S), AfterWatermark(early=AfterAll((AfterCount(1), AfterProcessingTime(5 * S)))),
                         accumulation=ACCUMULATING))
    s.watermark(0)
    for i in range(1, 11):
        s.elements("key", [str(i)])
        if i % 5 == 0:
            s.watermark(i).processing_time(5)
    s.to_infinity()
    # fires twice: after 5 s of processing time, and at the end of the window; accumulating
    assert [vs for _, vs in s.outputs()] == [sorted(str(i) for i in range(1, 6)),
                                             sorted(str(i) for i in range(1, 11))]


def test_on_pane_watermark_hold_no_pipeline_stall():
    """BEAM-10054: AfterAny(AfterProcessingTime(1 h), AfterWatermark()) releases its hold."""
    start = 1534842000
    s = Stream(Windowing(FixedWindows(60 * S), AfterAny((AfterProcessingTime(3600 * S), AfterWatermark())),
                         accumulation=DISCARDING))
    s.elements("a", ["a"], ts=start * S)
    s.processing_time(start + 1).watermark(start + 1)
    s.elements("b", ["b"], ts=start * S)
    s.processing_time(start + 2).watermark(start + 2)
    s.to_infinity()
    assert not s.step.stalled
