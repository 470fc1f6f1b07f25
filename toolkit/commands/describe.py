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
    g.add_argument("--partitions", metavar="IDS",
                   help="the partitions the job really reads, e.g. 0-3 or 0,1,5-7, when some have no valid record in "
                        "the log (all quarantined, or idle all along): each is a source that holds the watermark")


UNUSED_HINT = "map them with --event-time, --arrival-time, --key, --partition or --value"

_ROLES = ("event_time", "arrival_time", "key", "partition", "value")


def cli_text(message: str) -> str:
    """A loading message in the command line's words: ``time_unit='s'`` -> ``--time-unit s``, etc."""
    import re

    message = re.sub(r"time_unit=(['\"]?)(\w+)\1", r"--time-unit \2", message)
    message = re.sub(r"max_invalid_fraction=([0-9][0-9.eE+-]*[0-9]|[0-9])", r"--max-invalid-fraction \1", message)
    message = re.sub(r"\b(and|and the) time_unit\b", r"\1 --time-unit", message)
    message = re.sub(r"\(for (" + "|".join(_ROLES) + r")\)",
                     lambda m: f"(--{m.group(1).replace('_', '-')})", message)
    message = message.replace("which columns are mapped to event_time and arrival_time",
                              "--event-time and --arrival-time")
    message = message.replace("keep these rows in log.quarantine", "list these rows in the quarantine")
    message = re.sub(r"pass format='(\w+)', '(\w+)' or '(\w+)'", r"pass --format \1, \2 or \3", message)
    message = message.replace("(or pass format= to read", "(or pass --format to read")
    message = re.sub(r"^max_invalid_fraction must", "--max-invalid-fraction must", message)
    message = re.sub(r"^partitions\b", "--partitions", message)
    return message


def load_from_args(args: argparse.Namespace, *, note: bool = True, keep: dict[str, str] | None = None):
    """Load the log the column options describe; columns no option mapped are named on stderr.
    ``keep``: more columns to keep (column -> the option that needs it, named when missing).

    Every loading error reaches the user as one line in the options' words (the CLI prints
    ``error: ...`` and exits 2); loading warnings are printed as ``warning: ...``.
    """
    import sys
    import warnings

    import toolkit
    from toolkit.errors import UserError
    from toolkit.log.errors import LogError, LogWarning

    def col(v):
        return None if v is None or str(v).lower() == "none" else v

    spark = None
    if getattr(args, "spark", False):
        from toolkit.spark import spark_session

        spark = spark_session()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", LogWarning)
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
                keep=list(keep or ()),
                partitions=getattr(args, "partitions", None),
            )
    except LogError as exc:  # name the option the user typed
        column = getattr(exc, "column", None)
        if keep and column in keep:
            text = str(exc).replace(" (kept with keep=)", "")
            raise type(exc)(f"{keep[column]}: {cli_text(text)}") from None
        role = getattr(exc, "role", None)
        text = str(exc).replace(f" (for {role})", "") if role else str(exc)
        raise type(exc)(f"--{role.replace('_', '-')}: {cli_text(text)}" if role else cli_text(text)) from None
    except FileNotFoundError:
        raise
    except ValueError as exc:
        raise UserError(cli_text(str(exc))) from None
    except (OSError, OverflowError, TypeError, AttributeError, KeyError, IndexError, MemoryError) as exc:
        # not a known bad-input case: still one line, never a traceback
        raise UserError(f"cannot load {args.log}: {type(exc).__name__}: {exc}") from None
    for w in caught:
        if issubclass(w.category, LogWarning):
            print(f"warning: {cli_text(str(w.message))}", file=sys.stderr)
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

    from toolkit.commands._width import terminal_width
    from toolkit.log.quarantine import short

    log = load_from_args(args, note=False)
    desc = log.describe(silence=args.silence)
    if args.json:
        print(json.dumps({**desc.to_dict(), "unused_columns": log.unused_columns}, indent=2, default=str))
        return 0
    print(f"{args.log}")
    print(cli_text(desc.text(width=terminal_width())))
    if log.unused_columns:
        print(f"columns not used: {', '.join(log.unused_columns)} ({UNUSED_HINT})")
    if log.n_invalid and args.quarantine > 0:
        q = log.quarantine.head(args.quarantine)
        print(f"quarantined rows (first {len(q)} of {log.n_invalid}):")
        for r in q.itertuples(index=False):
            raw = repr(short(r.raw)) if r.raw != "" else "null"
            print(f"  row {r.row}: {r.column} {r.reason} ({raw})")
    return 0
