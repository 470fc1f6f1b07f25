"""Closed-form, vectorized evaluation of tumbling/sliding event-time windows (numpy/pandas).

Given the operator watermark timeline (``toolkit.fast.timeline``), every figure the sweep
reports is computed with sorts and ``searchsorted`` over window/segment runs, identical to
the reference engine (``toolkit.sweep.engine_path``), see ``toolkit.fast.evaluate``.
"""
from toolkit.fast.evaluate import FixedWindows, Shard, partial, record_fates, window_frame
from toolkit.fast.timeline import TickShape, Timeline, ticks_before

__all__ = ["FixedWindows", "Shard", "TickShape", "Timeline", "partial", "record_fates", "ticks_before", "window_frame"]
