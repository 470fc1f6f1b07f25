"""Window scenarios (oracle format (a)): the conformance contract with real Flink's window
operator.

A scenario is a config object (``WindowConfig.from_dict``), then ``{"record": {"key", "ts",
"value", ...}}`` and ``{"watermark": w}`` lines in arrival order. :func:`run` returns the
lines the oracle's job prints, in emission order: the function's ``{"kind": "fire", ...}``
for each firing and ``{"kind": "late", "key", "ts", "value"}`` for each late record; at the
end the ``MAX_TIMESTAMP`` watermark unless ``"final_watermark": false`` (then, as in the
oracle's job, a ``MAX_TIMESTAMP`` watermark line of the scenario is swallowed too).

Keys are strings (other JSON scalars are stringified as Jackson's ``asText`` does:
``jsonl.key_text``); ts and value are integers (``jsonl.as_int``; optional integer fields
``jsonl.get_int``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config import Element, WindowConfig
from ..operator import WindowOperator
from ..results import LateRecord
from ..windows import MAX_TIMESTAMP
from .jsonl import as_bool, as_int, get_int, key_text, read

__all__ = ["parse", "build_operator", "run_scenario", "run", "run_file", "Element"]


def _req(obj: dict, name: str, where: str) -> Any:
    if obj.get(name) is None:
        raise ValueError(f"{where}: missing {name!r}")
    return obj[name]


def parse(objs: list[Any], where: str = "scenario") -> tuple[dict, list]:
    """A scenario's JSON objects -> ``(config, events)``; an event is ``("record", key,
    Element)`` or ``("watermark", w)``."""
    config = objs[0] if objs else None
    if not isinstance(config, dict) or "assigner" not in config:
        raise ValueError(f"{where}: first line must be the config object")
    gap_field = (config.get("assigner") or {}).get("gap_field", "gap")
    events: list = []
    for o in objs[1:]:
        if isinstance(o, dict) and "record" in o:
            r = o["record"]
            if not isinstance(r, dict) or r.get("key") is None:
                raise ValueError(f"{where}: record without key: {o}")
            ts = as_int(_req(r, "ts", where), f"{where}: record ts")
            value = as_int(_req(r, "value", where), f"{where}: record value")
            gap = get_int(r, gap_field, 0)
            events.append(("record", key_text(r["key"]), Element(value, ts, gap)))
        elif isinstance(o, dict) and "watermark" in o:
            events.append(("watermark", as_int(o["watermark"], f"{where}: watermark")))
        else:
            raise ValueError(f"{where}: unknown line: {o}")
    return config, events


def build_operator(config: dict, exact_timer_order: bool | None = True) -> WindowOperator:
    """The operator a scenario config describes (``ValueError`` for a bad config).

    ``exact_timer_order=True`` (default): the general path with Flink's timer heap, which
    reproduces Flink's output order across keys too; ``None``: the fastest operator class
    (same output per key)."""
    return WindowConfig.from_dict(config, exact_timer_order=exact_timer_order).build()


def run_scenario(config: dict, events: list, exact_timer_order: bool | None = True) -> list[dict]:
    """Run a parsed scenario; the output objects in emission order."""
    op = build_operator(config, exact_timer_order)
    out: list[dict] = []

    def collect() -> None:
        for item in op.drain():
            if isinstance(item, LateRecord):
                out.append({"kind": "late", "key": item.key, "ts": item.timestamp, "value": item.value.value})
            else:
                out.append(item.value)

    final = as_bool(config.get("final_watermark"), True)
    for ev in events:
        if ev[0] == "record":
            _, key, el = ev
            op.process_element(key, el.ts, el)
        elif final or ev[1] != MAX_TIMESTAMP:
            # without the final watermark the oracle's job swallows every Long.MAX watermark,
            # a scenario's own too (its DropMaxWatermark operator; fixture i64_004)
            op.process_watermark(ev[1])
        collect()
    if final:
        op.end_input()
        collect()
    return out


def run(objs: list[Any], exact_timer_order: bool | None = True, where: str = "scenario") -> list[dict]:
    """Run a window scenario given as its JSON objects."""
    config, events = parse(objs, where)
    return run_scenario(config, events, exact_timer_order)


def run_file(path: str | Path, exact_timer_order: bool | None = True) -> list[dict]:
    """Read and run the window scenario at ``path``."""
    return run(read(path), exact_timer_order, Path(path).name)
