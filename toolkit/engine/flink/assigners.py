"""Window assigners (Flink's ``WindowAssigner`` family), event- and processing-time.

An assigner maps an element to its windows, names its default trigger and says whether it
works in event time (``is_event_time``) and whether its windows merge (sessions).
All parameters are validated when the assigner is built (``ValueError`` with a clear message).

Window bounds are computed in Java ``long`` arithmetic, as Flink computes them: near
Long.MAX a window's ``start + size`` (a session's ``ts + gap``) wraps negative, near
Long.MIN a start wraps to near Long.MAX (``windows.get_window_start_with_offset``), and the
sliding assigner's lower bound ``ts - size`` and its ``start -= slide`` steps wrap too
(checked against real Flink by the ``i64_*`` window fixtures).
"""
from __future__ import annotations

import enum
import random
from operator import index
from typing import Any, Callable, Iterable

from .triggers import EndOfStreamTrigger, EventTimeTrigger, NeverTrigger, ProcessingTimeTrigger
from .windows import GlobalWindow, TimeWindow, get_window_start_with_offset, window_end, wrap_long, MIN_TIMESTAMP


def _check_int(name: str, value: Any, owner: str) -> int:
    """An integer (Python or numpy: anything with ``__index__``), not a bool."""
    if not isinstance(value, bool):
        try:
            return index(value)
        except TypeError:
            pass
    raise ValueError(f"{owner}: {name} must be an integer number of milliseconds, got {value!r}")


class WindowAssigner:
    """Base class. Subclasses implement ``assign_windows(element, timestamp, ctx)``."""

    is_event_time: bool = True
    is_merging: bool = False

    def assign_windows(self, element: Any, timestamp: int, current_processing_time: int) -> list:
        raise NotImplementedError

    def default_trigger(self):
        raise NotImplementedError

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


def _no_timestamp() -> RuntimeError:
    return RuntimeError(
        "Record has Long.MIN_VALUE timestamp (= no timestamp marker): event-time windows need "
        "event timestamps"
    )


class WindowStagger(enum.Enum):
    """Flink's ``WindowStagger``: how a tumbling assigner shifts its windows, decided once per
    operator instance (at its first element, from the processing time then).

    - ``ALIGNED``: 0, every window starts at ``offset`` (plus multiples of the size);
    - ``RANDOM``: ``(long) (random in [0, 1) * size)``;
    - ``NATURAL``: ``max(0, now - getWindowStartWithOffset(now, 0, size))``, i.e. the
      windows start where the first element's processing-time window would have started.
    """

    ALIGNED = "aligned"
    RANDOM = "random"
    NATURAL = "natural"

    def get_stagger_offset(self, current_processing_time: int, size: int, rng: random.Random | None = None) -> int:
        if self is WindowStagger.ALIGNED:
            return 0
        if self is WindowStagger.RANDOM:
            return int((rng or random).random() * size)
        return max(0, current_processing_time - get_window_start_with_offset(current_processing_time, 0, size))


class TumblingEventTimeWindows(WindowAssigner):
    """Windows ``[start, start + size)`` with
    ``start = getWindowStartWithOffset(ts, (offset + stagger offset) % size, size)``.

    Flink requires ``size > 0`` and ``Math.abs(offset) < size`` (Java's: ``Math.abs(Long.MIN_VALUE)``
    is Long.MIN_VALUE, so that offset passes, as in Flink). ``stagger`` (a
    :class:`WindowStagger`, default ``ALIGNED``) is resolved at the first element; each
    window operator works on its own copy of a staggered assigner (Flink serialises the
    assigner into every operator instance). ``rng`` seeds ``RANDOM``.
    """

    is_event_time = True

    def __init__(self, size: int, offset: int = 0, stagger: "WindowStagger" = None, rng: random.Random | None = None):
        name = type(self).__name__
        self.size = _check_int("size", size, name)
        self.offset = _check_int("offset", offset, name)
        if self.size <= 0:
            raise ValueError(f"{name}: size must be > 0, got {self.size}")
        if java_abs(self.offset) >= self.size:
            raise ValueError(f"{name}: parameters must satisfy abs(offset) < size, got offset {self.offset}, size {self.size}")
        stagger = WindowStagger.ALIGNED if stagger is None else stagger
        if not isinstance(stagger, WindowStagger):
            raise ValueError(f"{name}: stagger must be a WindowStagger (ALIGNED, RANDOM, NATURAL), got {stagger!r}")
        self.stagger = stagger
        self._rng = rng
        # Java's % keeps the sign of the dividend.
        self._eff_offset = _java_rem(self.offset, self.size)
        self._stagger_offset: int | None = 0 if stagger is WindowStagger.ALIGNED else None

    @classmethod
    def of(cls, size: int, offset: int = 0, stagger: "WindowStagger" = None):
        return cls(size, offset, stagger)

    def _resolve_stagger(self, current_processing_time: int) -> None:
        """Flink: ``if (staggerOffset == null) staggerOffset = stagger.getStaggerOffset(now, size)``."""
        self._stagger_offset = self.stagger.get_stagger_offset(current_processing_time, self.size, self._rng)
        self._eff_offset = _java_rem(wrap_long(self.offset + self._stagger_offset), self.size)

    def assign_windows(self, element, timestamp, current_processing_time):
        if timestamp <= MIN_TIMESTAMP:
            raise _no_timestamp()
        if self._stagger_offset is None:
            self._resolve_stagger(current_processing_time)
        start = get_window_start_with_offset(timestamp, self._eff_offset, self.size)
        return [TimeWindow(start, window_end(start, self.size))]

    def default_trigger(self):
        return EventTimeTrigger()


