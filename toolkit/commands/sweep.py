"""``python -m toolkit sweep LOG``: replay a log under a grid of settings, one row per setting."""
from __future__ import annotations


def register(subparsers) -> None:
    from toolkit.commands._settings import add_setting_arguments
    from toolkit.commands.describe import add_log_arguments

    p = subparsers.add_parser(
        "sweep",
        help="replay a log under every combination of settings (lists); completeness, latency, drops, state per setting",
        description="Replay LOG under every combination of the given settings (any 'replay' option, as a list) "
        "and write completeness, latency, drops, firings and state per setting. Tumbling/sliding windows with "
        "the event-time trigger and no evictor use the exact closed-form path; others the engine. Runs "
        "in-process, or on Spark with --master/--spark ($SPARK_MASTER is honoured).",
    )
    p.add_argument("log", metavar="LOG", help="event log file or folder of parts")
    add_log_arguments(p)
    add_setting_arguments(p, lists=True)
    x = p.add_argument_group("execution")
    x.add_argument("--path", default="auto", choices=["auto", "fast", "engine"], help="evaluation path (default auto)")
    x.add_argument("--master", default=None, metavar="URL", help="run on Spark at this master (e.g. local[*], spark://host:7077)")
    x.add_argument("--executor-python", default=None, metavar="PYTHON",
                   help="the Python the Spark executors run (default: this one locally, the cluster's python3 on a "
                   "cluster; also $WATERMARK_LAB_EXECUTOR_PYTHON)")
    x.add_argument("--shards", type=int, default=None, help="key shards on Spark (default: spark.sql.shuffle.partitions)")
    x.add_argument("--no-progress", action="store_true", help="no progress bar")
    i = p.add_argument_group("incidents (docs/incidents.md)")
    i.add_argument("--incident", action="append", default=None, metavar="SPEC",
                   help="also sweep the log of a bad day: an incident such as "
                   "stall:partition=2,at=1min,duration=2min,drain=500/s or "
                   "restart:at=3min,downtime=30s,replay_from=1min,source_rate=1000/s (join several with +); repeat "
                   "for several variants. The recorded log is swept first; every row names its incident")
    i.add_argument("--robust", type=float, default=None, metavar="SHARE",
                   help="with --recommend and --incident: recommend the cheapest setting that meets TARGET on the "
                   "recorded log and on at least SHARE (0..1) of the incident variants")
    o = p.add_argument_group("output")
    o.add_argument("--out", default=None, metavar="FILE",
                   help="write the results (.csv, .parquet or .json); default: print. Resumable: each finished batch "
                   "of configurations is kept in .FILE.parts beside it, so after Ctrl-C or a crash the same command "
                   "runs only the rest (another log or other settings are refused; docs/sweeps.md)")
    o.add_argument("--fresh", action="store_true",
                   help="with --out: discard the parts an earlier, unfinished sweep left for FILE and start afresh")
    o.add_argument("--recommend", type=float, default=None, metavar="TARGET",
                   help="also print the lowest-p99-latency setting whose first-firing completeness >= TARGET")
    p.set_defaults(func=run)


def run(args) -> int:
    import os

    import toolkit
    from toolkit.commands._settings import given_limits, given_settings
    from toolkit.commands._width import wrapped
    from toolkit.commands.describe import load_from_args
    from toolkit.errors import UserError
    from toolkit.settings import Limits, grid

    given = given_settings(args, lists=True)
    given.setdefault("window", "tumbling:1s")
    configs = grid(**given)  # every value validated before the log is read
    limits = given_limits(args)
    Limits.of(**limits).check_settings(configs)
    if args.shards is not None and args.shards < 1:
        raise UserError(f"--shards must be >= 1, got {args.shards}")
    if args.fresh and not args.out:
        raise UserError("--fresh starts an unfinished --out FILE afresh: give --out FILE too")
    if args.out:
        from toolkit.outputs import check_writable

        check_writable(args.out, "out")  # before the log is read
    if args.recommend is not None and not 0.0 <= args.recommend <= 1.0:
        raise UserError(f"--recommend must be between 0 and 1, got {args.recommend}")
    incidents = given_incidents(args.incident)
    if args.robust is not None:
        if not 0.0 <= args.robust <= 1.0:
            raise UserError(f"--robust must be a share between 0 and 1, got {args.robust}")
        if args.recommend is None or not incidents:
            raise UserError("--robust needs --recommend TARGET and at least one --incident SPEC (the variants the "
                            "recommendation must hold up on)")
    spark = None
    if args.master or args.spark or args.executor_python or os.environ.get("SPARK_MASTER"):
        from toolkit.spark import spark_session

        spark = spark_session(args.master, python=args.executor_python, option="--executor-python")
    from toolkit.commands._settings import columns_to_keep

    log = load_from_args(args, keep=columns_to_keep(configs))
    results = toolkit.sweep(
        log,
        configs,
        path=args.path,
        execution="spark" if spark is not None else "local",
        spark=spark,
        shards=args.shards,
        progress=False if args.no_progress else None,
        incidents=[None] + incidents if incidents else None,
        out=args.out,
        fresh=args.fresh,
        **limits,
    )
    if args.out:
        evaluated = results.attrs.get("evaluated", len(results))
        earlier = f" ({evaluated} evaluated now, {len(results) - evaluated} in an earlier run)" if evaluated < len(results) else ""
        print(f"wrote {len(results)} configurations to {args.out}{earlier}")
    else:
        print(wrapped(base_line(results)))
        print(results_text(results))
        print("(every column, in raw ms and fractions: --out FILE, .csv, .parquet or .json)")
    if args.recommend is not None:
        # the chosen setting replayed on the log says what dominates its latency tail
        rec = toolkit.recommend(results, completeness=args.recommend, robust=args.robust, log=log, limits=limits)
        print(wrapped(("recommended: " if rec["config"] is not None else "no recommendation: ") + rec["reason"]))
    return 0


