"""Scenario runner: the conformance contract with the real-Flink oracle.

A scenario is JSON lines: a config object, then ``{"record": {"key", "ts", "value", ...}}`` and
``{"watermark": w}`` lines in arrival order (format: the oracle's README). ``run_scenario``
returns the output lines the oracle's job would print: ``{"kind":"fire",...}`` for each firing
and ``{"kind":"late",...}`` for each late record, in emission order.

Engine layer: json and the standard library only.
"""
from __future__ import annotations

import json
import os
from typing import Any, Iterable, NamedTuple

from .assigners import (
    DynamicEventTimeSessionWindows,
    EventTimeSessionWindows,
    GlobalWindows,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    SlidingProcessingTimeWindows,
    ProcessingTimeSessionWindows,
)
from .evictors import CountEvictor, TimeEvictor
from .functions import AggregateFunction, ProcessWindowFunction, ReduceFunction
from .operator import LateRecord, WindowOperator
from .triggers import (
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    CountTrigger,
    EndOfStreamTrigger,
    EventTimeTrigger,
    NeverTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
)
from .windows import GlobalWindow

CONFIG_KEYS = {
    "assigner", "trigger", "evictor", "allowed_lateness", "side_output_late", "function",
    "emit_timestamps", "final_watermark",
}


class Element(NamedTuple):
    """A scenario record as the window sees it (``cnt`` is summed by the reduce function)."""

    value: int
    ts: int
    gap: int
    cnt: int = 1


def _req(obj: dict, name: str, where: str) -> Any:
    if not isinstance(obj, dict) or name not in obj or obj[name] is None:
        raise ValueError(f"{where}: missing {name!r}")
    return obj[name]


def _long(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{where}: expected an integer, got {v!r}")
    return int(v)


def build_assigner(a: dict):
    if not isinstance(a, dict):
        raise ValueError(f"assigner must be an object, got {a!r}")
    t = a.get("type")
    if t is None:
        raise ValueError("assigner.type missing")
    if t in ("tumbling", "tumbling_processing_time"):
        cls = TumblingEventTimeWindows if t == "tumbling" else TumblingProcessingTimeWindows
        return cls(_long(_req(a, "size", "assigner"), "assigner.size"), _long(a.get("offset", 0), "assigner.offset"))
    if t in ("sliding", "sliding_processing_time"):
        cls = SlidingEventTimeWindows if t == "sliding" else SlidingProcessingTimeWindows
        return cls(_long(_req(a, "size", "assigner"), "assigner.size"),
                   _long(_req(a, "slide", "assigner"), "assigner.slide"),
                   _long(a.get("offset", 0), "assigner.offset"))
    if t in ("session", "session_processing_time"):
        cls = EventTimeSessionWindows if t == "session" else ProcessingTimeSessionWindows
        return cls(_long(_req(a, "gap", "assigner"), "assigner.gap"))
    if t == "dynamic_session":
        return DynamicEventTimeSessionWindows(lambda e: e.gap)
    if t == "global":
        return GlobalWindows(end_of_stream=bool(a.get("end_of_stream_trigger", False)))
    raise ValueError(f"unknown assigner type: {t!r}")


def build_trigger(t: Any, top_level: bool = True):
    """None for the assigner's default trigger."""
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
    if typ == "event_time":
        return EventTimeTrigger()
    if typ == "processing_time":
        return ProcessingTimeTrigger()
    if typ == "count":
        return CountTrigger(_long(_req(t, "count", "trigger"), "trigger.count"))
    if typ == "continuous_event_time":
        return ContinuousEventTimeTrigger(_long(_req(t, "interval", "trigger"), "trigger.interval"))
    if typ == "continuous_processing_time":
        return ContinuousProcessingTimeTrigger(_long(_req(t, "interval", "trigger"), "trigger.interval"))
    if typ == "purging":
        return PurgingTrigger(build_trigger(t.get("inner"), top_level=False))
    if typ == "never":
        return NeverTrigger()
    if typ == "end_of_stream":
        return EndOfStreamTrigger()
    raise ValueError(f"unknown trigger type: {typ!r}")


def build_evictor(e: Any):
    if e is None:
        return None
    if not isinstance(e, dict):
        raise ValueError(f"evictor must be an object or null, got {e!r}")
    typ = e.get("type")
    after = bool(e.get("after", False))
    if typ == "count":
        return CountEvictor(_long(_req(e, "max", "evictor"), "evictor.max"), after)
    if typ == "time":
        return TimeEvictor(_long(_req(e, "keep", "evictor"), "evictor.keep"), after)
    raise ValueError(f"unknown evictor type: {typ!r}")


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


class _CountSum(AggregateFunction):
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


class _EmitReduced(ProcessWindowFunction):
    def process(self, key, ctx, elements):
        o = _window_fields(key, ctx.window)
        o["values"] = None
        r = elements[0] if elements else None
        o["count"] = r.cnt if r is not None else 0
        o["sum"] = r.value if r is not None else 0
        o["watermark"] = ctx.current_watermark
        return o


def build_operator(config: dict, exact_timer_order: bool | None = True) -> WindowOperator:
    """The window operator a scenario config describes (``ValueError`` for a bad config).

    ``exact_timer_order=True`` (default) reproduces Flink's output order across keys too;
    ``None`` lets the operator pick its faster timer queue (same output per key)."""
    if not isinstance(config, dict) or "assigner" not in config:
        raise ValueError("the first line must be the config object (with an 'assigner')")
    assigner = build_assigner(config["assigner"])
    trigger = build_trigger(config.get("trigger"))
    evictor = build_evictor(config.get("evictor"))
    lateness = _long(config.get("allowed_lateness", 0) or 0, "allowed_lateness")
    fn_name = config.get("function", "process") or "process"
    if fn_name == "process":
        function = _EmitAll(bool(config.get("emit_timestamps", False)))
    elif fn_name == "aggregate":
        function = _CountSum(process=_EmitAgg())
    elif fn_name == "reduce":
        function = ReduceFunction(_sum_reduce, process=_EmitReduced())
    else:
        raise ValueError(f"unknown function: {fn_name!r}")
    return WindowOperator(
        assigner,
        trigger=trigger,
        evictor=evictor,
        allowed_lateness=lateness,
        function=function,
        side_output_late=bool(config.get("side_output_late", True)),
        exact_timer_order=exact_timer_order,
    )


def _key_text(k: Any) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, bool):
        return "true" if k else "false"
    return str(k)


