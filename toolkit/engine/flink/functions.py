"""Window functions: reduce, aggregate, process, and incremental + process combined.

- ``ReduceFunction(fn)``: incremental, ``fn(a, b)`` folds each element into the state.
- ``AggregateFunction``: incremental, ``create_accumulator / add / get_result / merge``.
- ``ProcessWindowFunction``: sees every element of the window plus a ``ProcessContext``
  (key, window, current watermark, current processing time, pane, timing); its return value
  is the result's value.
- ``ReduceFunction(fn, process=pwf)`` / an aggregate with ``process=pwf``: the process
  function receives the single pre-aggregated value (Flink's ``reduce/aggregate(f, pwf)``).

With an evictor the operator keeps every element (as Flink does) and applies the
incremental function over what is left at firing time.

The process function's context (Flink's ``ProcessWindowFunction.Context``) also offers
``window_state()`` and ``global_state()`` (keyed state, see ``state.py``) and
``output(tag, value)`` (a side output: a :class:`~toolkit.engine.flink.results.SideOutput` with
the window's max timestamp, emitted at once, before the firing's own result). At the
window's cleanup time the operator calls the process function's ``clear(context)``, where
per-window state is to be cleared (Flink does not clear it for the function).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, NamedTuple


class OutputTag:
    """Names a side output (Flink's ``OutputTag``): a non-empty id; tags with equal ids are equal."""

    __slots__ = ("id",)

    def __init__(self, id: str):
        if not isinstance(id, str) or not id:
            raise ValueError(f"OutputTag: the id must be a non-empty string, got {id!r}")
        self.id = id

    def __eq__(self, other) -> bool:
        return isinstance(other, OutputTag) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("OutputTag", self.id))

    def __repr__(self) -> str:
        return f"OutputTag({self.id!r})"


def tag_id(tag) -> str:
    """The id of an :class:`OutputTag` or of a tag given as a string."""
    if isinstance(tag, OutputTag):
        return tag.id
    if isinstance(tag, str) and tag:
        return tag
    raise ValueError(f"output(tag, value): the tag must be an OutputTag or a non-empty string, got {tag!r} "
                     "(Flink: OutputTag must not be null)")


class ProcessContext:
    """What a ``ProcessWindowFunction`` sees besides the elements: key, window, current
    watermark and processing time, pane, timing; ``window_state()``, ``global_state()``,
    ``output(tag, value)`` (rules in the module docstring and ``state.py``)."""

    __slots__ = ("key", "window", "current_watermark", "current_processing_time", "pane", "timing", "_op")

    def __init__(self, key, window, current_watermark, current_processing_time, pane, timing, op=None):
        self.key = key
        self.window = window
        self.current_watermark = current_watermark
        self.current_processing_time = current_processing_time
        self.pane = pane
        self.timing = timing
        self._op = op

    def _operator(self):
        if self._op is None:
            raise RuntimeError("this context is not attached to a window operator: no state and no side outputs")
        return self._op

    def window_state(self):
        """Keyed state of this key and window (refused under a merging assigner, as in Flink)."""
        from .state import KeyedStateStore, MergingWindowStateStore, window_namespace

        op = self._operator()
        cls = MergingWindowStateStore if op.assigner.is_merging else KeyedStateStore
        return cls(op._fstate, window_namespace(self.key, self.window))

    def global_state(self):
        """Keyed state of this key, shared by all its windows."""
        from .state import KeyedStateStore, global_namespace

        return KeyedStateStore(self._operator()._fstate, global_namespace(self.key))

    def output(self, tag, value) -> None:
        """Emit ``value`` to the side output ``tag`` (timestamp: the window's max timestamp)."""
        self._operator()._side_output(tag_id(tag), self.key, self.window, value)


class WindowFunction:
    """Marker base class of all window functions."""

    incremental = False
    process: "ProcessWindowFunction | None" = None


