"""``python -m toolkit valve FILE...``: run StatusWatermarkValve scenarios (oracle format)."""
from __future__ import annotations

from toolkit.commands import _conformance


def register(subparsers) -> None:
    _conformance.register_command(
        subparsers, "valve", "valve", help="run StatusWatermarkValve scenarios and print what the valve emits",
    )
