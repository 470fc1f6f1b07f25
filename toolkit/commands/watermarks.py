"""``python -m toolkit watermarks FILE...``: run watermark-generator scenarios (oracle format)."""
from __future__ import annotations

from toolkit.commands import _wmconformance


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "watermarks",
        help="run watermark-generator scenarios and print what Flink's generators and WatermarkEmitter emit",
    )
    _wmconformance.add_arguments(p)
    p.set_defaults(func=lambda args: _wmconformance.run("watermarks", args))
