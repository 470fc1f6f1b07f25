"""Beam scenario files (format: oracles/beam/README.md): a WindowInto configuration and a
TestStream-like list of events, in milliseconds; run through :class:`GroupByKeyStep` with the
Python SDK's timestamp granularity (1 µs), so panes carry the same output timestamps real
Beam gives them (``timestamp_us``)."""
from __future__ import annotations

from dataclasses import dataclass

from .driver import ACCUMULATING, Windowing
from .pane import Pane
from .runner import GroupByKeyStep
from .timestamp_combiners import TimestampCombiner
from .triggers import trigger_from_spec
from .windows import FixedWindows, Sessions, SlidingWindows

#: ticks per millisecond: Beam's Python SDK counts time in microseconds
US_PER_MS = 1000


def _int(d: dict, key: str, where: str, default=None) -> int:
    v = d.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"{where}: '{key}' must be an integer number of milliseconds, got {v!r}")
    return v


def window_fn_from_spec(spec: dict, ticks_per_ms: int = US_PER_MS):
    """FixedWindows / SlidingWindows / Sessions from ``{"type", "size"|"period"|"gap", "offset"}``."""
    if not isinstance(spec, dict):
        raise ValueError(f"window must be an object, got {spec!r}")
    kind = spec.get("type")
    k = ticks_per_ms
    if kind == "fixed":
        return FixedWindows(_int(spec, "size", "window") * k, _int(spec, "offset", "window", 0) * k)
    if kind == "sliding":
        return SlidingWindows(_int(spec, "size", "window") * k, _int(spec, "period", "window") * k,
                              _int(spec, "offset", "window", 0) * k)
    if kind == "sessions":
        return Sessions(_int(spec, "gap", "window") * k)
    raise ValueError(f"window type must be 'fixed', 'sliding' or 'sessions', got {kind!r}")


@dataclass(frozen=True)
class BeamScenario:
    """A parsed scenario: its windowing and its events (times in ticks)."""

    name: str
    windowing: Windowing
    events: tuple

    @classmethod
    def from_dict(cls, case: dict, ticks_per_ms: int = US_PER_MS) -> "BeamScenario":
        k = ticks_per_ms
        windowing = Windowing(
            window_fn=window_fn_from_spec(case.get("window"), k),
            trigger=trigger_from_spec(case.get("trigger"), ticks_per_ms=k),
            allowed_lateness=_int(case, "allowed_lateness_ms", "scenario", 0) * k,
            accumulation=case.get("accumulation", ACCUMULATING),
            timestamp_combiner=TimestampCombiner(case.get("timestamp_combiner", "end_of_window")))
        events: list[tuple] = []
        for i, ev in enumerate(case.get("events", [])):
            where = f"events[{i}]"
            if "element" in ev:
                e = ev["element"]
                events.append(("element", str(e["key"]), e["value"], _int(e, "ts", where) * k))
            elif "watermark" in ev:
                events.append(("watermark", _int(ev, "watermark", where) * k))
            elif "processing_time_advance" in ev:
                events.append(("processing_time", _int(ev, "processing_time_advance", where) * k))
            else:
                raise ValueError(f"{where}: expected 'element', 'watermark' or "
                                 f"'processing_time_advance', got {sorted(ev)}")
        return cls(str(case.get("name", "")), windowing, tuple(events))


def run_events(step: GroupByKeyStep, events) -> list[list[Pane]]:
    """Feed the events; the panes each one produced (the end of input adds one more list)."""
    out = []
    for ev in events:
        if ev[0] == "element":
            out.append(step.element(ev[1], ev[2], ev[3]))
        elif ev[0] == "watermark":
            out.append(step.advance_watermark(ev[1]))
        else:
            out.append(step.advance_processing_time(ev[1]))
    out.append(step.finish())
    return out


def pane_record(p: Pane, ticks_per_ms: int = US_PER_MS) -> dict:
    """A pane as the oracle records it."""
    return {"key": p.key, "window": [p.window_start // ticks_per_ms, p.window_end // ticks_per_ms],
            "timestamp_us": p.timestamp * (1000 // ticks_per_ms), "timing": p.pane.timing,
            "is_first": p.pane.is_first, "is_last": p.pane.is_last, "index": p.pane.index,
            "nonspeculative_index": p.pane.nonspeculative_index, "values": list(p.values),
            "count": len(p.values), "sum": sum(p.values)}


def run_scenario(case: dict) -> tuple[list[dict], bool, GroupByKeyStep]:
    """Run a scenario dict: (panes as records in emission order, stalled, the step)."""
    sc = BeamScenario.from_dict(case)
    step = GroupByKeyStep(sc.windowing)
    run_events(step, sc.events)
    return [pane_record(p) for p in step.panes], step.stalled, step
