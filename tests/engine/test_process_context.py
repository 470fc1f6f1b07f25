"""The process function's context beyond the elements: per-window and global keyed state,
side outputs, ``clear(context)`` at window cleanup (Flink's ``ProcessWindowFunction``).

Named tests re-express Flink's ``WindowOperatorContractTest`` methods (the rules come from
``WindowOperator.clearAllState``: contents, trigger state, then ``processContext.clear()``,
i.e. the function's ``clear``; and ``MergingWindowStateStore``, which refuses every state)."""
from __future__ import annotations

import pytest

from toolkit.engine.flink import (
    AggregateFunction,
    EventTimeSessionWindows,
    GlobalWindows,
    OutputTag,
    ProcessWindowFunction,
    ReduceFunction,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    WindowOperator,
    build_operator,
    side_outputs,
)
from toolkit.engine.flink.functions import ProcessContext
from toolkit.engine.flink.operator_fast import TimeWindowEventTimeOperator
from toolkit.engine.flink.results import SideOutput, WindowResult
from toolkit.engine.flink.state import (
    AggregatingState,
    KeyedStateStore,
    ListState,
    MapState,
    ReducingState,
    UnsupportedOperationError,
    ValueState,
)
from toolkit.engine.flink.triggers import CountTrigger


class PerWindowCounter(ProcessWindowFunction):
    """Counts its firings per window (window state) and per key (global state); clears the
    window's count at cleanup when ``clears``."""

    def __init__(self, clears=True):
        super().__init__()
        self.clears = clears
        self.cleared = []

    def process(self, key, ctx, elements):
        w = ctx.window_state().get_state("firings")
        w.update((w.value() or 0) + 1)
        g = ctx.global_state().get_reducing_state("elements", lambda a, b: a + b)
        g.add(len(elements))
        return (w.value(), g.get(), sorted(elements))

    def clear(self, ctx):
        self.cleared.append((ctx.key, ctx.window))
        if self.clears:
            ctx.window_state().get_state("firings").clear()


def _fires(op):
    return [r for r in op.drain() if isinstance(r, WindowResult)]


@pytest.mark.parametrize("domain", ["event", "processing"])
def test_WindowOperatorContractTest_testPerWindowStateSetAndClearedOnPurge(domain):
    """testPerWindowStateSetAndClearedOn{EventTime,ProcessingTime}Purge: state set in
    process() lives until the window's cleanup time, where clear() removes it; afterwards
    no keyed state and no timer is left."""
    fn = PerWindowCounter()
    if domain == "event":
        op = WindowOperator(TumblingEventTimeWindows(20), trigger=CountTrigger(1), allowed_lateness=20, function=fn)
        advance = op.process_watermark
    else:
        op = WindowOperator(TumblingProcessingTimeWindows(20), trigger=CountTrigger(1), function=fn)
        op.set_processing_time(0)
        advance = op.set_processing_time
    op.process_element(0, 0, 1)
    # window contents + the per-window value + the global value (CountTrigger cleared its
    # count when it fired)
    assert op.num_keyed_state_entries() == 3
    assert _fires(op)[0].value == (1, 1, [1])
    advance(1000)
    assert fn.cleared == [(0, op.assigner.assign_windows(1, 0, 0)[0])]
    assert op.num_keyed_state_entries() == 1          # only the global state remains
    assert op.num_event_time_timers() == 0 and op.num_processing_time_timers() == 0


def test_WindowOperatorContractTest_testPerWindowStateSetAndClearedOnEventTimePurge():
    fn = PerWindowCounter()
    op = WindowOperator(TumblingEventTimeWindows(20), trigger=CountTrigger(1), allowed_lateness=20, function=fn)
    op.process_element(0, 0, 1)
    op.process_element(0, 5, 2)
    assert [r.value[0] for r in _fires(op)] == [1, 2]   # the window's count survives firings
    op.process_watermark(38)                              # cleanup time 19 + 20 = 39: not yet
    assert fn.cleared == []
    op.process_watermark(39)
    assert len(fn.cleared) == 1 and op.num_keyed_state_entries() == 1


def test_per_window_state_is_not_cleared_for_a_function_that_does_not_clear_it():
    """As in Flink: the operator clears contents and trigger state, the function its own."""
    op = WindowOperator(TumblingEventTimeWindows(10), trigger=CountTrigger(1), function=PerWindowCounter(clears=False))
    op.process_element("k", 1, 1)
    op.process_watermark(100)
    assert op.num_keyed_state_entries() == 2   # per-window value (leaked) + global value


def test_WindowOperatorContractTest_testWindowStateNotAvailableToMergingWindows():
    op = WindowOperator(EventTimeSessionWindows(20), trigger=CountTrigger(1), function=PerWindowCounter())
    with pytest.raises(UnsupportedOperationError, match="Per-window state is not allowed when using merging windows."):
        op.process_element(0, 0, 1)


