"""The demo log and the demo's replay setting, shared by the explain tests."""
from __future__ import annotations

from functools import cache
from pathlib import Path

import toolkit

DATA = Path(__file__).resolve().parents[2] / "data"
DEMO = dict(window="tumbling:1s", delay="500ms", lateness="1s", interval="200ms")
"""``python -m toolkit demo``'s replay (and the README's): 297 of data/sample.csv's records are dropped."""


@cache
def demo_log():
    return toolkit.load_log(DATA / "sample.csv", event_time="event_time", arrival_time="arrival_time", key="key",
                            partition="partition", value="value", time_unit="ms", max_invalid_fraction=0.001)
