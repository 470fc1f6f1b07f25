"""One configuration in full detail: per-window figures and a fate per input record."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.fast import sessions as fast_sessions
from toolkit.fast.evaluate import FixedWindows, Shard, window_frame
from toolkit.metrics.fates import FATE_NAMES, closed_form_fates
from toolkit.semantics import get
from toolkit.semantics.flink.paths import choose_paths
from toolkit.settings import SESSION_WINDOWS, Setting, SettingError
from toolkit.sweeps.sweep import _event_range, _inputs, dynamic_gap_max, resolve_staggers, settings_grid
from toolkit.sweeps.timelines import build_timelines, local_sources


def _one(log: Any, settings: Any, kwargs: dict) -> tuple[pd.DataFrame, Any, Setting, Shard, Any]:
    table, _, _ = _inputs(log)
    if table is None:
        raise ValueError("per-record detail needs a pandas-backed log (collect a sample with log.to_pandas(limit=...))")
    configs = settings_grid(settings, kwargs)
    if len(configs) != 1:
        raise SettingError("settings", f"give exactly one configuration (no lists), got {len(configs)}")
    config = resolve_staggers(configs, table, None)[0]
    if get(config.semantics).in_one_piece(config):
        raise SettingError("alignment", f"{config}: its records move by the whole log's watermarks, so its detail "
                           "comes from the replay: toolkit.replay(log, ...).fates and .emissions")
    tl = build_timelines([config], local_sources(table))[0]
    values = table["value"].to_numpy() if "value" in table else None
    gaps = {}
    if config.gap_column is not None:
        gaps[config.gap_column] = fast_sessions.gap_column(table, config.gap_column)
    shard = Shard(table["key"].to_numpy(dtype=object), table["event_time"].to_numpy(), table["arrival_time"].to_numpy(),
                  table["row"].to_numpy(), values, gaps=gaps)
    return table, getattr(log, "quarantine", None), config, shard, tl


def evaluate(log: Any, settings: Any = None, /, *, path: str = "auto", **kwargs) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(windows, fates)`` of one configuration.

    ``windows``: one row per true window (``key, window_start, window_end, true_count,
    first_count, final_count, firings, first_timing, first_emit_time, first_latency_ms,
    settle_latency_ms, exact``); ``fates``: ``row, fate`` for every input row, quarantined rows
    included as ``invalid``, sorted by row."""
    table, quarantine, config, shard, tl = _one(log, settings, kwargs)
    (chosen,) = choose_paths([config], path, event_range=_event_range(table, None),
                             gap_max=dynamic_gap_max([config], table, None))
    if chosen == "fast" and isinstance(config.window, SESSION_WINDOWS):
        windows, codes = fast_sessions.window_frame(shard, fast_sessions.session_spec(config.window), tl, config.lateness)
    elif chosen == "fast":
        spec = FixedWindows.of(config.window)
        windows = window_frame(shard, spec, tl, config.lateness)
        codes = closed_form_fates(shard, spec, tl, config.lateness)
    else:
        from toolkit.semantics.flink.engine_path import drive, window_arrays

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


def window_figures(log: Any, settings: Any = None, /, *, path: str = "auto", **kwargs) -> pd.DataFrame:
    """Per-window figures of one configuration (true count, count in first firing, final
    count, firings, first-emission and settle latency). Settings as in ``toolkit.sweep``."""
    return evaluate(log, settings, path=path, **kwargs)[0]


def record_fates(log: Any, settings: Any = None, /, *, path: str = "auto", **kwargs) -> pd.DataFrame:
    """A fate per input row (``on_time``, ``late_accepted``, ``dropped``, ``invalid``)."""
    return evaluate(log, settings, path=path, **kwargs)[1]
