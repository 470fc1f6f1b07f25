"""Bad Beam scenarios and settings get a clear error naming the field the user wrote."""
from __future__ import annotations

import pytest

from toolkit.engine.beam import run_scenario

BASE = {"window": {"type": "fixed", "size": 10}, "events": [{"element": {"key": "a", "value": 1, "ts": 1}}]}


@pytest.mark.parametrize("change, message", [
    ({"window": {"type": "tumbling", "size": 10}}, "window type must be 'fixed', 'sliding' or 'sessions'"),
    ({"window": {"type": "fixed", "size": 0}}, "FixedWindows size must be positive"),
    ({"window": {"type": "fixed", "size": "10s"}}, "'size' must be an integer number of milliseconds"),
    ({"window": {"type": "sliding", "size": 10}}, "'period' must be an integer"),
    ({"window": {"type": "sessions", "gap": -1}}, "Sessions gap must be positive"),
    ({"trigger": {"type": "after_count"}}, "after_count n must be a positive integer"),
    ({"trigger": {"type": "after_count", "n": 0}}, "after_count n must be a positive integer"),
    ({"trigger": {"type": "after_processing_time", "delay_ms": -5}}, "delay_ms must be a non-negative integer"),
    ({"trigger": {"type": "after_any", "triggers": []}}, "after_any needs a non-empty 'triggers' list"),
    ({"trigger": {"type": "sometimes"}}, "unknown trigger type 'sometimes'"),
    ({"trigger": "default"}, "trigger must be an object with a 'type'"),
    ({"accumulation": "retracting"}, "accumulation must be 'accumulating' or 'discarding'"),
    ({"timestamp_combiner": "min"}, "timestamp_combiner must be one of"),
    ({"allowed_lateness_ms": -1}, "allowed_lateness must be >= 0"),
    ({"events": [{"punctuation": 3}]}, r"events\[0\]: expected 'element', 'watermark' or 'processing_time_advance'"),
    ({"events": [{"watermark": 1.5}]}, r"events\[0\]: 'watermark' must be an integer number of milliseconds"),
])
def test_beam_scenario_bad_input(change, message):
    with pytest.raises(ValueError, match=message):
        run_scenario({**BASE, **change})
