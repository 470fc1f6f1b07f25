"""Helpers the engines' explanations of a drop share (``Semantics.why_dropped``): instants in
words and the end of the window a record belongs to."""
from __future__ import annotations

from typing import Any

import numpy as np

from toolkit.replays.explain import instant_text
from toolkit.settings import Session, Setting, Sliding

_EPOCH_MS = 10**11


def instant(ms: Any) -> str:
    """An instant in words: a UTC time for epoch milliseconds, else a duration from 0."""
    return instant_text(ms, abs(int(ms)) >= _EPOCH_MS)


def last_window_end(s: Setting, ts: np.ndarray) -> np.ndarray:
    """End of the latest window holding each event time (Spark's epoch-aligned windows)."""
    w = s.window
    if isinstance(w, Session):
        return ts + w.gap
    slide = w.slide if isinstance(w, Sliding) else w.size
    return ts - np.mod(ts, slide) + w.size
