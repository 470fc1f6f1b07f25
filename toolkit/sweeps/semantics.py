"""How each engine's semantics is swept in shards: a small registry keyed by ``semantics``.

A sweep that runs sharded (on Spark, or in-process with ``shards > 1``) evaluates every
configuration in three steps, and each semantics says how through one
:class:`ShardedSemantics` entry in :data:`REGISTRY`:

1. **timeline** ``timelines(configs, sources) -> {index: timeline}``: whatever is global
   to the log (the part no shard can compute alone), computed once from small aggregates of
   the log, never from the collected log. ``sources`` offers ``tick_table(interval)`` and
   ``records(config)`` (Flink's watermark inputs, ``toolkit.sweeps.timelines``) and
   ``batch_maxima(interval)`` (max event time per (trigger tick, partition),
   ``toolkit.sweeps.microbatch``); in-process from the pandas table, on Spark by
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

To plug an engine in: add its entry to :data:`REGISTRY` (``register``); ``run_local`` and
``run_spark`` need no change.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np
import pandas as pd

from toolkit.metrics.summary import ROW_COLUMNS, partial_arrays
from toolkit.settings import Setting, SettingError
from toolkit.sweeps.kafka_streams import assign_tasks, task_partial, task_timelines, task_unit
from toolkit.sweeps.evaluate import evaluate_config
from toolkit.sweeps.microbatch import build_batch_timelines, microbatch_partial
from toolkit.sweeps.timelines import build_timelines


@dataclass(frozen=True)
class ShardedSemantics:
    """One engine's sharded evaluation (see the module doc for the contract)."""

    name: str
    timelines: Callable[[list[Setting], Any], dict[int, Any]]
    evaluate: Callable[[Any, Setting, str, Any], dict]
    shard_by: str = "key"
    unit: Callable[[Setting, Any], tuple] | None = None
    assign: Callable[[tuple, np.ndarray, np.ndarray], np.ndarray] | None = None

    def unit_of(self, config: Setting, timeline: Any) -> tuple:
        """The split a configuration's shards come from: ``("key",)`` or the entry's own unit."""
        return ("key",) if self.shard_by == "key" else self.unit(config, timeline)


def _spark_timelines(configs: list[Setting], sources: Any) -> dict[int, Any]:
    return build_batch_timelines(configs, sources.batch_maxima, getattr(sources, "partitions", None))


def _spark_evaluate(shard: Any, config: Setting, path: str, timeline: Any) -> dict:
    return microbatch_partial(shard, config, timeline)


REGISTRY: dict[str, ShardedSemantics] = {}


def register(entry: ShardedSemantics) -> None:
    """Add (or replace) the sharded evaluation of a semantics."""
    REGISTRY[entry.name] = entry


def _beam_evaluate(shard: Any, config: Setting, path: str, timeline: Any) -> dict:
    from toolkit.replays.beam import beam_partial

    return beam_partial(shard, config, path, timeline)


register(ShardedSemantics("flink", build_timelines, evaluate_config))
register(ShardedSemantics("spark", _spark_timelines, _spark_evaluate))
register(ShardedSemantics("kafka_streams", task_timelines, task_partial, shard_by="task", unit=task_unit,
                          assign=assign_tasks))
# Beam: the Flink-side operator timeline (a log has no Beam source; toolkit.replays.beam adds the
# 1 ms between "at or before" and "before"), keyed state: shards hold whole keys. Only the
# configurations toolkit.replays.beam.shardable admits are sharded (toolkit.sweeps.sweep).
register(ShardedSemantics("beam", build_timelines, _beam_evaluate))


def sharded(semantics: str) -> ShardedSemantics:
    """The registry entry of ``semantics`` (a clear error when it cannot run sharded)."""
    try:
        return REGISTRY[semantics]
    except KeyError:
        raise SettingError("semantics", f"semantics={semantics!r} is not evaluated in shards yet (on Spark or with "
                           f"shards > 1); sharded: {', '.join(sorted(REGISTRY))}. Sweep it in-process "
                           "(execution='local')") from None


def all_timelines(configs: list[Setting], sources: Any) -> dict[int, Any]:
    """Timeline per config index, each semantics' step run once over its own configurations."""
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(configs):
        groups.setdefault(c.semantics, []).append(i)
    out: dict[int, Any] = {}
    for sem, idx in groups.items():
        got = sharded(sem).timelines([configs[i] for i in idx], sources)
        out.update({idx[j]: tl for j, tl in got.items()})
    return out


def split_unit(config: Setting, timeline: Any) -> tuple:
    """The split of the log a configuration's shards come from (see ``shard_by``)."""
    return sharded(config.semantics).unit_of(config, timeline)


def split_ids(unit: tuple, semantics: str, keys: np.ndarray, partitions: np.ndarray) -> np.ndarray:
    """The group (int64) of every record under a non-key ``unit`` (the entry's ``assign``)."""
    return sharded(semantics).assign(unit, keys, partitions)


def evaluate(shard: Any, config: Setting, path: str, timeline: Any) -> dict:
    """The partial of one shard under ``config``, by its semantics' evaluator."""
    return sharded(config.semantics).evaluate(shard, config, path, timeline)


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
