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
    """argparse with "did you mean" for a misspelled option (Python 3.11 has none), and no
    abbreviated options: ``--output`` must not silently mean ``--output-mode`` (nor ``--del``
    ``--delay``); an unknown option is an error that suggests the closest one."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        ns, extras = super().parse_known_args(args, namespace)
        if extras and self._subparsers is None and "--event-time" not in self._option_string_actions:
            self._refuse_log(extras)
        for token in extras:
            if token.startswith("-"):
                self.error(f"unrecognized option {token}{_suggest(self, token)}")
        return ns, extras

    def _refuse_log(self, extras: list[str]) -> None:
        """A command that reads no log, given a log file or a column option (``deploy FILE
        --event-time ts``): one line that says it needs none, naming what the user typed."""
        given: list[str] = []
        for i, token in enumerate(extras):
            after_log_option = i > 0 and extras[i - 1] in log_options()  # its value
            if token.split("=")[0] in log_options() or after_log_option or \
                    (not token.startswith("-") and (i == 0 or not extras[i - 1].startswith("-"))):  # a LOG file
                given.append(token)
        if given:
            self.error(f"{self.prog.split()[-1]} reads no log, so it takes no LOG file and none of the options that "
                       f"load one ({', '.join(sorted(log_options())[:4])} ...): leave out {' '.join(given)}")

    def error(self, message: str):  # type: ignore[override]
        """One line on stderr (``--help`` has the usage), exit code 2."""
        self.exit(2, f"{self.prog}: error: {message}\n")


def log_options() -> set[str]:
    """The options of the commands that load a log (``--event-time``, ``--arrival-time``, ``--key`` ...)."""
    from toolkit.commands.describe import add_log_arguments

    p = argparse.ArgumentParser(add_help=False)
    add_log_arguments(p)
    return {o for o in p._option_string_actions if o.startswith("--")}


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
    parser.add_argument("--debug", action="store_true", help="show the Python traceback when a command fails "
                        "(may be given anywhere on the line)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(toolkit.commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"toolkit.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; every failure is one ``error:`` line on stderr (exit code 2 for what
    the user can fix, 1 for an unexpected failure, 130 when interrupted) unless ``--debug``
    (anywhere on the line) asks for the Python traceback."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_in
    args_in = [a for a in args_in if a != "--debug"]
    parser = build_parser()
    args = parser.parse_args(args_in)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as exc:  # a sweep with --out says what it kept (toolkit.sweeps.resume)
        if debug:
            raise
        print(str(exc) or "error: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - one line for the user, the traceback with --debug
        if debug:
            raise
        code, message = error_line(exc)
        print(f"error: {message}", file=sys.stderr)
        return code


def error_line(exc: BaseException) -> tuple[int, str]:
    """Exit code and one-line message of an exception that ends a command."""
    from toolkit.settings import SettingError

    if isinstance(exc, SettingError):
        from toolkit.commands._settings import cli_message

        return 2, cli_message(exc)
    if isinstance(exc, (UserError, SetupError, ValueError)):
        return 2, str(exc)
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        what = exc.strerror or str(exc) or type(exc).__name__
        return 2, f"{what}{where}"
    if isinstance(exc, MemoryError):
        return 2, ("out of memory: the log or the settings need more memory than this machine has; use fewer "
                   "records, a longer --interval or a larger slide, or run the sweep on Spark (--master)")
    if isinstance(exc, OverflowError):
        return 2, f"a number is out of range ({_one_line(str(exc))}); check the times and durations of the log and settings"
    if isinstance(exc, RecursionError):
        return 1, "the input nests too deeply to be read (RecursionError)"
    return 1, (f"unexpected {type(exc).__name__}: {_one_line(str(exc))} (run again with --debug for the traceback, "
               "and please report it)")


def _one_line(text: str) -> str:
    lines = [t.strip() for t in str(text).splitlines() if t.strip()]
    return " ".join(lines) if len(lines) <= 3 else " ".join(lines[:3]) + " ..."
