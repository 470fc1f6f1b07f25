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
    value: Any
    timestamp: int
    record_id: Any = None


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
    (checked with the oracle)."""

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
    Java ``long`` arithmetic: below Long.MIN it wraps, and then nothing is kept)."""

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
        if not elements:
            return
        cutoff = wrap_long(max(e.timestamp for e in elements) - self.keep)
        elements[:] = [e for e in elements if e.timestamp > cutoff]


class DeltaEvictor(_OneSidedEvictor):
    """Drops elements with ``delta_fn(element, last element) >= threshold``."""

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
