"""The oracle's watermark and valve scenario formats (``../shared/oracle/README.md`` (b), (c)).

Watermark scenario: line 1 config ``{"strategy": "bounded_out_of_orderness" | "monotonous",
"max_out_of_orderness", "idle_timeout", "interval", "start", "end", "tie",
"clock_offset_nanos"}``, then ``{"ts": E, "pt": P}`` records and ``{"tick": P}`` explicit
periodic calls. Automatic ticks at ``start + k*interval`` (k >= 1) up to ``end`` inclusive;
a tick at the same ``pt`` as a record runs after it (``records_first``) or before it
(``ticks_first``). Output: a ``generator`` line, then every raw generator call (``src:
"gen"``) followed by what the ``WatermarkEmitter`` forwards (``src: "op"``).

Valve scenario: ``{"channels": N}`` then ``{"channel": i, "watermark": w}`` or
``{"channel": i, "status": "idle"|"active"}``; output ``{"step", "type", "ts"|"status"}``.

Extra strategies of this project (``time_lag``, ``idle_advance``, ``adaptive``, ...) may be
used in watermark scenarios too (parameters as in :func:`toolkit.engine.watermarks.make_strategy`);
only Flink's own two are checked against the oracle.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from toolkit.engine.scenario import read_lines
from toolkit.engine.sources import WatermarkEmitter
from toolkit.engine.valve import StatusWatermarkValve
from toolkit.engine.watermarks import (
    BoundedOutOfOrderness,
    Monotonous,
    WatermarkStrategy,
    WithIdleness,
    make_strategy,
)

FLINK_CLASSES = {
    "bounded_out_of_orderness": "org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks",
    "monotonous": "org.apache.flink.api.common.eventtime.AscendingTimestampsWatermarks",
    "idleness": "org.apache.flink.api.common.eventtime.WatermarksWithIdleness",
}


def dumps(obj: dict[str, Any]) -> str:
    """One output line, formatted like the oracle (compact JSON, keys in insertion order)."""
    return json.dumps(obj, separators=(",", ":"))


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Read a scenario: blank lines and lines starting with ``#`` or ``//`` are ignored."""
    return read_lines(Path(path).read_text().splitlines(), str(path))


def _int(d: dict[str, Any], key: str, default: Any = None, *, required: bool = False) -> Any:
    v = d.get(key, default)
    if v is None:
        if required:
            raise ValueError(f"missing {key!r} in {dumps(d)}")
        return default
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{key!r} must be an integer in {dumps(d)}")
    return v


def strategy_from_config(cfg: dict[str, Any]) -> WatermarkStrategy:
    name = cfg.get("strategy")
    if name is None:
        raise ValueError("first line must be the config object with a 'strategy'")
    if name == "bounded_out_of_orderness":
        s: WatermarkStrategy = BoundedOutOfOrderness(_int(cfg, "max_out_of_orderness", required=True))
    elif name in ("monotonous", "ascending"):
        s = Monotonous()
    else:
        params = {k: v for k, v in cfg.items() if k in ("delay", "lag", "step", "quantile", "window", "min_delay", "max_delay", "initial_delay")}
        s = make_strategy(name, **params)
    idle = cfg.get("idle_timeout")
    if idle is not None:
        s = WithIdleness(s, _int(cfg, "idle_timeout"), _int(cfg, "clock_offset_nanos", 0))
    return s


def _class_name(s: WatermarkStrategy) -> str:
    if isinstance(s, WithIdleness):
        return FLINK_CLASSES["idleness"]
    if isinstance(s, BoundedOutOfOrderness) and not s.legacy:
        return FLINK_CLASSES["bounded_out_of_orderness"]
    if isinstance(s, Monotonous):
        return FLINK_CLASSES["monotonous"]
    return f"toolkit.engine.watermarks.{type(s).__name__}"


class _Ctx:
    def __init__(self) -> None:
        self.pt = 0
        self.cause = "periodic"
        self.index = -1
        self.lines: list[str] = []

    def add(self, src: str, typ: str, ts: int | None = None) -> None:
        o: dict[str, Any] = {"pt": self.pt, "cause": self.cause}
        if self.index >= 0:
            o["index"] = self.index
        o["src"] = src
        o["type"] = typ
        if ts is not None:
            o["ts"] = ts
        self.lines.append(dumps(o))


class _Tee:
    """Records the raw generator call, then forwards it to the real emitter."""

    def __init__(self, ctx: _Ctx, emitter: WatermarkEmitter) -> None:
        self.ctx = ctx
        self.emitter = emitter

    def emit_watermark(self, ts: int) -> None:
        self.ctx.add("gen", "watermark", ts)
        self.emitter.emit_watermark(ts)

    def mark_idle(self) -> None:
        self.ctx.add("gen", "idle")
        self.emitter.mark_idle()

    def mark_active(self) -> None:
        self.ctx.add("gen", "active")
        self.emitter.mark_active()


