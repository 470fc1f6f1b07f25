"""``python -m toolkit describe LOG``: load an event log and print what it looks like."""
from __future__ import annotations

import argparse


def add_log_arguments(p: argparse.ArgumentParser) -> None:
    """The column-mapping and loading options shared by commands that read a log."""
    g = p.add_argument_group("reading the log")
    g.add_argument("--event-time", default="event_time", metavar="COL", help="event-time column (default event_time)")
    g.add_argument("--arrival-time", default="auto", metavar="COL",
                   help="arrival-time column (default: 'arrival_time' if present; 'none' to ignore)")
    g.add_argument("--key", default="auto", metavar="COL", help="key column (default: 'key' if present; 'none')")
    g.add_argument("--partition", default="auto", metavar="COL",
                   help="source partition column (default: 'partition' if present; 'none')")
    g.add_argument("--value", default="auto", metavar="COL", help="value column (default: 'value' if present; 'none')")
    g.add_argument("--time-unit", default="ms", choices=["s", "ms", "us", "ns"],
                   help="unit of epoch numbers in time columns (default ms)")
    g.add_argument("--format", choices=["csv", "parquet", "jsonl"], help="file format (default: from the suffix)")
    g.add_argument("--max-invalid-fraction", type=float, default=0.0, metavar="F",
                   help="quarantine up to this share of bad rows instead of failing (default 0)")
    g.add_argument("--spark", action="store_true", help="load and describe in Spark (local[*] or $SPARK_MASTER)")


UNUSED_HINT = "map them with --event-time, --arrival-time, --key, --partition or --value"


def load_from_args(args: argparse.Namespace, *, note: bool = True):
    """Load the log the column options describe; columns no option mapped are named on stderr."""
    import sys

    import toolkit

    def col(v):
        return None if v is None or str(v).lower() == "none" else v

    spark = None
    if getattr(args, "spark", False):
        from toolkit.spark import spark_session

        spark = spark_session()
    from toolkit.log.errors import MissingColumnError

    try:
        log = toolkit.load_log(
            args.log,
            event_time=args.event_time,
            arrival_time=col(args.arrival_time),
            key=col(args.key),
            partition=col(args.partition),
            value=col(args.value),
            time_unit=args.time_unit,
            max_invalid_fraction=args.max_invalid_fraction,
            format=args.format,
            spark=spark,
        )
    except MissingColumnError as exc:  # name the option the user typed
        role = getattr(exc, "role", None)
        raise MissingColumnError(f"--{role.replace('_', '-')}: {exc}" if role else str(exc)) from None
    if note and log.unused_columns:
        print(f"note: columns not used: {', '.join(log.unused_columns)} ({UNUSED_HINT})", file=sys.stderr)
    return log


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "describe",
        help="print what an event log looks like (time spans, out-of-orderness, delays, partitions)",
        description="Load an event log (CSV, Parquet, JSON lines, or a folder of parts) and print its "
        "records, time spans, keys, out-of-orderness, arrival delays and per-partition rates and silences.",
    )
    p.add_argument("log", metavar="LOG", help="file or folder of parts")
    add_log_arguments(p)
    p.add_argument("--silence", default="auto", help="gap that counts as a silence, e.g. 5s (default auto)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--quarantine", type=int, default=5, metavar="N",
                   help="list up to N quarantined rows (default 5)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    log = load_from_args(args, note=False)
    desc = log.describe(silence=args.silence)
    if args.json:
        print(json.dumps({**desc.to_dict(), "unused_columns": log.unused_columns}, indent=2))
        return 0
    print(f"{args.log}")
    print(desc)
    if log.unused_columns:
        print(f"columns not used: {', '.join(log.unused_columns)} ({UNUSED_HINT})")
    if log.n_invalid and args.quarantine > 0:
        q = log.quarantine.head(args.quarantine)
        print(f"quarantined rows (first {len(q)} of {log.n_invalid}):")
        for r in q.itertuples(index=False):
            raw = repr(r.raw) if r.raw != "" else "null"
            print(f"  row {r.row}: {r.column} {r.reason} ({raw})")
    return 0
