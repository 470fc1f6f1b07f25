"""``python -m toolkit bench-viz [--records N]``: time the charts on a large generated log."""
from __future__ import annotations

import argparse


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "bench-viz",
        help="time every record-level chart on a generated log (default 10,000,000 records)",
        description="Generate a log with numpy and a replay-shaped result, then build each chart and its "
        "JSON spec; prints seconds, spec size and rows embedded per chart.",
    )
    p.add_argument("--records", type=int, default=10_000_000, help="records to generate (default 10,000,000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--svg", action="store_true", help="also time drawing each chart to SVG with vl-convert")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolkit.cli import UserError
    from toolkit.viz.bench import run as bench

    if args.records < 1:
        raise UserError(f"--records must be positive, got {args.records}")
    rows = bench(args.records, args.seed, svg=args.svg)
    for r in rows:
        extra = f"  svg {r['svg_seconds']:.2f} s" if "svg_seconds" in r else ""
        print(f"{r['chart']:<44} {r['seconds']:7.2f} s  spec {r['spec_bytes'] / 1e3:8.1f} kB  "
              f"rows {r['rows_embedded']:>6,}{extra}")
    return 0
