"""What fires a window and what it emits: triggers, evictors, window functions and
accumulation modes, with their spellings.

trigger: ``default`` (the window's own), ``event_time``, ``processing_time``, ``count:N``,
``continuous:5s``, ``continuous_processing:5s``, ``purging:<trigger>``, ``never``,
``end_of_stream``; evictor: ``none``, ``count:N``, ``time:5s`` (``,after``: after the function);
function: ``count_sum`` or ``values``; accumulation: ``accumulating``, ``discarding``,
``retracting`` (accumulating-and-retracting).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolkit.settings.durations import _choice, did_you_mean, duration, format_duration
from toolkit.settings.names import SettingError
from toolkit.settings.windows import Custom

ACCUMULATIONS = ("accumulating", "discarding", "retracting")
FUNCTIONS = ("count_sum", "values")
_ACCUMULATION_ALIASES = {"accumulating_and_retracting": "retracting"}
_FUNCTION_ALIASES = {"aggregate": "count_sum", "process": "values"}

_TRIGGER_KINDS = ("default", "event_time", "processing_time", "count", "continuous", "continuous_processing",
                  "purging", "never", "end_of_stream")


@dataclass(frozen=True)
class TriggerSpec:
    """A trigger: ``kind`` plus ``count`` (count) / ``interval`` (continuous) / ``inner`` (purging)."""

    kind: str
    count: int | None = None
    interval: int | None = None
    inner: "TriggerSpec | None" = None

    def __post_init__(self) -> None:
        if self.kind not in _TRIGGER_KINDS:
            raise SettingError("trigger", f"unknown trigger kind {self.kind!r}")
        if self.kind == "count" and (self.count is None or self.count <= 0):
            raise SettingError("trigger", f"trigger count:N needs a positive N, got {self.count!r}")
        if self.kind in ("continuous", "continuous_processing") and (self.interval is None or self.interval <= 0):
            raise SettingError("trigger", f"trigger {self.kind}:INTERVAL needs a positive interval, got {self.interval!r}")
        if self.kind == "purging" and (self.inner is None or self.inner.kind in ("default", "purging")):
            raise SettingError("trigger", "purging:<trigger> needs an inner trigger such as purging:count:5")

    def __str__(self) -> str:
        if self.kind == "count":
            return f"count:{self.count}"
        if self.kind in ("continuous", "continuous_processing"):
            return f"{self.kind}:{format_duration(self.interval)}"
        if self.kind == "purging":
            return f"purging:{self.inner}"
        return self.kind

    def to_dict(self) -> dict | None:
        """The scenario format (``None`` = the window's default trigger)."""
        if self.kind == "default":
            return None
        if self.kind == "count":
            return {"type": "count", "count": self.count}
        if self.kind == "continuous":
            return {"type": "continuous_event_time", "interval": self.interval}
        if self.kind == "continuous_processing":
            return {"type": "continuous_processing_time", "interval": self.interval}
        if self.kind == "purging":
            return {"type": "purging", "inner": self.inner.to_dict()}
        return {"type": self.kind}


def parse_trigger(spec: Any, name: str = "trigger") -> TriggerSpec | Custom:
    if spec is None:
        return TriggerSpec("default")
    if isinstance(spec, (TriggerSpec, Custom)):
        return spec
    if isinstance(spec, dict):
        return _trigger_from_dict(spec, name)
    if not isinstance(spec, str):
        from toolkit.engine.flink.triggers import Trigger

        if isinstance(spec, Trigger):
            return Custom(spec)
        raise SettingError(name, f"{name} must be written like 'count:5' (or be a Trigger object), got {spec!r}")
    text = spec.strip()
    kind, _, arg = text.partition(":")
    kind = kind.strip().lower()
    kind = {"": "default", "continuous_event_time": "continuous", "continuous_processing_time": "continuous_processing"}.get(kind, kind)
    if kind not in _TRIGGER_KINDS:
        raise SettingError(name, f"unknown {name} {spec!r}; use default, event_time, processing_time, count:N, continuous:5s, "
                           f"continuous_processing:5s, purging:<trigger>, never or end_of_stream{did_you_mean(kind, _TRIGGER_KINDS)}")
    if kind == "count":
        if not arg.strip().isdigit() or int(arg) <= 0:
            raise SettingError(name, f"{name} {spec!r}: count must be a positive integer, e.g. count:5")
        return TriggerSpec("count", count=int(arg))
    if kind in ("continuous", "continuous_processing"):
        return TriggerSpec(kind, interval=duration(arg.strip(), f"{name} interval", positive=True))
    if kind == "purging":
        return TriggerSpec("purging", inner=parse_trigger(arg or "event_time", name))
    if arg:
        raise SettingError(name, f"{name} {spec!r}: {kind} takes no argument")
    return TriggerSpec(kind)


def _trigger_from_dict(d: dict, name: str) -> TriggerSpec:
    t = d.get("type", "default")
    if t == "count":
        return TriggerSpec("count", count=int(d["count"]))
    if t == "continuous_event_time":
        return TriggerSpec("continuous", interval=int(d["interval"]))
    if t == "continuous_processing_time":
        return TriggerSpec("continuous_processing", interval=int(d["interval"]))
    if t == "purging":
        return TriggerSpec("purging", inner=_trigger_from_dict(d.get("inner") or {"type": "event_time"}, name))
    if t in _TRIGGER_KINDS:
        return TriggerSpec(t)
    raise SettingError(name, f"unknown {name} type {t!r}")


@dataclass(frozen=True)
class EvictorSpec:
    """``CountEvictor.of(max)`` (``count:N``) or ``TimeEvictor.of(keep)`` (``time:5s``);
    ``after`` evicts after the window function (``,after``)."""

    kind: str
    size: int
    after: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("count", "time"):
            raise SettingError("evictor", f"unknown evictor kind {self.kind!r}; use count:N or time:5s")
        if self.kind == "count" and self.size <= 0:
            raise SettingError("evictor", f"evictor count:N needs a positive N, got {self.size}")
        if self.kind == "time" and self.size < 0:
            raise SettingError("evictor", f"evictor time:KEEP must not be negative, got {self.size}")

    def __str__(self) -> str:
        arg = str(self.size) if self.kind == "count" else format_duration(self.size)
        return f"{self.kind}:{arg}" + (",after" if self.after else "")

    def to_dict(self) -> dict:
        key = "max" if self.kind == "count" else "keep"
        return {"type": self.kind, key: self.size, "after": self.after}


def parse_evictor(spec: Any, name: str = "evictor") -> EvictorSpec | Custom | None:
    if spec is None or isinstance(spec, (EvictorSpec, Custom)):
        return spec
    if isinstance(spec, dict):
        kind = spec.get("type")
        return EvictorSpec(kind, int(spec.get("max", spec.get("keep", 0))), bool(spec.get("after", False)))
    if not isinstance(spec, str):
        from toolkit.engine.flink.evictors import Evictor

        if isinstance(spec, Evictor):
            return Custom(spec)
        raise SettingError(name, f"{name} must be written like 'count:100' or 'time:5s', got {spec!r}")
    text = spec.strip()
    if text.lower() in ("", "none", "off"):
        return None
    kind, _, arg = text.partition(":")
    arg, _, after = arg.partition(",")
    kind = kind.strip().lower()
    if after.strip().lower() not in ("", "after"):
        raise SettingError(name, f"{name} {spec!r}: only ',after' may follow the size")
    if kind == "count":
        if not arg.strip().isdigit() or int(arg) <= 0:
            raise SettingError(name, f"{name} {spec!r}: count must be a positive integer, e.g. count:100")
        return EvictorSpec("count", int(arg), bool(after.strip()))
    if kind == "time":
        return EvictorSpec("time", duration(arg.strip(), f"{name} keep"), bool(after.strip()))
    raise SettingError(name, f"unknown {name} {spec!r}; use count:N or time:5s (append ',after' to evict after the function){did_you_mean(kind, ('count', 'time', 'none'))}")


def parse_function(spec: Any, name: str = "function") -> str | Custom:
    if spec is None:
        return "count_sum"
    if isinstance(spec, Custom):
        return spec
    if isinstance(spec, str):
        return _choice(spec, name, FUNCTIONS, _FUNCTION_ALIASES)
    from toolkit.engine.flink.functions import WindowFunction

    if isinstance(spec, WindowFunction):
        return Custom(spec)
    raise SettingError(name, f"{name} must be 'count_sum', 'values' or a window function object, got {spec!r}")



def parse_accumulation(spec: Any, name: str = "accumulation") -> str:
    """An accumulation mode (``accumulating_and_retracting`` read as ``retracting``)."""
    return _choice(spec, name, ACCUMULATIONS, _ACCUMULATION_ALIASES)


__all__ = ["ACCUMULATIONS", "FUNCTIONS", "TriggerSpec", "EvictorSpec", "parse_trigger", "parse_evictor", "parse_function",
           "parse_accumulation"]
