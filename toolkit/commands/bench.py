"""``python -m toolkit bench NAME``: benchmarks (not timed tests).

Benchmarks live in :mod:`toolkit.bench`, one module per benchmark, named by the module
(``BENCHMARKS``: name -> module); each module's ``run(args) -> int`` takes the parsed arguments and
prints its figures. Add yours with a module there.
"""
from __future__ import annotations

import importlib
import pkgutil

import toolkit.bench

#: every public module of toolkit.bench is a benchmark of its name
BENCHMARKS: dict[str, str] = {m.name: f"toolkit.bench.{m.name}" for m in pkgutil.iter_modules(toolkit.bench.__path__)
                              if not m.name.startswith("_")}


def register(subparsers) -> None:
    p = subparsers.add_parser("bench", help="run a benchmark: " + ", ".join(sorted(BENCHMARKS)))
    p.add_argument("name", choices=sorted(BENCHMARKS), help="which benchmark")
    p.add_argument("--records", type=int, default=None,
                   help="records per run (default 1,000,000; beam: 2,000, real Beam is slow)")
    p.add_argument("--keys", type=int, default=1000, help="distinct keys (default 1000)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--only", default=None, help="comma-separated sub-cases to run (default: all)")
    p.add_argument("--svg", action="store_true", help="viz: also time drawing each chart to SVG")
    p.add_argument("--gap", default="200ms", help="sessions: the session gap (default 200ms)")
    p.add_argument("--json", default=None, metavar="FILE",
                   help="sweep: also write the figures to FILE as JSON (seconds, ratios, checks, load average)")
    p.add_argument("--engine-records", type=int, default=None,
                   help="sessions: run the engine path on the first N records only (default: all)")
    p.add_argument("--no-beam", action="store_true",
                   help="beam: time our replay alone, without real Beam (which is slow: a few ms per record)")
    p.add_argument("--no-replay", action="store_true",
                   help="kafka_streams: time the fast path alone, without the replay's path")
    p.set_defaults(func=run)


#: benchmarks that write their figures as JSON with ``--json FILE``
JSON_BENCHMARKS = ("sweep",)


def run(args) -> int:
    if getattr(args, "json", None) and args.name not in JSON_BENCHMARKS:
        raise ValueError(f"--json: only {', '.join('bench ' + b for b in JSON_BENCHMARKS)} writes JSON "
                         f"(bench {args.name} prints its figures)")
    module = importlib.import_module(BENCHMARKS[args.name])
    if args.records is None:  # a benchmark may have a smaller default of its own
        args.records = getattr(module, "DEFAULT_RECORDS", 1_000_000)
    return int(module.run(args) or 0)