def test_global_state_works_with_merging_windows_and_is_shared_across_windows():
    def fn(key, ctx, elements):
        s = ctx.global_state().get_list_state("seen")
        s.add_all(elements)
        return s.get()

    op = WindowOperator(EventTimeSessionWindows(3), function=ProcessWindowFunction(fn))
    for ts, v in [(0, 1), (1, 2), (10, 3)]:
        op.process_element("k", ts, v)
    op.end_input()
    assert [r.value for r in _fires(op)] == [[1, 2], [1, 2, 3]]


class NoOpAggregateFunction(AggregateFunction):
    """Flink's test's ``NoOpAggregateFunction``: every method returns null."""

    def create_accumulator(self):
        return None

    def add(self, value, accumulator):
        return None

    def get_result(self, accumulator):
        return None

    def merge(self, a, b):
        return None


def test_WindowOperatorContractTest_testStateTypeIsConsistentFromWindowStateAndGlobalState():
    """List, value, aggregating, reducing and map state: the window store and the global store
    hand out the same class (Flink 2.3 has no folding state any more)."""
    seen = {}

    def fn(key, ctx, elements):
        w, g = ctx.window_state(), ctx.global_state()
        assert isinstance(w, KeyedStateStore) and isinstance(g, KeyedStateStore)
        for kind in ("get_state", "get_list_state", "get_map_state"):
            assert type(getattr(w, kind)("w" + kind)) is type(getattr(g, kind)("g" + kind))
        assert (type(w.get_aggregating_state("windowAgg", NoOpAggregateFunction()))
                is type(g.get_aggregating_state("globalAgg", NoOpAggregateFunction())) is AggregatingState)
        assert type(w.get_reducing_state("wr", lambda a, b: a)) is type(g.get_reducing_state("gr", lambda a, b: a)) is ReducingState
        seen["ok"] = True

    op = WindowOperator(TumblingEventTimeWindows(20), trigger=CountTrigger(1), function=ProcessWindowFunction(fn))
    op.process_element(0, 0, 1)
    assert seen == {"ok": True}


def test_state_kinds():
    table = {}
    store = KeyedStateStore(table, ("k", "w"))
    v = store.get_state("v")
    assert isinstance(v, ValueState) and v.value() is None
    v.update(3)
    assert store.get_state("v").value() == 3
    v.update(None)
    assert table == {}
    lst = store.get_list_state("l")
    assert isinstance(lst, ListState) and lst.get() == []
    lst.add(1)
    lst.add_all([2, 3])
    assert lst.get() == [1, 2, 3]
    with pytest.raises(ValueError, match="must not be None"):
        lst.add(None)
    lst.update([])
    assert table == {}
    m = store.get_map_state("m")
    assert isinstance(m, MapState) and m.is_empty()
    m.put("a", 1)
    assert m.get("a") == 1 and m.contains("a") and m.items() == [("a", 1)]
    m.remove("a")
    assert table == {}
    with pytest.raises(ValueError, match="non-empty string"):
        store.get_state("")


class SplitLarge(ProcessWindowFunction):
    def process(self, key, ctx, elements):
        for e in elements:
            if e > 10:
                ctx.output(OutputTag("large"), e)
            if e < 0:
                ctx.output("negative", e)
        return len(elements)


def test_side_outputs_collected_per_tag_with_the_window_max_timestamp():
    op = WindowOperator(TumblingEventTimeWindows(10), function=SplitLarge())
    for ts, v in [(1, 5), (2, 50), (3, -1), (12, 70)]:
        op.process_element("k", ts, v)
    op.end_input()
    out = op.drain()
    sides = [o for o in out if isinstance(o, SideOutput)]
    assert [(s.tag, s.value, s.timestamp, s.key) for s in sides] == [
        ("large", 50, 9, "k"), ("negative", -1, 9, "k"), ("large", 70, 19, "k")]
    # a firing's side outputs come before its own result
    kinds = [o.kind for o in out]
    assert kinds == ["side", "side", "fire", "side", "fire"]
    assert side_outputs(out) == {"large": [50, 70], "negative": [-1]}
    assert side_outputs(out, OutputTag("large")) == [50, 70]
    assert sides[0].as_dict()["kind"] == "side"


def test_side_output_with_a_bad_tag_names_it():
    def fn(key, ctx, elements):
        ctx.output(None, 1)

    op = WindowOperator(TumblingEventTimeWindows(10), trigger=CountTrigger(1), function=ProcessWindowFunction(fn))
    with pytest.raises(ValueError, match="OutputTag must not be null"):
        op.process_element("k", 1, 1)
    with pytest.raises(ValueError, match="non-empty string"):
        OutputTag("")


