"""The real-Flink oracle's scenario formats (``../shared/oracle/README.md``): window (a),
watermarks (b), valve (c) and multiplexer (d).

Rule: every format is JSON lines read by :func:`jsonl.read` (blank, ``#`` and ``//`` lines
skipped), found by :func:`jsonl.discover` (``*.jsonl`` but not ``*.out.jsonl``; a missing
path is an error), and run by ``RUNNERS[kind](objects) -> list[dict]``: the output lines as
dicts, serialised with :func:`jsonl.dumps` only at the edge. ``RUNNERS`` imports a runner
when it is first used, so the watermark and valve runners never load the window operator.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any, Callable

from .jsonl import discover, dumps, read, read_lines

__all__ = ["RUNNERS", "discover", "dumps", "read", "read_lines", "run_file"]


class _Runners(Mapping):
    """kind -> ``run(objects) -> list[dict]``, imported on first use."""

    _MODULES = {"window": "window", "watermarks": "watermarks", "valve": "valve", "multiplexer": "multiplexer"}

    def __getitem__(self, kind: str) -> Callable[[list[Any]], list[dict]]:
        try:
            module = self._MODULES[kind]
        except KeyError:
            raise KeyError(f"unknown scenario kind {kind!r}; known: {', '.join(self._MODULES)}") from None
        return importlib.import_module(f"{__name__}.{module}").run

    def __iter__(self) -> Iterator[str]:
        return iter(self._MODULES)

    def __len__(self) -> int:
        return len(self._MODULES)


RUNNERS: Mapping[str, Callable[[list[Any]], list[dict]]] = _Runners()


def run_file(kind: str, path) -> list[dict]:
    """Read the scenario at ``path`` and run it with ``RUNNERS[kind]``."""
    return RUNNERS[kind](read(path))
