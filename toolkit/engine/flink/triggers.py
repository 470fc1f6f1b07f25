"""Triggers with Flink's contract.

A trigger decides, per (key, window), when the window function runs. Its callbacks return a
``TriggerResult``: ``CONTINUE``, ``FIRE`` (emit the window contents), ``PURGE`` (drop them) or
``FIRE_AND_PURGE``. It keeps per-window state and timers only through the context it is given:

- ``ctx.current_watermark``, ``ctx.current_processing_time``, ``ctx.key``
- ``ctx.register_event_time_timer(t)`` / ``ctx.delete_event_time_timer(t)`` (and the
  processing-time pair); one timer per (timestamp, key, window), registering twice is a no-op
- ``ctx.get_state(name, default=None)``, ``ctx.set_state(name, value)``, ``ctx.clear_state(name)``
- in ``on_merge`` only: ``ctx.merge_state(name, fn)`` folds the merged windows' state into the
  new window with ``fn(a, b)``

Write your own by subclassing ``Trigger``; set ``can_merge = True`` (and implement
``on_merge``) to use it with session windows.
"""
from __future__ import annotations

import enum
from typing import Any, Callable

from .windows import MAX_TIMESTAMP, wrap_long


class TriggerResult(enum.IntEnum):
    """Bit 1 = fire, bit 2 = purge (so ``result & FIRE`` tests firing)."""

    CONTINUE = 0
    FIRE = 1
    PURGE = 2
    FIRE_AND_PURGE = 3

    @property
    def is_fire(self) -> bool:
        return bool(self & 1)

    @property
    def is_purge(self) -> bool:
        return bool(self & 2)


CONTINUE = TriggerResult.CONTINUE
FIRE = TriggerResult.FIRE
PURGE = TriggerResult.PURGE
FIRE_AND_PURGE = TriggerResult.FIRE_AND_PURGE


def _java_rem(a: int, b: int) -> int:
    r = abs(a) % abs(b)
    return -r if a < 0 else r


class Trigger:
    """Base class: every callback returns ``CONTINUE``; ``can_merge`` is False."""

    can_merge: bool = False
    #: the windows it is typed for in Flink: "time" (TimeWindow), "global" or None (any)
    window_type: str | None = None
    window_type_reason: str = "Flink fails with a ClassCastException"

    def on_element(self, element: Any, timestamp: int, window, ctx) -> TriggerResult:
        return CONTINUE

    def on_event_time(self, time: int, window, ctx) -> TriggerResult:
        return CONTINUE

    def on_processing_time(self, time: int, window, ctx) -> TriggerResult:
        return CONTINUE

    def on_merge(self, window, ctx) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not support merging")

    def clear(self, window, ctx) -> None:
        pass

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


class EventTimeTrigger(Trigger):
    """Fires when the watermark passes ``window.max_timestamp()``.

    on_element: FIRE at once if ``max_timestamp <= watermark`` (a late firing), else register an
    event-time timer at ``max_timestamp``. on_event_time: FIRE iff ``time == max_timestamp``.
    on_merge: register the timer only if ``max_timestamp > watermark``.
    """

    can_merge = True
    window_type = "time"

    @classmethod
    def create(cls):
        return cls()

    def on_element(self, element, timestamp, window, ctx):
        mt = window.max_timestamp()
        if mt <= ctx.current_watermark:
            return FIRE
        ctx.register_event_time_timer(mt)
        return CONTINUE

    def on_event_time(self, time, window, ctx):
        return FIRE if time == window.max_timestamp() else CONTINUE

    def on_merge(self, window, ctx):
        mt = window.max_timestamp()
        if mt > ctx.current_watermark:
            ctx.register_event_time_timer(mt)

    def clear(self, window, ctx):
        ctx.delete_event_time_timer(window.max_timestamp())


class ProcessingTimeTrigger(Trigger):
    """Fires when processing time reaches ``window.max_timestamp()`` (a processing-time timer)."""

    can_merge = True
    window_type = "time"

    @classmethod
    def create(cls):
        return cls()

    def on_element(self, element, timestamp, window, ctx):
        ctx.register_processing_time_timer(window.max_timestamp())
        return CONTINUE

    def on_processing_time(self, time, window, ctx):
        return FIRE

    def on_merge(self, window, ctx):
        mt = window.max_timestamp()
        if mt > ctx.current_processing_time:
            ctx.register_processing_time_timer(mt)

    def clear(self, window, ctx):
        ctx.delete_processing_time_timer(window.max_timestamp())


