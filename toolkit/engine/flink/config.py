"""One window-operator configuration and the one builder.

``WindowConfig`` (frozen) holds what a window operator is built from: the assigner, trigger,
evictor, allowed lateness, function, accumulation mode and a few switches. It is validated on
construction (``ValueError``), converts to and from the oracle's window-scenario config
(``from_dict`` / ``to_dict``; format: ``../shared/oracle/README.md`` (a)), and ``build()``
returns a fresh operator.

Rule: the operator class is chosen in one place, :func:`operator_class`. The specialised
classes of ``operator_fast`` apply to event-time tumbling, sliding or session windows with the
plain ``EventTimeTrigger``, no evictor, an incremental (aggregate or reduce) function, not
retracting, and timers whose tie order may be the fast queue's (``exact_timer_order`` not
``True``); everything else gets the general ``WindowOperator``. Every class gives the same
results (the conformance and property tests run both).

The per-part converters (``assigner_from_dict``, ``trigger_from_dict``, ``evictor_from_dict``,
``function_from_name`` and the inverses ``assigner_to_dict``, ``trigger_to_dict``,
``evictor_to_dict``, ``function_to_name``) are the one translation between the scenario
format's dicts and engine objects. Integers are checked by ``scenarios.jsonl.as_int`` (bools,
floats and integers beyond int64 are refused), flags read by ``scenarios.jsonl.as_bool``
(Jackson's ``asBoolean``, as the oracle's job reads them: ``"false"`` is false).

Engine layer: standard library only.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, NamedTuple

from .assigners import (
    DynamicEventTimeSessionWindows,
    EventTimeSessionWindows,
    GlobalWindows,
    MergingWindowAssigner,
    ProcessingTimeSessionWindows,
    SlidingEventTimeWindows,
    SlidingProcessingTimeWindows,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    WindowAssigner,
)
from .evictors import CountEvictor, Evictor, TimeEvictor
from .functions import (
    AggregateFunction,
    CollectValues,
    Count,
    CountSum,
    ProcessWindowFunction,
    ReduceFunction,
    Sum,
    WindowFunction,
    has_clear,
)
from .operator import WindowOperator, check_config
from .operator_fast import SessionEventTimeOperator, TimeWindowEventTimeOperator
from toolkit.engine.flink.scenarios.jsonl import as_bool, as_int, get_int
from .triggers import (
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    CountTrigger,
    EndOfStreamTrigger,
    EventTimeTrigger,
    NeverTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Trigger,
)
from .windows import GlobalWindow

__all__ = [
    "WindowConfig", "build_operator", "operator_class", "as_int",
    "assigner_from_dict", "assigner_to_dict", "trigger_from_dict", "trigger_to_dict",
    "evictor_from_dict", "evictor_to_dict", "function_from_name", "function_to_name",
    "Element", "CONFIG_KEYS",
]

#: the keys a window-scenario config line may have
CONFIG_KEYS = frozenset({
    "assigner", "trigger", "evictor", "allowed_lateness", "side_output_late", "function",
    "emit_timestamps", "final_watermark",
})


def _req(obj: dict, name: str, where: str) -> Any:
    if not isinstance(obj, dict) or obj.get(name) is None:
        raise ValueError(f"{where}: missing {name!r}")
    return obj[name]


# ---------------------------------------------------------------------- assigners

_ASSIGNER_TYPES = {
    "tumbling": TumblingEventTimeWindows, "tumbling_processing_time": TumblingProcessingTimeWindows,
    "sliding": SlidingEventTimeWindows, "sliding_processing_time": SlidingProcessingTimeWindows,
    "session": EventTimeSessionWindows, "session_processing_time": ProcessingTimeSessionWindows,
}
_ASSIGNER_NAMES = {cls: name for name, cls in _ASSIGNER_TYPES.items()}


def assigner_from_dict(a: dict) -> WindowAssigner:
    """``{"type": "tumbling", "size": S, "offset": O}`` (and the other scenario types) -> assigner.

    ``dynamic_session`` reads each element's gap from ``element.gap`` (the scenario runner's
    :class:`Element`)."""
    if not isinstance(a, dict):
        raise ValueError(f"assigner must be an object, got {a!r}")
    t = a.get("type")
    if t is None:
        raise ValueError("assigner.type missing")
    cls = _ASSIGNER_TYPES.get(t)
    if cls is not None and t.startswith("tumbling"):
        return cls(as_int(_req(a, "size", "assigner"), "assigner.size"), get_int(a, "offset", 0))
    if cls is not None and t.startswith("sliding"):
        return cls(as_int(_req(a, "size", "assigner"), "assigner.size"),
                   as_int(_req(a, "slide", "assigner"), "assigner.slide"),
                   get_int(a, "offset", 0))
    if cls is not None:
        return cls(as_int(_req(a, "gap", "assigner"), "assigner.gap"))
    if t == "dynamic_session":
        return DynamicEventTimeSessionWindows(_element_gap)
    if t == "global":
        return GlobalWindows(end_of_stream=as_bool(a.get("end_of_stream_trigger"), False))
    raise ValueError(f"unknown assigner type: {t!r}")


def _element_gap(e) -> int:
    return e.gap


def assigner_to_dict(assigner: Any) -> dict | None:
    """A built-in assigner -> its scenario dict; ``None`` for anything else (a subclass, a
    dynamic session whose gap function is not the scenario format's)."""
    t = type(assigner)
    name = _ASSIGNER_NAMES.get(t)
    if name is None:
        if t is GlobalWindows:
            return {"type": "global", "end_of_stream_trigger": assigner.end_of_stream}
        if t is DynamicEventTimeSessionWindows and getattr(assigner, "gap_fn", None) is _element_gap:
            return {"type": "dynamic_session", "gap_field": "gap"}
        return None
    if name.startswith("tumbling"):
        return {"type": name, "size": assigner.size, "offset": assigner.offset}
    if name.startswith("sliding"):
        return {"type": name, "size": assigner.size, "slide": assigner.slide, "offset": assigner.offset}
    return {"type": name, "gap": assigner.gap}


# ---------------------------------------------------------------------- triggers

_SIMPLE_TRIGGERS = {
    "event_time": EventTimeTrigger, "processing_time": ProcessingTimeTrigger,
    "never": NeverTrigger, "end_of_stream": EndOfStreamTrigger,
}
_SIMPLE_TRIGGER_NAMES = {cls: name for name, cls in _SIMPLE_TRIGGERS.items()}


def trigger_from_dict(t: Any, top_level: bool = True) -> Trigger | None:
    """A scenario trigger dict -> trigger; ``None`` (or ``{"type": "default"}``) at the top
    level means the assigner's default trigger."""
    if t is None:
        if top_level:
            return None
        raise ValueError("purging trigger needs an inner trigger")
    if not isinstance(t, dict):
        raise ValueError(f"trigger must be an object, got {t!r}")
    typ = t.get("type", "default")
    if typ == "default":
        if not top_level:
            raise ValueError("'default' is only allowed as the top-level trigger")
        return None
    if typ in _SIMPLE_TRIGGERS:
        return _SIMPLE_TRIGGERS[typ]()
    if typ == "count":
        return CountTrigger(as_int(_req(t, "count", "trigger"), "trigger.count"))
    if typ == "continuous_event_time":
        return ContinuousEventTimeTrigger(as_int(_req(t, "interval", "trigger"), "trigger.interval"))
    if typ == "continuous_processing_time":
        return ContinuousProcessingTimeTrigger(as_int(_req(t, "interval", "trigger"), "trigger.interval"))
    if typ == "purging":
        return PurgingTrigger(trigger_from_dict(t.get("inner"), top_level=False))
    raise ValueError(f"unknown trigger type: {typ!r}")


def trigger_to_dict(trigger: Trigger | None) -> dict | None:
    """A built-in trigger -> its scenario dict (``None`` -> ``None``: the default trigger);
    ``ValueError`` for a trigger the format cannot express."""
    if trigger is None:
        return None
    t = type(trigger)
    if t in _SIMPLE_TRIGGER_NAMES:
        return {"type": _SIMPLE_TRIGGER_NAMES[t]}
    if t is CountTrigger:
        return {"type": "count", "count": trigger.count}
    if t is ContinuousEventTimeTrigger:
        return {"type": "continuous_event_time", "interval": trigger.interval}
    if t is ContinuousProcessingTimeTrigger:
        return {"type": "continuous_processing_time", "interval": trigger.interval}
    if t is PurgingTrigger:
        return {"type": "purging", "inner": trigger_to_dict(trigger.inner)}
    raise ValueError(f"the scenario format cannot express the trigger {trigger!r}")


# ---------------------------------------------------------------------- evictors


def evictor_from_dict(e: Any) -> Evictor | None:
    """``None`` | ``{"type": "count", "max": N, "after": bool}`` | ``{"type": "time", "keep": K, ...}``."""
    if e is None:
        return None
    if not isinstance(e, dict):
        raise ValueError(f"evictor must be an object or null, got {e!r}")
    typ = e.get("type")
    after = as_bool(e.get("after"), False)
    if typ == "count":
        return CountEvictor(as_int(_req(e, "max", "evictor"), "evictor.max"), after)
    if typ == "time":
        return TimeEvictor(as_int(_req(e, "keep", "evictor"), "evictor.keep"), after)
    raise ValueError(f"unknown evictor type: {typ!r}")


def evictor_to_dict(evictor: Evictor | None) -> dict | None:
    """A built-in evictor -> its scenario dict; ``ValueError`` for any other evictor."""
    if evictor is None:
        return None
    if type(evictor) is CountEvictor:
        return {"type": "count", "max": evictor.max_count, "after": evictor.after}
    if type(evictor) is TimeEvictor:
        return {"type": "time", "keep": evictor.keep, "after": evictor.after}
    raise ValueError(f"the scenario format cannot express the evictor {evictor!r}")


# ---------------------------------------------------------------------- functions


class Element(NamedTuple):
    """A scenario record as the window sees it (``cnt`` is summed by the reduce function)."""

    value: int
    ts: int
    gap: int
    cnt: int = 1


def _window_fields(key, window) -> dict:
    o: dict = {"kind": "fire", "key": key}
    if isinstance(window, GlobalWindow):
        o["start"] = None
        o["end"] = None
    else:
        o["start"] = window.start
        o["end"] = window.end
    o["max_ts"] = window.max_timestamp()
    return o


class _EmitAll(ProcessWindowFunction):
    """The oracle's ``process`` function: every element's value, count and sum."""

    name = "process"

    def __init__(self, with_timestamps: bool):
        super().__init__()
        self.with_timestamps = with_timestamps

    def process(self, key, ctx, elements):
        o = _window_fields(key, ctx.window)
        o["values"] = [e.value for e in elements]
        o["count"] = len(elements)
        o["sum"] = sum(e.value for e in elements)
        o["watermark"] = ctx.current_watermark
        if self.with_timestamps:
            o["timestamps"] = [e.ts for e in elements]
        return o


class _ScenarioCountSum(AggregateFunction):
    """The oracle's ``aggregate`` function: an incremental (count, sum) of element values."""

    name = "aggregate"

    def create_accumulator(self):
        return (0, 0)

    def add(self, e, acc):
        return (acc[0] + 1, acc[1] + e.value)

    def get_result(self, acc):
        return acc

    def merge(self, a, b):
        return (a[0] + b[0], a[1] + b[1])


class _EmitAgg(ProcessWindowFunction):
    def process(self, key, ctx, elements):
        acc = elements[0] if elements else (0, 0)
        o = _window_fields(key, ctx.window)
        o["values"] = None
        o["count"] = acc[0]
        o["sum"] = acc[1]
        o["watermark"] = ctx.current_watermark
        return o


def _sum_reduce(a: Element, b: Element) -> Element:
    return Element(a.value + b.value, max(a.ts, b.ts), a.gap, a.cnt + b.cnt)


class _ScenarioReduce(ReduceFunction):
    """The oracle's ``reduce`` function: sums value and count."""

    name = "reduce"


class _EmitReduced(ProcessWindowFunction):
    def process(self, key, ctx, elements):
        o = _window_fields(key, ctx.window)
        o["values"] = None
        r = elements[0] if elements else None
        o["count"] = r.cnt if r is not None else 0
        o["sum"] = r.value if r is not None else 0
        o["watermark"] = ctx.current_watermark
        return o


_ENGINE_FUNCTIONS = {"count_sum": CountSum, "count": Count, "sum": Sum, "values": CollectValues}
_ENGINE_FUNCTION_NAMES = {cls: name for name, cls in _ENGINE_FUNCTIONS.items()}
SCENARIO_FUNCTIONS = ("process", "aggregate", "reduce")


def function_from_name(name: Any, *, scenario: bool = False, emit_timestamps: bool = False) -> WindowFunction:
    """A window function from its name (a ``WindowFunction`` is returned as it is).

    Engine names: ``count_sum`` (default for ``None``), ``count``, ``sum``, ``values``.
    With ``scenario=True``, the oracle's functions over scenario :class:`Element` records,
    whose results are the oracle's output lines: ``process`` (default; ``emit_timestamps``
    adds the elements' timestamps), ``aggregate``, ``reduce``."""
    if isinstance(name, WindowFunction):
        return name
    if scenario:
        name = name or "process"
        if name == "process":
            return _EmitAll(bool(emit_timestamps))
        if name == "aggregate":
            return _ScenarioCountSum(process=_EmitAgg())
        if name == "reduce":
            return _ScenarioReduce(_sum_reduce, process=_EmitReduced())
        raise ValueError(f"unknown function: {name!r}")
    name = name or "count_sum"
    try:
        return _ENGINE_FUNCTIONS[name]()
    except (KeyError, TypeError):
        raise ValueError(f"unknown function {name!r}; known: {', '.join(_ENGINE_FUNCTIONS)}") from None


def function_to_name(function: WindowFunction | None) -> str:
    """The name :func:`function_from_name` builds ``function`` from (a scenario function's
    name for the oracle's functions); ``ValueError`` for any other function."""
    if function is None:
        return "count_sum"
    scenario_name = getattr(type(function), "name", None)
    if scenario_name in SCENARIO_FUNCTIONS:
        return scenario_name
    name = _ENGINE_FUNCTION_NAMES.get(type(function))
    if name is None or (function.incremental and function.process is not None):
        raise ValueError(f"the function {function!r} has no name")
    return name


# the engine functions whose results the oracle's functions compute too (replay exports them so)
_AS_SCENARIO_FUNCTION = {"count_sum": "aggregate", "values": "process"}


def _scenario_function_name(function: WindowFunction | None) -> str:
    """The scenario format's ``function`` for ``function`` (``ValueError`` if it has none)."""
    name = function_to_name(function)
    if name in SCENARIO_FUNCTIONS:
        return name
    if name in _AS_SCENARIO_FUNCTION:
        return _AS_SCENARIO_FUNCTION[name]
    raise ValueError(f"the scenario format has no function for {function!r} (it has {', '.join(SCENARIO_FUNCTIONS)})")


# ---------------------------------------------------------------------- the configuration


def operator_class(assigner, trigger, evictor, function, accumulation, exact_timer_order) -> type:
    """THE choice of operator class (see the module docstring); ``trigger=None`` means the
    assigner's default trigger, ``function=None`` the default ``CountSum``."""
    if exact_timer_order:
        return WindowOperator
    if trigger is None:
        trigger = assigner.default_trigger() if isinstance(assigner, WindowAssigner) else None
    if (type(trigger) is not EventTimeTrigger or evictor is not None
            or accumulation == "accumulating_and_retracting"):
        return WindowOperator
    if function is not None and not (isinstance(function, (AggregateFunction, ReduceFunction))
                                     and function.incremental):
        return WindowOperator
    if function is not None and has_clear(function):
        return WindowOperator   # the function's clear(context) runs at cleanup: the general path
    t = type(assigner)
    if (t is TumblingEventTimeWindows and assigner._stagger_offset == 0) or t is SlidingEventTimeWindows:
        return TimeWindowEventTimeOperator   # (a staggered tumbling assigner: the general path)
    if t is EventTimeSessionWindows and t.merge_windows is MergingWindowAssigner.merge_windows:
        return SessionEventTimeOperator
    return WindowOperator


@dataclass(frozen=True)
class WindowConfig:
    """A window operator's configuration (the keyword arguments of ``WindowOperator``).

    ``trigger=None``: the assigner's default; ``function=None``: ``CountSum()``. Validated
    on construction (``ValueError``). Objects (assigner, trigger, ...) are shared by every
    operator ``build()`` makes; the built-in ones hold no state."""

    assigner: WindowAssigner
    trigger: Trigger | None = None
    evictor: Evictor | None = None
    evict_after: bool = False
    allowed_lateness: int = 0
    function: WindowFunction | None = None
    side_output_late: bool = True
    accumulation: str = "accumulating"
    keyed: bool = True
    track_records: bool = False
    exact_timer_order: bool | None = None

    def __post_init__(self) -> None:
        lateness = self.allowed_lateness
        if hasattr(lateness, "__index__") and not isinstance(lateness, (int, bool)):
            object.__setattr__(self, "allowed_lateness", int(lateness))
        self.validate()

    def validate(self) -> None:
        """The checks Flink makes when the job is built (``ValueError``)."""
        trigger = self.trigger
        if trigger is None and isinstance(self.assigner, WindowAssigner):
            trigger = self.assigner.default_trigger()
        check_config(self.assigner, trigger, self.evictor, self.allowed_lateness,
                     CountSum() if self.function is None else self.function, self.accumulation)

    def operator_class(self) -> type:
        return operator_class(self.assigner, self.trigger, self.evictor, self.function,
                              self.accumulation, self.exact_timer_order)

    def build(self) -> WindowOperator:
        """A fresh operator of the fastest class that gives the general path's results."""
        kwargs = {f.name: getattr(self, f.name) for f in fields(self)}
        assigner = kwargs.pop("assigner")
        return self.operator_class()(assigner, **kwargs)

    def replace(self, **changes: Any) -> "WindowConfig":
        """A copy with some fields changed (validated again)."""
        kwargs = {f.name: getattr(self, f.name) for f in fields(self)}
        kwargs.update(changes)
        return WindowConfig(**kwargs)

    @classmethod
    def from_dict(cls, cfg: dict, **overrides: Any) -> "WindowConfig":
        """The operator a window-scenario config line describes (functions: the oracle's,
        over :class:`Element` records). ``overrides``: other fields (e.g. ``exact_timer_order``)."""
        if not isinstance(cfg, dict) or "assigner" not in cfg:
            raise ValueError("the first line must be the config object (with an 'assigner')")
        return cls(
            assigner_from_dict(cfg["assigner"]),
            trigger=trigger_from_dict(cfg.get("trigger")),
            evictor=evictor_from_dict(cfg.get("evictor")),
            allowed_lateness=get_int(cfg, "allowed_lateness", 0),
            function=function_from_name(cfg.get("function", "process") or "process", scenario=True,
                                        emit_timestamps=as_bool(cfg.get("emit_timestamps"), False)),
            side_output_late=as_bool(cfg.get("side_output_late"), True),
            **overrides,
        )

    def to_dict(self) -> dict:
        """The window-scenario config line (``ValueError`` when a part has no scenario form:
        a custom assigner, trigger, evictor or function, or a setting the format lacks).
        ``CountSum`` is written as the oracle's ``aggregate`` (count and sum), ``CollectValues``
        as ``process``."""
        a = assigner_to_dict(self.assigner)
        if a is None:
            raise ValueError(f"the scenario format cannot express the assigner {self.assigner!r}")
        if self.evict_after or self.accumulation != "accumulating" or not self.keyed:
            raise ValueError("the scenario format has no evict_after, accumulation or keyed setting")
        out = {"assigner": a, "trigger": trigger_to_dict(self.trigger), "evictor": evictor_to_dict(self.evictor),
               "allowed_lateness": self.allowed_lateness, "side_output_late": self.side_output_late,
               "function": _scenario_function_name(self.function)}
        if getattr(self.function, "with_timestamps", False):
            out["emit_timestamps"] = True
        return out

    def as_kwargs(self) -> dict:
        """The keyword arguments of ``WindowOperator`` (assigner included)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def build_operator(
    assigner: WindowAssigner,
    *,
    trigger: Trigger | None = None,
    evictor: Evictor | None = None,
    allowed_lateness: int = 0,
    function: WindowFunction | None = None,
    accumulation: str = "accumulating",
    track_records: bool = False,
    **rest: Any,
) -> WindowOperator:
    """``WindowOperator(...)``'s keyword arguments -> the fastest operator that gives the same
    results (``rest``: ``evict_after``, ``side_output_late``, ``keyed``, ``exact_timer_order``)."""
    return WindowConfig(assigner, trigger=trigger, evictor=evictor, allowed_lateness=allowed_lateness,
                        function=function, accumulation=accumulation, track_records=track_records,
                        **rest).build()
