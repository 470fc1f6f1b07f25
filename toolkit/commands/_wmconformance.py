"""Shared body of the ``watermarks`` and ``valve`` conformance commands."""
from __future__ import annotations

import json
import sys
from pathlib import Path


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="scenario files or directories")
    parser.add_argument("--out-dir", metavar="DIR", help="write DIR/NAME.out.jsonl for each NAME.jsonl")


def run(kind: str, args) -> int:
    from toolkit.engine.wm_scenario import run_files

    out_dir = Path(args.out_dir) if args.out_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    results = list(run_files(kind, args.files))
    for path, lines in results:
        text = "".join(line + "\n" for line in lines)
        name = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.name
        if out_dir:
            (out_dir / f"{name}.out.jsonl").write_text(text)
        else:
            if len(results) > 1:
                sys.stdout.write(json.dumps({"kind": "scenario", "name": name}, separators=(",", ":")) + "\n")
            sys.stdout.write(text)
    return 0
