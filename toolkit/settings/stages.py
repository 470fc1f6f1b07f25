"""Pipeline stages: the windowed stages after the first (``stages=[...]``, ``--stage``), each
written ``"window=tumbling:5s lateness=1s trigger=count:3"``."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolkit.settings.durations import did_you_mean, duration, format_duration
from toolkit.settings.names import ALIASES, SettingError
from toolkit.settings.triggers import ACCUMULATIONS, TriggerSpec, parse_accumulation, parse_function, parse_trigger
from toolkit.settings.windows import Custom, Session, Sliding, Tumbling, WindowSpec, parse_window

STAGE_FIELDS = ("window", "trigger", "lateness", "function", "accumulation")


@dataclass(frozen=True)
class Stage:
    """One downstream windowed stage of a pipeline: ``window=tumbling:5s lateness=1s
    trigger=count:3 function=count_sum accumulation=accumulating`` (the window is required).

    It is fed by the previous stage's firings, Flink's rule: each result becomes a record with
    timestamp = the window's ``max_timestamp`` (``end - 1``) and value = its sum (a ``values``
    result: the sum of its values; a join: its number of pairs), keyed as before; the previous
    stage's watermark is forwarded after it processed it."""

    window: WindowSpec
    trigger: TriggerSpec | Custom = field(default_factory=lambda: TriggerSpec("default"))
    lateness: int = 0
    function: str | Custom = "count_sum"
    accumulation: str = "accumulating"

    def __post_init__(self) -> None:
        if isinstance(self.trigger, TriggerSpec) and self.trigger.kind == "default" and isinstance(self.window, (Tumbling, Sliding, Session)):
            object.__setattr__(self, "trigger", TriggerSpec("event_time"))
        if self.accumulation not in ACCUMULATIONS:
            raise SettingError("stages", f"stage accumulation {self.accumulation!r}: choose one of {', '.join(ACCUMULATIONS)}")
        if self.lateness < 0:
            raise SettingError("stages", f"stage lateness must not be negative, got {self.lateness}")

    def __str__(self) -> str:
        parts = [f"window={self.window}"]
        default = Stage(self.window)
        for name in STAGE_FIELDS[1:]:
            v = getattr(self, name)
            if v != getattr(default, name):
                parts.append(f"{name}={format_duration(v) if name == 'lateness' else v}")
        return ";".join(parts)


def parse_stage(spec: Any, name: str = "stages") -> Stage:
    """A stage from its text (``"window=tumbling:5s lateness=1s"``, fields separated by spaces
    or ``;``), a dict of the same names, or a :class:`Stage`."""
    if isinstance(spec, Stage):
        return spec
    if isinstance(spec, str):
        given: dict = {}
        for token in spec.replace(";", " ").split():
            k, sep, v = token.partition("=")
            if not sep:
                raise SettingError(name, f"{name}: cannot read {token!r} in {spec!r}; write a stage as "
                                   "'window=tumbling:5s lateness=1s' (names: " + ", ".join(STAGE_FIELDS) + ")")
            given[k.strip()] = v.strip()
    elif isinstance(spec, dict):
        given = dict(spec)
    else:
        raise SettingError(name, f"{name}: a stage is text like 'window=tumbling:5s lateness=1s' or a dict, got {spec!r}")
    given = {ALIASES.get(k, k): v for k, v in given.items()}
    unknown = [k for k in given if k not in STAGE_FIELDS]
    if unknown:
        raise SettingError(name, f"{name}: unknown stage setting {unknown[0]!r}{did_you_mean(unknown[0], STAGE_FIELDS)}; "
                           f"a stage has {', '.join(STAGE_FIELDS)}")
    if "window" not in given:
        raise SettingError(name, f"{name}: the stage {spec!r} needs a window, e.g. 'window=tumbling:5s'")
    try:
        out: dict[str, Any] = {"window": parse_window(given["window"], "window")}
        if "trigger" in given:
            out["trigger"] = parse_trigger(given["trigger"], "trigger")
        if "lateness" in given:
            out["lateness"] = duration(given["lateness"], "lateness")
        if "function" in given:
            out["function"] = parse_function(given["function"], "function")
        if "accumulation" in given:
            out["accumulation"] = parse_accumulation(given["accumulation"], "accumulation")
        return Stage(**out)
    except SettingError as exc:
        raise SettingError(name, f"{name}: stage {spec!r}: {exc}") from None


def parse_stages(spec: Any, name: str = "stages") -> tuple[Stage, ...]:
    """Stages from a list (each as :func:`parse_stage` reads it) or one text with stages
    separated by ``|`` (as ``str(setting)`` writes them)."""
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("", "none")):
        return ()
    if isinstance(spec, (str, Stage, dict)):
        spec = [s for s in spec.split("|")] if isinstance(spec, str) else [spec]
    if not isinstance(spec, (list, tuple)):
        raise SettingError(name, f"{name} must be a list of stages such as ['window=tumbling:5s lateness=1s'], got {spec!r}")
    out = []
    for i, item in enumerate(spec):
        try:
            out.append(parse_stage(item, name))
        except SettingError as exc:
            raise SettingError(name, str(exc).replace(f"{name}: ", f"{name}[{i}] (stage {i + 2}): ", 1)) from None
    return tuple(out)



__all__ = ["STAGE_FIELDS", "Stage", "parse_stage", "parse_stages"]
