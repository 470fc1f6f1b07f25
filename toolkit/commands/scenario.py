"""``python -m toolkit scenario FILE...``: run window scenarios (the real-Flink oracle's format)
through the engine and print what Flink's window operator emits."""
from __future__ import annotations

from toolkit.commands import _conformance


def register(subparsers) -> None:
    _conformance.register_command(
        subparsers, "scenario", "window",
        help="run window scenarios (oracle format) and print the window operator's output",
        description="Reads window scenarios (JSON lines: a config, then records and watermarks) "
        "and prints the output lines real Flink emits for them. Directories are expanded to "
        "their *.jsonl files (not *.out.jsonl).",
    )
