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

from .java_double import double_to_string

__all__ = ["read", "read_lines", "dumps", "write", "discover", "is_scenario_file", "output_name", "as_int",
           "get_int", "as_bool", "key_text"]


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
    """The one integer rule of the scenario formats: an integer (Python or numpy) that fits in
    a Java ``long`` (the oracle's Jackson reader refuses a bigger one); bools, floats (``1.7``
    is not truncated), strings and the rest are a ``ValueError``."""
    if not isinstance(v, bool):
        try:
            i = index(v)
        except TypeError:
            pass
        else:
            if -(2**63) <= i < 2**63:
                return i
            raise ValueError(f"{where}: {i} does not fit in a Java long (int64: -2**63 .. 2**63-1)")
    raise ValueError(f"{where}: expected an integer, got {v!r}")


def get_int(d: dict[str, Any], key: str, default: Any = None, *, required: bool = False) -> Any:
    """An optional integer field as the oracle's reader takes it (its ``Json.getLong``): absent
    or ``null`` is ``default`` (``required``: an error); anything else must pass :func:`as_int`,
    so ``false`` is refused (Jackson's ``canConvertToLong`` is false for a boolean: the oracle
    says "must be an integer"), not read as 0."""
    v = d.get(key)
    if v is None:
        if required:
            raise ValueError(f"missing {key!r} in {dumps(d)}")
        return default
    try:
        return as_int(v, key)
    except ValueError as exc:   # the oracle's words, then why
        raise ValueError(f"field {key!r} must be an integer: {dumps(d)} ({str(exc).split(': ', 1)[1]})") from None


def key_text(k: Any) -> str:
    """A record key as the oracle's job sees it (Jackson's ``JsonNode.asText``): a string as it
    is, ``true``/``false``, an integer in decimal, a float as Java 17's ``Double.toString`` writes
    it (``1e20`` -> ``1.0E20``, ``1e-4`` -> ``1.0E-4``, ``1e23`` -> ``9.999999999999999E22``:
    :mod:`.java_double`)."""
    if isinstance(k, str):
        return k
    if isinstance(k, bool):
        return "true" if k else "false"
    if isinstance(k, float):
        return double_to_string(k)
    return str(k)


def as_bool(v: Any, default: bool) -> bool:
    """A scenario flag as the oracle reads it (Jackson's ``asBoolean``): ``null``/absent is
    ``default``; ``true``/``false``; a number is true unless 0; the strings ``"true"`` and
    ``"false"`` (surrounding blanks ignored) are those values, any other string or value is
    false. So ``"side_output_late": "false"`` is false, as in Flink's job."""
    if v is None:
        return default
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v != 0
    if isinstance(v, str):
        return v.strip() == "true"
    return False


class StepOutput:
    """An emitter (``emit(kind, value)``) that records the valve's and the multiplexer's output
    in the oracles' line format, each line tagged with the input ``step`` being processed."""

    def __init__(self) -> None:
        self.lines: list[dict] = []
        self.step = 0

    def __call__(self, kind: str, value: object) -> None:
        if kind == "watermark":
            self.lines.append({"step": self.step, "type": "watermark", "ts": value})
        else:
            self.lines.append({"step": self.step, "type": "status", "status": value})