def given_incidents(specs: list[str] | None) -> list:
    """The ``--incident`` values as incidents (``toolkit.incidents.parse_incident``), in order, the
    recorded log (``none``) and repeats left out; a bad spelling is an error naming ``--incident``."""
    from toolkit.errors import UserError
    from toolkit.incidents import Composite, parse_incident
    from toolkit.settings import SettingError

    out: list = []
    for spec in specs or []:
        try:
            x = parse_incident(spec)
        except SettingError as exc:
            raise UserError(f"--incident {spec!r}: {exc}") from None
        if not (isinstance(x, Composite) and not x.incidents) and x not in out:
            out.append(x)
    return out


def base_line(results) -> str:
    """What the table's counts are of, said once above it: the valid records (the quarantined
    rows apart), and completeness's own base (:mod:`toolkit.metrics.base`)."""
    from toolkit.metrics.base import quarantine_words, valid_records

    if not len(results) or "records" not in results.columns:
        return ""
    first = results.iloc[0]
    same = (results["records"] - results.get("invalid", 0)).nunique() == 1
    text = (f"On time, late accepted and dropped count the {valid_records(first):,} valid records" if same else
            "On time, late accepted and dropped count each log's valid records (incidents change them; the "
            f"recorded log has {valid_records(first):,})")
    quarantined = quarantine_words(first)
    return text + (f"; {quarantined}" if quarantined else "") + "; completeness is a share of record-window pairs."


#: the figures the terminal table shows (every column is in --out's file)
SHOWN_FIGURES = ["on_time", "late_accepted", "dropped", "completeness_first", "completeness_final",
                 "latency_p50_ms", "latency_p99_ms", "firings", "peak_state_records"]


def results_text(results) -> str:
    """A sweep's rows for a terminal, one table per engine (``semantics``), each headed by the
    engine's title: the engine's own settings that vary between its rows (the window and its
    delay setting when none does) and the main figures, in readable units (``2 s``, ``99.17%``)."""
    from toolkit.semantics import get

    extra = ["incident"] if "incident" in results.columns else []
    if "semantics" not in results.columns:
        return _engine_table(results, [c for c in ("window", "delay_ms") if c in results.columns] + extra)
    blocks = []
    by_engine = results.groupby(results["semantics"].astype(str), sort=False)
    for name, rows in by_engine:
        engine = get(name)
        own = [c for c in engine.row_columns() if c in rows.columns]
        varying = [c for c in own if rows[c].astype(str).nunique(dropna=False) > 1]
        fallback = [c for c in ("window", f"{engine.delay_setting}_ms") if c in rows.columns]
        table = _engine_table(rows, (varying or fallback) + extra)
        blocks.append(table if by_engine.ngroups == 1 else f"{engine.title} ({len(rows)} rows)\n{table}")
    return "\n\n".join(blocks)


def _engine_table(rows, settings: list[str]) -> str:
    from toolkit.viz._format import text_table

    return text_table(rows, settings + [c for c in SHOWN_FIGURES if c in rows.columns])


def write_results(results, out: str) -> None:
    """A sweep's results as .parquet, .json (records) or .csv (anything else), written whole or
    not at all (``toolkit.outputs.write_table``)."""
    from toolkit.outputs import write_table

    write_table(results, out)