class CountTrigger(Trigger):
    """Fires (and resets its count) every ``count`` elements; merging sums the counts.
    Leftover elements (fewer than ``count``) never fire: the cleanup timer drops them.
    Flink's ``CountTrigger.of`` takes any long: a count of 0 or less fires on every element
    (``count >= maxCount``; checked with the oracle)."""

    can_merge = True

    def __init__(self, count: int):
        if isinstance(count, bool) or not isinstance(count, int):
            raise ValueError(f"CountTrigger: count must be an integer, got {count!r}")
        self.count = count

    @classmethod
    def of(cls, count: int):
        return cls(count)

    def on_element(self, element, timestamp, window, ctx):
        n = ctx.get_state("count", 0) + 1
        if n >= self.count:
            ctx.clear_state("count")
            return FIRE
        ctx.set_state("count", n)
        return CONTINUE

    def on_merge(self, window, ctx):
        ctx.merge_state("count", lambda a, b: a + b)

    def clear(self, window, ctx):
        ctx.clear_state("count")


class ContinuousEventTimeTrigger(Trigger):
    """Fires every ``interval`` of event time and at the window's end (Flink's rule).

    on_element: FIRE at once if ``max_timestamp <= watermark``; else a timer at
    ``max_timestamp`` and, if no fire time is pending, one at
    ``min(ts - ts % interval + interval, max_timestamp)`` (Java's truncating ``%``).
    on_event_time: FIRE at ``max_timestamp``; at the pending fire time, FIRE and schedule
    ``min(time + interval, max_timestamp)`` (Java ``long``: the sum may wrap).

    On ``GlobalWindows`` (allowed, as in Flink) ``max_timestamp`` is ``Long.MAX_VALUE``: the
    trigger fires every interval up to the current watermark (fixtures ``gcet*``). The
    ``Long.MAX_VALUE`` watermark (end of input) makes real Flink fire every interval up to
    ``Long.MAX_VALUE``: it finishes only when the grid lands on it exactly (fixtures
    ``gcet_end*``) and never when ``time + interval`` wraps past it. The engine runs the
    first case when it takes at most ``END_OF_INPUT_FIRING_LIMIT`` firings and otherwise
    stops with a ``ValueError`` that says so (:func:`global_end_of_input_firings`).
    """

    can_merge = True
    window_type = None
    #: most firings per window the Long.MAX watermark may cause before the engine refuses
    END_OF_INPUT_FIRING_LIMIT = 100_000

    def __init__(self, interval: int):
        if isinstance(interval, bool) or not isinstance(interval, int) or interval <= 0:
            raise ValueError(f"ContinuousEventTimeTrigger: interval must be > 0, got {interval!r}")
        self.interval = interval

    @classmethod
    def of(cls, interval: int):
        return cls(interval)

    def _register_next(self, time, window, ctx):
        nxt = min(wrap_long(time + self.interval), window.max_timestamp())  # Java long: the sum may wrap
        prev = ctx.get_state("fire_time")
        ctx.set_state("fire_time", nxt if prev is None else min(prev, nxt))
        ctx.register_event_time_timer(nxt)

    def on_element(self, element, timestamp, window, ctx):
        mt = window.max_timestamp()
        if mt <= ctx.current_watermark:
            return FIRE
        ctx.register_event_time_timer(mt)
        if ctx.get_state("fire_time") is None:
            self._register_next(timestamp - _java_rem(timestamp, self.interval), window, ctx)
        return CONTINUE

    def on_event_time(self, time, window, ctx):
        if time == window.max_timestamp():
            return FIRE
        ft = ctx.get_state("fire_time")
        if ft is not None and ft == time:
            ctx.clear_state("fire_time")
            if ctx.current_watermark == MAX_TIMESTAMP and window.max_timestamp() == MAX_TIMESTAMP:
                n = global_end_of_input_firings(time, self.interval)
                if n is None or n > self.END_OF_INPUT_FIRING_LIMIT:
                    raise ValueError(
                        f"ContinuousEventTimeTrigger(interval={self.interval}) on GlobalWindows at the end of input: "
                        "the Long.MAX_VALUE watermark makes Flink fire every interval up to Long.MAX_VALUE, "
                        + ("and the fire times wrap past it, so real Flink never finishes"
                           if n is None else f"{n:,} more firings per window")
                        + "; end the input without the final watermark (scenario option final_watermark: false), "
                        "or use a count, purging or end-of-stream trigger on global windows")
            self._register_next(time, window, ctx)
            return FIRE
        return CONTINUE

    def on_merge(self, window, ctx):
        ctx.merge_state("fire_time", min)
        ft = ctx.get_state("fire_time")
        if ft is not None:
            ctx.register_event_time_timer(ft)

    def clear(self, window, ctx):
        ft = ctx.get_state("fire_time")
        if ft is not None:
            ctx.delete_event_time_timer(ft)
            ctx.clear_state("fire_time")


