"""``python -m toolkit replay LOG ...``: replay a log under one setting, write emissions and record fates."""
from __future__ import annotations


def register(subparsers) -> None:
    from toolkit.commands._settings import add_setting_arguments
    from toolkit.commands.describe import add_log_arguments

    p = subparsers.add_parser(
        "replay",
        help="replay an event log through Flink's (or, --semantics spark, Spark Structured Streaming's) event-time "
        "windowing under one setting; write emissions and fates",
        description="Replay LOG (CSV, Parquet, JSON lines, or a folder of parts) under one setting and print its "
        "figures (the same as that setting's row in 'sweep'); --out writes every emission, record fate, late "
        "record, watermark and state sample.",
    )
    p.add_argument("log", metavar="LOG", help="event log file or folder of parts")
    add_log_arguments(p)
    add_setting_arguments(p, lists=False)
    o = p.add_argument_group("output")
    o.add_argument("--out", metavar="DIR", help="write DIR/emissions.csv, fates.csv, late.csv, watermarks.csv, state.csv, summary.json")
    o.add_argument("--export-scenario", metavar="FILE", help="write the record/watermark interleaving in the window-scenario format")
    o.add_argument("--explain", metavar="ROW", type=int, action="append", default=None,
                   help="say why the record of log row ROW was dropped, late or on time, and what would have kept it "
                   "(repeat for several rows)")
    o.add_argument("--drops", metavar="FILE", help="write every dropped or late record, why, and the smallest delay, "
                   "allowed lateness or idle timeout that keeps it, as CSV (the table of ReplayResult.drops())")
    p.set_defaults(func=run)


def run(args) -> int:
    import json
    from pathlib import Path

    from toolkit.commands._settings import given_settings
    from toolkit.commands.describe import load_from_args
    from toolkit.replays import replay
    from toolkit.settings import Setting

    given = given_settings(args, lists=False)
    setting = Setting.parse(given)  # validated before the log is read
    if args.export_scenario and setting.semantics != "flink":
        from toolkit.settings import SettingError

        raise SettingError("export_scenario", "--export-scenario writes Flink window scenarios; with --semantics spark "
                           "use --out (emissions, fates, watermarks per micro-batch)")
    log = load_from_args(args)
    result = replay(log, setting, **({"interval": given["interval"]} if "interval" in given else {}))
    summary = result.summary()
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        em = result.emissions.drop(columns=["value"]) if "value" in result.emissions else result.emissions
        em.to_csv(out / "emissions.csv", index=False)
        result.fates.to_csv(out / "fates.csv", index=False)
        result.late.to_csv(out / "late.csv", index=False)
        result.watermarks.to_csv(out / "watermarks.csv", index=False)
        result.state.to_csv(out / "state.csv", index=False)
        (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
        if result.second_emissions is not None:
            result.second_emissions.drop(columns=["value"]).to_csv(out / "emissions_stage2.csv", index=False)
            result.stages.to_csv(out / "stage_watermarks.csv", index=False)
    if args.export_scenario:
        result.export_scenario(args.export_scenario)
    explained = []
    for row in args.explain or []:  # a bad row fails before any output
        try:
            explained.append(result.explain(row))
        except ValueError as exc:
            raise ValueError(f"--explain {row}: {exc}") from None
    if args.drops:
        Path(args.drops).parent.mkdir(parents=True, exist_ok=True)
        result.drops().to_csv(args.drops, index=False)
    s = {k: v for k, v in summary.items() if k != "settings"}
    s["setting"] = str(setting)
    print(json.dumps(s, default=str))
    for e in explained:
        print(f"\n{e.text}")
    if args.drops:
        print(f"\nwrote {args.drops}: {summary['dropped']:,} dropped and {summary['late_accepted']:,} late records, "
              "why, and what keeps each")
    return 0
