"""``python -m toolkit replay LOG ...``: replay a log under one setting, write emissions and record fates."""
from __future__ import annotations


def register(subparsers) -> None:
    from toolkit.commands._settings import add_setting_arguments
    from toolkit.commands.describe import add_log_arguments

    p = subparsers.add_parser(
        "replay",
        help="replay an event log through Flink's (or, --semantics spark / kafka_streams / beam, Spark Structured "
        "Streaming's / Kafka Streams' / Apache Beam's) event-time windowing under one setting; write emissions and fates",
        description="Replay LOG (CSV, Parquet, JSON lines, or a folder of parts) under one setting and print its "
        "figures (the same as that setting's row in 'sweep'); --out writes every emission, record fate, late "
        "record, watermark and state sample.",
    )
    p.add_argument("log", metavar="LOG", help="event log file or folder of parts")
    add_log_arguments(p)
    add_setting_arguments(p, lists=False)
    g = p.add_argument_group("pipeline (stages after the first, several logs)")
    g.add_argument("--stage", metavar="STAGE", action="append", default=None,
                   help="a windowed stage fed by the previous one's results (repeat for more), e.g. "
                   "--stage 'window=tumbling:10s lateness=1s trigger=count:3 function=count_sum accumulation=accumulating' "
                   "(window required; the first stage is --window, --trigger, --lateness ...)")
    two = g.add_mutually_exclusive_group()
    two.add_argument("--union", metavar="LOG2", action="append", default=None,
                     help="replay the union of LOG and LOG2 (repeatable; same column options): every source subtask "
                     "of every log is a channel of the first operator's watermark valve")
    two.add_argument("--join", metavar="LOG2",
                     help="the first stage is a windowed join of LOG and LOG2 by key (Flink's join/coGroup): per key "
                     "and window, elements of each log and the number of joined pairs")
    two.add_argument("--interval-join", metavar="LOG2", dest="interval_join",
                     help="the operator is Flink's interval join of LOG (left) and LOG2 (right) by key, "
                     "intervalJoin(...).between(LOWER, UPPER) with --between: a two-input operator, each log through "
                     "its own watermark valve; records behind the watermark are late (dropped)")
    g.add_argument("--between", metavar="LOWER/UPPER", default=None,
                   help="with --interval-join: right.ts - left.ts within [LOWER, UPPER], e.g. --between=-5s/5s")
    o = p.add_argument_group("output")
    o.add_argument("--out", metavar="DIR", help="write DIR/emissions.csv, fates.csv, late.csv, watermarks.csv, state.csv, summary.json")
    o.add_argument("--export-scenario", metavar="FILE", help="write the record/watermark interleaving in the window-scenario format")
    o.add_argument("--export-stage", metavar="K", type=int, default=1,
                   help="with --export-scenario: the stage whose interleaving to write (default 1)")
    o.add_argument("--json", action="store_true", help="print the figures as one JSON object (for programs) instead of "
                   "the readable summary")
    o.add_argument("--explain", metavar="ROW", type=int, action="append", default=None,
                   help="say why the record of log row ROW was dropped, late or on time, and what would have kept it "
                   "(repeat for several rows)")
    o.add_argument("--drops", metavar="FILE", help="write every dropped or late record, why, and the smallest delay, "
                   "allowed lateness or idle timeout that keeps it, as CSV (the table of ReplayResult.drops())")
    p.set_defaults(func=run)


def run(args) -> int:
    from toolkit.commands._settings import given_limits, given_settings
    from toolkit.commands._width import wrapped
    from toolkit.replays import replay
    from toolkit.settings import Limits

    given = given_settings(args, lists=False)
    setting = _setting(args, given)  # validated before the log is read
    limits = given_limits(args)
    Limits.of(**limits).check_settings([setting])
    log, others = _logs(args, setting, limits)
    result = replay(log, setting, **({"interval": given["interval"]} if "interval" in given else {}), **limits)
    summary = result.summary()
    written = _write_files(args, result, summary)
    explained = []
    for row in args.explain or []:  # a bad row fails before any output
        try:
            explained.append(result.explain(row))
        except ValueError as exc:
            raise ValueError(f"--explain {row}: {exc}") from None
    if args.drops:
        from pathlib import Path

        Path(args.drops).parent.mkdir(parents=True, exist_ok=True)
        result.drops().to_csv(args.drops, index=False)
    _print(args, setting, result, summary, others, written)
    for e in explained:
        print("\n" + wrapped(e.text))
    if args.drops:
        print(f"\nwrote {args.drops}: {summary['dropped']:,} dropped and {summary['late_accepted']:,} late records, "
              "why, and what keeps each")
    return 0


