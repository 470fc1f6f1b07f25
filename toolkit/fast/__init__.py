"""Closed-form, vectorized evaluation of tumbling/sliding event-time windows (numpy/pandas).

Given the operator watermark timeline (``toolkit.engine.flink.timeline.WatermarkTimeline``), every
figure the sweep reports is computed with sorts and ``searchsorted`` over window/segment
runs, identical to the reference engine (``toolkit.semantics.flink.engine_path``), see
``toolkit.fast.evaluate``. Session windows, which have no closed form, run Flink's session
operator compiled per key over the same timeline: ``toolkit.fast.sessions``.
"""
from toolkit.fast.evaluate import FixedWindows, Shard, partial, record_fates, window_frame

__all__ = ["FixedWindows", "Shard", "partial", "record_fates", "window_frame"]
