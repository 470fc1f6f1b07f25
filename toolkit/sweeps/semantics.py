"""How each engine's semantics is swept in shards: the sweep's questions to the engine registry.

A sweep that runs sharded (on Spark, or in-process with ``shards > 1``) evaluates every
configuration in three steps, and each semantics says how through one
``toolkit.semantics.base.Semantics``:

1. **timeline** ``timelines(configs, sources) -> {index: timeline}``: whatever is global
   to the log (the part no shard can compute alone), computed once from small aggregates of
   the log, never from the collected log. ``sources`` offers ``tick_table(interval)`` and
   ``records(config)`` (Flink's watermark inputs, ``toolkit.sweeps.timelines``) and
   ``batch_maxima(interval)`` (max event time per (trigger tick, partition),
   ``toolkit.semantics.structured_streaming.sweep``); in-process from the pandas table, on Spark by
   aggregation. A timeline must be picklable (Spark broadcasts it) and have ``start_time``
   and ``end_time`` (the processing-time span mean state is averaged over).
2. **shard evaluator** ``evaluate(shard, config, path, timeline) -> partial``: the
   figures of one shard (``toolkit.fast.evaluate.Shard``: the records of a set of whole
   ``shard_by`` units in arrival order) as a partial in the common exactly-mergeable form of
   ``toolkit.metrics.summary`` (``{"scalars": {SCALARS...}, "latency": (values, counts),
   "state": (pos, d_windows, d_records[, time, row])}``): counts add, value counts add,
   state deltas sit at global positions of the processing order.
3. **combine**: ``toolkit.metrics.summary.merge_config`` (the same for every semantics):
   sums the partials of all shards and gives the summary row, identical to
   ``replay(log, setting).summary()``.

``shard_by``: the unit a shard holds whole (Spark hash-partitions by it). ``"key"`` for Flink
(keyed state; the watermark timeline is global) and Spark (one global watermark). An engine
with state shared by a group of keys (Kafka Streams: stream time per task, key -> task by the
partitioner) shards by that group: ``shard_by="task"``, with ``unit(config, timeline)`` (a
hashable assignment: configurations with equal units share one split of the log) and
``assign(unit, keys, partitions) -> int64 array`` (the group of every record, from the key
and partition columns only: on Spark it runs in a pandas UDF over the canonical log, in-process
on the table; the shard ``toolkit.fast.evaluate.Shard`` carries the ``partition`` column).

``sources`` also offers ``span()`` (``records``, ``first_arrival``, ``last_arrival``,
``min_partition``, ``max_partition``, ``min_event_time``: one aggregate of the log) and
``spread_key()`` (a key found in more than one partition with its partitions, or None).

Each engine answers these through its ``toolkit.semantics.base.Semantics`` (``timelines``,
``evaluate``, ``shard_by``, ``unit``, ``assign``); the functions here group a sweep's
configurations by engine and ask the registry, so ``run_local`` and ``run_spark`` never name one.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import pandas as pd

from toolkit.metrics.summary import ROW_COLUMNS, partial_arrays
from toolkit.semantics import get
from toolkit.settings import Setting


def all_timelines(configs: list[Setting], sources: Any) -> dict[int, Any]:
    """Timeline per config index, each semantics' step run once over its own configurations."""
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(configs):
        groups.setdefault(c.semantics, []).append(i)
    out: dict[int, Any] = {}
    for sem, idx in groups.items():
        got = get(sem).timelines([configs[i] for i in idx], sources)
        out.update({idx[j]: tl for j, tl in got.items()})
    return out


def split_unit(config: Setting, timeline: Any) -> tuple:
    """The split of the log a configuration's shards come from (see ``shard_by``)."""
    engine = get(config.semantics)
    return ("key",) if engine.shard_by == "key" else engine.unit(config, timeline)


def split_ids(unit: tuple, semantics: str, keys: np.ndarray, partitions: np.ndarray) -> np.ndarray:
    """The group (int64) of every record under a non-key ``unit`` (the entry's ``assign``)."""
    return get(semantics).assign(unit, keys, partitions)


def evaluate(shard: Any, config: Setting, path: str, timeline: Any) -> dict:
    """The partial of one shard under ``config``, by its semantics' evaluator."""
    return get(config.semantics).evaluate(shard, config, path, timeline)


def evaluate_shard(shard: Any, jobs: Iterable[tuple[int, Setting, str, Any]], *, on_done=None) -> pd.DataFrame:
    """Partial rows (``toolkit.metrics.summary.ROW_COLUMNS``) of every (config id, config,
    path, timeline) job for one shard."""
    parts = []
    for cid, config, path, timeline in jobs:
        parts.append(partial_arrays(cid, evaluate(shard, config, path, timeline)))
        if on_done is not None:
            on_done()
    if not parts:
        return pd.DataFrame({c: np.zeros(0, dtype=np.int64) for c in ROW_COLUMNS})
    return pd.DataFrame({c: np.concatenate([p[c] for p in parts]) for c in ROW_COLUMNS})
