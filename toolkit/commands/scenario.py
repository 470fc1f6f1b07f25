"""``python -m toolkit scenario FILE...``: run window scenarios (the real-Flink oracle's format)
through the engine and print what Flink's window operator emits."""
from __future__ import annotations

import os
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "scenario",
        help="run window scenarios (oracle format) and print the window operator's output",
        description="Reads window scenarios (JSON lines: a config, then records and watermarks) "
        "and prints the output lines real Flink emits for them. Directories are expanded to "
        "their *.jsonl files (not *.out.jsonl).",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="scenario files or directories")
    p.add_argument("--out-dir", metavar="DIR", help="write DIR/NAME.out.jsonl for each NAME.jsonl instead of printing")
    p.set_defaults(func=run)


def run(args) -> int:
    from toolkit.engine.scenario import dumps, run_file, scenario_files

    files = scenario_files(args.files)
    if not files:
        raise ValueError("no scenario files found in " + ", ".join(args.files))
    if args.out_dir:
        os.makedirs(args.out_dir, exist_ok=True)
    several = len(files) > 1
    failed = 0
    for path in files:
        name = os.path.basename(path)
        try:
            out = run_file(path)
        except (ValueError, RuntimeError, OSError) as exc:
            if not several and not args.out_dir:
                raise ValueError(f"{name}: {exc}") from None
            failed += 1
            out = [{"kind": "error", "message": f"{name}: {exc}"}]
        text = "".join(dumps(o) + "\n" for o in out)
        if args.out_dir:
            base = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
            with open(os.path.join(args.out_dir, base + ".out.jsonl"), "w") as f:
                f.write(text)
        else:
            if several:
                sys.stdout.write(dumps({"kind": "scenario", "name": name}) + "\n")
            sys.stdout.write(text)
    if failed:
        print(f"error: {failed} of {len(files)} scenarios failed", file=sys.stderr)
        return 1
    return 0
