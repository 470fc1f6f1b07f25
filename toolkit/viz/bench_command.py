"""``python -m toolkit bench viz [--records N] [--svg]``: time the charts on a large generated log.

Generates a log with numpy and a replay-shaped result, then builds each chart and its JSON
spec; prints seconds, spec size and rows embedded per chart.
"""
from __future__ import annotations


def run(args) -> int:
    from toolkit.cli import UserError
    from toolkit.viz.bench import run as bench

    if args.records < 1:
        raise UserError(f"--records must be positive, got {args.records}")
    rows = bench(args.records, args.seed, svg=getattr(args, "svg", False))
    for r in rows:
        extra = f"  svg {r['svg_seconds']:.2f} s" if "svg_seconds" in r else ""
        print(f"{r['chart']:<44} {r['seconds']:7.2f} s  spec {r['spec_bytes'] / 1e3:8.1f} kB  "
              f"rows {r['rows_embedded']:>6,}{extra}")
    return 0
