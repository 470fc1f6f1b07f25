"""``python -m toolkit replay LOG ...``: replay a log, write emissions and record fates."""
from __future__ import annotations

import argparse


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "replay",
        help="replay an event log through Flink's event-time windowing and write emissions and record fates",
        description="Replay LOG (any format toolkit.load_log reads) under one watermark/window setting.",
    )
    p.add_argument("log", metavar="LOG", help="event log file (CSV, Parquet, JSONL)")
    p.add_argument("--max-invalid-fraction", type=float, default=0.0,
                   help="load the log even if up to this share of rows is invalid (they are quarantined)")
    p.add_argument("--window", default="tumbling:1s", help="tumbling:1s | sliding:10s/5s | session:30s | global_eos (default tumbling:1s)")
    p.add_argument("--generator", default="bounded_out_of_orderness",
                   help="bounded_out_of_orderness (default) | legacy_bounded_out_of_orderness | monotonous | time_lag | idle_advance | adaptive | punctuated")
    p.add_argument("--delay", default="0ms", help="watermark delay (max out-of-orderness), e.g. 500ms")
    p.add_argument("--lateness", default="0ms", help="allowed lateness, e.g. 2s")
    p.add_argument("--interval", default=None, help="periodic watermark interval (default 200ms; 0 = after every record)")
    p.add_argument("--idleness", default=None, help="idle timeout (withIdleness), e.g. 5s")
    p.add_argument("--parallelism", type=int, default=1, help="source subtasks (partition p read by subtask p %% parallelism)")
    p.add_argument("--partitions-as-sources", action=argparse.BooleanOptionalAction, default=True,
                   help="each log partition has its own watermark generator (default); "
                   "--no-partitions-as-sources: one generator for the whole stream")
    p.add_argument("--trigger", default=None, help="event_time | count:N | continuous:5s | purging:... | never | end_of_stream")
    p.add_argument("--evictor", default=None, help="count:N | time:5s (append ,after)")
    p.add_argument("--accumulation", default="accumulating", help="accumulating | discarding | accumulating_and_retracting")
    p.add_argument("--step", default=None, help="idle_advance step")
    p.add_argument("--lag", default=None, help="time_lag lag")
    p.add_argument("--quantile", type=float, default=None, help="adaptive: lateness quantile (default 0.99)")
    p.add_argument("--second-window", default=None, help="a second windowed stage fed by the first stage's results")
    p.add_argument("--second-lateness", default="0ms", help="allowed lateness of the second stage")
    p.add_argument("--out", metavar="DIR", help="write DIR/emissions.csv, fates.csv, late.csv, watermarks.csv, state.csv, summary.json")
    p.add_argument("--export-scenario", metavar="FILE", help="write the record/watermark interleaving in the window-scenario format")
    p.set_defaults(func=run)


def run(args) -> int:
    import json
    from pathlib import Path

    from toolkit.log import load_log
    from toolkit.replay import replay

    log = load_log(args.log, max_invalid_fraction=args.max_invalid_fraction)
    settings = dict(
        window=args.window, generator=args.generator, delay=args.delay, lateness=args.lateness,
        parallelism=args.parallelism, partitions_as_sources=args.partitions_as_sources, trigger=args.trigger, evictor=args.evictor, accumulation=args.accumulation,
    )
    if args.second_window:
        settings["second_window"] = args.second_window
        settings["second_lateness"] = args.second_lateness
    for name in ("interval", "idleness", "step", "lag", "quantile"):
        v = getattr(args, name)
        if v is not None:
            settings[name] = v
    result = replay(log, **settings)
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
    s = {k: v for k, v in summary.items() if k != "settings"}
    print(json.dumps(s))
    return 0
