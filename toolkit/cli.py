"""``python -m toolkit``: the command line.

Each subcommand lives in its own module under ``toolkit.commands``; a module there
defines ``register(subparsers)`` which adds its parser and sets ``func`` (called with
the parsed arguments, returning an exit code). Modules are discovered, so adding a
command never means editing this file. Heavy imports belong inside ``func``.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import toolkit
import toolkit.commands
from toolkit.errors import SetupError, UserError  # UserError is re-exported as toolkit.cli.UserError



def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m toolkit",
        description="Watermark Lab: replay event logs through Flink's event-time windowing, "
        "sweep watermark settings, and see completeness, latency, drops and state.",
    )
    parser.add_argument("--version", action="version", version=f"watermark-lab {toolkit.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(toolkit.commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"toolkit.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except (UserError, SetupError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
