"""Closed-form, vectorized evaluation of tumbling/sliding event-time windows (numpy/pandas).

Given the operator watermark timeline (``toolkit.engine.timeline.WatermarkTimeline``), every
figure the sweep reports is computed with sorts and ``searchsorted`` over window/segment
runs, identical to the reference engine (``toolkit.sweeps.engine_path``), see
``toolkit.fast.evaluate``.
"""
from toolkit.fast.evaluate import FixedWindows, Shard, partial, record_fates, window_frame

__all__ = ["FixedWindows", "Shard", "partial", "record_fates", "window_frame"]
