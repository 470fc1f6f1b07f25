"""Windows: Flink's ``TimeWindow`` and ``GlobalWindow``.

Times are integer milliseconds. ``MIN_TIMESTAMP``/``MAX_TIMESTAMP`` are Java's
``Long.MIN_VALUE``/``Long.MAX_VALUE`` (Flink's "no watermark yet" and "end of time").
"""
from __future__ import annotations

from typing import NamedTuple

MIN_TIMESTAMP = -(2**63)
MAX_TIMESTAMP = 2**63 - 1


def wrap_long(x: int) -> int:
    """Java ``long`` arithmetic: wrap ``x`` into [-2**63, 2**63)."""
    return ((x + 2**63) % 2**64) - 2**63


def get_window_start_with_offset(timestamp: int, offset: int, window_size: int) -> int:
    """Flink's ``TimeWindow.getWindowStartWithOffset``, in Java ``long`` arithmetic.

    The start of the window of length ``window_size`` (aligned to ``offset``) that contains
    ``timestamp``: ``timestamp - ((timestamp - offset) mod window_size)`` with a floor
    modulo, which is what Flink's remainder-plus-correction computes for negative timestamps
    and offsets. At the int64 edges both subtractions wrap as Java's do: ``timestamp -
    offset`` past Long.MAX/MIN, and a start below Long.MIN (a timestamp within one window of
    Long.MIN) becomes a start near Long.MAX.
    """
    x = timestamp - offset
    if not MIN_TIMESTAMP <= x <= MAX_TIMESTAMP:
        x = wrap_long(x)
    start = timestamp - x % window_size
    return start if start >= MIN_TIMESTAMP else start + 2**64


def window_end(start: int, size: int) -> int:
    """``start + size`` in Java ``long`` arithmetic: past Long.MAX the end wraps negative
    (Flink then has a window whose end is below its start)."""
    end = start + size
    return end if end <= MAX_TIMESTAMP else end - 2**64


class TimeWindow(NamedTuple):
    """A half-open interval ``[start, end)`` of event (or processing) time.

    ``max_timestamp() = end - 1`` is the last timestamp that belongs to the window; it is
    the timestamp of the window's results and the time its event-time trigger fires.
    Equal and hashed like the tuple ``(start, end)``.
    """

    start: int
    end: int

    def max_timestamp(self) -> int:
        """``end - 1`` in Java arithmetic (an end of Long.MIN gives Long.MAX)."""
        e = self[1]
        return e - 1 if e != MIN_TIMESTAMP else MAX_TIMESTAMP

    def intersects(self, other: "TimeWindow") -> bool:
        """Flink's rule: windows that merely touch (``[0,5)`` and ``[5,10)``) intersect."""
        return self.start <= other.end and self.end >= other.start

    def cover(self, other: "TimeWindow") -> "TimeWindow":
        """The smallest window containing both."""
        return TimeWindow(min(self.start, other.start), max(self.end, other.end))

    def java_hash_code(self) -> int:
        """``TimeWindow.hashCode()``: ``MathUtils.longToIntWithBitMixing(start + end)``."""
        s = self[0] + self[1]
        h = _HASH_CACHE.get(s)
        if h is None:
            if len(_HASH_CACHE) > 1 << 16:
                _HASH_CACHE.clear()
            h = _HASH_CACHE[s] = long_to_int_with_bit_mixing(wrap_long(s))
        return h

    def __repr__(self) -> str:
        return f"TimeWindow({self.start}, {self.end})"


class GlobalWindow:
    """The single window of ``GlobalWindows``; ``max_timestamp()`` is ``MAX_TIMESTAMP``."""

    __slots__ = ()
    _instance: "GlobalWindow | None" = None
    start = None
    end = None

    def __new__(cls) -> "GlobalWindow":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    @staticmethod
    def get() -> "GlobalWindow":
        return GlobalWindow()

    def max_timestamp(self) -> int:
        return MAX_TIMESTAMP

    def __repr__(self) -> str:
        return "GlobalWindow"

    def __reduce__(self):
        return (GlobalWindow, ())


_M64 = 2**64 - 1
_HASH_CACHE: dict = {}


def long_to_int_with_bit_mixing(value: int) -> int:
    """Flink's ``MathUtils.longToIntWithBitMixing`` (the SplitMix64 finaliser, low 32 bits)."""
    x = value & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    x = x ^ (x >> 31)
    x &= 0xFFFFFFFF
    return x - 2**32 if x >= 2**31 else x


def java_hash_set_order(items: list) -> list:
    """Iteration order of a ``java.util.HashSet`` after adding ``items`` in order.

    Items need ``java_hash_code()``. Buckets ``(h ^ (h >>> 16)) & (capacity - 1)`` in index
    order, insertion order within a bucket; the capacity starts at 16 and doubles when the
    size exceeds 3/4 of it (resizing keeps the relative order inside a bucket). Tree bins
    (8+ collisions in one bucket) are not modelled.
    """
    seen = list(dict.fromkeys(items))
    cap = 16
    while len(seen) > cap * 3 // 4:
        cap *= 2
    mask = cap - 1
    keyed = []
    for i, it in enumerate(seen):
        h = it.java_hash_code() & 0xFFFFFFFF
        keyed.append(((h ^ (h >> 16)) & mask, i))
    keyed.sort()
    return [seen[i] for _, i in keyed]
