"""PaneInfo: which firing of a window a pane is.

``timing`` EARLY (before the watermark passed the window), ON_TIME (the first firing at or
after it, caused by the watermark), LATE (any later one); ``index`` counts panes of the
window from 0; ``nonspeculative_index`` counts ON_TIME/LATE panes from 0 (-1 for EARLY);
``is_last`` when the trigger finished.
"""
from __future__ import annotations

from dataclasses import dataclass

EARLY, ON_TIME, LATE = "EARLY", "ON_TIME", "LATE"


@dataclass(frozen=True)
class PaneInfo:
    is_first: bool
    is_last: bool
    timing: str
    index: int
    nonspeculative_index: int


@dataclass(frozen=True)
class Pane:
    """One output of GroupByKey: a key's values in a window, at an output timestamp."""

    key: str
    window_start: int
    window_end: int
    timestamp: int
    pane: PaneInfo
    values: tuple
