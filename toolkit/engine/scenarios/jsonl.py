"""JSON lines, as the oracle reads and writes them.

Rules: blank lines and lines starting with ``#`` or ``//`` are skipped; a scenario with no
object is an error; output lines are compact JSON with keys in insertion order
(:func:`dumps`). :func:`discover` is the one place that turns paths into scenario files:
a directory gives its ``*.jsonl`` files that are not ``*.out.jsonl`` (sorted); a file is
taken as it is; a path that does not exist is a ``FileNotFoundError``.
"""
from __future__ import annotations

import json
from operator import index
from pathlib import Path
from typing import Any, Iterable

__all__ = ["read", "read_lines", "dumps", "write", "discover", "is_scenario_file", "output_name", "as_int"]


def read_lines(lines: Iterable[str], where: str = "scenario", *, allow_empty: bool = False) -> list[Any]:
    """The JSON objects of a scenario's lines (``ValueError`` naming ``where`` and the line);
    ``allow_empty`` for outputs, which may have no line."""
    objs = []
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#") or s.startswith("//"):
            continue
        try:
            objs.append(json.loads(s))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: line {n} is not JSON: {exc}") from None
    if not objs and not allow_empty:
        raise ValueError(f"{where}: empty scenario")
    return objs


def read(path: str | Path, *, allow_empty: bool = False) -> list[Any]:
    """The JSON objects of the scenario (or output) file at ``path``."""
    path = Path(path)
    with open(path) as f:
        return read_lines(f, path.name, allow_empty=allow_empty)


def dumps(obj: Any) -> str:
    """One output line, formatted like the oracle (compact JSON, keys in insertion order)."""
    return json.dumps(obj, separators=(",", ":"))


def write(path: str | Path, objs: Iterable[Any]) -> None:
    """Write ``objs`` as JSON lines (:func:`dumps`, one per line) to ``path``."""
    Path(path).write_text("".join(dumps(o) + "\n" for o in objs))


def is_scenario_file(path: str | Path) -> bool:
    name = Path(path).name
    return name.endswith(".jsonl") and not name.endswith(".out.jsonl")


def output_name(path: str | Path) -> str:
    """``NAME.out.jsonl`` for ``NAME.jsonl``: where a scenario's output is written."""
    name = Path(path).name
    return (name[: -len(".jsonl")] if name.endswith(".jsonl") else name) + ".out.jsonl"


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """Scenario files under ``paths`` (see the module docstring)."""
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.extend(sorted(f for f in p.iterdir() if f.is_file() and is_scenario_file(f)))
        elif p.exists():
            files.append(p)
        else:
            raise FileNotFoundError(f"no such scenario file or directory: {p}")
    return files


def as_int(v: Any, where: str) -> int:
    """The one integer rule of the scenario formats: an integer (Python or numpy); bools,
    floats (``1.7`` is not truncated), strings and the rest are a ``ValueError``."""
    if not isinstance(v, bool):
        try:
            return index(v)
        except TypeError:
            pass
    raise ValueError(f"{where}: expected an integer, got {v!r}")
