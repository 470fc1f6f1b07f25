"""``python -m toolkit bench NAME``: benchmarks (not timed tests).

Sub-benchmarks are registered in ``BENCHMARKS`` (name -> ``"module:function"``); each function
takes the parsed arguments and prints its figures. Add yours with one line.
"""
from __future__ import annotations

import importlib

BENCHMARKS: dict[str, str] = {
    "engine": "toolkit.bench_engine:run",
    "replay": "toolkit.bench_replay:run",
    "sweep": "toolkit.bench_sweep:run",
    "log": "toolkit.log.bench:run",
    "viz": "toolkit.viz.bench_command:run",
}


def register(subparsers) -> None:
    p = subparsers.add_parser("bench", help="run a benchmark: " + ", ".join(sorted(BENCHMARKS)))
    p.add_argument("name", choices=sorted(BENCHMARKS), help="which benchmark")
    p.add_argument("--records", type=int, default=1_000_000, help="records per run (default 1,000,000)")
    p.add_argument("--keys", type=int, default=1000, help="distinct keys (default 1000)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--only", default=None, help="comma-separated sub-cases to run (default: all)")
    p.add_argument("--svg", action="store_true", help="viz: also time drawing each chart to SVG")
    p.set_defaults(func=run)


def run(args) -> int:
    module, _, fn = BENCHMARKS[args.name].partition(":")
    return int(getattr(importlib.import_module(module), fn)(args) or 0)
