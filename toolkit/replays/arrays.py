"""A local log's columns as arrays in arrival order: what every engine's replay reads."""
from __future__ import annotations

from typing import Any

import numpy as np


def log_arrays(log: Any, setting: Any, semantics: Any) -> dict[str, Any]:
    """``ts``, ``arr`` (arrival times; row positions when the log has none), ``part``, ``keys``,
    ``vals``, ``rows``, ``marker`` (a punctuated strategy's marks), ``gap`` (a dynamic session's
    gaps, read by ``semantics.gap_array``: engines differ on a null or non-positive gap) and
    ``has_arr``, every array in arrival order."""
    table = log.table
    order = log.arrival_order()
    has_arr = bool(log.has_arrival_time)
    t = table.iloc[order] if not (len(order) and np.array_equal(order, np.arange(len(order)))) else table
    ts = t["event_time"].to_numpy(dtype=np.int64)
    arr = t["arrival_time"].to_numpy(dtype=np.int64) if has_arr else np.arange(len(t), dtype=np.int64)
    mk = None
    if setting.marker_source is not None:
        from toolkit.sweeps.timelines import marker_array

        mk = marker_array(t, setting)
    gap = semantics.gap_array(t, setting.gap_column) if setting.gap_column is not None else None
    return {"ts": ts, "arr": arr, "part": t["partition"].to_numpy(dtype=np.int64), "keys": t["key"].to_numpy(dtype=object),
            "vals": t["value"].to_numpy(), "rows": t["row"].to_numpy(dtype=np.int64), "marker": mk, "has_arr": has_arr,
            "gap": gap}