class TumblingProcessingTimeWindows(TumblingEventTimeWindows):
    """Tumbling windows over the operator's current processing time (not the record's timestamp)."""

    is_event_time = False

    def assign_windows(self, element, timestamp, current_processing_time):
        now = current_processing_time
        if self._stagger_offset is None:
            self._resolve_stagger(now)
        start = get_window_start_with_offset(now, self._eff_offset, self.size)
        return [TimeWindow(start, window_end(start, self.size))]

    def default_trigger(self):
        return ProcessingTimeTrigger()


class SlidingEventTimeWindows(WindowAssigner):
    """Windows of ``size`` every ``slide``: all ``[s, s + size)`` with ``s > ts - size``, latest first.

    Flink requires ``size > 0``, ``slide > 0`` and ``Math.abs(offset) < slide`` (Java's
    ``Math.abs``: an offset of Long.MIN_VALUE passes).
    """

    is_event_time = True

    def __init__(self, size: int, slide: int, offset: int = 0):
        name = type(self).__name__
        self.size = _check_int("size", size, name)
        self.slide = _check_int("slide", slide, name)
        self.offset = _check_int("offset", offset, name)
        if self.size <= 0:
            raise ValueError(f"{name}: size must be > 0, got {self.size}")
        if self.slide <= 0:
            raise ValueError(f"{name}: slide must be > 0, got {self.slide}")
        if java_abs(self.offset) >= self.slide:
            raise ValueError(f"{name}: parameters must satisfy abs(offset) < slide, got offset {self.offset}, slide {self.slide}")

    @classmethod
    def of(cls, size: int, slide: int, offset: int = 0):
        return cls(size, slide, offset)

    def _windows(self, t: int) -> list:
        """Flink's loop ``for (s = lastStart; s > t - size; s -= slide)`` in ``long`` arithmetic."""
        size, slide = self.size, self.slide
        start = get_window_start_with_offset(t, self.offset, slide)
        lower = t - size
        if start <= t and lower >= MIN_TIMESTAMP and start - (size // slide + 1) * slide >= MIN_TIMESTAMP:
            out = []
            while start > lower:
                out.append(TimeWindow(start, window_end(start, size)))
                start -= slide
            return out
        return self._windows_wrapping(t, start, wrap_long(lower))

    def _windows_wrapping(self, t: int, start: int, lower: int) -> list:
        size, slide = self.size, self.slide
        out = []
        limit = size // slide + 2
        while start > lower:
            if len(out) > limit:
                raise RuntimeError(
                    f"SlidingEventTimeWindows(size={size}, slide={slide}, offset={self.offset}): for timestamp {t} "
                    f"Flink's window loop wraps past Long.MIN_VALUE and never ends (real Flink runs out of memory)")
            out.append(TimeWindow(start, window_end(start, size)))
            start = wrap_long(start - slide)
        return out

    def assign_windows(self, element, timestamp, current_processing_time):
        if timestamp <= MIN_TIMESTAMP:
            raise _no_timestamp()
        return self._windows(timestamp)

    def default_trigger(self):
        return EventTimeTrigger()


class SlidingProcessingTimeWindows(SlidingEventTimeWindows):
    """Sliding windows over the operator's current processing time."""

    is_event_time = False

    def assign_windows(self, element, timestamp, current_processing_time):
        return self._windows(current_processing_time)

    def default_trigger(self):
        return ProcessingTimeTrigger()


class MergingWindowAssigner(WindowAssigner):
    """Assigners whose windows merge: ``merge_windows`` groups intersecting windows (sessions)."""

    is_merging = True

    @staticmethod
    def merge_windows(windows: Iterable[TimeWindow]) -> list[tuple[list[TimeWindow], TimeWindow]]:
        """Flink's ``TimeWindow.mergeWindows``: sort by start (stable), sweep, cover intersecting.

        Returns ``(members, merge_result)`` for every group of more than one window; the
        members are in insertion order (the caller orders them like Java's HashSet).
        """
        ordered = sorted(windows, key=lambda w: w.start)
        groups: list[tuple[list[TimeWindow], TimeWindow]] = []
        cur: TimeWindow | None = None
        members: list[TimeWindow] = []
        for cand in ordered:
            if cur is None:
                cur, members = cand, [cand]
            elif cur.intersects(cand):
                cur = cur.cover(cand)
                if cand not in members:
                    members.append(cand)
            else:
                groups.append((members, cur))
                cur, members = cand, [cand]
        if cur is not None:
            groups.append((members, cur))
        return [(m, r) for m, r in groups if len(m) > 1]


class EventTimeSessionWindows(MergingWindowAssigner):
    """Each element gets ``[ts, ts + gap)``; intersecting (or touching) windows merge."""

    is_event_time = True

    def __init__(self, gap: int):
        name = type(self).__name__
        self.gap = _check_int("gap", gap, name)
        if self.gap <= 0:
            raise ValueError(f"{name}: gap must be > 0, got {self.gap}")

    @classmethod
    def with_gap(cls, gap: int):
        return cls(gap)

    @classmethod
    def with_dynamic_gap(cls, gap_fn: Callable[[Any], int]) -> "MergingWindowAssigner":
        """Flink's ``withDynamicGap(extractor)``: sessions whose gap each element gives
        (``DynamicEventTimeSessionWindows``, or the processing-time one on
        ``ProcessingTimeSessionWindows``); a gap <= 0 is an error when the element comes."""
        if cls.is_event_time:
            return DynamicEventTimeSessionWindows(gap_fn)
        return DynamicProcessingTimeSessionWindows(gap_fn)

    def assign_windows(self, element, timestamp, current_processing_time):
        return [TimeWindow(timestamp, window_end(timestamp, self.gap))]

    def default_trigger(self):
        return EventTimeTrigger()


class ProcessingTimeSessionWindows(EventTimeSessionWindows):
    """Sessions over processing time: ``[now, now + gap)``."""

    is_event_time = False

    def assign_windows(self, element, timestamp, current_processing_time):
        return [TimeWindow(current_processing_time, window_end(current_processing_time, self.gap))]

    def default_trigger(self):
        return ProcessingTimeTrigger()


class DynamicEventTimeSessionWindows(MergingWindowAssigner):
    """Sessions whose gap comes from each element: ``[ts, ts + gap_fn(element))``; gap must be > 0."""

    is_event_time = True

    def __init__(self, gap_fn: Callable[[Any], int]):
        if not callable(gap_fn):
            raise ValueError(f"{type(self).__name__}: gap_fn must be callable, got {gap_fn!r}")
        self.gap_fn = gap_fn

    @classmethod
    def with_dynamic_gap(cls, gap_fn):
        return cls(gap_fn)

    def _gap(self, element) -> int:
        gap = self.gap_fn(element)
        if gap is None or gap <= 0:
            raise ValueError(f"Dynamic session time gap must satisfy 0 < gap, got {gap!r}")
        return gap

    def assign_windows(self, element, timestamp, current_processing_time):
        return [TimeWindow(timestamp, window_end(timestamp, self._gap(element)))]

    def default_trigger(self):
        return EventTimeTrigger()


class DynamicProcessingTimeSessionWindows(DynamicEventTimeSessionWindows):
    """Processing-time sessions with a per-element gap."""

    is_event_time = False

    def assign_windows(self, element, timestamp, current_processing_time):
        return [TimeWindow(current_processing_time, window_end(current_processing_time, self._gap(element)))]

    def default_trigger(self):
        return ProcessingTimeTrigger()


class GlobalWindows(WindowAssigner):
    """One window per key for all time. Default trigger: never fires (``NeverTrigger``);
    ``GlobalWindows(end_of_stream=True)`` (Flink's ``createWithEndOfStreamTrigger()``) fires
    once at the end of input. Not an event-time assigner: nothing is ever late, no cleanup.
    """

    is_event_time = False

    def __init__(self, end_of_stream: bool = False):
        self.end_of_stream = bool(end_of_stream)

    @classmethod
    def create(cls):
        return cls()

    @classmethod
    def create_with_end_of_stream_trigger(cls):
        return cls(end_of_stream=True)

    def assign_windows(self, element, timestamp, current_processing_time):
        return [GlobalWindow()]

    def default_trigger(self):
        return EndOfStreamTrigger() if self.end_of_stream else NeverTrigger()


def java_abs(x: int) -> int:
    """Java's ``Math.abs(long)``: ``Math.abs(Long.MIN_VALUE)`` overflows and stays Long.MIN_VALUE."""
    return x if x == MIN_TIMESTAMP else abs(x)


def _java_rem(a: int, b: int) -> int:
    """Java's ``a % b`` (sign of the dividend)."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r
