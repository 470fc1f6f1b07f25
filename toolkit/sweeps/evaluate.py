"""Evaluating Flink configurations on shards, and merging the partial figures (in-process or Spark)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit.engine.flink.timeline import WatermarkTimeline
from toolkit.fast import sessions as fast_sessions
from toolkit.fast.evaluate import FixedWindows, Shard, partial
from toolkit.metrics.summary import merge_config
from toolkit.settings import SESSION_WINDOWS, Setting
from toolkit.sweeps.engine_path import engine_partial


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


def merge_all(rows: pd.DataFrame, spans: dict[int, tuple[int, int]], invalid: int) -> pd.DataFrame:
    """One summary row per config id (index), from the partial rows of all shards."""
    cfg = rows["config"].to_numpy(dtype=np.int64)
    order = np.argsort(cfg, kind="stable")
    cs = cfg[order]
    bounds = np.flatnonzero(np.r_[True, cs[1:] != cs[:-1], True]) if len(cs) else np.array([0])
    sorted_rows = rows.iloc[order]
    out = {}
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        cid = int(cs[lo])
        start, end = spans[cid]
        out[cid] = merge_config(sorted_rows.iloc[lo:hi], start_time=start, end_time=end, invalid=invalid)
    for cid, (start, end) in spans.items():
        if cid not in out:
            out[cid] = merge_config(sorted_rows.iloc[0:0], start_time=start, end_time=end, invalid=invalid)
    return pd.DataFrame.from_dict(out, orient="index")
