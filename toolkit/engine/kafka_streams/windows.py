"""Kafka Streams' window specifications: ``TimeWindows``, ``SlidingWindows``, ``SessionWindows``.

Config objects only (validated like Kafka's constructors; the error names the argument). Times
are integer milliseconds. Kafka Streams has no negative timestamps, so no window starts before 0.

- ``TimeWindows``: ``[start, start + size)``, end **exclusive**; tumbling when ``advance == size``,
  hopping otherwise. ``windows_for(t)`` is Kafka's ``TimeWindows.windowsFor``: starts from
  ``(max(0, t - size + advance) // advance) * advance`` while ``start <= t``.
  Default store retention: ``size + grace``.
- ``SlidingWindows``: windows of ``time_difference`` defined by the records themselves,
  ``[start, start + time_difference]`` with **both ends inclusive**.
  Default store retention: ``2 * time_difference + grace``.
- ``SessionWindows``: ``[first, last]`` record time of a key's session (inclusive), records
  closer than ``inactivity_gap`` (``<=``) join one session. Default retention ``gap + grace``.
- ``UnlimitedWindows``: one window ``[start, Long.MAX_VALUE)`` per key (``UnlimitedWindows.of()
  .startOn(start)``): every record at or after ``start``; no grace, it never closes.
"""
from __future__ import annotations

from dataclasses import dataclass

from toolkit.errors import UserError

#: Kafka's ``Windows.NO_GRACE_PERIOD``
NO_GRACE_PERIOD = 0