def global_end_of_input_firings(time: int, interval: int) -> int | None:
    """Firings a ``ContinuousEventTimeTrigger`` on a global window still makes after firing at
    ``time`` under the ``Long.MAX_VALUE`` watermark: ``(MAX - time) / interval`` when the
    grid lands on ``Long.MAX_VALUE`` exactly (the last one fires the window's end and
    registers nothing), else ``None``: ``time + interval`` wraps negative in Java and the
    timers never stop (Flink's loop is endless)."""
    rest = MAX_TIMESTAMP - time
    return rest // interval if rest % interval == 0 else None


class ContinuousProcessingTimeTrigger(Trigger):
    """Fires every ``interval`` of processing time: on the first element a timer at
    ``min(now - now % interval + interval, max_timestamp)``, then every ``interval``
    (capped at ``max_timestamp``). A timer at ``max_timestamp`` FIREs and registers nothing
    more (Flink 2.x, FLINK-20443): on an event-time window whose end is already behind the
    processing time, the cap makes that the first timer, so the window fires once and no
    timer is re-registered at the same time over and over (which hung the replay)."""

    can_merge = True

    def __init__(self, interval: int):
        if isinstance(interval, bool) or not isinstance(interval, int) or interval <= 0:
            raise ValueError(f"ContinuousProcessingTimeTrigger: interval must be > 0, got {interval!r}")
        self.interval = interval

    @classmethod
    def of(cls, interval: int):
        return cls(interval)

    def _register_next(self, time, window, ctx):
        nxt = min(wrap_long(time + self.interval), window.max_timestamp())  # Java long: the sum may wrap
        prev = ctx.get_state("fire_time")
        ctx.set_state("fire_time", nxt if prev is None else min(prev, nxt))
        ctx.register_processing_time_timer(nxt)

    def on_element(self, element, timestamp, window, ctx):
        now = ctx.current_processing_time
        if ctx.get_state("fire_time") is None:
            self._register_next(now - _java_rem(now, self.interval), window, ctx)
        return CONTINUE

    def on_processing_time(self, time, window, ctx):
        if time == window.max_timestamp():
            return FIRE
        ft = ctx.get_state("fire_time")
        if ft is not None and ft == time:
            ctx.clear_state("fire_time")
            self._register_next(time, window, ctx)
            return FIRE
        return CONTINUE

    def on_merge(self, window, ctx):
        ctx.merge_state("fire_time", min)
        ft = ctx.get_state("fire_time")
        if ft is not None:
            ctx.register_processing_time_timer(ft)

    def clear(self, window, ctx):
        ft = ctx.get_state("fire_time")
        if ft is not None:
            ctx.delete_processing_time_timer(ft)
            ctx.clear_state("fire_time")