def run_watermark_scenario(lines: list[dict[str, Any]]) -> list[str]:
    """Run a watermark scenario (parsed lines); return the output lines."""
    cfg = lines[0]
    if "strategy" not in cfg:
        raise ValueError("first line must be the config object with a 'strategy'")
    strategy = strategy_from_config(cfg)
    gen = strategy.create()
    ctx = _Ctx()

    def downstream(kind: str, value: object) -> None:
        if kind == "watermark":
            ctx.add("op", "watermark", value)  # type: ignore[arg-type]
        else:
            ctx.add("op", str(value))

    out = _Tee(ctx, WatermarkEmitter(downstream))
    ctx.lines.append(dumps({"kind": "generator", "class": _class_name(strategy)}))

    interval = _int(cfg, "interval", 0)
    start = _int(cfg, "start", 0)
    tie = cfg.get("tie", "records_first")
    if tie not in ("records_first", "ticks_first"):
        raise ValueError(f"tie must be records_first or ticks_first, got {tie!r}")
    ticks_first = tie == "ticks_first"

    events: list[tuple[int, int, int, int]] = []  # (is_tick, pt, ts, index)
    last_pt = None
    for i, line in enumerate(lines[1:]):
        if "tick" in line:
            pt = _int(line, "tick", required=True)
            events.append((1, pt, 0, i))
        else:
            pt = _int(line, "pt", required=True)
            events.append((0, pt, _int(line, "ts", required=True), i))
        if last_pt is not None and pt < last_pt:
            raise ValueError(f"processing time goes backwards at data line {i}: {dumps(line)}")
        last_pt = pt
    end = _int(cfg, "end", start if not events else last_pt)

    def periodic(pt: int) -> None:
        ctx.pt, ctx.cause, ctx.index = pt, "periodic", -1
        gen.on_periodic_emit(pt, out)

    next_tick = start + interval if interval > 0 else None
    for is_tick, pt, ts, idx in events:
        while next_tick is not None and next_tick <= end and (next_tick < pt or (ticks_first and next_tick == pt)):
            periodic(next_tick)
            next_tick += interval
        if is_tick:
            periodic(pt)
        else:
            ctx.pt, ctx.cause, ctx.index = pt, "event", idx
            gen.on_event(ts, pt, out, bool(lines[idx + 1].get("marker", False)))
    while next_tick is not None and next_tick <= end:
        periodic(next_tick)
        next_tick += interval
    return ctx.lines


def run_valve_scenario(lines: list[dict[str, Any]]) -> list[str]:
    """Run a valve scenario (parsed lines); return the output lines."""
    cfg = lines[0]
    if "channels" not in cfg:
        raise ValueError('first line must be {"channels": N}')
    n = _int(cfg, "channels", required=True)
    out: list[str] = []
    step = [0]

    def emit(kind: str, value: object) -> None:
        if kind == "watermark":
            out.append(dumps({"step": step[0], "type": "watermark", "ts": value}))
        else:
            out.append(dumps({"step": step[0], "type": "status", "status": value}))

    valve = StatusWatermarkValve(n, emit)
    for i, line in enumerate(lines[1:]):
        step[0] = i
        ch = _int(line, "channel", required=True)
        if not 0 <= ch < n:
            raise ValueError(f"channel {ch} out of range 0..{n - 1} at data line {i}")
        if "watermark" in line:
            valve.input_watermark(ch, _int(line, "watermark", required=True))
        elif "status" in line:
            if line["status"] not in ("idle", "active"):
                raise ValueError(f"status must be idle|active: {dumps(line)}")
            valve.input_status(ch, line["status"])
        else:
            raise ValueError(f"unknown valve input: {dumps(line)}")
    return out


def run_files(kind: str, paths: Iterable[str | Path]) -> Iterable[tuple[Path, list[str]]]:
    """Expand directories (``*.jsonl`` that are not ``*.out.jsonl``) and run each scenario."""
    runner = {"watermarks": run_watermark_scenario, "valve": run_valve_scenario}[kind]
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.extend(sorted(f for f in p.glob("*.jsonl") if not f.name.endswith(".out.jsonl")))
        elif p.exists():
            files.append(p)
        else:
            raise FileNotFoundError(f"no such scenario file or directory: {p}")
    for f in files:
        try:
            yield f, runner(read_jsonl(f))
        except ValueError as exc:
            raise ValueError(f"{f}: {exc}") from None
