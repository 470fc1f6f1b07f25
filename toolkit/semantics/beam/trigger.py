"""Beam's trigger grammar (``beam_trigger=``): a trigger tree in Beam's vocabulary, its spelling
and the Beam scenario format (``oracles/beam/README.md``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolkit.engine.beam.failures import FRACTIONAL_DELAY
from toolkit.settings import SettingError, did_you_mean, duration, format_duration

_BEAM_KINDS = ("default", "after_watermark", "after_count", "after_processing_time", "repeatedly", "after_any",
               "after_all", "after_each", "orfinally")
_BEAM_ALIASES = {"count": "after_count", "processing": "after_processing_time", "processing_time": "after_processing_time",
                 "watermark": "after_watermark", "after_first": "after_any", "after_pane_element_count": "after_count",
                 "after_end_of_window": "after_watermark", "or_finally": "orfinally"}


@dataclass(frozen=True)
class BeamTrigger:
    """A Beam trigger tree, written like ``after_watermark(early=after_processing_time:5s,late=after_count:1)``,
    ``repeatedly(after_count:3)``, ``after_any(after_count:2,after_processing_time:1s)`` or ``default``
    (short forms ``count:N``, ``processing:5s``, ``watermark``). ``AfterProcessingTime`` takes whole
    seconds: the Python SDK keeps ``delay // 1 s`` of it."""

    kind: str
    n: int | None = None  # after_count
    delay: int | None = None  # after_processing_time, ms (whole seconds)
    children: tuple["BeamTrigger", ...] = ()  # repeatedly: 1; after_any/all/each: >= 1; orfinally: (main, final)
    early: "BeamTrigger | None" = None
    late: "BeamTrigger | None" = None

    def __str__(self) -> str:
        if self.kind == "after_count":
            return f"after_count:{self.n}"
        if self.kind == "after_processing_time":
            return f"after_processing_time:{format_duration(self.delay)}"
        if self.kind == "after_watermark":
            args = [f"{k}={v}" for k, v in (("early", self.early), ("late", self.late)) if v is not None]
            return "after_watermark" + (f"({','.join(args)})" if args else "")
        if self.children:
            return f"{self.kind}({','.join(str(c) for c in self.children)})"
        return self.kind

    def to_spec(self) -> dict | None:
        """The Beam scenario format (oracles/beam/README.md; ``None`` = the default trigger)."""
        if self.kind == "default":
            return None
        if self.kind == "after_count":
            return {"type": "after_count", "n": self.n}
        if self.kind == "after_processing_time":
            return {"type": "after_processing_time", "delay_ms": self.delay}
        if self.kind == "after_watermark":
            d: dict = {"type": "after_watermark"}
            for k in ("early", "late"):
                v = getattr(self, k)
                if v is not None:
                    d[k] = v.to_spec() or {"type": "default"}
            return d
        if self.kind == "repeatedly":
            return {"type": "repeatedly", "trigger": self.children[0].to_spec() or {"type": "default"}}
        if self.kind == "orfinally":
            return {"type": "orfinally", "main": self.children[0].to_spec() or {"type": "default"},
                    "finally": self.children[1].to_spec() or {"type": "default"}}
        return {"type": self.kind, "triggers": [c.to_spec() or {"type": "default"} for c in self.children]}

    @property
    def watermark_rooted(self) -> bool:
        """The default trigger or ``after_watermark(...)``: every window fires at the watermark."""
        return self.kind in ("default", "after_watermark")

    @property
    def uses_processing_time(self) -> bool:
        """An ``after_processing_time`` anywhere in the tree."""
        return self.kind == "after_processing_time" or any(
            t is not None and t.uses_processing_time for t in (*self.children, self.early, self.late))


def _split_args(text: str, where: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise SettingError(where, f"{where}: unbalanced ')' in {text!r}")
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if depth:
        raise SettingError(where, f"{where}: missing ')' in {text!r}")
    out.append(cur)
    return [a.strip() for a in out]


def parse_beam_trigger(spec: Any, name: str = "beam_trigger") -> BeamTrigger:
    """A :class:`BeamTrigger` from its spelling (errors name ``name`` and show the spellings)."""
    if spec is None:
        return BeamTrigger("default")
    if isinstance(spec, BeamTrigger):
        return spec
    if not isinstance(spec, str):
        raise SettingError(name, f"{name} is written like 'after_watermark(early=after_count:2,late=after_count:1)', got {spec!r}")
    text = spec.strip().replace(" ", "")
    head, paren, rest = text.partition("(")
    kind, _, arg = head.partition(":")
    kind = kind.lower() or "default"
    kind = _BEAM_ALIASES.get(kind, kind)
    if kind not in _BEAM_KINDS:
        raise SettingError(name, f"unknown {name} {spec!r}; use default, after_watermark(early=...,late=...), "
                           f"after_count:N, after_processing_time:5s, repeatedly(...), after_any(...,...), after_all(...), "
                           f"after_each(...), orfinally(main,final){did_you_mean(kind, _BEAM_KINDS)}")
    args: list[str] = []
    if paren:
        if not rest.endswith(")"):
            raise SettingError(name, f"{name} {spec!r}: missing ')'")
        args = [a for a in _split_args(rest[:-1], name) if a]
        if kind in ("default", "after_count", "after_processing_time"):
            raise SettingError(name, f"{name} {spec!r}: {kind} takes no (...)")
    if kind == "after_count":
        if not arg.isdigit() or int(arg) <= 0:
            raise SettingError(name, f"{name} {spec!r}: after_count needs a positive count, e.g. after_count:3")
        return BeamTrigger("after_count", n=int(arg))
    if kind == "after_processing_time":
        d = duration(arg, f"{name} delay")
        if d % 1000:
            raise SettingError(name, f"{name} {spec!r}: real Beam's Python SDK (2.77) fails to build the pipeline "
                               f"with a delay of {format_duration(d)} (AfterProcessingTime takes whole seconds; "
                               f"{FRACTIONAL_DELAY}); give whole seconds")
        return BeamTrigger("after_processing_time", delay=d)
    if arg:
        raise SettingError(name, f"{name} {spec!r}: {kind} takes no ':' argument")
    if kind == "after_watermark":
        given: dict[str, BeamTrigger] = {}
        for a in args:
            k, eq, v = a.partition("=")
            if not eq or k not in ("early", "late") or k in given:
                raise SettingError(name, f"{name} {spec!r}: after_watermark takes early=... and/or late=..., got {a!r}")
            given[k] = parse_beam_trigger(v, name)
        return BeamTrigger("after_watermark", early=given.get("early"), late=given.get("late"))
    children = tuple(parse_beam_trigger(a, name) for a in args)
    if kind == "repeatedly" and len(children) != 1:
        raise SettingError(name, f"{name} {spec!r}: repeatedly takes one trigger, e.g. repeatedly(after_count:3)")
    if kind in ("after_any", "after_all", "after_each") and not children:
        raise SettingError(name, f"{name} {spec!r}: {kind} takes one or more triggers, e.g. {kind}(after_count:2,watermark)")
    if kind == "orfinally" and len(children) != 2:
        raise SettingError(name, f"{name} {spec!r}: orfinally takes two triggers (main, final)")
    if kind == "default" and children:
        raise SettingError(name, f"{name} {spec!r}: default takes no (...)")
    return BeamTrigger(kind, children=children)


__all__ = ["BeamTrigger", "parse_beam_trigger"]