class DeltaTrigger(Trigger):
    """Fires when ``delta_fn(last_fired_element, element) > threshold``; the first element only
    becomes the reference. Cannot merge (as in Flink)."""

    def __init__(self, threshold: float, delta_fn: Callable[[Any, Any], float]):
        if not callable(delta_fn):
            raise ValueError(f"DeltaTrigger: delta_fn must be callable, got {delta_fn!r}")
        self.threshold = threshold
        self.delta_fn = delta_fn

    @classmethod
    def of(cls, threshold, delta_fn):
        return cls(threshold, delta_fn)

    def on_element(self, element, timestamp, window, ctx):
        last = ctx.get_state("last")
        if last is None:
            ctx.set_state("last", (element,))
            return CONTINUE
        if self.delta_fn(last[0], element) > self.threshold:
            ctx.set_state("last", (element,))
            return FIRE
        return CONTINUE

    def clear(self, window, ctx):
        ctx.clear_state("last")


class PurgingTrigger(Trigger):
    """Wraps a trigger and turns each of its FIREs into FIRE_AND_PURGE."""

    def __init__(self, inner: Trigger):
        if not isinstance(inner, Trigger):
            raise ValueError(f"PurgingTrigger: inner must be a Trigger, got {inner!r}")
        self.inner = inner
        self.can_merge = inner.can_merge
        self.window_type = inner.window_type
        self.window_type_reason = inner.window_type_reason

    @classmethod
    def of(cls, inner: Trigger):
        return cls(inner)

    def on_element(self, element, timestamp, window, ctx):
        r = self.inner.on_element(element, timestamp, window, ctx)
        return FIRE_AND_PURGE if r & 1 else r

    def on_event_time(self, time, window, ctx):
        r = self.inner.on_event_time(time, window, ctx)
        return FIRE_AND_PURGE if r & 1 else r

    def on_processing_time(self, time, window, ctx):
        r = self.inner.on_processing_time(time, window, ctx)
        return FIRE_AND_PURGE if r & 1 else r

    def on_merge(self, window, ctx):
        self.inner.on_merge(window, ctx)

    def clear(self, window, ctx):
        self.inner.clear(window, ctx)


class NeverTrigger(Trigger):
    """Never fires (``GlobalWindows``' default trigger). Cannot merge (as in Flink)."""

    window_type = "global"


class EndOfStreamTrigger(Trigger):
    """Fires once, at the end of input (an event-time timer at ``MAX_TIMESTAMP``).
    Cannot merge (as in Flink)."""

    window_type = "global"

    def on_element(self, element, timestamp, window, ctx):
        ctx.register_event_time_timer(window.max_timestamp())
        return CONTINUE

    def on_event_time(self, time, window, ctx):
        return FIRE if time == window.max_timestamp() else CONTINUE

    def clear(self, window, ctx):
        ctx.delete_event_time_timer(window.max_timestamp())


# ----------------------------------------------------------------- Beam-style AfterWatermark


class EarlyLateFiring:
    """A sub-trigger of ``AfterWatermark``: every ``count`` elements, or ``delay`` ms of
    processing time after the first element of the pane (Beam's
    ``AfterProcessingTime.pastFirstElementInPane().plusDelayOf(delay)``)."""

    def __init__(self, *, count: int | None = None, delay: int | None = None):
        if (count is None) == (delay is None):
            raise ValueError("give exactly one of count= or delay= for an early/late firing")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count <= 0):
            raise ValueError(f"firing count must be a positive integer, got {count!r}")
        if delay is not None and (isinstance(delay, bool) or not isinstance(delay, int) or delay <= 0):
            raise ValueError(f"firing delay must be a positive number of ms, got {delay!r}")
        self.count = count
        self.delay = delay

    def __repr__(self) -> str:
        return f"EarlyLateFiring(count={self.count})" if self.count else f"EarlyLateFiring(delay={self.delay})"


def after_count(n: int) -> EarlyLateFiring:
    return EarlyLateFiring(count=n)


def after_processing_time(delay: int) -> EarlyLateFiring:
    return EarlyLateFiring(delay=delay)


