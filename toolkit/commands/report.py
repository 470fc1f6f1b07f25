"""``python -m toolkit report LOG [setting options] --out report.html``: a self-contained HTML report.

The setting options are the ones ``sweep`` takes (lists); the report sweeps them, recommends a
setting and replays it (or the setting ``--replay`` names) for the record-level charts."""
from __future__ import annotations

import argparse

DEFAULT_DELAYS = "0ms,100ms,250ms,500ms,1s,2s,5s"
DEFAULT_LATENESS = "0ms,1s,5s"


def register(subparsers) -> None:
    from toolkit.commands._settings import add_setting_arguments
    from toolkit.commands.describe import add_log_arguments

    p = subparsers.add_parser(
        "report",
        help="sweep settings over a log and write one self-contained, offline HTML report",
        description="Load LOG, sweep the given settings (any 'sweep' option; by default --delay "
        f"{DEFAULT_DELAYS} x --lateness {DEFAULT_LATENESS} on tumbling:1s windows), replay the recommended setting "
        "(or the one --replay gives), and write an HTML file that opens offline: summary, recommendation and "
        "interactive charts.",
    )
    p.add_argument("log", metavar="LOG", help="event log file or folder of parts (CSV, Parquet, JSONL)")
    add_log_arguments(p)
    add_setting_arguments(p, lists=True)
    r = p.add_argument_group("recommendation and replay")
    r.add_argument("--completeness", type=float, default=0.99,
                   help="completeness target of the recommendation (default 0.99)")
    r.add_argument("--metric", default="latency_p99_ms", help="what the recommendation minimizes (default latency_p99_ms)")
    r.add_argument("--replay", default=None, metavar="SETTING",
                   help="replay this setting in the record-level charts instead of the recommended one; written "
                   "like 'delay=500ms lateness=1s' (the other settings: the first of each list)")
    r.add_argument("--replay-delay", default=None, help=argparse.SUPPRESS)
    r.add_argument("--replay-lateness", default=None, help=argparse.SUPPRESS)
    x = p.add_argument_group("execution and output")
    x.add_argument("--execution", default="auto", choices=["auto", "local", "spark"],
                   help="where the sweep runs (default auto: Spark for Spark-backed logs or a master)")
    x.add_argument("--master", default=None, metavar="URL", help="Spark master URL")
    x.add_argument("--title", default=None, help="report title (default: from the log's name)")
    x.add_argument("--max-points", type=int, default=2000, help="rows a record-level chart embeds at most (default 2000)")
    x.add_argument("--out", default="report.html", help="output HTML file (default report.html)")
    x.add_argument("--results", default=None, metavar="FILE",
                   help="also write the sweep's results table (.csv, .parquet or .json), one row per setting")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import toolkit
    from toolkit.commands._settings import given_limits, given_settings
    from toolkit.commands.describe import load_from_args
    from toolkit.errors import UserError
    from toolkit.settings import Limits, grid, split_text

    if not 0.0 <= args.completeness <= 1.0:
        raise UserError(f"--completeness must be between 0 and 1, got {args.completeness}")
    if args.max_points < 10:
        raise UserError(f"--max-points must be at least 10, got {args.max_points}")
    given = given_settings(args, lists=True)
    given.setdefault("window", "tumbling:1s")
    given.setdefault("delay", DEFAULT_DELAYS.split(","))
    given.setdefault("lateness", DEFAULT_LATENESS.split(","))
    configs = grid(**given)  # validated before the log is read
    limits = given_limits(args)
    Limits.of(**limits).check_settings(configs)
    replay_setting = None
    if args.replay or args.replay_delay is not None or args.replay_lateness is not None:
        changed = split_text(args.replay) if args.replay else {}
        if args.replay_delay is not None:
            changed["delay"] = args.replay_delay
        if args.replay_lateness is not None:
            changed["lateness"] = args.replay_lateness
        replay_setting = configs[0].replace(**changed)
    log = load_from_args(args)
    sweep_kwargs = {"execution": args.execution}
    if args.master:
        sweep_kwargs["master"] = args.master
    results = toolkit.sweep(log, configs, **sweep_kwargs, **limits)
    if args.results:
        from toolkit.commands.sweep import write_results

        write_results(results, args.results)
    replayed = None
    if limits and not getattr(log, "is_spark", False) and (replay_setting is not None or len(results)):
        # the report's own replay, under the raised limits (what toolkit.report would replay)
        chosen = replay_setting or toolkit.recommend(results, completeness=args.completeness, metric=args.metric).get("setting")
        if chosen is not None:
            Limits.of(**limits).check_settings([chosen])
            replayed = toolkit.replay(log, chosen, **limits)
    path = toolkit.report(log, replay=replayed, sweep=results, settings=replay_setting, out=args.out, title=args.title,
                          completeness=args.completeness, metric=args.metric, max_points=args.max_points)
    rec = toolkit.recommend(results, completeness=args.completeness, metric=args.metric)
    print(rec["reason"])
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB): open it in a browser, it works offline")
    return 0