class ProcessWindowFunction(WindowFunction):
    """Full-state function: override ``process(key, context, elements)`` (or pass ``fn``) and,
    when it keeps per-window state, ``clear(context)``."""

    incremental = False

    def __init__(self, fn: Callable[[Any, ProcessContext, list], Any] | None = None):
        if fn is not None and not callable(fn):
            raise ValueError(f"ProcessWindowFunction: fn must be callable, got {fn!r}")
        self._fn = fn

    def process(self, key, context: ProcessContext, elements: list) -> Any:
        if self._fn is None:
            raise NotImplementedError("subclass ProcessWindowFunction and implement process(), or pass fn")
        return self._fn(key, context, elements)

    def clear(self, context: ProcessContext) -> None:
        """Called once per window at its cleanup time (Flink's ``clear(Context)``): clear the
        per-window state set in ``process`` here. Default: nothing."""


def has_clear(function: "WindowFunction") -> bool:
    """True when the function (or the process function of an incremental one) overrides
    ``clear``: the operator must then run Flink's cleanup path for every window."""
    pwf = function if isinstance(function, ProcessWindowFunction) else getattr(function, "process", None)
    return pwf is not None and type(pwf).clear is not ProcessWindowFunction.clear


class ReduceFunction(WindowFunction):
    """Incremental: the state is ``fn(fn(e1, e2), e3)...`` (first element kept as is)."""

    incremental = True

    def __init__(self, fn: Callable[[Any, Any], Any] | None = None, process: ProcessWindowFunction | None = None):
        if fn is not None and not callable(fn):
            raise ValueError(f"ReduceFunction: fn must be callable, got {fn!r}")
        if process is not None and not isinstance(process, ProcessWindowFunction):
            raise ValueError(f"ReduceFunction: process must be a ProcessWindowFunction, got {process!r}")
        self._fn = fn
        self.process = process

    def reduce(self, a, b):
        if self._fn is None:
            raise NotImplementedError("subclass ReduceFunction and implement reduce(), or pass fn")
        return self._fn(a, b)


class AggregateFunction(WindowFunction):
    """Incremental: subclass and implement the four methods (Flink's ``AggregateFunction``)."""

    incremental = True

    def __init__(self, process: ProcessWindowFunction | None = None):
        if process is not None and not isinstance(process, ProcessWindowFunction):
            raise ValueError(f"{type(self).__name__}: process must be a ProcessWindowFunction, got {process!r}")
        self.process = process

    def create_accumulator(self):
        raise NotImplementedError

    def add(self, value, accumulator):
        raise NotImplementedError

    def get_result(self, accumulator):
        raise NotImplementedError

    def merge(self, a, b):
        raise NotImplementedError


class CountSumResult(NamedTuple):
    count: int
    sum: Any


class CountSum(AggregateFunction):
    """Count and sum of the values (the default function). Result: ``CountSumResult(count, sum)``.

    The accumulator is a two-element list mutated in place.
    """

    def create_accumulator(self):
        return [0, 0]

    def add(self, value, acc):
        acc[0] += 1
        acc[1] += value
        return acc

    def get_result(self, acc):
        return CountSumResult(acc[0], acc[1])

    def merge(self, a, b):
        return [a[0] + b[0], a[1] + b[1]]


class Count(AggregateFunction):
    """Number of elements."""

    def create_accumulator(self):
        return 0

    def add(self, value, acc):
        return acc + 1

    def get_result(self, acc):
        return acc

    def merge(self, a, b):
        return a + b


class Sum(ReduceFunction):
    """Sum of the values (a reduce)."""

    def __init__(self, process=None):
        super().__init__(None, process)

    def reduce(self, a, b):
        return a + b


class CollectValues(ProcessWindowFunction):
    """All element values, in window-state order, as a list."""

    def process(self, key, context, elements):
        return list(elements)


def fold(function: WindowFunction, values: Iterable) -> Any:
    """Apply an incremental function to a list of values (used with evictors and in tests)."""
    if isinstance(function, AggregateFunction):
        acc = function.create_accumulator()
        for v in values:
            acc = function.add(v, acc)
        return function.get_result(acc)
    if isinstance(function, ReduceFunction):
        it = iter(values)
        cur = _MISSING = object()
        for v in it:
            cur = v if cur is _MISSING else function.reduce(cur, v)
        return None if cur is _MISSING else cur
    raise TypeError(f"not an incremental function: {function!r}")