class AfterWatermark(Trigger):
    """Beam's ``AfterWatermark.pastEndOfWindow()`` with optional early and late firings.

    - Before the watermark passes ``max_timestamp`` (early phase): ``early`` fires every
      ``count`` elements or ``delay`` ms (processing time) after the first element of a pane.
    - The on-time pane fires when the watermark reaches ``max_timestamp`` (event-time timer).
    - After that (late phase, only with allowed lateness > 0): ``late`` fires every ``count``
      late elements or ``delay`` ms after the first late element; with no ``late`` given,
      every late element fires at once (Flink's ``EventTimeTrigger`` behaviour).
    Whether a pane repeats earlier elements is the operator's accumulation mode. A firing
    finds nothing to emit when the window holds no elements (e.g. the on-time pane right
    after an early pane in discarding mode): as in Flink, no result is emitted then, where
    Beam's default would emit an empty pane.
    """

    can_merge = True

    def __init__(self, early: EarlyLateFiring | None = None, late: EarlyLateFiring | None = None):
        for name, sub in (("early", early), ("late", late)):
            if sub is not None and not isinstance(sub, EarlyLateFiring):
                raise ValueError(f"AfterWatermark: {name} must be after_count(n) or after_processing_time(ms), got {sub!r}")
        self.early = early
        self.late = late

    @classmethod
    def past_end_of_window(cls):
        return cls()

    def with_early_firings(self, early: EarlyLateFiring) -> "AfterWatermark":
        return AfterWatermark(early, self.late)

    def with_late_firings(self, late: EarlyLateFiring) -> "AfterWatermark":
        return AfterWatermark(self.early, late)

    def _sub_element(self, sub: EarlyLateFiring | None, ctx) -> TriggerResult:
        if sub is None:
            return FIRE
        if sub.count is not None:
            n = ctx.get_state("n", 0) + 1
            if n >= sub.count:
                ctx.clear_state("n")
                return FIRE
            ctx.set_state("n", n)
            return CONTINUE
        if ctx.get_state("pt") is None:
            t = ctx.current_processing_time + sub.delay
            ctx.set_state("pt", t)
            ctx.register_processing_time_timer(t)
        return CONTINUE

    def _reset_sub(self, ctx):
        ctx.clear_state("n")
        pt = ctx.get_state("pt")
        if pt is not None:
            ctx.delete_processing_time_timer(pt)
            ctx.clear_state("pt")

    def on_element(self, element, timestamp, window, ctx):
        mt = window.max_timestamp()
        if mt > ctx.current_watermark:
            ctx.register_event_time_timer(mt)
            if self.early is None:
                return CONTINUE
            return self._sub_element(self.early, ctx)
        return self._sub_element(self.late, ctx)

    def on_event_time(self, time, window, ctx):
        if time == window.max_timestamp():
            self._reset_sub(ctx)
            return FIRE
        return CONTINUE

    def on_processing_time(self, time, window, ctx):
        pt = ctx.get_state("pt")
        if pt is not None and pt == time:
            ctx.clear_state("pt")
            ctx.clear_state("n")
            return FIRE
        return CONTINUE

    def on_merge(self, window, ctx):
        ctx.merge_state("n", lambda a, b: a + b)
        ctx.merge_state("pt", min)
        mt = window.max_timestamp()
        if mt > ctx.current_watermark:
            ctx.register_event_time_timer(mt)
        pt = ctx.get_state("pt")
        if pt is not None:
            ctx.register_processing_time_timer(pt)

    def clear(self, window, ctx):
        ctx.delete_event_time_timer(window.max_timestamp())
        self._reset_sub(ctx)


_BY_NAME = {
    "event_time": EventTimeTrigger,
    "processing_time": ProcessingTimeTrigger,
    "never": NeverTrigger,
    "end_of_stream": EndOfStreamTrigger,
}


def trigger_from_name(name: str) -> Trigger:
    """``"event_time"``, ``"processing_time"``, ``"never"``, ``"end_of_stream"`` -> a trigger."""
    try:
        return _BY_NAME[name]()
    except KeyError:
        raise ValueError(f"unknown trigger {name!r}; known: {', '.join(sorted(_BY_NAME))}") from None


__all__ = [
    "TriggerResult", "Trigger", "EventTimeTrigger", "ProcessingTimeTrigger", "CountTrigger",
    "ContinuousEventTimeTrigger", "ContinuousProcessingTimeTrigger", "DeltaTrigger", "PurgingTrigger",
    "NeverTrigger", "EndOfStreamTrigger", "AfterWatermark", "EarlyLateFiring", "after_count",
    "after_processing_time", "trigger_from_name", "MAX_TIMESTAMP",
]
