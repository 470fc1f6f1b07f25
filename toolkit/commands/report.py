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
    i = p.add_argument_group("incidents (docs/incidents.md)")
    i.add_argument("--incident", action="append", default=None, metavar="SPEC",
                   help="also sweep the log of a bad day, e.g. stall:partition=2,at=1min,duration=2min,drain=500/s "
                   "(repeat for several): the report then shows how each setting holds up and recommends one that "
                   "survives them")
    i.add_argument("--robust", type=float, default=0.95, metavar="SHARE",
                   help="with --incident: the share (0..1) of the incident variants on which the recommended setting "
                   "must meet --completeness too (default 0.95)")
    x = p.add_argument_group("execution and output")
    x.add_argument("--execution", default="auto", choices=["auto", "local", "spark"],
                   help="where the sweep runs (default auto: Spark for Spark-backed logs or a master)")
    x.add_argument("--master", default=None, metavar="URL", help="Spark master URL")
    x.add_argument("--spark-log-level", default=None, metavar="LEVEL",
                   help="Spark's log level (default ERROR, or $WATERMARK_LAB_SPARK_LOG_LEVEL): WARN, INFO ...")
    x.add_argument("--no-progress", action="store_true", help="no progress bar")
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
    if not 0.0 <= args.robust <= 1.0:
        raise UserError(f"--robust must be a share between 0 and 1 (e.g. 0.95), got {args.robust}")
    if args.max_points < 10:
        raise UserError(f"--max-points must be at least 10, got {args.max_points}")
    given = given_settings(args, lists=True)
    given.setdefault("window", "tumbling:1s")
    given.setdefault("delay", DEFAULT_DELAYS.split(","))
    given.setdefault("lateness", DEFAULT_LATENESS.split(","))
    configs = grid(**given)  # validated before the log is read
    from toolkit.commands.sweep import given_incidents

    incidents = given_incidents(args.incident)
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
    from toolkit.outputs import atomic_write, check_writable

    for option, given_path in (("out", args.out), ("results", args.results)):
        if given_path:
            check_writable(given_path, option)  # before the log is read
    set_spark_log_level(args.spark_log_level)
    from tqdm.auto import tqdm

    variants = f" on {1 + len(incidents)} logs (the recorded one and {len(incidents)} incident{'s' if len(incidents) != 1 else ''})" if incidents else ""
    steps = ["load the log", f"sweep {len(configs)} settings{variants}", "replay and draw the charts", "write the page"]
    with tqdm(total=len(steps), desc="report", unit="step", disable=args.no_progress,
              bar_format="{desc}: {n}/{total} steps |{bar}| {elapsed}{postfix}") as bar:
        def step(i: int) -> None:
            bar.set_postfix_str(steps[i], refresh=True)

        step(0)
        from toolkit.commands._settings import columns_to_keep

        log = load_from_args(args, keep=columns_to_keep(configs + ([replay_setting] if replay_setting else [])))
        bar.update()
        step(1)
        sweep_kwargs = {"execution": args.execution, "progress": False if args.no_progress else None}
        if args.master:
            sweep_kwargs["master"] = args.master
        results = toolkit.sweep(log, configs, incidents=[None, *incidents] if incidents else None, **sweep_kwargs,
                                **limits)
        bar.update()
        if args.results:
            from toolkit.commands.sweep import write_results

            write_results(results, args.results)
        step(2)
        from toolkit.reports.report import build, render

        replayed = None
        if limits and not getattr(log, "is_spark", False) and (replay_setting is not None or len(results)):
            # the report's own replay, under the raised limits (what toolkit.report would replay)
            chosen = replay_setting or toolkit.recommend(results, completeness=args.completeness,
                                                         metric=args.metric).get("setting")
            if chosen is not None:
                Limits.of(**limits).check_settings([chosen])
                replayed = toolkit.replay(log, chosen, **limits)
        context = build(log, replay=replayed, sweep=results, settings=replay_setting, title=args.title,
                        completeness=args.completeness, metric=args.metric, max_points=args.max_points,
                        robust=args.robust)
        bar.update()
        step(3)
        path = atomic_write(args.out, lambda p: p.write_text(render(context), encoding="utf-8"))
        bar.update()
    rec = toolkit.recommend(results, completeness=args.completeness, metric=args.metric,
                            robust=args.robust if incidents else None)
    from toolkit.commands._width import wrapped
    from toolkit.sweeps import choose

    print(wrapped(choose.with_latency_tail(rec, None if getattr(log, "is_spark", False) else log, limits,
                                           replay=context["replay"])["reason"]))  # the report's replay, when it is rec's
    if args.results:
        print(f"wrote {args.results} ({len(results):,} settings)")
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB): open it in a browser, it works offline")
    return 0


def set_spark_log_level(level: str | None) -> None:
    """``--spark-log-level``: the level Spark logs at (before a session starts)."""
    import os

    from toolkit.errors import UserError
    from toolkit.spark import LOG_LEVEL_ENV, LOG_LEVELS

    if level is None:
        return
    if level.strip().upper() not in LOG_LEVELS:
        raise UserError(f"--spark-log-level {level!r} is not a log level; use one of {', '.join(LOG_LEVELS)}")
    os.environ[LOG_LEVEL_ENV] = level.strip().upper()
