"""The reference path: one shard's records through the engine's ``WindowOperator``.

Records go through the replay's own driver (``toolkit.engine.flink.pipeline.run_pipeline``): in
arrival order, every watermark change of the timeline that precedes a record applied before
it at its processing time, the end of input the MAX watermark at ``timeline.end_time``. The
operator's state size is sampled after every record and every change, so peaks are exact.
The figures are read off that run by ``toolkit.semantics.flink.figures`` (the code
``replay(...).summary()`` reads its own run with), in the same exactly mergeable partial form
as the fast path (``toolkit.metrics.summary``).
"""
from __future__ import annotations

import numpy as np

from toolkit.engine.flink.config import build_operator
from toolkit.engine.flink.pipeline import run_pipeline
from toolkit.engine.flink.timeline import WatermarkTimeline
from toolkit.fast.evaluate import Shard
from toolkit.fast.sessions import elements_with_gaps
from toolkit.semantics.flink.figures import check_window, run_partial, window_arrays
from toolkit.semantics.flink.window_operator import operator_kwargs
from toolkit.settings import Setting

__all__ = ["check_window", "drive", "engine_partial", "make_operator", "window_arrays"]


def make_operator(config: Setting):
    """The first stage's window operator of a configuration, tracking record ids (the figures
    need to know which records each firing held)."""
    check_window(config)
    return build_operator(**operator_kwargs(config), track_records=True)


def drive(shard: Shard, config: Setting, timeline: WatermarkTimeline) -> tuple[list, list]:
    """Run the shard through a fresh first-stage operator (``toolkit.engine.flink.pipeline``, the
    replay's own driver): (emitted items in order, state samples after every record and
    every change, see ``run_pipeline``'s ``state="exact"``). Record ids are shard positions."""
    keys = shard.keys[shard.key_code] if shard.n else np.zeros(0, dtype=object)
    values = shard.values
    if config.gap_column is not None:  # dynamic sessions: each element carries its gap
        values = elements_with_gaps(values, shard.gaps[config.gap_column])
    res = run_pipeline(timeline, keys, shard.ts, shard.arrival, values, np.arange(shard.n, dtype=np.int64),
                       [lambda: make_operator(config)], rows=shard.row, state="exact")
    return [it for _, _, it in res.outputs], res.state


def engine_partial(shard: Shard, config: Setting, timeline: WatermarkTimeline) -> dict:
    """Partial figures of one shard from the reference engine."""
    out, samples = drive(shard, config, timeline)
    return run_partial(shard, config, timeline, out, samples)
