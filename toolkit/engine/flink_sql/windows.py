"""Flink SQL's windows: the window table-valued functions and the legacy group windows.

Times are integer milliseconds; a window is ``[start, end)`` and fires when the watermark
reaches ``end - 1``. Which windows a record belongs to (real Flink 2.3 agrees on every
fixture in ``tests/fixtures/flink_sql``):

- ``TUMBLE(size, offset)``: the one window with ``start = ts - (ts - offset) mod size``.
- ``HOP(slide, size)``: every ``[s, s + size)`` with ``s = offset + k * slide`` containing ts.
- ``CUMULATE(step, size)``: within the fixed window ``[w, w + size)`` holding ts, every
  ``[w, w + j * step)`` (j >= 1) whose end is after ts; each step is a window of its own.
- ``SESSION(gap)`` (``PARTITION BY`` the key): ``[ts, ts + gap)``, merged with the key's open
  sessions it overlaps or touches (:mod:`toolkit.engine.flink_sql.operator`).

The legacy group windows (``GROUP BY TUMBLE(ts, ...)``, ``HOP``, ``SESSION``) assign the same
windows.
"""
from __future__ import annotations

from dataclasses import dataclass

#: scenario window kinds (``case.window.kind``) -> the assigner kind they use
KINDS = {"tumble": "tumble", "hop": "hop", "cumulate": "cumulate", "session": "session",
         "legacy_tumble": "tumble", "legacy_hop": "hop", "legacy_session": "session"}


def _positive(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"window {name} must be a positive integer number of milliseconds, got {value!r}")
    return value


@dataclass(frozen=True)
class WindowSpec:
    """One window function: ``kind`` (tumble, hop, cumulate, session) and its sizes (ms)."""

    kind: str
    size: int = 0
    slide: int = 0
    step: int = 0
    gap: int = 0
    offset: int = 0
    legacy: bool = False

    @property
    def merging(self) -> bool:
        """True for sessions (windows merge per key)."""
        return self.kind == "session"

    def windows(self, ts: int) -> list[tuple[int, int]]:
        """The windows ``[start, end)`` holding ``ts``, by increasing end (sessions: its own)."""
        if self.kind == "tumble":
            start = ts - (ts - self.offset) % self.size
            return [(start, start + self.size)]
        if self.kind == "hop":
            last = ts - (ts - self.offset) % self.slide
            starts = range(last - ((self.size - 1) // self.slide) * self.slide, last + 1, self.slide)
            return [(s, s + self.size) for s in starts if s + self.size > ts]
        if self.kind == "cumulate":
            start = ts - (ts - self.offset) % self.size
            first = start + ((ts - start) // self.step + 1) * self.step
            return [(start, e) for e in range(first, start + self.size + 1, self.step)]
        return [(ts, ts + self.gap)]


def window_spec(window: dict) -> WindowSpec:
    """A :class:`WindowSpec` from a scenario's ``case.window``; a bad one names the field."""
    kind = window.get("kind")
    if kind not in KINDS:
        raise ValueError(f"window kind must be one of {sorted(KINDS)}, got {kind!r}")
    base, legacy = KINDS[kind], kind.startswith("legacy_")
    offset = window.get("offset", 0)
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise ValueError(f"window offset must be an integer number of milliseconds, got {offset!r}")
    if base == "tumble":
        return WindowSpec("tumble", size=_positive(window.get("size"), "size"), offset=offset, legacy=legacy)
    if base == "hop":
        size, slide = _positive(window.get("size"), "size"), _positive(window.get("slide"), "slide")
        if size % slide:
            raise ValueError(f"HOP size {size} ms must be a multiple of its slide {slide} ms")
        return WindowSpec("hop", size=size, slide=slide, offset=offset, legacy=legacy)
    if base == "cumulate":
        size, step = _positive(window.get("size"), "size"), _positive(window.get("step"), "step")
        if size % step:
            raise ValueError(f"CUMULATE size {size} ms must be a multiple of its step {step} ms")
        return WindowSpec("cumulate", size=size, step=step, offset=offset, legacy=legacy)
    return WindowSpec("session", gap=_positive(window.get("gap"), "gap"), legacy=legacy)