def read_lines(lines: Iterable[str], where: str = "scenario") -> list[Any]:
    """JSON objects of a scenario file (any of the oracle's formats), one per line; blank lines
    and lines starting with ``#`` or ``//`` are skipped, as the oracle does."""
    objs = []
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#") or s.startswith("//"):
            continue
        try:
            objs.append(json.loads(s))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: line {n} is not JSON: {exc}") from None
    if not objs:
        raise ValueError(f"{where}: empty scenario")
    return objs


def parse_lines(lines: Iterable[str], where: str = "scenario") -> tuple[dict, list]:
    """Parse scenario JSON lines into ``(config, events)``; blank and ``#``/``//`` lines skipped."""
    objs = read_lines(lines, where)
    config = objs[0]
    if not isinstance(config, dict) or "assigner" not in config:
        raise ValueError(f"{where}: first line must be the config object")
    gap_field = (config.get("assigner") or {}).get("gap_field", "gap")
    events = []
    for o in objs[1:]:
        if isinstance(o, dict) and "record" in o:
            r = o["record"]
            if not isinstance(r, dict) or r.get("key") is None:
                raise ValueError(f"{where}: record without key: {o}")
            ts = _long(_req(r, "ts", where), f"{where}: record ts")
            value = _long(_req(r, "value", where), f"{where}: record value")
            gap = r.get(gap_field, 0)
            events.append(("record", _key_text(r["key"]), Element(value, ts, int(gap or 0))))
        elif isinstance(o, dict) and "watermark" in o:
            events.append(("watermark", _long(o["watermark"], f"{where}: watermark")))
        else:
            raise ValueError(f"{where}: unknown line: {o}")
    return config, events


def run_scenario(config: dict, events: list, exact_timer_order: bool | None = True) -> list[dict]:
    """Run a parsed scenario; returns the output objects in emission order."""
    op = build_operator(config, exact_timer_order)
    out: list[dict] = []

    def collect():
        for item in op.drain():
            if isinstance(item, LateRecord):
                out.append({"kind": "late", "key": item.key, "ts": item.timestamp, "value": item.value.value})
            else:
                out.append(item.value)

    for ev in events:
        if ev[0] == "record":
            _, key, el = ev
            op.process_element(key, el.ts, el)
        else:
            op.process_watermark(ev[1])
        collect()
    if config.get("final_watermark", True):
        op.end_input()
        collect()
    return out


def run_file(path: str, exact_timer_order: bool | None = True) -> list[dict]:
    with open(path) as f:
        config, events = parse_lines(f, where=os.path.basename(path))
    return run_scenario(config, events, exact_timer_order)


def dumps(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"))


def scenario_files(paths: Iterable[str]) -> list[str]:
    """Expand directories to their ``*.jsonl`` files (not ``*.out.jsonl``), sorted."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            out.extend(sorted(os.path.join(p, n) for n in os.listdir(p)
                              if n.endswith(".jsonl") and not n.endswith(".out.jsonl")))
        else:
            out.append(p)
    return out
