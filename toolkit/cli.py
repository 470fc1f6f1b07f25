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



class Parser(argparse.ArgumentParser):
    """argparse with "did you mean" for a misspelled option (Python 3.11 has none)."""

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        ns, extras = super().parse_known_args(args, namespace)
        for token in extras:
            if token.startswith("-"):
                self.error(f"unrecognized option {token}{_suggest(self, token)}")
        return ns, extras


def _suggest(parser: argparse.ArgumentParser, token: str) -> str:
    import difflib

    options = [o for o in parser._option_string_actions if o.startswith("--")]
    close = difflib.get_close_matches(token.split("=")[0], options, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
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
    from toolkit.settings import SettingError

    try:
        return int(args.func(args) or 0)
    except SettingError as exc:
        from toolkit.commands._settings import cli_message

        print(f"error: {cli_message(exc)}", file=sys.stderr)
        return 2
    except (UserError, SetupError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
