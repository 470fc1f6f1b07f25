"""``python -m toolkit replay LOG ...``: replay a log under one setting, write emissions and record fates."""
from __future__ import annotations


def register(subparsers) -> None:
    from toolkit.commands._settings import add_setting_arguments
    from toolkit.commands.describe import add_log_arguments

    p = subparsers.add_parser(
        "replay",
        help="replay an event log through Flink's event-time windowing under one setting; write emissions and fates",
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
    p.set_defaults(func=run)


def run(args) -> int:
    import json
    from pathlib import Path

    from toolkit.commands._settings import given_limits, given_settings
    from toolkit.commands.describe import load_from_args
    from toolkit.replays import replay
    from toolkit.settings import Limits, Setting

    given = given_settings(args, lists=False)
    setting = Setting.parse(given)  # validated before the log is read
    limits = given_limits(args)
    Limits.of(**limits).check_settings([setting])
    log = load_from_args(args)
    result = replay(log, setting, **({"interval": given["interval"]} if "interval" in given else {}), **limits)
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
    # a figure that is not defined (no window fired before the end of input) prints as null
    s = {k: (None if isinstance(v, float) and v != v else v) for k, v in summary.items() if k != "settings"}
    s["setting"] = str(setting)
    print(json.dumps(s, default=str))
    return 0
