"""``python -m toolkit compare LOG ... --semantics flink,spark``: one log, the same setting in
several engines, and the records one engine keeps and another drops."""
from __future__ import annotations


def register(subparsers) -> None:
    from toolkit.commands._settings import add_setting_arguments
    from toolkit.commands.describe import add_log_arguments

    p = subparsers.add_parser(
        "compare",
        help="replay a log under the same setting in several engines (--semantics flink,spark) and show the records "
        "one keeps and another drops",
        description="Translate one setting to each engine (what maps and what has no counterpart is printed), replay "
        "LOG under each, and print a table of kept and dropped records (shares of the valid records), first-result "
        "completeness, latency and state per engine, a table of the records kept by one engine and dropped by "
        "another, the notes the figures need, and one example per pair of engines with the reason (--examples N).",
    )
    p.add_argument("log", metavar="LOG", help="event log file or folder of parts")
    add_log_arguments(p)
    add_setting_arguments(p, lists=False)
    c = p.add_argument_group("comparison")
    c.add_argument("--lateness-as", dest="lateness_as", default="drop", metavar="drop|delay",
                   help="how an engine without allowed lateness (Spark) reads --lateness: drop (what it keeps is "
                   "dropped; default) or delay (folded into the watermark delay)")
    c.add_argument("--examples", type=int, default=1, metavar="N",
                   help="examples per pair of engines that one keeps and the other drops (default 1)")
    c.add_argument("--differences", metavar="FILE", help="write every record one engine keeps and another drops, "
                   "with the reason, as CSV")
    c.add_argument("--json", action="store_true", help="print the comparison as one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    import json

    import pandas as pd

    from toolkit.commands._settings import given_settings
    from toolkit.commands._width import terminal_width, wrapped
    from toolkit.commands.describe import load_from_args
    from toolkit.replays.compare import _base_setting, _names, compare_engines
    from toolkit.replays.translate import LATENESS_CHOICES, same_setting
    from toolkit.settings import SettingError

    given = given_settings(args, lists=False)
    names = _names(given.pop("semantics", None))
    if args.lateness_as not in LATENESS_CHOICES:
        raise SettingError("lateness_as", f"--lateness-as {args.lateness_as!r}: choose drop or delay")
    if args.examples < 0:
        raise SettingError("examples", f"--examples must be >= 0, got {args.examples}")
    base = _base_setting(None, given, names)
    same_setting(base, names, lateness_as=args.lateness_as)  # every translation checked before the log is read
    if len(names) < 2:
        raise SettingError("semantics", f"--semantics: compare at least two engines, e.g. flink,spark (got "
                           f"{','.join(names) or 'none'})")
    log = load_from_args(args)
    c = compare_engines(log, base, semantics=names, lateness_as=args.lateness_as)
    if args.differences:
        import itertools

        frames = [c.differences(a, b).assign(kept_by=a, dropped_by=b)
                  for a, b in itertools.permutations(c.semantics, 2)]
        pd.concat(frames, ignore_index=True).to_csv(args.differences, index=False)
    if args.json:
        print(json.dumps(c.to_dict(examples=args.examples), indent=2, default=str))
        return 0
    print(wrapped(c.summary_text(examples=args.examples, width=terminal_width())))
    if args.differences:
        print(f"\nwrote {args.differences}")
    return 0
