"""Sweep rows evaluated in one piece: every record of the log in one evaluation.

A row runs in one piece when its keys are not independent and the ``toolkit.sweeps.semantics``
registry cannot shard it: Beam rows ``toolkit.replays.beam.shardable`` refuses (sessions,
``earliest``/``latest`` timestamp combiners, count or processing-time triggers: keys share
GroupByKey's output watermark), Spark's complete mode (every window re-emitted every batch),
and, in an unsharded sweep, every non-Flink row. :func:`whole_figures` computes such a row's
figures from the log table by the replay's own code, so they equal
``replay(log, setting).summary()``. In-process the table is the log's; on Spark the same function
runs in one Spark task that holds the whole log (``toolkit.sweeps.spark.run_whole``), from
:func:`canonical_table`, the task's rows in the in-process table's order and dtypes.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit.fast.evaluate import Shard
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.settings import Setting
from toolkit.sweeps.evaluate import merge_all
from toolkit.sweeps.semantics import all_timelines, evaluate_shard
from toolkit.sweeps.timelines import local_sources

#: semantics whose rows can be evaluated in one piece by their replay module, and the path they show
WHOLE_PATHS = {"spark": "microbatch", "kafka_streams": "kafka_streams", "beam": "beam"}

#: the columns of the log table, in ``EventLog.table``'s order, with their dtypes (``value``: as loaded)
_TYPES = {"row": np.int64, "event_time": np.int64, "arrival_time": np.int64, "key": object, "partition": np.int64}


def whole_figures(table: pd.DataFrame, s: Setting, invalid: int, partitions=None) -> dict:
    """The figures (``SUMMARY_COLUMNS``) of the non-Flink setting ``s`` over the whole ``table``:
    the replay module's own (``toolkit.replays.microbatch.sweep_figures``,
    ``toolkit.replays.kafka_streams.sweep_figures`` task by task, Beam's registry evaluator on one
    shard holding every key); ``partitions``: the declared source partitions."""
    if s.semantics == "beam":
        return _beam_figures(table, s, invalid, partitions)
    if s.semantics == "kafka_streams":
        from toolkit.replays.kafka_streams import sweep_figures as kafka_figures

        f = kafka_figures(table, s, invalid, partitions=partitions)
        return {k: f[k] for k in SUMMARY_COLUMNS}
    from toolkit.replays.microbatch import sweep_figures

    return sweep_figures(table, s, invalid, sources=partitions)


def _beam_figures(table: pd.DataFrame, s: Setting, invalid: int, partitions=None) -> dict:
    """Every key in one GroupByKey step: one shard of the whole log, the Flink-side timeline."""
    timeline = all_timelines([s], local_sources(table, partitions))[0]
    values = table["value"].to_numpy() if "value" in table else None
    shard = Shard(table["key"].to_numpy(dtype=object), table["event_time"].to_numpy(dtype=np.int64),
                  table["arrival_time"].to_numpy(dtype=np.int64), table["row"].to_numpy(dtype=np.int64), values=values,
                  partition=table["partition"].to_numpy(dtype=np.int64) if "partition" in table else None)
    rows = evaluate_shard(shard, [(0, s, WHOLE_PATHS["beam"], timeline)])
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