def _setting(args, given: dict):
    """The setting the options spell, ``--stage`` pipelines included; errors name the options."""
    from toolkit.semantics import get
    from toolkit.settings import Setting, SettingError, parse_stage

    if args.stage:
        stages = []
        for i, text in enumerate(args.stage):
            try:
                stages.append(parse_stage(text, "stage"))
            except SettingError as exc:
                raise SettingError("stage", f"--stage {text!r} (stage {i + 2}): "
                                   + str(exc).split(": ", 1)[-1].replace(f"stage {text!r}: ", "")) from None
        given["stages"] = stages
    try:
        setting = Setting.parse(given)
    except SettingError as exc:
        if exc.setting != "stages":
            raise
        raise SettingError("stage", str(exc).replace("stages", "--stage", 1).replace("second_window", "--second-window")) from None
    if args.export_scenario and not get(setting.semantics).exports_scenarios:
        raise SettingError("export_scenario", f"--export-scenario writes Flink window scenarios; with --semantics "
                           f"{setting.semantics} use --out (emissions, fates, watermarks, state)")
    if args.export_scenario and not 1 <= args.export_stage <= 1 + len(setting.pipeline_stages):
        raise SettingError("export_stage", f"--export-stage {args.export_stage}: this pipeline has stages 1 to "
                           f"{1 + len(setting.pipeline_stages)}")
    return setting


def _logs(args, setting, limits: dict):
    """The log, or the logs of a union, join or interval join (``limits`` gets their ``two_input``)."""
    import argparse

    from toolkit.commands._settings import columns_to_keep
    from toolkit.commands.describe import load_from_args
    from toolkit.settings import SettingError

    if (args.between is None) != (args.interval_join is None):
        raise SettingError("between" if args.between is None else "interval_join",
                           "--interval-join LOG2 and --between=LOWER/UPPER go together")
    if args.between is not None:
        from toolkit.replays.interval_join import parse_interval

        try:
            parse_interval(f"interval:{args.between}")
        except SettingError as exc:
            raise SettingError("between", f"--between {args.between!r}: " + str(exc).split(": ", 1)[-1]) from None
    keep = columns_to_keep([setting])
    log = load_from_args(args, keep=keep)
    others = args.union or ([args.join] if args.join else []) or ([args.interval_join] if args.interval_join else [])
    if not others:
        return log, others
    logs = [log] + [load_from_args(argparse.Namespace(**{**vars(args), "log": other}), keep=keep) for other in others]
    limits["two_input"] = ("join" if args.join else f"interval:{args.between}" if args.interval_join else "union")
    return logs, others


