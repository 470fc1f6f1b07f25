"""Evictors (Flink's ``Evictor``): remove elements from a window before and/or after the
window function runs. Evicted elements are gone from the window state for good (Flink's
``EvictingWindowOperator`` rewrites the state with what is left).

Each evictor sees a mutable list of ``TimestampedValue(value, timestamp, record_id)`` in
window-state order and removes elements in place.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from .windows import wrap_long


class TimestampedValue(NamedTuple):
    """A window element (Flink's ``TimestampedValue``). A record without a timestamp has
    ``has_timestamp=False`` and ``timestamp`` Long.MIN_VALUE (what Flink's ``StreamRecord``
    reports for it); reading the timestamp of such an element through :func:`timestamp_of`
    fails as Flink's ``getTimestamp`` does."""

    value: Any
    timestamp: int
    record_id: Any = None
    has_timestamp: bool = True


NO_TIMESTAMP_MESSAGE = (
    "Record has no timestamp. Is the time characteristic set to 'ProcessingTime', or did you "
    "forget to call 'DataStream.assignTimestampsAndWatermarks(...)'?")


def timestamp_of(element: TimestampedValue) -> int:
    """The element's timestamp; an element without one raises Flink's ``IllegalStateException``
    message (``TimestampedValue.getTimestamp``)."""
    if not element.has_timestamp:
        raise RuntimeError(NO_TIMESTAMP_MESSAGE)
    return element.timestamp


class Evictor:
    """Base class: override ``evict_before`` and/or ``evict_after`` (each mutates ``elements``)."""

    def evict_before(self, elements: list, window, ctx) -> None:
        pass

    def evict_after(self, elements: list, window, ctx) -> None:
        pass

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


class _OneSidedEvictor(Evictor):
    """A built-in evictor acting either before (default) or after the function."""

    def __init__(self, after: bool):
        self.after = bool(after)

    def evict(self, elements: list, window, ctx) -> None:
        raise NotImplementedError

    def evict_before(self, elements, window, ctx):
        if not self.after:
            self.evict(elements, window, ctx)

    def evict_after(self, elements, window, ctx):
        if self.after:
            self.evict(elements, window, ctx)


class CountEvictor(_OneSidedEvictor):
    """Keeps the last ``max_count`` elements (drops the first ``size - max_count``). Flink's
    ``CountEvictor.of`` takes any long: with ``max_count <= 0`` every element is evicted
    (checked with the oracle). It reads no timestamps: records without one count alike."""

    def __init__(self, max_count: int, after: bool = False):
        if isinstance(max_count, bool) or not isinstance(max_count, int):
            raise ValueError(f"CountEvictor: max_count must be an integer, got {max_count!r}")
        super().__init__(after)
        self.max_count = max_count

    @classmethod
    def of(cls, max_count: int, after: bool = False):
        return cls(max_count, after)

    def evict(self, elements, window, ctx):
        n = len(elements)
        if n > self.max_count:
            del elements[: n - self.max_count]


class TimeEvictor(_OneSidedEvictor):
    """Keeps elements with ``timestamp > max timestamp in the window - keep`` (the difference in
    Java ``long`` arithmetic: below Long.MIN it wraps, and then nothing is kept).

    Records without a timestamp (Flink 2.3's ``hasTimestamp``): when the window's *first*
    element has none, nothing is evicted; when the first has one and a later one has none,
    reading the later one's timestamp fails with Flink's message."""

    def __init__(self, keep: int, after: bool = False):
        # Flink's TimeEvictor.of takes any duration: a negative keep evicts every element
        if isinstance(keep, bool) or not isinstance(keep, int):
            raise ValueError(f"TimeEvictor: keep must be an integer number of ms, got {keep!r}")
        super().__init__(after)
        self.keep = keep

    @classmethod
    def of(cls, keep: int, after: bool = False):
        return cls(keep, after)

    def evict(self, elements, window, ctx):
        if not elements or not elements[0].has_timestamp:
            return
        cutoff = wrap_long(max(timestamp_of(e) for e in elements) - self.keep)
        elements[:] = [e for e in elements if e.timestamp > cutoff]


class DeltaEvictor(_OneSidedEvictor):
    """Drops elements with ``delta_fn(element, last element) >= threshold``. It reads values
    only: records without a timestamp are evicted as any other."""

    def __init__(self, threshold: float, delta_fn: Callable[[Any, Any], float], after: bool = False):
        if not callable(delta_fn):
            raise ValueError(f"DeltaEvictor: delta_fn must be callable, got {delta_fn!r}")
        super().__init__(after)
        self.threshold = threshold
        self.delta_fn = delta_fn

    @classmethod
    def of(cls, threshold, delta_fn, after: bool = False):
        return cls(threshold, delta_fn, after)

    def evict(self, elements, window, ctx):
        if not elements:
            return
        last = elements[-1].value
        elements[:] = [e for e in elements if self.delta_fn(e.value, last) < self.threshold]


class _AfterOnly(Evictor):
    """``WindowOperator(evict_after=True)``: run a one-sided evictor after the function."""

    def __init__(self, inner: _OneSidedEvictor):
        self.inner = inner

    def evict_after(self, elements, window, ctx):
        self.inner.evict(elements, window, ctx)
