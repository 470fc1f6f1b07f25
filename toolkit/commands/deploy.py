"""``python -m toolkit deploy [setting options] [--engine TARGET|all]``: the code that runs a setting.

Prints what an engineer pastes into a job (``toolkit.deploy``): Flink DataStream Java or Flink
SQL, with what the engine cannot express said as comments, never written as other code."""
from __future__ import annotations

import argparse


def register(subparsers) -> None:
    from toolkit.commands._settings import add_setting_arguments

    p = subparsers.add_parser(
        "deploy",
        help="print the Flink DataStream (Java), Flink SQL, PySpark, Kafka Streams or Apache Beam (Python) code that "
             "configures one setting",
        description="Print the code that deploys one setting (the same setting options as 'replay'): Flink's "
        "WatermarkStrategy, window assigner, trigger, evictor, allowed lateness and auto-watermark-interval, or "
        "the Flink SQL WATERMARK clause, idle timeout and window table-valued function. What the engine cannot "
        "express is printed as a NOTE.",
    )
    add_setting_arguments(p, lists=False)
    from toolkit.deployment import engines

    targets = " | ".join(f"{name} ({what})" for name, what in engines().items())
    p.add_argument("--engine", default=None, metavar="ENGINE",
                   help=f"{targets} | all (default: the first target of the setting's engine, --semantics)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolkit.commands._settings import given_settings
    from toolkit.deployment import deploy, engines
    from toolkit.errors import UserError
    from toolkit.settings import Setting

    known = engines()
    setting = Setting.parse(given_settings(args, lists=False))
    if args.engine is None:
        chosen = list(engines(setting))[:1]
    else:
        chosen = list(engines(setting)) if args.engine == "all" else [args.engine]
    for name in chosen:
        if name not in known:
            import difflib

            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UserError(f"--engine {name!r} is not one of {', '.join(list(known) + ['all'])}{hint}")
    for i, name in enumerate(chosen):
        if len(chosen) > 1:
            print(("\n" if i else "") + f"===== {known[name]} =====")
        print(str(deploy(setting, engine=name)), end="")
    return 0
