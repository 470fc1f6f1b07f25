"""Flink SQL's windows: the window table-valued functions and the legacy group windows.

Times are integer milliseconds; a window is ``[start, end)`` and fires when the watermark
reaches ``end - 1``. Which windows a record belongs to (real Flink 2.3 agrees on every
fixture in ``tests/fixtures/flink_sql``):

- ``start(ts, offset, size) = ts - (ts - offset) mod size`` (floor modulo) aligns windows
  and slices.
- ``TUMBLE(size, offset)``: the one window starting at ``start(ts, offset, size)``.
- ``HOP(slide, size)`` (size a multiple of slide; slicing: slices of one slide): the record's
  slice ends at ``e = start(ts, offset, slide) + slide``; its windows end at ``e``,
  ``e + slide``, ... below ``e + size``: every ``[s, s + size)`` with ``s = offset + k * slide``
  holding ts.
- ``CUMULATE(step, size)``: the fixed window starts at ``w = start(ts, offset, size)``, the
  record's step slice ends at ``e = start(ts, offset, step) + step``; its windows are
  ``[w, e)``, ``[w, e + step)``, ... up to ``[w, w + size)``; each step is a window of its own.
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


def window_start(ts: int, offset: int, size: int) -> int:
    """The start of the ``size`` window (aligned on ``offset``) holding ``ts``."""
    return ts - (ts - offset) % size


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


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

    @property
    def slice(self) -> int:
        """The slice length of a slicing window TVF (TUMBLE: size, HOP: gcd, CUMULATE: step)."""
        if self.kind == "hop":
            return _gcd(self.size, self.slide)
        return self.step if self.kind == "cumulate" else self.size

    def slice_end(self, ts: int) -> int:
        """The end of the slice Flink puts ``ts`` in."""
        return window_start(ts, self.offset, self.slice) + self.slice

    def windows(self, ts: int) -> list[tuple[int, int]]:
        """The windows ``[start, end)`` Flink assigns ``ts`` to, by increasing end (sessions: its own)."""
        if self.kind == "tumble":
            start = window_start(ts, self.offset, self.size)
            return [(start, start + self.size)]
        if self.kind == "hop":
            end = self.slice_end(ts)
            return [(e - self.size, e) for e in range(end, end + self.size, self.slice)]
        if self.kind == "cumulate":
            start = window_start(ts, self.offset, self.size)
            return [(start, e) for e in range(self.slice_end(ts), start + self.size + 1, self.step)]
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
