"""``python -m toolkit valve FILE...``: run StatusWatermarkValve scenarios (oracle format)."""
from __future__ import annotations

from toolkit.commands import _wmconformance


def register(subparsers) -> None:
    p = subparsers.add_parser("valve", help="run StatusWatermarkValve scenarios and print what the valve emits")
    _wmconformance.add_arguments(p)
    p.set_defaults(func=lambda args: _wmconformance.run("valve", args))
