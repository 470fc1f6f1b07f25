"""Regenerate the sample logs in this folder, deterministically.

    python data/generate.py            # rewrite every sample log
    python data/generate.py --check    # regenerate into a temporary folder and compare

Each file is written by the same command a user would type (``python -m toolkit generate
...``); COMMANDS below is the single record of those calls (data/README.md lists them too).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# file name -> arguments of `python -m toolkit generate` (the --out is added)
COMMANDS: dict[str, list[str]] = {
    "sample.csv": ["sample", "--records", "30000", "--seed", "42", "--bad-rows", "6"],
    "nexmark.jsonl": ["nexmark", "--records", "5000", "--seed", "7", "--time-format", "iso"],
    "lagging.parquet": ["lagging", "--records", "20000", "--seed", "3"],
}


def regenerate(folder: Path) -> list[Path]:
    """Write every sample log into ``folder``; returns the paths."""
    from toolkit.cli import main

    paths = []
    for name, args in COMMANDS.items():
        out = folder / name
        code = main(["generate", *args, "--out", str(out)])
        if code != 0:
            raise SystemExit(f"generating {name} failed with exit code {code}")
        paths.append(out)
    return paths


def same_content(a: Path, b: Path) -> bool:
    """Byte-identical files, or for Parquet equal tables (writers may stamp their version)."""
    if a.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(a).equals(pq.read_table(b))
    return a.read_bytes() == b.read_bytes()


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(HERE.parent))
    if "--check" in argv:
        with tempfile.TemporaryDirectory() as tmp:
            fresh = regenerate(Path(tmp))
            stale = [p.name for p in fresh if not same_content(HERE / p.name, p)]
        if stale:
            print("differ from a fresh regeneration: " + ", ".join(stale))
            return 1
        print("all sample logs equal a fresh regeneration")
        return 0
    regenerate(HERE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
