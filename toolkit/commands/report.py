"""``python -m toolkit report LOG [sweep options] --out report.html``: a self-contained HTML report.

The sweep options are spelled as in ``python -m toolkit sweep`` (``--window``, ``--delay``,
``--lateness``, ``--interval`` lists)."""
from __future__ import annotations

import argparse


def _list(text: str) -> list[str]:
    return [t.strip() for t in str(text).split(",") if t.strip()]


def register(subparsers) -> None:
    from toolkit.commands.describe import add_log_arguments

    p = subparsers.add_parser(
        "report",
        help="sweep watermark settings over a log and write one self-contained, offline HTML report",
        description="Load LOG, sweep watermark delay x allowed lateness (x interval, x window), replay the "
        "recommended setting (or the one given with --replay-delay/--replay-lateness), and write an HTML file that "
        "opens offline: summary, recommendation and interactive charts.",
    )
    p.add_argument("log", metavar="LOG", help="event log file or folder of parts (CSV, Parquet, JSONL)")
    add_log_arguments(p)
    g = p.add_argument_group("sweep")
    g.add_argument("--window", action="append", default=None,
                   help="tumbling:SIZE[,OFFSET] | sliding:SIZE/SLIDE[,OFFSET] | session:GAP; repeat for several "
                   "(default tumbling:1s)")
    g.add_argument("--delay", default="0ms,100ms,250ms,500ms,1s,2s,5s",
                   help="watermark delays to sweep, comma-separated (default 0ms,100ms,250ms,500ms,1s,2s,5s)")
    g.add_argument("--lateness", default="0ms,1s,5s",
                   help="allowed lateness values to sweep, comma-separated (default 0ms,1s,5s)")
    g.add_argument("--interval", default="200ms", help="watermark interval(s), comma-separated (default 200ms)")
    g.add_argument("--idleness", default=None, help="idle timeout (withIdleness), e.g. 5s")
    g.add_argument("--completeness", type=float, default=0.99,
                   help="completeness target of the recommendation (default 0.99)")
    g.add_argument("--metric", default="latency_p99_ms", help="what the recommendation minimizes (default latency_p99_ms)")
    g.add_argument("--execution", default="auto", choices=["auto", "local", "spark"],
                   help="where the sweep runs (default auto: Spark for Spark-backed logs or a master)")
    g.add_argument("--master", default=None, help="Spark master URL")
    r = p.add_argument_group("replay shown in the record-level charts (default: the recommended setting)")
    r.add_argument("--replay-delay", default=None, help="replay this delay instead of the recommended one")
    r.add_argument("--replay-lateness", default=None,
                   help="replay this allowed lateness instead of the recommended one")
    p.add_argument("--title", default=None, help="report title (default: from the log's name)")
    p.add_argument("--max-points", type=int, default=2000, help="rows a record-level chart embeds at most (default 2000)")
    p.add_argument("--out", default="report.html", help="output HTML file (default report.html)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import toolkit
    from toolkit.cli import UserError
    from toolkit.commands.describe import load_from_args
    from toolkit.apps.report import report

    if not 0.0 <= args.completeness <= 1.0:
        raise UserError(f"--completeness must be between 0 and 1, got {args.completeness}")
    if args.max_points < 10:
        raise UserError(f"--max-points must be at least 10, got {args.max_points}")
    log = load_from_args(args)
    windows = args.window or ["tumbling:1s"]
    delays, lateness, intervals = _list(args.delay), _list(args.lateness), _list(args.interval)
    for name, values in (("--delay", delays), ("--lateness", lateness),
                         ("--interval", intervals)):
        if not values:
            raise UserError(f"{name} needs at least one value")
    grid = dict(window=windows if len(windows) > 1 else windows[0], delay=delays, lateness=lateness,
                interval=intervals if len(intervals) > 1 else intervals[0])
    if args.idleness:
        grid["idleness"] = args.idleness
    sweep_kwargs = dict(grid, execution=args.execution)
    if args.master:
        sweep_kwargs["master"] = args.master
    results = toolkit.sweep(log, **sweep_kwargs)
    settings = None
    if args.replay_delay is not None or args.replay_lateness is not None:
        settings = {"window": windows[0], "interval": intervals[0], "delay": args.replay_delay or "0ms",
                    "lateness": args.replay_lateness or "0ms"}
        if args.idleness:
            settings["idleness"] = args.idleness
    path = report(log, sweep=results, settings=settings, out=args.out, title=args.title,
                  completeness=args.completeness, metric=args.metric, max_points=args.max_points)
    rec = toolkit.recommend(results, completeness=args.completeness, metric=args.metric)
    print(rec["reason"])
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB): open it in a browser, it works offline")
    return 0