def test_incremental_function_with_a_process_function_gets_the_same_context():
    """``reduce(f, pwf)``: the process function sees the pre-aggregated value, the state and
    side outputs, and its clear() runs at cleanup, even where the fast operator would apply."""
    pwf = PerWindowCounter()
    fn = ReduceFunction(lambda a, b: a + b, process=pwf)
    op = build_operator(TumblingEventTimeWindows(10), function=fn)
    assert type(op) is WindowOperator   # clear() needs the general path
    op.process_element("k", 1, 4)
    op.process_element("k", 2, 5)
    op.process_watermark(20)
    assert [r.value for r in _fires(op)] == [(1, 1, [9])]
    assert len(pwf.cleared) == 1 and op.num_keyed_state_entries() == 1
    fast = build_operator(TumblingEventTimeWindows(10), function=ReduceFunction(lambda a, b: a + b))
    assert type(fast) is TimeWindowEventTimeOperator   # no clear(): the fast path still applies


def test_global_windows_never_call_clear():
    """No cleanup timer for a global window (its cleanup time is Long.MAX): clear never runs."""
    pwf = PerWindowCounter()
    op = WindowOperator(GlobalWindows(), trigger=CountTrigger(1), function=pwf)
    op.process_element("k", 1, 1)
    op.end_input()
    assert pwf.cleared == []


def test_a_detached_context_says_what_is_missing():
    ctx = ProcessContext("k", None, 0, 0, 0, "on_time")
    with pytest.raises(RuntimeError, match="not attached to a window operator"):
        ctx.global_state()


class Average(AggregateFunction):
    """(sum, count) accumulator, the mean as result."""

    def create_accumulator(self):
        return (0, 0)

    def add(self, value, acc):
        return (acc[0] + value, acc[1] + 1)

    def get_result(self, acc):
        return acc[0] / acc[1]

    def merge(self, a, b):
        return (a[0] + b[0], a[1] + b[1])


def test_aggregating_state_add_get_clear():
    """Flink's HeapAggregatingState: add folds into the accumulator (created on the first
    add), get is getResult (null when empty), add(null) and clear empty it."""
    table = {}
    s = KeyedStateStore(table, ("k", "w")).get_aggregating_state("avg", Average())
    assert s.get() is None and table == {}
    s.add(2)
    s.add(4)
    assert s.get() == 3.0 and table == {("k", "w"): {"avg": (6, 2)}}
    s.add(None)
    assert s.get() is None and table == {}
    s.add(10)
    assert s.get() == 10.0
    s.clear()
    assert s.get() is None and table == {}
    with pytest.raises(ValueError, match="must be an AggregateFunction"):
        KeyedStateStore(table, ("k",)).get_aggregating_state("bad", lambda a, b: a)


def test_reducing_state_add_null_clears_as_flink_heap_state_does():
    table = {}
    r = KeyedStateStore(table, ("k",)).get_reducing_state("sum", lambda a, b: a + b)
    r.add(2)
    r.add(3)
    assert r.get() == 5
    r.add(None)
    assert r.get() is None and table == {}


def test_aggregating_state_per_window_and_per_key_in_a_running_operator():
    """Window aggregating state lives per window until the function clears it at cleanup;
    global aggregating state spans the key's windows."""

    class Means(ProcessWindowFunction):
        def process(self, key, ctx, elements):
            w = ctx.window_state().get_aggregating_state("w", Average())
            g = ctx.global_state().get_aggregating_state("g", Average())
            for e in elements:
                w.add(e)
                g.add(e)
            return (w.get(), g.get())

        def clear(self, ctx):
            ctx.window_state().get_aggregating_state("w", Average()).clear()

    op = WindowOperator(TumblingEventTimeWindows(10), trigger=CountTrigger(1), function=Means())
    for ts, v in [(1, 2), (2, 4), (11, 12)]:
        op.process_element("k", ts, v)
    # window [0,10): first firing sees [2] -> 2; second sees [2, 4] on top of [2] -> (2+2+4)/3
    assert [r.value for r in _fires(op)] == [(2.0, 2.0), (8 / 3, 8 / 3), (12.0, 20 / 4)]
    op.process_watermark(100)
    assert op.num_keyed_state_entries() == 1          # the global accumulator only


def test_aggregating_state_is_refused_per_window_with_merging_windows():
    """Flink never merges per-window state: MergingWindowStateStore refuses every getter,
    aggregating state included; global aggregating state works across sessions."""

    def per_window(key, ctx, elements):
        ctx.window_state().get_aggregating_state("w", Average())

    op = WindowOperator(EventTimeSessionWindows(20), trigger=CountTrigger(1), function=ProcessWindowFunction(per_window))
    with pytest.raises(UnsupportedOperationError, match="Per-window state is not allowed when using merging windows."):
        op.process_element(0, 0, 1)

    def per_key(key, ctx, elements):
        g = ctx.global_state().get_aggregating_state("g", Average())
        g.add(sum(elements))
        return g.get()

    op = WindowOperator(EventTimeSessionWindows(3), function=ProcessWindowFunction(per_key))
    for ts, v in [(0, 1), (1, 3), (10, 8)]:
        op.process_element("k", ts, v)
    op.end_input()
    assert [r.value for r in _fires(op)] == [4.0, 6.0]