def _write_files(args, result, summary: dict) -> list:
    """``--out`` (every table of the replay, and its summary) and ``--export-scenario``: (path, rows) written."""
    import json
    from pathlib import Path

    written: list[tuple[Path, int]] = []

    def write(frame, path: Path) -> None:
        frame.to_csv(path, index=False)
        written.append((path, len(frame)))

    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        em = result.emissions.drop(columns=["value"]) if "value" in result.emissions else result.emissions
        write(em, out / "emissions.csv")
        write(result.fates, out / "fates.csv")
        write(result.late, out / "late.csv")
        write(result.watermarks, out / "watermarks.csv")
        write(result.state, out / "state.csv")
        (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
        written.append((out / "summary.json", -1))
        for st in result.pipeline[1:]:
            write(st.emissions.drop(columns=["value"]), out / f"emissions_stage{st.stage}.csv")
            write(st.late, out / f"late_stage{st.stage}.csv")
            write(st.fates, out / f"fates_stage{st.stage}.csv")
        if result.stages is not None:
            write(result.stages, out / "stage_watermarks.csv")
    if args.export_scenario:
        result.export_scenario(args.export_scenario, stage=args.export_stage)
        written.append((Path(args.export_scenario), -1))
    return written


def _print(args, setting, result, summary: dict, others: list, written: list) -> None:
    """The figures (``--json``: one JSON line), the stages, and what was written."""
    import json

    from toolkit.commands._width import wrapped

    if args.json:
        # a figure that is not defined (no window fired before the end of input) prints as null
        s = {k: (None if isinstance(v, float) and v != v else v) for k, v in summary.items() if k != "settings"}
        s["setting"] = str(setting)
        print(json.dumps(s, default=str))
        return
    source = " + ".join([args.log] + list(others)) if others else args.log
    print(wrapped(summary_text(summary, setting, source=source, result=result)))
    if len(result.pipeline) > 1:
        print(wrapped(stages_text(result)))
    for path, rows in written:
        what = f"{rows:,} rows" if rows >= 0 else f"{path.stat().st_size:,} bytes"
        print(f"wrote {path} ({what})")


def summary_text(summary: dict, setting, *, source: str = "", result=None) -> str:
    """The figures of one replay as a person reads them (percentages, durations, words);
    ``result`` (the ``ReplayResult``, optional) adds what only its tables hold (Beam: the
    panes fired at the end of input by timing, the dropped records by reason)."""
    from toolkit.metrics.base import base_words, record_share
    from toolkit.semantics import get
    from toolkit.viz import _format as fmt
    from toolkit.viz._format import duration, number, share

    engine = get(setting.semantics)
    lines = [_replayed_line(summary, engine.invalid_words(setting), source), f"setting: {setting}"]
    lines.append(f"  fates, as shares {base_words(summary)} (they add to 100 %):")
    rows = [("on time", "on_time"), ("late but accepted", "late_accepted"), ("dropped", "dropped")]
    width = max(len(number(summary.get(k, 0))) for _, k in rows)
    for name, key in rows:
        n = int(summary.get(key, 0) or 0)
        extra = engine.dropped_words(summary, result, fmt) if key == "dropped" else None
        if extra is None and key == "dropped" and "late_side_output" in summary:
            extra = f"  (late side output: {number(summary['late_side_output'])})"
            if summary.get("never_fired"):
                extra = extra[:-1] + (f"; never fired: {number(summary['never_fired'])}, taken into a window whose "
                                      "trigger never fired after them, not late)")
        part = record_share(n, summary)
        lines.append(f"  {name:<18} {number(n):>{width}}  {share(part) if part is not None else '':>8}{extra or ''}")
    if "pairs" in summary:  # an interval join
        lines.append(f"  interval join: {number(summary['pairs'])} joined pairs ({number(summary.get('pairs_at_end', 0))} "
                     f"at end of input); late records skipped: {number(summary.get('left_late', 0))} of the left log, "
                     f"{number(summary.get('right_late', 0))} of the right")
    if "completeness_first" in summary:
        lines.append(f"  completeness: {share(summary['completeness_first'])} of record-window pairs in the first "
                     f"result, {share(summary.get('completeness_final'))} in the final one; "
                     f"{share(summary.get('exact_windows'))} of windows exact at their first result")
    lat = [(n, summary.get(k)) for n, k in (("median", "latency_p50_ms"), ("p95", "latency_p95_ms"),
                                            ("p99", "latency_p99_ms"), ("max", "latency_max_ms"))]
    lat = [(n, v) for n, v in lat if v is not None and v == v]  # NaN: no window fired before the end of input
    if lat:
        lines.append("  result latency (first firing - window end): "
                     + ", ".join(f"{n} {duration(v)}" for n, v in lat))
    elif summary.get("at_end_firings"):
        lines.append("  result latency: none defined (every window was fired only by the end of input)")
    if summary.get("latency_tail"):  # what dominates the tail, when structural, and the chart that shows it
        lines.append(f"  {summary['latency_tail']}")
    if "firings" in summary:
        lines.append(f"  firings: {number(summary['firings'])} ({number(summary.get('late_firings', 0))} late, "
                     f"{number(summary.get('at_end_firings', 0))} at end of input) over "
                     f"{number(summary.get('windows', 0))} windows")
    if "peak_state_windows" in summary:
        lines.append(f"  state: peak {number(summary['peak_state_windows'])} open windows and "
                     f"{number(summary.get('peak_state_records', 0))} buffered records (mean "
                     f"{number(summary.get('mean_state_windows', 0))} and {number(summary.get('mean_state_records', 0))})")
    lines += engine.summary_lines(summary, setting, result, fmt)  # what is the engine's own
    notes = list(summary.get("notes") or ())
    notes += [n for n in engine.figure_notes(setting, summary) if n not in notes]  # e.g. windows never emitted
    for note in notes:
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def _replayed_line(summary: dict, why: str | None, source: str) -> str:
    """``Replayed 39,940 valid records of LOG``, and the quarantined rows counted apart (what they
    are: ``why``, the engine's words when it leaves out more than the quarantine)."""
    from toolkit.metrics.base import quarantine_words, valid_records

    valid = valid_records(summary)
    text = f"Replayed {valid:,} valid record{'' if valid == 1 else 's'}" + (f" of {source}" if source else "")
    if summary.get("invalid"):
        text += f"; {quarantine_words(summary)}" + (f" ({why})" if why else "")
    return text


def stages_text(result) -> str:
    """One line per stage of a pipeline: its elements' fates and its firings (stage 1's
    elements are the log's records; a later stage's are the previous stage's firings)."""
    from toolkit.viz._format import number, share

    lines = ["stages (each fed by the previous one's firings):"]
    for st in result.pipeline:
        d = st.summary()
        n = d["elements"]
        pct = (lambda k: f" ({share(d[k] / n)})" if n else "")
        lines.append(f"  {st.stage}. {st.spec.replace(';', ' ')}: {number(n)} elements, {number(d['on_time'])} on time"
                     f"{pct('on_time')}, {number(d['late_accepted'])} late but accepted, {number(d['dropped'])} dropped"
                     f"{pct('dropped')}; {number(d['firings'])} firings ({number(d['late_firings'])} late)")
    return "\n".join(lines)