def _ms(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int,)) and not hasattr(value, "__index__"):
        raise UserError(f"{name} must be an integer number of milliseconds, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class TimeWindows:
    """Tumbling or hopping windows (``TimeWindows.ofSizeAndGrace(size, grace).advanceBy(advance)``)."""

    size: int
    advance: int
    grace: int = NO_GRACE_PERIOD
    retention: int | None = None

    def __post_init__(self) -> None:
        size, adv, grace = _ms("size", self.size), _ms("advance", self.advance), _ms("grace", self.grace)
        if size <= 0:
            raise UserError(f"window size must be larger than zero, got size={size} ms")
        if adv <= 0 or adv > size:
            raise UserError("window advance must be more than zero and no larger than the window size "
                            f"({size} ms), got advance={adv} ms")
        if grace < 0:
            raise UserError(f"grace must not be negative, got grace={grace} ms")
        if self.retention is not None and _ms("retention", self.retention) < size + grace:
            raise UserError(f"retention must be no smaller than size + grace ({size + grace} ms), "
                            f"got retention={self.retention} ms")

    @classmethod
    def of_size_and_grace(cls, size: int, grace: int) -> "TimeWindows":
        """``TimeWindows.ofSizeAndGrace``: tumbling windows of ``size`` with ``grace``."""
        return cls(size, size, grace)

    @classmethod
    def of_size_with_no_grace(cls, size: int) -> "TimeWindows":
        """``TimeWindows.ofSizeWithNoGrace``: grace 0."""
        return cls(size, size, NO_GRACE_PERIOD)

    def advance_by(self, advance: int) -> "TimeWindows":
        """``advanceBy``: hopping windows (same size and grace)."""
        return TimeWindows(self.size, advance, self.grace, self.retention)

    def with_retention(self, retention: int) -> "TimeWindows":
        """``Materialized.withRetention``: how long the window store keeps windows."""
        return TimeWindows(self.size, self.advance, self.grace, retention)

    @property
    def retention_ms(self) -> int:
        return self.size + self.grace if self.retention is None else int(self.retention)

    def first_start(self, timestamp: int) -> int:
        """The smallest window start ``windows_for(timestamp)`` returns."""
        return (max(0, timestamp - self.size + self.advance) // self.advance) * self.advance

    def windows_for(self, timestamp: int) -> list[tuple[int, int]]:
        """Kafka's ``TimeWindows.windowsFor``: the ``(start, end)`` windows holding ``timestamp``."""
        start = self.first_start(timestamp)
        out = []
        while start <= timestamp:
            out.append((start, start + self.size))
            start += self.advance
        return out

    def deployable(self) -> str:
        """The Java that configures these windows."""
        base = (f"TimeWindows.ofSizeWithNoGrace(Duration.ofMillis({self.size}))" if self.grace == 0 else
                f"TimeWindows.ofSizeAndGrace(Duration.ofMillis({self.size}), Duration.ofMillis({self.grace}))")
        return base if self.advance == self.size else base + f".advanceBy(Duration.ofMillis({self.advance}))"


@dataclass(frozen=True)
class SlidingWindows:
    """``SlidingWindows.ofTimeDifferenceAndGrace(timeDifference, grace)``."""

    time_difference: int
    grace: int = NO_GRACE_PERIOD
    retention: int | None = None

    def __post_init__(self) -> None:
        td, grace = _ms("time_difference", self.time_difference), _ms("grace", self.grace)
        # Kafka accepts 0 here, but a window [t, t] then fails TimeWindow's start != end check
        # on the first record: refuse it up front.
        if td <= 0:
            raise UserError(f"time_difference must be larger than zero, got time_difference={td} ms")
        if grace < 0:
            raise UserError(f"grace must not be negative, got grace={grace} ms")
        if self.retention is not None and _ms("retention", self.retention) < 2 * td + grace:
            raise UserError(f"retention must be no smaller than 2 * time_difference + grace ({2 * td + grace} ms), "
                            f"got retention={self.retention} ms")

    @classmethod
    def of_time_difference_and_grace(cls, time_difference: int, grace: int) -> "SlidingWindows":
        return cls(time_difference, grace)

    @classmethod
    def of_time_difference_with_no_grace(cls, time_difference: int) -> "SlidingWindows":
        return cls(time_difference, NO_GRACE_PERIOD)

    def with_retention(self, retention: int) -> "SlidingWindows":
        return SlidingWindows(self.time_difference, self.grace, retention)

    @property
    def retention_ms(self) -> int:
        return 2 * self.time_difference + self.grace if self.retention is None else int(self.retention)

    def deployable(self) -> str:
        if self.grace == 0:
            return f"SlidingWindows.ofTimeDifferenceWithNoGrace(Duration.ofMillis({self.time_difference}))"
        return (f"SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis({self.time_difference}), "
                f"Duration.ofMillis({self.grace}))")


@dataclass(frozen=True)
class SessionWindows:
    """``SessionWindows.ofInactivityGapAndGrace(gap, grace)``."""

    inactivity_gap: int
    grace: int = NO_GRACE_PERIOD
    retention: int | None = None

    def __post_init__(self) -> None:
        gap, grace = _ms("inactivity_gap", self.inactivity_gap), _ms("grace", self.grace)
        if gap <= 0:
            raise UserError(f"inactivity_gap must be larger than zero, got inactivity_gap={gap} ms")
        if grace < 0:
            raise UserError(f"grace must not be negative, got grace={grace} ms")
        if self.retention is not None and _ms("retention", self.retention) < gap + grace:
            raise UserError(f"retention must be no smaller than inactivity_gap + grace ({gap + grace} ms), "
                            f"got retention={self.retention} ms")

    @classmethod
    def of_inactivity_gap_and_grace(cls, gap: int, grace: int) -> "SessionWindows":
        return cls(gap, grace)

    @classmethod
    def of_inactivity_gap_with_no_grace(cls, gap: int) -> "SessionWindows":
        return cls(gap, NO_GRACE_PERIOD)

    def with_retention(self, retention: int) -> "SessionWindows":
        return SessionWindows(self.inactivity_gap, self.grace, retention)

    @property
    def retention_ms(self) -> int:
        return self.inactivity_gap + self.grace if self.retention is None else int(self.retention)

    def deployable(self) -> str:
        if self.grace == 0:
            return f"SessionWindows.ofInactivityGapWithNoGrace(Duration.ofMillis({self.inactivity_gap}))"
        return (f"SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis({self.inactivity_gap}), "
                f"Duration.ofMillis({self.grace}))")


KafkaWindows = TimeWindows | SlidingWindows | SessionWindows


#: Java's ``Long.MAX_VALUE``: the end of an unlimited window
LONG_MAX = 2**63 - 1


@dataclass(frozen=True)
class UnlimitedWindows:
    """``UnlimitedWindows.of().startOn(start)``: one window from ``start`` to the end of time. Its
    grace is 0 and its end never comes, so nothing is ever late or closed; Kafka refuses it with
    ``EmitStrategy.onWindowClose()``."""

    start: int = 0
    grace: int = NO_GRACE_PERIOD
    retention: int | None = None

    def __post_init__(self) -> None:
        if _ms("start", self.start) < 0:
            raise UserError(f"startOn must not be negative, got start={self.start} ms")
        if self.grace:
            raise UserError("UnlimitedWindows have no grace period (they never close)")
        if self.retention is not None:
            raise UserError("UnlimitedWindows keep their window for ever: a retention does not apply")

    @property
    def retention_ms(self) -> int:
        return LONG_MAX

    def windows_for(self, timestamp: int) -> list[tuple[int, int]]:
        """Kafka's ``UnlimitedWindows.windowsFor``: the one window, if ``timestamp >= start``."""
        return [(self.start, LONG_MAX)] if timestamp >= self.start else []

    def deployable(self) -> str:
        return "UnlimitedWindows.of()" + (f".startOn(Instant.ofEpochMilli({self.start}))" if self.start else "")
