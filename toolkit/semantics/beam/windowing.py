"""A ``semantics="beam"`` setting as Beam's ``WindowInto`` (window function, trigger, allowed
lateness, accumulation, timestamp combiner; µs ticks), and the scenario-style specs it is read from."""
from __future__ import annotations

import numpy as np

from toolkit.engine.beam.driver import Windowing
from toolkit.engine.beam.scenario import US_PER_MS, window_fn_from_spec
from toolkit.engine.beam.timestamp_combiners import TimestampCombiner
from toolkit.engine.beam.triggers import trigger_from_spec


def beam_windowing(window: dict, trigger: dict | None = None, *, allowed_lateness: int = 0,
                   accumulation: str = "accumulating",
                   timestamp_combiner: str = "end_of_window") -> Windowing:
    """``WindowInto``'s configuration from scenario-style specs (ms; see oracles/beam/README.md)."""
    if not isinstance(allowed_lateness, (int, np.integer)) or allowed_lateness < 0:
        raise ValueError(f"allowed_lateness must be a non-negative number of ms, got {allowed_lateness!r}")
    return Windowing(window_fn_from_spec(window), trigger_from_spec(trigger),
                     int(allowed_lateness) * US_PER_MS, accumulation, TimestampCombiner(timestamp_combiner))


def window_spec(setting) -> dict:
    """The Beam window spec (scenario format, ms) of a ``semantics="beam"`` setting's window."""
    from toolkit.settings import Session, Sliding, Tumbling

    w = setting.window
    if isinstance(w, Tumbling):
        return {"type": "fixed", "size": int(w.size), "offset": int(w.offset)}
    if isinstance(w, Sliding):
        return {"type": "sliding", "size": int(w.size), "period": int(w.slide), "offset": int(w.offset)}
    if isinstance(w, Session):
        return {"type": "sessions", "gap": int(w.gap)}
    raise ValueError(f"window {w} has no Beam form")


def setting_windowing(setting) -> Windowing:
    """``WindowInto``'s configuration of a ``semantics="beam"`` setting (µs ticks)."""
    return beam_windowing(window_spec(setting), setting.beam_trigger.to_spec(), allowed_lateness=int(setting.lateness),
                          accumulation=setting.accumulation, timestamp_combiner=setting.timestamp_combiner)
