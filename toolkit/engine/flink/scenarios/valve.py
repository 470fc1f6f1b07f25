"""``StatusWatermarkValve`` scenarios (oracle format (c)).

``{"channels": N}``, then ``{"channel": i, "watermark": w}`` or ``{"channel": i, "status":
"idle" | "active"}`` lines; output ``{"step", "type": "watermark", "ts"}`` or ``{"step",
"type": "status", "status"}`` for everything the valve forwards, ``step`` being the input
line's index. Watermark side only: no window operator here.
"""
from __future__ import annotations

from typing import Any

from ..valve import StatusWatermarkValve
from .jsonl import StepOutput, dumps
from .jsonl import get_int

__all__ = ["run"]


def run(lines: list[Any]) -> list[dict[str, Any]]:
    """Run a valve scenario given as its JSON objects; the output lines as dicts."""
    cfg = lines[0]
    if not isinstance(cfg, dict) or "channels" not in cfg:
        raise ValueError('first line must be {"channels": N}')
    n = get_int(cfg, "channels", required=True)
    out = StepOutput()
    valve = StatusWatermarkValve(n, out)
    for i, line in enumerate(lines[1:]):
        out.step = i
        if not isinstance(line, dict):
            raise ValueError(f"data line {i} is not an object: {dumps(line)}")
        ch = get_int(line, "channel", required=True)
        if not 0 <= ch < n:
            raise ValueError(f"channel {ch} out of range 0..{n - 1} at data line {i}")
        if "watermark" in line:
            valve.input_watermark(ch, get_int(line, "watermark", required=True))
        elif "status" in line:
            if line["status"] not in ("idle", "active"):
                raise ValueError(f"status must be idle|active: {dumps(line)}")
            valve.input_status(ch, line["status"])
        else:
            raise ValueError(f"unknown valve input: {dumps(line)}")
    return out.lines
