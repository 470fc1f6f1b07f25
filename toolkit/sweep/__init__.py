"""Sweeps: many watermark settings over one log, in-process or on Spark.

``sweep(log, window=..., delay=[...], lateness=[...], interval=[...], ...)`` evaluates every
combination (any setting may be a list) with the closed-form fast path when it applies
(tumbling/sliding windows, event-time trigger, accumulating) and the reference engine
otherwise, and returns one row per configuration. ``frontier`` and ``recommend`` read it.
"""
from toolkit.sweep.core import sweep
from toolkit.sweep.choose import frontier, recommend
from toolkit.sweep.grid import Config, build_grid, parse_window

__all__ = ["Config", "build_grid", "frontier", "parse_window", "recommend", "sweep"]
