"""``WatermarkOutputMultiplexer`` scenarios (oracle format (d)).

Line 1 ``{"outputs": ["0", "1"]}`` (split ids registered at the start), then
``{"output": id, "kind": "immediate"|"deferred", "watermark": W}``, ``{"output": id, "kind":
..., "status": "idle"|"active"}``, ``{"periodic": true}``, ``{"register": id}``,
``{"unregister": id}``. Output: ``{"step", "type": "watermark", "ts"}``, ``{"step", "type":
"status", "status": "idle"}`` for everything the multiplexer emits and ``{"step", "type":
"unregistered", "removed"}`` for each unregister, ``step`` being the data line's index.
Ids are read like the oracle reads them (Jackson ``asText``: a number ``0`` is the id
``"0"``); ``kind`` defaults to ``immediate``. Which key decides a line's type follows the
oracle's order: ``register``, ``unregister``, ``periodic``, ``output``.
"""
from __future__ import annotations

from typing import Any

from ..sources import WatermarkOutputMultiplexer
from .jsonl import StepOutput, dumps
from .jsonl import get_int

__all__ = ["run"]


def _id(v: Any, where: str) -> str:
    """A split id as Jackson's ``asText`` gives it (strings as they are, scalars as JSON)."""
    if isinstance(v, str):
        return v
    if v is None or isinstance(v, (bool, int, float)):
        return "null" if v is None else dumps(v)
    raise ValueError(f"{where}: a split id must be a string or a number, got {dumps(v)}")


def run(lines: list[Any]) -> list[dict[str, Any]]:
    """Run a multiplexer scenario given as its JSON objects; the output lines as dicts."""
    cfg = lines[0]
    if not isinstance(cfg, dict) or "outputs" not in cfg or not isinstance(cfg["outputs"], list):
        raise ValueError('first line must be {"outputs": ["id", ...]}')
    out = StepOutput()
    mux = WatermarkOutputMultiplexer(out)
    for v in cfg["outputs"]:
        mux.register(_id(v, "outputs"))
    for i, line in enumerate(lines[1:]):
        out.step = i
        if not isinstance(line, dict):
            raise ValueError(f"data line {i} is not an object: {dumps(line)}")
        if "register" in line:
            mux.register(_id(line["register"], f"data line {i}"))
        elif "unregister" in line:
            removed = mux.unregister(_id(line["unregister"], f"data line {i}"))
            out.lines.append({"step": i, "type": "unregistered", "removed": removed})
        elif "periodic" in line:
            mux.on_periodic_emit()
        elif "output" in line:
            split = _id(line["output"], f"data line {i}")
            kind = line.get("kind")
            kind = "immediate" if kind is None else kind
            if kind == "immediate":
                o = mux.immediate_output(split)
            elif kind == "deferred":
                o = mux.deferred_output(split)
            else:
                raise ValueError(f"kind must be immediate|deferred: {dumps(line)}")
            if "watermark" in line:
                o.emit_watermark(get_int(line, "watermark", required=True))
            elif "status" in line:
                if line["status"] == "idle":
                    o.mark_idle()
                elif line["status"] == "active":
                    o.mark_active()
                else:
                    raise ValueError(f"status must be idle|active: {dumps(line)}")
            else:
                raise ValueError(f"output line needs watermark or status: {dumps(line)}")
        else:
            raise ValueError(f"unknown multiplexer input: {dumps(line)}")
    return out.lines
