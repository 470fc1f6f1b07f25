"""Merging the partial figures of a sweep's shards (in-process or Spark) into its rows."""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit.metrics.summary import merge_config


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
