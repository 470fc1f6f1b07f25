"""Timestamp combiners: the output timestamp of a pane (and the watermark hold behind it).

- ``end_of_window``: every element's output time is the window's max timestamp; depends
  only on the window, so a merged window's time is its own max timestamp.
- ``earliest`` / ``latest``: the element timestamp; combined by min / max.
"""
from __future__ import annotations

from typing import Iterable

from .windows import IntervalWindow

COMBINERS = ("end_of_window", "earliest", "latest")


class TimestampCombiner:
    """One of :data:`COMBINERS`."""

    def __init__(self, name: str) -> None:
        if name not in COMBINERS:
            raise ValueError(f"timestamp_combiner must be one of {', '.join(COMBINERS)}, got {name!r}")
        self.name = name

    def assign_output_time(self, window: IntervalWindow, ts: int) -> int:
        return window.max_timestamp() if self.name == "end_of_window" else ts

    def combine(self, a: int, b: int) -> int:
        return min(a, b) if self.name == "earliest" else max(a, b)

    def combine_all(self, times: Iterable[int | None]) -> int | None:
        """Fold with :meth:`combine`, skipping ``None``."""
        out = None
        for t in times:
            if out is None:
                out = t
            elif t is not None:
                out = self.combine(out, t)
        return out

    def merge(self, window: IntervalWindow, times: Iterable[int]) -> int | None:
        """The output time of ``times`` in ``window``: end_of_window ignores the times
        (and so yields the window's max timestamp even when there are none)."""
        if self.name == "end_of_window":
            return window.max_timestamp()
        return self.combine_all(times)
