"""The one body of the ``scenario``, ``watermarks`` and ``valve`` commands: run oracle-format
scenarios through the engine and print (or write) what real Flink prints for them.

Output, as the oracle's own driver: with several inputs and no ``--out-dir``, a
``{"kind":"scenario","name":FILE_NAME}`` line before each scenario's lines; with
``--out-dir``, ``DIR/NAME.out.jsonl`` for each ``NAME.jsonl``.

Error policy (one for all three): a path that does not exist stops the command before any
work (exit 2). A scenario that fails gives a ``{"kind":"error","message":...}`` line in its
place, the others still run, and the command exits 1; except a single scenario printed to
stdout, whose error is reported as the command's error (exit 2).
"""
from __future__ import annotations

import sys
from pathlib import Path


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="scenario files or directories "
                        "(directories: their *.jsonl files, not *.out.jsonl)")
    parser.add_argument("--out-dir", metavar="DIR", help="write DIR/NAME.out.jsonl for each NAME.jsonl instead of printing")


def register_command(subparsers, name: str, kind: str, help: str, description: str | None = None) -> None:
    """Add the command ``name`` running scenarios of ``kind`` (a key of ``scenarios.RUNNERS``)."""
    p = subparsers.add_parser(name, help=help, description=description or help)
    add_arguments(p)
    p.set_defaults(func=lambda args: run(kind, args))


def run(kind: str, args) -> int:
    from toolkit.engine.flink.scenarios import RUNNERS, discover, dumps, read
    from toolkit.engine.flink.scenarios.jsonl import output_name

    runner = RUNNERS[kind]
    files = discover(args.files)
    if not files:
        raise ValueError("no scenario files found in " + ", ".join(map(str, args.files)))
    out_dir = Path(args.out_dir) if args.out_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    several = len(files) > 1
    failed = 0
    for path in files:
        try:
            out = runner(read(path))
        except (ValueError, RuntimeError, OSError) as exc:
            if not several and not out_dir:
                raise ValueError(f"{path.name}: {exc}") from None
            failed += 1
            out = [{"kind": "error", "message": f"{path.name}: {exc}"}]
        text = "".join(dumps(o) + "\n" for o in out)
        if out_dir:
            (out_dir / output_name(path)).write_text(text)
        else:
            if several:
                sys.stdout.write(dumps({"kind": "scenario", "name": path.name}) + "\n")
            sys.stdout.write(text)
    if failed:
        print(f"error: {failed} of {len(files)} scenarios failed", file=sys.stderr)
        return 1
    return 0
