"""A setting as Flink's window operator: the operator's arguments (engine objects), its scenario
form for the real-Flink oracle, which sweep path serves it, and the event-time timers it can set.

These are Flink's rules, read off the common setting (window, trigger, evictor, function,
accumulation, stagger, next stages); the common :class:`toolkit.settings.Setting` holds the
values and none of this knowledge.
"""
from __future__ import annotations

from typing import Any

from toolkit.engine.flink.config import (
    assigner_from_dict,
    evictor_from_dict,
    function_from_name,
    trigger_from_dict,
)
from toolkit.engine.flink.jumps import window_timer_targets
from toolkit.engine.flink.timeline import TimerTargets
from toolkit.settings import (
    EVENT_TIME_WINDOWS,
    SESSION_WINDOWS,
    Custom,
    DynamicSession,
    Global,
    Session,
    Setting,
    Sliding,
    Stage,
    TriggerSpec,
    Tumbling,
    stagger_assigner,
)

_EVENT_TIME_TRIGGERS = ("default", "event_time")
_STAGE_WINDOWS = (Tumbling, Sliding, Session)  # a next stage's event-time windows (no per-record gaps)


def _accumulation(accumulation: str) -> str:
    """The engine's name of an accumulation mode (``retracting`` is Flink's accumulating-and-retracting)."""
    return "accumulating_and_retracting" if accumulation == "retracting" else accumulation


def _trigger(t: Any, window: Any, own: tuple = EVENT_TIME_WINDOWS) -> Any:
    """The engine trigger; None for the event-time trigger of an event-time window (``own``: the
    window's own trigger is the same, and the fast loops know it)."""
    trigger = t.obj if isinstance(t, Custom) else trigger_from_dict(t.to_dict())
    if isinstance(t, TriggerSpec) and t.kind == "event_time" and isinstance(window, own):
        return None
    return trigger


def _assigner(w: Any) -> Any:
    return w.obj if isinstance(w, Custom) else assigner_from_dict(w.to_dict())


def operator_kwargs(s: Setting, *, stage: int = 1) -> dict:
    """Keyword arguments of the window operator of ``stage`` (1: the first; 2: the
    ``second_window`` alias, a count/sum stage with the event-time trigger)."""
    if stage == 2:
        if s.second_window is None:
            raise ValueError("this setting has no second stage")
        return {"assigner": _assigner(s.second_window), "allowed_lateness": s.second_lateness,
                "function": function_from_name("count_sum")}
    w, e, fn = s.window, s.evictor, s.function
    if isinstance(w, Tumbling) and s.stagger != "aligned":
        assigner = stagger_assigner(w, s.stagger)
    else:
        assigner = _assigner(w)
    return {
        "assigner": assigner,
        "trigger": _trigger(s.trigger, w),
        "evictor": e.obj if isinstance(e, Custom) else evictor_from_dict(e.to_dict() if e is not None else None),
        "allowed_lateness": s.lateness,
        "function": fn.obj if isinstance(fn, Custom) else function_from_name(fn),
        "accumulation": _accumulation(s.accumulation),
    }


def stage_operator_kwargs(stage: Stage) -> dict:
    """Keyword arguments of a next stage's window operator."""
    fn = stage.function
    return {"assigner": _assigner(stage.window), "trigger": _trigger(stage.trigger, stage.window, _STAGE_WINDOWS),
            "allowed_lateness": stage.lateness, "function": fn.obj if isinstance(fn, Custom) else function_from_name(fn),
            "accumulation": _accumulation(stage.accumulation)}


def scenario_config(s: Setting, *, stage: int = 1) -> dict:
    """The window-scenario config (``../shared/oracle`` format) of ``stage``'s operator."""
    if stage == 2:
        if s.second_window is None:
            raise ValueError("this setting has no second stage")
        w, trig, ev, late = s.second_window, None, None, s.second_lateness
    else:
        w, late = s.window, s.lateness
        if isinstance(s.trigger, Custom) or isinstance(s.evictor, Custom):
            raise ValueError("a trigger or evictor object has no scenario form; write it as a spelling")
        trig = (None if s.trigger == TriggerSpec("event_time") and isinstance(w, EVENT_TIME_WINDOWS)
                else s.trigger.to_dict())
        ev = s.evictor.to_dict() if s.evictor is not None else None
    if isinstance(w, Custom):
        raise ValueError("export needs a window given as a spelling or a built-in assigner")
    if stage == 1 and s.stagger != "aligned":
        raise ValueError(f"the scenario format has no WindowStagger: export stagger {s.stagger} as the offset "
                         "it resolves to (toolkit.settings.staggered_offset)")
    return {"assigner": w.to_dict(), "trigger": trig, "evictor": ev, "allowed_lateness": late,
            "side_output_late": True, "function": "aggregate"}


