"""One configuration in full detail: per-window figures and a fate per input record."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.fast.evaluate import Shard, evaluate_windows, record_fates, window_frame
from toolkit.sweep.grid import Config, build_grid

FATE_NAMES = np.array(["on_time", "late_accepted", "dropped"], dtype=object)


def _one(log: Any, settings: dict) -> tuple[pd.DataFrame, pd.DataFrame, Config, Any]:
    from toolkit.sweep.core import _inputs, build_timelines
    from toolkit.sweep.timelines import tick_table

    table, _, spark_df = _inputs(log)
    if table is None:
        raise ValueError("per-record detail needs a pandas-backed log (collect a sample with log.to_pandas(limit=...))")
    configs = build_grid(**settings)
    if len(configs) != 1:
        raise ValueError(f"give exactly one configuration (no lists), got {len(configs)}")
    config = configs[0]
    arrival = table["arrival_time"].to_numpy(dtype=np.int64)
    row = table["row"].to_numpy(dtype=np.int64)
    ts = table["event_time"].to_numpy(dtype=np.int64)
    part = table["partition"].to_numpy(dtype=np.int64)
    order = np.lexsort((row, arrival))
    tl = build_timelines(
        [config],
        table_for_interval=lambda i: tick_table(arrival, ts, part, i),
        records=lambda c=None: (arrival[order], row[order], ts[order], part[order]),
    )[0]
    shard = Shard(table["key"].to_numpy(dtype=object), ts, arrival, row)
    quarantine = getattr(log, "quarantine", None)
    return table, quarantine, config, (shard, tl)


def evaluate(log: Any, *, path: str = "auto", **settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(windows, fates)`` of one configuration.

    ``windows``: one row per true window (``key, window_start, window_end, true_count,
    first_count, final_count, firings, first_timing, first_emit_time, first_latency_ms,
    settle_latency_ms, exact``); ``fates``: ``row, fate`` for every input row, quarantined rows
    included as ``invalid``, sorted by row."""
    table, quarantine, config, (shard, tl) = _one(log, settings)
    use_fast = config.fast_applies and path != "engine"
    if path == "fast" and not config.fast_applies:
        raise ValueError("the fast path does not apply to this configuration")
    if use_fast:
        spec = config.window_obj
        windows = window_frame(shard, spec, tl, config.lateness_ms)
        pairs, runs, fig = evaluate_windows(shard, spec, tl, config.lateness_ms)
        codes = record_fates(shard, pairs, fig, runs.seg_rec)
    else:
        from toolkit.sweep.engine_path import drive, window_arrays

        out, _ = drive(shard, config, tl)
        w = window_arrays(shard, config, out)
        fired = w["fired"]
        windows = pd.DataFrame(
            {
                "key": w["key"], "window_start": w["window_start"], "window_end": w["window_end"],
                "true_count": w["true_count"], "first_count": w["first_count"], "final_count": w["final_count"],
                "firings": w["firings"], "first_timing": w["first_timing"],
                "first_emit_time": pd.array(w["first_emit"], dtype="Int64"),
                "first_latency_ms": pd.array(w["first_emit"] - w["window_end"], dtype="Int64"),
                "settle_latency_ms": pd.array(w["last_emit"] - w["window_end"], dtype="Int64"),
                "exact": w["first_count"] == w["true_count"],
            }
        )
        for col in ("first_emit_time", "first_latency_ms", "settle_latency_ms"):
            windows.loc[~fired, col] = pd.NA
        codes = w["fate"]
    fates = pd.DataFrame({"row": shard.row, "fate": FATE_NAMES[codes]})
    if quarantine is not None and len(quarantine):
        bad = pd.DataFrame({"row": np.unique(quarantine["row"].to_numpy(dtype=np.int64)), "fate": "invalid"})
        fates = pd.concat([fates, bad], ignore_index=True)
    fates = fates.sort_values("row", kind="mergesort").reset_index(drop=True)
    windows = windows.sort_values(["key", "window_start", "window_end"], kind="mergesort").reset_index(drop=True)
    return windows, fates
