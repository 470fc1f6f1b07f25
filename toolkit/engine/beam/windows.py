"""Beam's windows and WindowFns: IntervalWindow, FixedWindows, SlidingWindows, Sessions.

Times are integer ticks of the SDK's timestamp granularity (the Python SDK: microseconds;
the Java SDK: milliseconds). ``IntervalWindow.max_timestamp() = end - 1 tick``: an element
at ``end - 1`` belongs to the window, one at ``end`` to the next.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable


@dataclass(frozen=True, order=True)
class IntervalWindow:
    """[start, end) in ticks."""

    start: int
    end: int

    def max_timestamp(self) -> int:
        """The last instant inside the window: end - 1 tick."""
        return self.end - 1

    def __str__(self) -> str:
        return f"[{self.start}, {self.end})"


#: merge callback: (windows merged away or kept, the window they become)
MergeCallback = Callable[[list[IntervalWindow], IntervalWindow], None]


@dataclass(frozen=True)
class FixedWindows:
    """Tumbling windows: start = ts - (ts - offset) mod size."""

    size: int
    offset: int = 0

    def __post_init__(self) -> None:
        if self.size <= 0:
            raise ValueError(f"FixedWindows size must be positive, got {self.size}")
        object.__setattr__(self, "offset", self.offset % self.size)

    def assign(self, ts: int) -> list[IntervalWindow]:
        start = ts - (ts - self.offset) % self.size
        return [IntervalWindow(start, start + self.size)]

    def is_merging(self) -> bool:
        return False

    def merge(self, windows: Iterable[IntervalWindow], callback: MergeCallback) -> None:
        """Non-merging: nothing to do."""


@dataclass(frozen=True)
class SlidingWindows:
    """Hopping windows of ``size`` every ``period``; an element is assigned to every window
    containing it, latest start first (the order Beam's Python SDK assigns them)."""

    size: int
    period: int
    offset: int = 0

    def __post_init__(self) -> None:
        if self.size <= 0 or self.period <= 0:
            raise ValueError(f"SlidingWindows size and period must be positive, "
                             f"got size={self.size} period={self.period}")
        object.__setattr__(self, "offset", self.offset % self.period)

    def assign(self, ts: int) -> list[IntervalWindow]:
        last = ts - (ts - self.offset) % self.period
        return [IntervalWindow(s, s + self.size) for s in range(last, ts - self.size, -self.period)]

    def is_merging(self) -> bool:
        return False

    def merge(self, windows: Iterable[IntervalWindow], callback: MergeCallback) -> None:
        """Non-merging: nothing to do."""


@dataclass(frozen=True)
class Sessions:
    """Each element opens [ts, ts + gap); windows that overlap (end > next start, sorted by
    start) merge into [first start, max end)."""

    gap: int

    def __post_init__(self) -> None:
        if self.gap <= 0:
            raise ValueError(f"Sessions gap must be positive, got {self.gap}")

    def assign(self, ts: int) -> list[IntervalWindow]:
        return [IntervalWindow(ts, ts + self.gap)]

    def is_merging(self) -> bool:
        return True

    def merge(self, windows: Iterable[IntervalWindow], callback: MergeCallback) -> None:
        group: list[IntervalWindow] = []
        end = 0
        for w in sorted(windows, key=lambda w: w.start):
            if group and end > w.start:
                group.append(w)
                end = max(end, w.end)
                continue
            if len(group) > 1:
                callback(group, IntervalWindow(group[0].start, end))
            group, end = [w], w.end
        if len(group) > 1:
            callback(group, IntervalWindow(group[0].start, end))


WindowFn = FixedWindows | SlidingWindows | Sessions