def stage_scenario_config(stage: Stage) -> dict:
    """The window-scenario config of a next stage (Flink has no discarding mode: a window keeps
    its contents until a purging trigger clears them)."""
    if isinstance(stage.window, Custom) or isinstance(stage.trigger, Custom):
        raise ValueError("export needs the stage's window and trigger given as spellings")
    if stage.accumulation != "accumulating":
        raise ValueError(f"export: Flink has no {stage.accumulation} mode (a window keeps its contents until purged); "
                         "write the stage with a purging trigger instead")
    trig = (None if stage.trigger == TriggerSpec("event_time") and isinstance(stage.window, _STAGE_WINDOWS)
            else stage.trigger.to_dict())
    return {"assigner": stage.window.to_dict(), "trigger": trig, "evictor": None, "allowed_lateness": stage.lateness,
            "side_output_late": True, "function": "aggregate"}


def _event_time_trigger(s: Setting) -> bool:
    return isinstance(s.trigger, TriggerSpec) and s.trigger.kind in _EVENT_TIME_TRIGGERS


def fates_closed_form(s: Setting) -> bool:
    """Record fates follow the closed-form rule (``toolkit.metrics.fates``): aligned tumbling or
    sliding windows, the event-time trigger, no evictor (any accumulation: fates do not depend on it)."""
    return (isinstance(s.window, (Tumbling, Sliding)) and s.stagger == "aligned" and _event_time_trigger(s)
            and s.evictor is None)


def closed_form(s: Setting) -> bool:
    """The sweep's closed form applies (``toolkit.fast``): :func:`fates_closed_form`, accumulating
    or retracting, one stage (a staggered window is resolved to its offset first)."""
    return (fates_closed_form(s) and s.accumulation in ("accumulating", "retracting")
            and s.second_window is None and not s.stages)


def fast_applies(s: Setting) -> bool:
    """The fast path serves ``s``: the closed form (tumbling/sliding windows,
    ``toolkit.fast.evaluate``) or compiled sessions (``toolkit.fast.sessions``: session
    windows under the same conditions: the event-time trigger, no evictor, accumulating or
    retracting, one stage; figures do not depend on the window function)."""
    sessions = (isinstance(s.window, SESSION_WINDOWS) and _event_time_trigger(s) and s.evictor is None
                and s.accumulation in ("accumulating", "retracting") and s.second_window is None)
    return closed_form(s) or sessions


def timer_targets(s: Setting, event_time: Any, gaps: Any = None) -> TimerTargets | None:
    """The event-time timers the window operator can set for records with these event times
    (``toolkit.engine.flink.pipeline.window_timer_targets``): with them, a watermark that moves
    with processing time (``time_lag``, ``idle_advance``) is replayed only at the calls that can
    change a result. ``None`` when they cannot be listed (a window, trigger or function object,
    a processing-time or continuous trigger, a staggered window, more than one stage, a dynamic
    session without its ``gaps``): every periodic call is then run."""
    trig = s.trigger
    if s.pipeline_stages or s.stagger != "aligned" or isinstance(s.function, Custom) or not isinstance(trig, TriggerSpec):
        return None
    if trig.kind == "purging":
        trig = trig.inner
    if trig.kind not in ("default", "event_time", "count", "never", "end_of_stream"):
        return None
    w, late = s.window, s.lateness
    if isinstance(w, Tumbling):
        return window_timer_targets(event_time, size=w.size, offset=w.offset, lateness=late)
    if isinstance(w, Sliding):
        return window_timer_targets(event_time, size=w.size, slide=w.slide, offset=w.offset, lateness=late)
    if isinstance(w, Session):
        return window_timer_targets(event_time, gaps=w.gap, lateness=late)
    if isinstance(w, DynamicSession) and gaps is not None:
        return window_timer_targets(event_time, gaps=gaps, lateness=late)
    if isinstance(w, Global):
        return TimerTargets()  # not an event-time window: its timers are at the end of input
    return None
