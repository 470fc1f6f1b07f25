"""Beam triggers as state machines over a window's trigger state (rules of Beam's
``trigger.py``; the Java SDK's ``TriggerStateMachine``s follow the same contract).

Contract, per window: ``on_element`` (state, timers), ``on_merge``, ``should_fire(domain,
time)`` where ``time`` is the input watermark on an element, or the *timer's timestamp* when
a timer fires (for a processing-time timer that is a processing time: Beam's Python SDK
compares it with the window end like a watermark), ``on_fire`` returns True when the trigger
is finished (the window then takes no more data), ``reset`` clears its state,
``has_ontime_pane`` whether it produces an on-time pane (keeps the watermark hold).

- DefaultTrigger: fires whenever time >= window end (each late element refires); never finishes.
- AfterWatermark(early, late): before the end, ``Repeatedly(early)``; at time >= end fires
  once and finishes unless ``late`` is given; afterwards ``Repeatedly(late)``.
- AfterCount(n): fires when n elements have arrived in the pane (since the last reset); finishes.
- AfterProcessingTime(delay): the first element sets a processing-time timer at
  now + delay; fires on that timer; finishes.
- Repeatedly(t): fires when t fires and resets t; never finishes.
- AfterAny / AfterAll: fire when any / all children would fire (asked in order, stopping at
  the first that decides); finish when any / all children that fired finished.
  OrFinally(main, final) is AfterAny(main, final).
- AfterEach(t1, t2, ...): runs t1 until it finishes, then t2, ...; finishes after the last.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .failures import FRACTIONAL_DELAY, PipelineFailure
from .state import COMBINING, REAL_TIME, SET, WATERMARK, StateTag, TriggerContext, any_of, count_of, max_or_zero


class Trigger:
    def on_element(self, window, ctx: TriggerContext) -> None: ...
    def on_merge(self, to_be_merged, result, ctx: TriggerContext) -> None: ...
    def should_fire(self, domain: str, time: int, window, ctx: TriggerContext) -> bool: ...
    def on_fire(self, time: int, window, ctx: TriggerContext) -> bool: ...
    def reset(self, window, ctx: TriggerContext) -> None: ...
    def has_ontime_pane(self) -> bool: ...


@dataclass(frozen=True)
class DefaultTrigger(Trigger):
    def on_element(self, window, ctx):
        ctx.set_timer(str(window), WATERMARK, window.end)

    def on_merge(self, to_be_merged, result, ctx):
        for w in to_be_merged:
            ctx.clear_timer(str(w), WATERMARK)

    def should_fire(self, domain, time, window, ctx):
        if time >= window.end:
            ctx.clear_timer(str(window), WATERMARK)  # late elements are not fired twice
            return True
        return False

    def on_fire(self, time, window, ctx):
        return False

    def reset(self, window, ctx):
        ctx.clear_timer(str(window), WATERMARK)

    def has_ontime_pane(self):
        return True


@dataclass(frozen=True)
class AfterProcessingTime(Trigger):
    delay: int
    HAS_TIMER = StateTag("has_timer", SET)

    def on_element(self, window, ctx):
        if not ctx.get(self.HAS_TIMER):
            ctx.set_timer("", REAL_TIME, ctx.current_time() + self.delay)
        ctx.add(self.HAS_TIMER, True)

    def on_merge(self, to_be_merged, result, ctx):
        pass  # timers are kept through merging

    def should_fire(self, domain, time, window, ctx):
        return domain == REAL_TIME

    def on_fire(self, time, window, ctx):
        return True

    def reset(self, window, ctx):
        ctx.clear(self.HAS_TIMER)

    def has_ontime_pane(self):
        return False


@dataclass(frozen=True)
class AfterCount(Trigger):
    count: int
    COUNT = StateTag("count", COMBINING, count_of)

    def __post_init__(self):
        if not isinstance(self.count, int) or self.count < 1:
            raise ValueError(f"after_count n must be a positive integer, got {self.count!r}")

    def on_element(self, window, ctx):
        ctx.add(self.COUNT, 1)

    def on_merge(self, to_be_merged, result, ctx):
        pass  # counts of merged windows add up

    def should_fire(self, domain, time, window, ctx):
        return ctx.get(self.COUNT) >= self.count

    def on_fire(self, time, window, ctx):
        return True

    def reset(self, window, ctx):
        ctx.clear(self.COUNT)

    def has_ontime_pane(self):
        return False


@dataclass(frozen=True)
class Repeatedly(Trigger):
    underlying: Trigger

    def on_element(self, window, ctx):
        self.underlying.on_element(window, ctx)

    def on_merge(self, to_be_merged, result, ctx):
        self.underlying.on_merge(to_be_merged, result, ctx)

    def should_fire(self, domain, time, window, ctx):
        return self.underlying.should_fire(domain, time, window, ctx)

    def on_fire(self, time, window, ctx):
        if self.underlying.on_fire(time, window, ctx):
            self.underlying.reset(window, ctx)
        return False

    def reset(self, window, ctx):
        self.underlying.reset(window, ctx)

    def has_ontime_pane(self):
        return self.underlying.has_ontime_pane()


@dataclass(frozen=True)
class AfterWatermark(Trigger):
    early: Trigger | None = None
    late: Trigger | None = None
    IS_LATE = StateTag("is_late", COMBINING, any_of)

    def __post_init__(self):
        for name in ("early", "late"):
            t = getattr(self, name)
            if t is not None and not isinstance(t, Repeatedly):
                object.__setattr__(self, name, Repeatedly(t))

    def _is_late(self, ctx) -> bool:
        return bool(self.late) and bool(ctx.get(self.IS_LATE))

    def on_element(self, window, ctx):
        if self._is_late(ctx):
            self.late.on_element(window, ctx.nested("late"))
        else:
            ctx.set_timer("", WATERMARK, window.end)
            if self.early:
                self.early.on_element(window, ctx.nested("early"))

    def on_merge(self, to_be_merged, result, ctx):
        if self._is_late(ctx):
            self.late.on_merge(to_be_merged, result, ctx.nested("late"))
            return
        for w in to_be_merged:
            if w.end != result.end:
                ctx.clear_timer("", WATERMARK)
        if self.early:
            self.early.on_merge(to_be_merged, result, ctx.nested("early"))

    def should_fire(self, domain, time, window, ctx):
        if self._is_late(ctx):
            return self.late.should_fire(domain, time, window, ctx.nested("late"))
        if time >= window.end:
            ctx.clear_timer("", WATERMARK)
            return True
        if self.early:
            return self.early.should_fire(domain, time, window, ctx.nested("early"))
        return False

    def on_fire(self, time, window, ctx):
        if self._is_late(ctx):
            return self.late.on_fire(time, window, ctx.nested("late"))
        if time >= window.end:
            ctx.add(self.IS_LATE, True)
            return not self.late
        if self.early:
            self.early.on_fire(time, window, ctx.nested("early"))
        return False

    def reset(self, window, ctx):
        if self.late:
            ctx.clear(self.IS_LATE)
        if self.early:
            self.early.reset(window, ctx.nested("early"))
        if self.late:
            self.late.reset(window, ctx.nested("late"))

    def has_ontime_pane(self):
        return True


@dataclass(frozen=True)
class _Parallel(Trigger):
    triggers: tuple = field(default_factory=tuple)
    combine = staticmethod(any)

    @staticmethod
    def _sub(ctx, i):
        return ctx.nested(f"{i}/")

    def on_element(self, window, ctx):
        for i, t in enumerate(self.triggers):
            t.on_element(window, self._sub(ctx, i))

    def on_merge(self, to_be_merged, result, ctx):
        for i, t in enumerate(self.triggers):
            t.on_merge(to_be_merged, result, self._sub(ctx, i))

    def should_fire(self, domain, time, window, ctx):
        # children are asked in order and the asking stops at the first that settles it
        # (any: a True, all: a False), as Beam does; asking has effects (AfterWatermark and
        # the default trigger clear their timer), so a child not asked keeps its timer, which
        # later fires another pane
        return self.combine(t.should_fire(domain, time, window, self._sub(ctx, i))
                            for i, t in enumerate(self.triggers))

    def on_fire(self, time, window, ctx):
        # Beam asks the children again *as if a watermark* at ``time``: a child that fires
        # only on a processing-time timer is not told it fired
        finished = [t.on_fire(time, window, self._sub(ctx, i))
                    for i, t in enumerate(self.triggers)
                    if t.should_fire(WATERMARK, time, window, self._sub(ctx, i))]
        return self.combine(finished)

    def reset(self, window, ctx):
        for i, t in enumerate(self.triggers):
            t.reset(window, self._sub(ctx, i))

    def has_ontime_pane(self):
        return any(t.has_ontime_pane() for t in self.triggers)


@dataclass(frozen=True)
class AfterAny(_Parallel):
    combine = staticmethod(any)


@dataclass(frozen=True)
class AfterAll(_Parallel):
    combine = staticmethod(all)


@dataclass(frozen=True)
class OrFinally(AfterAny):
    """OrFinally(main, final): fires like main; finishes when final fires."""


@dataclass(frozen=True)
class AfterEach(Trigger):
    triggers: tuple = field(default_factory=tuple)
    INDEX = StateTag("index", COMBINING, max_or_zero)

    @staticmethod
    def _sub(ctx, i):
        return ctx.nested(f"{i}/")

    def on_element(self, window, ctx):
        i = ctx.get(self.INDEX)
        if i < len(self.triggers):
            self.triggers[i].on_element(window, self._sub(ctx, i))

    def on_merge(self, to_be_merged, result, ctx):
        i = ctx.get(self.INDEX)
        if i < len(self.triggers):
            self.triggers[i].on_merge(to_be_merged, result, self._sub(ctx, i))

    def should_fire(self, domain, time, window, ctx):
        i = ctx.get(self.INDEX)
        if i < len(self.triggers):
            return bool(self.triggers[i].should_fire(domain, time, window, self._sub(ctx, i)))
        return False

    def on_fire(self, time, window, ctx):
        i = ctx.get(self.INDEX)
        if i < len(self.triggers):
            if self.triggers[i].on_fire(time, window, self._sub(ctx, i)):
                i += 1
                ctx.add(self.INDEX, i)
            return i == len(self.triggers)
        return False

    def reset(self, window, ctx):
        ctx.clear(self.INDEX)
        for i, t in enumerate(self.triggers):
            t.reset(window, self._sub(ctx, i))

    def has_ontime_pane(self):
        return any(t.has_ontime_pane() for t in self.triggers)


def trigger_from_spec(spec: dict | None, *, ticks_per_ms: int = 1000) -> Trigger:
    """A trigger from the scenario's nested spec (README of oracles/beam)."""
    if spec is None:
        return DefaultTrigger()
    if not isinstance(spec, dict) or "type" not in spec:
        raise ValueError(f"trigger must be an object with a 'type', got {spec!r}")
    kind = spec["type"]
    sub = lambda s: trigger_from_spec(s, ticks_per_ms=ticks_per_ms)  # noqa: E731
    if kind == "default":
        return DefaultTrigger()
    if kind == "after_watermark":
        early, late = spec.get("early"), spec.get("late")
        return AfterWatermark(sub(early) if early else None, sub(late) if late else None)
    if kind == "after_count":
        return AfterCount(spec.get("n"))
    if kind == "after_processing_time":
        delay = spec.get("delay_ms")
        if not isinstance(delay, int) or delay < 0:
            raise ValueError(f"after_processing_time delay_ms must be a non-negative integer, got {delay!r}")
        if delay % 1000:  # the Python SDK's AfterProcessingTime takes seconds and its proto an integer
            raise PipelineFailure(FRACTIONAL_DELAY, f"after_processing_time delay_ms={delay} is not whole seconds")
        return AfterProcessingTime(delay * ticks_per_ms)
    if kind == "repeatedly":
        return Repeatedly(sub(spec.get("trigger")))
    if kind in ("after_any", "after_all", "after_each"):
        children = tuple(sub(s) for s in spec.get("triggers") or [])
        if not children:
            raise ValueError(f"trigger {kind} needs a non-empty 'triggers' list")
        return {"after_any": AfterAny, "after_all": AfterAll, "after_each": AfterEach}[kind](children)
    if kind == "orfinally":
        return OrFinally((sub(spec.get("main")), sub(spec.get("finally"))))
    raise ValueError(f"unknown trigger type {kind!r} (default, after_watermark, after_count, "
                     "after_processing_time, repeatedly, after_any, after_all, after_each, orfinally)")
