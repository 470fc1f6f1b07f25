"""``python -m toolkit multiplexer FILE...``: run WatermarkOutputMultiplexer scenarios (oracle format)."""
from __future__ import annotations

from toolkit.commands import _conformance


def register(subparsers) -> None:
    _conformance.register_command(
        subparsers, "multiplexer", "multiplexer",
        help="run WatermarkOutputMultiplexer (per-split watermark) scenarios and print what it emits",
    )
