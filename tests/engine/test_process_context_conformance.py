"""The process function's context against real Flink 2.3: per-window state, global state,
side outputs and ``clear(ctx)`` (``tests/fixtures/process_context``: window-oracle scenario
files; the outputs come from ``ProcessContextOracle.java`` beside them, run by ``run.sh``).

The function (the same in Java and here): per-window ``firings`` (a value state counting the
window's firings), global ``elements`` (a reducing sum of element counts over the key's
windows), side output ``large`` (each value > 100) and, in ``clear``, a side output
``cleared`` with the window's ``firings`` before clearing it. Output compared line for line
(emission order across the main output and both side outputs included)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from toolkit.engine.flink import OutputTag, ProcessWindowFunction, WindowOperator
from toolkit.engine.flink.config import WindowConfig
from toolkit.engine.flink.results import SideOutput, WindowResult
from toolkit.engine.flink.scenarios.jsonl import read
from toolkit.engine.flink.scenarios.window import parse
from toolkit.engine.flink.state import UnsupportedOperationError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "process_context"
CASES = sorted(p for p in FIXTURES.glob("*.jsonl") if not p.name.endswith(".out.jsonl"))
LARGE = OutputTag("large")


def _window(w) -> dict:
    return {"start": getattr(w, "start", None), "end": getattr(w, "end", None)}


class Stateful(ProcessWindowFunction):
    def process(self, key, ctx, elements):
        firings = ctx.window_state().get_state("firings")
        n = (firings.value() or 0) + 1
        firings.update(n)
        total = ctx.global_state().get_reducing_state("elements", lambda a, b: a + b)
        for e in elements:
            if e.value > 100:
                ctx.output(LARGE, e.value)
        total.add(len(elements))
        return {"kind": "fire", "key": key, **_window(ctx.window), "firings": n, "elements": total.get(),
                "values": [e.value for e in elements], "watermark": ctx.current_watermark}

    def clear(self, ctx):
        firings = ctx.window_state().get_state("firings")
        ctx.output("cleared", {"kind": "clear", **_window(ctx.window), "firings": firings.value(),
                               "watermark": ctx.current_watermark})
        firings.clear()


def _run(path: Path) -> list[dict]:
    config, events = parse(read(path), path.name)
    cfg = WindowConfig.from_dict(config, exact_timer_order=True)
    op = WindowOperator(**{**{f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)}, "function": Stateful()})
    out: list[dict] = []

    def collect():
        for item in op.drain():
            if isinstance(item, SideOutput) and item.tag == "large":
                out.append({"kind": "side", "tag": "large", "value": item.value, "timestamp": item.timestamp})
            elif isinstance(item, SideOutput):
                out.append({**item.value, "timestamp": item.timestamp})
            elif isinstance(item, WindowResult):
                out.append(item.value)

    try:
        for ev in events:
            if ev[0] == "record":
                op.process_element(ev[1], ev[2].ts, ev[2])
            else:
                op.process_watermark(ev[1])
            collect()
        op.end_input()
        collect()
    except UnsupportedOperationError as exc:
        return [{"kind": "error", "type": "UnsupportedOperationException", "message": str(exc)}]
    return out


def test_fixture_set_covers_the_rules():
    names = {p.stem for p in CASES}
    assert {"pc01_tumbling_lateness", "pc02_count_trigger", "pc03_session_refused", "pc04_global_count"} <= names


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_process_context_matches_real_flink(path: Path):
    expected = [json.loads(line) for line in path.with_name(path.stem + ".out.jsonl").read_text().splitlines() if line]
    assert _run(path) == expected
