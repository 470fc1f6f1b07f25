"""``python -m toolkit sweep LOG``: evaluate a grid of watermark settings, write one row per setting."""
from __future__ import annotations

import argparse


def register(subparsers) -> None:
    from toolkit.commands.describe import add_log_arguments

    p = subparsers.add_parser(
        "sweep",
        help="sweep watermark delay / allowed lateness / interval over a log; one row per setting",
        description="Replay LOG under every combination of the given settings (comma-separated lists) "
        "and write completeness, latency, drops, firings and state per setting. Tumbling/sliding "
        "windows with the event-time trigger use the exact closed-form fast path; others the engine. "
        "Runs in-process, or on Spark with --master/--spark ($SPARK_MASTER is honoured).",
    )
    p.add_argument("log", metavar="LOG", help="file or folder of parts")
    add_log_arguments(p)
    g = p.add_argument_group("the grid (each option takes a comma-separated list)")
    g.add_argument("--window", required=True, action="append",
                   help="tumbling:SIZE[,OFFSET] | sliding:SIZE/SLIDE[,OFFSET] | session:GAP (repeat for several)")
    g.add_argument("--delay", default="0", help="bounded out-of-orderness delays, e.g. 0,250ms,1s,5s")
    g.add_argument("--lateness", default="0", help="allowed lateness values, e.g. 0,10s")
    g.add_argument("--interval", default="200ms", help="watermark intervals (0 = after every record)")
    g.add_argument("--strategy", default="bounded", help="bounded | legacy | monotonous (list allowed)")
    g.add_argument("--idleness", default=None, help="idle timeouts (withIdleness), e.g. 5s (0/none = off)")
    g.add_argument("--partitions-as-sources", action=argparse.BooleanOptionalAction, default=True,
                   help="each log partition is a source split with its own watermark generator, as Flink's "
                   "per-split watermarks (default); --no-partitions-as-sources: one generator for the stream")
    g.add_argument("--source-parallelism", default="1", help="source subtasks reading the partitions")
    g.add_argument("--accumulation", default="accumulating", help="accumulating | discarding | retracting")
    g.add_argument("--path", default="auto", choices=["auto", "fast", "engine"], help="evaluation path (default auto)")
    x = p.add_argument_group("execution")
    x.add_argument("--master", default=None, metavar="URL", help="run on Spark at this master (e.g. local[*], spark://host:7077)")
    x.add_argument("--shards", type=int, default=None, help="key shards on Spark (default: spark.sql.shuffle.partitions)")
    x.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--out", default=None, metavar="FILE", help="write the results (.csv, .parquet or .json); default: print")
    p.add_argument("--recommend", type=float, default=None, metavar="TARGET",
                   help="also print the lowest-p99-latency setting whose first-firing completeness >= TARGET")
    p.set_defaults(func=run)


def _list(text: str | None) -> list[str] | None:
    if text is None:
        return None
    items = [t.strip() for t in str(text).split(",") if t.strip()]
    if not items:
        raise ValueError(f"empty list: {text!r}")
    return items


def run(args: argparse.Namespace) -> int:
    import os

    import toolkit
    from toolkit.commands.describe import load_from_args
    from toolkit.durations import parse_duration_list

    if args.master or args.spark or os.environ.get("SPARK_MASTER"):
        from toolkit.spark import spark_session

        spark = spark_session(args.master)
    else:
        spark = None
    if spark is not None and args.spark:
        pass  # the log is loaded into Spark as well (stays distributed)
    log = load_from_args(args)
    idle = None
    if args.idleness is not None:
        idle = [None if t.lower() in ("0", "none", "off") else t for t in _list(args.idleness)]
    results = toolkit.sweep(
        log,
        window=args.window,
        delay=parse_duration_list(args.delay, name="delay"),
        lateness=parse_duration_list(args.lateness, name="lateness"),
        interval=parse_duration_list(args.interval, name="interval"),
        strategy=_list(args.strategy),
        idleness=idle,
        partitions_as_sources=bool(args.partitions_as_sources),
        source_parallelism=[int(v) for v in _list(args.source_parallelism)],
        accumulation=_list(args.accumulation),
        path=args.path,
        execution="spark" if spark is not None else "local",
        spark=spark,
        shards=args.shards,
        progress=False if args.no_progress else None,
    )
    if args.out:
        out = str(args.out)
        if out.endswith(".parquet"):
            results.to_parquet(out, index=False)
        elif out.endswith(".json"):
            results.to_json(out, orient="records", indent=1)
        else:
            results.to_csv(out, index=False)
        print(f"wrote {len(results)} configurations to {out}")
    else:
        import pandas as pd

        with pd.option_context("display.max_columns", None, "display.width", 200):
            print(results.to_string(index=False))
    if args.recommend is not None:
        rec = toolkit.recommend(results, completeness=args.recommend)
        print(("recommended: " if rec["config"] is not None else "no recommendation: ") + rec["reason"])
    return 0
