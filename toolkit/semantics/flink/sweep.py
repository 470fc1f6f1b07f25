"""Flink rows of a sweep: one shard's partial figures on the fast path (the closed form,
compiled sessions) or on the engine (``engine_path``), in the mergeable form of
``toolkit.metrics.summary``."""
from __future__ import annotations

from toolkit.engine.flink.timeline import WatermarkTimeline
from toolkit.fast import sessions as fast_sessions
from toolkit.fast.evaluate import FixedWindows, Shard, partial
from toolkit.semantics.flink.engine_path import engine_partial
from toolkit.settings import SESSION_WINDOWS, Setting


def evaluate_config(shard: Shard, config: Setting, path: str, timeline: WatermarkTimeline) -> dict:
    """Partial figures of one shard under one Flink configuration on ``path`` (fast | engine);
    every semantics: ``toolkit.sweeps.semantics.evaluate_shard``."""
    if path == "fast" and isinstance(config.window, SESSION_WINDOWS):
        return fast_sessions.partial(shard, fast_sessions.session_spec(config.window), timeline, config.lateness,
                                     retracting=config.accumulation == "retracting")
    if path == "fast":
        return partial(
            shard,
            FixedWindows.of(config.window),
            timeline,
            config.lateness,
            retracting=config.accumulation == "retracting",
        )
    return engine_partial(shard, config, timeline)
