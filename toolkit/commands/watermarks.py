"""``python -m toolkit watermarks FILE...``: run watermark-generator scenarios (oracle format)."""
from __future__ import annotations

from toolkit.commands import _conformance


def register(subparsers) -> None:
    _conformance.register_command(
        subparsers, "watermarks", "watermarks",
        help="run watermark-generator scenarios and print what Flink's generators and WatermarkEmitter emit",
    )
