"""Sweep rows evaluated in one piece: every record of the log in one evaluation.

A row runs in one piece when its engine says its keys are not independent
(``Semantics.shardable``: e.g. Beam sessions, or Spark's complete mode), when its setting moves
records globally (``Semantics.in_one_piece``: Flink's watermark alignment) or, in an unsharded
sweep, when the engine has no in-process shard path (``Semantics.shards_in_process``).
:func:`whole_rows` computes such rows' figures from the log table by each engine's own code
(``Semantics.whole_figures``), so they equal ``replay(log, setting).summary()``. In-process the table is the log's; on Spark the same function
runs in one Spark task that holds the whole log (``toolkit.sweeps.spark.run_whole``), from
:func:`canonical_table`, the task's rows in the in-process table's order and dtypes.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.fast.evaluate import Shard
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.semantics import get
from toolkit.settings import Setting
from toolkit.sweeps.evaluate import merge_all
from toolkit.sweeps.semantics import all_timelines, evaluate_shard
from toolkit.sweeps.timelines import local_sources

#: the columns of the log table, in ``EventLog.table``'s order, with their dtypes (``value``: as loaded)
_TYPES = {"row": np.int64, "event_time": np.int64, "arrival_time": np.int64, "key": object, "partition": np.int64}


def in_one_piece(s: Setting, sharded: bool) -> bool:
    """Whether ``s`` runs in one piece: its engine cannot shard it, or the sweep is unsharded and
    the engine has no in-process shard path of its own."""
    engine = get(s.semantics)
    return engine.in_one_piece(s) or not (engine.shards_in_process or (sharded and engine.shardable(s)))


def whole_rows(table: pd.DataFrame, configs: dict[int, Setting], invalid: int, partitions=None) -> dict[int, dict]:
    """The figures (``SUMMARY_COLUMNS``) of every setting in ``configs`` (config position ->
    setting) over the whole ``table``, each engine's settings together (``whole_figures``:
    an engine may prepare the log once for all of them); ``partitions``: the declared sources."""
    by_engine: dict[str, list[int]] = {}
    for i, s in configs.items():
        by_engine.setdefault(s.semantics, []).append(i)
    out: dict[int, dict] = {}
    for name, idx in by_engine.items():
        figures = get(name).whole_figures(table, [configs[i] for i in idx], invalid, partitions)
        out.update(zip(idx, figures))
    return out


def whole_figures(table: pd.DataFrame, s: Setting, invalid: int, partitions=None) -> dict:
    """The figures of one setting evaluated in one piece (:func:`whole_rows` of one)."""
    return whole_rows(table, {0: s}, invalid, partitions)[0]


def one_shard_figures(engine: Any, table: pd.DataFrame, s: Setting, invalid: int, partitions=None) -> dict:
    """An engine's shard evaluator run on one shard holding every key, with the engine's timeline."""
    timeline = all_timelines([s], local_sources(table, partitions))[0]
    values = table["value"].to_numpy() if "value" in table else None
    shard = Shard(table["key"].to_numpy(dtype=object), table["event_time"].to_numpy(dtype=np.int64),
                  table["arrival_time"].to_numpy(dtype=np.int64), table["row"].to_numpy(dtype=np.int64), values=values,
                  partition=table["partition"].to_numpy(dtype=np.int64) if "partition" in table else None)
    rows = evaluate_shard(shard, [(0, s, engine.path, timeline)])
    merged = merge_all(rows, {0: (timeline.start_time, timeline.end_time)}, invalid)
    return merged.loc[0, SUMMARY_COLUMNS].to_dict()


def canonical_table(frame: pd.DataFrame) -> pd.DataFrame:
    """A Spark task's records as the in-process log table: sorted by ``row`` (the log's original
    order), the canonical columns in their pandas dtypes (``key`` as str objects), any other
    column (a kept gap or marker column) as it came."""
    out = frame.sort_values("row", kind="mergesort").reset_index(drop=True)
    for col, dtype in _TYPES.items():
        if col in out:
            out[col] = out[col].astype(dtype)
    if "key" in out:
        out["key"] = out["key"].map(str).astype(object)
    return out
