"""Watermark-generator scenarios (oracle format (b)).

Line 1 is the config ``{"strategy": "bounded_out_of_orderness" | "monotonous",
"max_out_of_orderness", "idle_timeout", "interval", "start", "end", "tie",
"clock_offset_nanos"}``, then ``{"ts": E, "pt": P}`` records and ``{"tick": P}`` explicit
periodic calls. Automatic ticks at ``start + k*interval`` (k >= 1) up to ``end`` inclusive;
a tick at the same ``pt`` as a record runs after it (``records_first``) or before it
(``ticks_first``). Output: a ``generator`` line, then every raw generator call (``src:
"gen"``) followed by what the ``WatermarkEmitter`` forwards (``src: "op"``).

Extra strategies of this project (``time_lag``, ``idle_advance``, ``adaptive``, ...) may be
used too (parameters as in :func:`toolkit.engine.flink.watermarks.make_strategy`); only Flink's
own two are checked against the oracle. Watermark side only: no window operator here.
"""
from __future__ import annotations

from typing import Any

from ..sources import WatermarkEmitter
from ..watermarks import BoundedOutOfOrderness, Monotonous, WatermarkStrategy, WithIdleness, make_strategy
from .jsonl import dumps, get_int

__all__ = ["run", "strategy_from_config", "FLINK_CLASSES", "get_int"]

FLINK_CLASSES = {
    "bounded_out_of_orderness": "org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks",
    "monotonous": "org.apache.flink.api.common.eventtime.AscendingTimestampsWatermarks",
    "idleness": "org.apache.flink.api.common.eventtime.WatermarksWithIdleness",
}

_STRATEGY_PARAMS = ("delay", "lag", "step", "quantile", "window", "min_delay", "max_delay", "initial_delay")


def strategy_from_config(cfg: dict[str, Any]) -> WatermarkStrategy:
    """The strategy a watermark-scenario config names."""
    name = cfg.get("strategy")
    if name is None:
        raise ValueError("first line must be the config object with a 'strategy'")
    if name == "bounded_out_of_orderness":
        s: WatermarkStrategy = BoundedOutOfOrderness(get_int(cfg, "max_out_of_orderness", required=True))
    elif name in ("monotonous", "ascending"):
        s = Monotonous()
    else:
        s = make_strategy(name, **{k: v for k, v in cfg.items() if k in _STRATEGY_PARAMS})
    if cfg.get("idle_timeout") is not None:
        s = WithIdleness(s, get_int(cfg, "idle_timeout"), get_int(cfg, "clock_offset_nanos", 0))
    return s


def _class_name(s: WatermarkStrategy) -> str:
    if isinstance(s, WithIdleness):
        return FLINK_CLASSES["idleness"]
    if isinstance(s, BoundedOutOfOrderness) and not s.legacy:
        return FLINK_CLASSES["bounded_out_of_orderness"]
    if isinstance(s, Monotonous):
        return FLINK_CLASSES["monotonous"]
    return f"toolkit.engine.flink.watermarks.{type(s).__name__}"


class _Recorder:
    """Collects output lines; ``pt``, ``cause`` and ``index`` describe the current call."""

    def __init__(self) -> None:
        self.pt = 0
        self.cause = "periodic"
        self.index = -1
        self.lines: list[dict[str, Any]] = []

    def add(self, src: str, typ: str, ts: int | None = None) -> None:
        o: dict[str, Any] = {"pt": self.pt, "cause": self.cause}
        if self.index >= 0:
            o["index"] = self.index
        o["src"] = src
        o["type"] = typ
        if ts is not None:
            o["ts"] = ts
        self.lines.append(o)


class _Tee:
    """Records the raw generator call, then forwards it to the real emitter."""

    def __init__(self, rec: _Recorder, emitter: WatermarkEmitter) -> None:
        self.rec = rec
        self.emitter = emitter

    def emit_watermark(self, ts: int) -> None:
        self.rec.add("gen", "watermark", ts)
        self.emitter.emit_watermark(ts)

    def mark_idle(self) -> None:
        self.rec.add("gen", "idle")
        self.emitter.mark_idle()

    def mark_active(self) -> None:
        self.rec.add("gen", "active")
        self.emitter.mark_active()


def run(lines: list[Any]) -> list[dict[str, Any]]:
    """Run a watermark scenario given as its JSON objects; the output lines as dicts."""
    cfg = lines[0]
    if not isinstance(cfg, dict) or "strategy" not in cfg:
        raise ValueError("first line must be the config object with a 'strategy'")
    strategy = strategy_from_config(cfg)
    gen = strategy.create()
    rec = _Recorder()

    def downstream(kind: str, value: object) -> None:
        if kind == "watermark":
            rec.add("op", "watermark", value)  # type: ignore[arg-type]
        else:
            rec.add("op", str(value))

    out = _Tee(rec, WatermarkEmitter(downstream))
    rec.lines.append({"kind": "generator", "class": _class_name(strategy)})

    interval = get_int(cfg, "interval", 0)
    start = get_int(cfg, "start", 0)
    tie = cfg.get("tie", "records_first")
    if tie not in ("records_first", "ticks_first"):
        raise ValueError(f"tie must be records_first or ticks_first, got {tie!r}")
    ticks_first = tie == "ticks_first"

    events: list[tuple[int, int, int, int]] = []  # (is_tick, pt, ts, index)
    last_pt = None
    for i, line in enumerate(lines[1:]):
        if not isinstance(line, dict):
            raise ValueError(f"data line {i} is not an object: {dumps(line)}")
        if "tick" in line:
            pt = get_int(line, "tick", required=True)
            events.append((1, pt, 0, i))
        else:
            pt = get_int(line, "pt", required=True)
            events.append((0, pt, get_int(line, "ts", required=True), i))
        if last_pt is not None and pt < last_pt:
            raise ValueError(f"processing time goes backwards at data line {i}: {dumps(line)}")
        last_pt = pt
    end = get_int(cfg, "end", start if not events else last_pt)

    def periodic(pt: int) -> None:
        rec.pt, rec.cause, rec.index = pt, "periodic", -1
        gen.on_periodic_emit(pt, out)

    next_tick = start + interval if interval > 0 else None
    for is_tick, pt, ts, idx in events:
        while next_tick is not None and next_tick <= end and (next_tick < pt or (ticks_first and next_tick == pt)):
            periodic(next_tick)
            next_tick += interval
        if is_tick:
            periodic(pt)
        else:
            rec.pt, rec.cause, rec.index = pt, "event", idx
            gen.on_event(ts, pt, out, bool(lines[idx + 1].get("marker", False)))
    while next_tick is not None and next_tick <= end:
        periodic(next_tick)
        next_tick += interval
    return rec.lines
