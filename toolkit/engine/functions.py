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
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, NamedTuple


class ProcessContext:
    """What a ``ProcessWindowFunction`` sees besides the elements."""

    __slots__ = ("key", "window", "current_watermark", "current_processing_time", "pane", "timing")

    def __init__(self, key, window, current_watermark, current_processing_time, pane, timing):
        self.key = key
        self.window = window
        self.current_watermark = current_watermark
        self.current_processing_time = current_processing_time
        self.pane = pane
        self.timing = timing


class WindowFunction:
    """Marker base class of all window functions."""

    incremental = False
    process: "ProcessWindowFunction | None" = None


class ProcessWindowFunction(WindowFunction):
    """Full-state function: override ``process(key, context, elements)`` (or pass ``fn``)."""

    incremental = False

    def __init__(self, fn: Callable[[Any, ProcessContext, list], Any] | None = None):
        if fn is not None and not callable(fn):
            raise ValueError(f"ProcessWindowFunction: fn must be callable, got {fn!r}")
        self._fn = fn

    def process(self, key, context: ProcessContext, elements: list) -> Any:
        if self._fn is None:
            raise NotImplementedError("subclass ProcessWindowFunction and implement process(), or pass fn")
        return self._fn(key, context, elements)


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
