"""Source formats and column mapping: what to read and which column is which.

Shared by the pandas loader (:mod:`toolkit.log.load`), the Spark backend
(:mod:`toolkit.log.spark`) and the synthetic-log writer (:mod:`toolkit.log.synth`).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.log.errors import DuplicateColumnError, EmptyLogError, MissingColumnError

AUTO = "auto"
ROLES = ("event_time", "arrival_time", "key", "partition", "value")
FORMATS = ("csv", "parquet", "jsonl")
_SUFFIXES = {
    ".csv": "csv", ".tsv": "csv", ".txt": "csv",
    ".parquet": "parquet", ".pq": "parquet",
    ".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl",
}


@dataclass(frozen=True)
class ColumnMap:
    """Which source column holds each canonical field (None: not mapped, defaults apply)."""

    event_time: str
    arrival_time: str | None = None
    key: str | None = None
    partition: str | None = None
    value: str | None = None

    @classmethod
    def resolve(cls, columns, *, source: str = "the source", **given: Any) -> "ColumnMap":
        """Resolve "auto" (use the column of the canonical name if present) and check names exist.

        A column name that appears more than once is an error when a role uses it (which of
        the columns is meant cannot be told); unused repeated names are left alone.
        """
        columns = list(columns)
        counts: dict[str, int] = {}
        for c in columns:
            counts[str(c)] = counts.get(str(c), 0) + 1
        resolved: dict[str, str | None] = {}
        for role in ROLES:
            name = given.get(role, AUTO)
            if name is None:
                resolved[role] = None
                continue
            if name == AUTO:
                if role == "event_time":
                    name = "event_time"
                else:
                    resolved[role] = role if role in columns else None
                    continue
            name = str(name)
            if name not in columns:
                shown = ", ".join(repr(str(c)) for c in columns[:20]) or "(none)"
                err = MissingColumnError(f"column {name!r} (for {role}) not found; available columns: {shown}")
                err.role = role
                raise err
            resolved[role] = name
        for role, name in resolved.items():
            if name is not None and counts.get(name, 0) > 1:
                raise duplicate_error(columns, name, role, source)
        return cls(**resolved)

    def items(self):
        return [(role, getattr(self, role)) for role in ROLES if getattr(self, role) is not None]

    def unused(self, columns) -> list[str]:
        """The source's columns no role was mapped to (a load reports them, never silently)."""
        used = {name for _, name in self.items()}
        return [str(c) for c in columns if str(c) not in used]


def duplicate_error(columns, name: str, role: str, source: str) -> DuplicateColumnError:
    """The error for a mapped column name that appears more than once."""
    positions = [i + 1 for i, c in enumerate(columns) if str(c) == name]
    others = sorted({str(c) for c in columns if [str(x) for x in columns].count(str(c)) > 1} - {name})
    more = f" (so do {', '.join(repr(o) for o in others)})" if others else ""
    err = DuplicateColumnError(
        f"column {name!r} (for {role}) appears {len(positions)} times in {source}, as columns "
        f"{', '.join(map(str, positions[:-1]))} and {positions[-1]}{more}; which one is meant cannot be told: "
        f"rename the columns so that each name is unique"
    )
    err.role = role
    return err


def detect_format(path: Path, format: str | None = None) -> str:
    if format is not None:
        fmt = str(format).lower().replace("json-lines", "jsonl").replace("ndjson", "jsonl").replace("json", "jsonl")
        fmt = fmt.replace("jsonljsonl", "jsonl")
        if fmt not in FORMATS:
            raise ValueError(f"format: unknown {format!r}; use one of {', '.join(FORMATS)}")
        return fmt
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".zst", ".xz"):
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _SUFFIXES:
        return _SUFFIXES[suffixes[-1]]
    raise ValueError(
        f"cannot tell the format of {str(path)!r} from its name; pass format='csv', 'parquet' or 'jsonl'"
    )


def list_parts(folder: Path) -> list[Path]:
    """Data files of a folder, sorted by name (hidden files and markers like _SUCCESS skipped)."""
    parts = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith((".", "_")))
    if not parts:
        raise EmptyLogError(f"folder {str(folder)!r} holds no data files")
    return parts
