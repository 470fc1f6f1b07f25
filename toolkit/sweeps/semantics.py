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

``shard_by``: the column of the log whose values a shard holds whole (Spark hash-partitions
by it). ``"key"`` for Flink (keyed state; the watermark timeline is global) and Spark (one
global watermark). An engine with state shared by a group of keys (Kafka Streams: stream
time per task, key -> task by the partitioner) shards by that group: it names a column the
sweep's canonical log has (add it to ``toolkit.sweeps.spark._canonical`` and to the
in-process split) so that a shard holds whole tasks.

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


def _spark_timelines(configs: list[Setting], sources: Any) -> dict[int, Any]:
    return build_batch_timelines(configs, sources.batch_maxima)


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
