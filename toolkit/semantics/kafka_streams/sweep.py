"""Kafka Streams rows of a sharded sweep (in-process ``shards > 1`` or on Spark): shards of whole tasks.

Kafka Streams has no global watermark: each task's stream time is the largest timestamp its own
records carried, so tasks are independent and a shard must hold **whole tasks**
(``shard_by="task"`` in ``toolkit.sweeps.semantics``). The task of a record is the replay's
(``toolkit.semantics.kafka_streams.figures.shard_key``): ``repartition=True`` (default)
``toPositive(murmur2(utf8(str(key)))) % tasks`` (Kafka's default partitioner writing the
repartition topic), ``repartition=False`` the log's partition. ``tasks`` defaults to the input topic's
number of partitions (largest partition id + 1, of the declared partitions when the user declared
them: ``topic_partitions``; ``sources.partitions``), a global figure: so is the co-partitioning check
(``repartition=False`` refuses a key found in two partitions). Both come from the
**timeline** step, which for Kafka is nothing but a few aggregates of the log
(:class:`TaskTimeline`: first and last arrival, number of tasks).

Configurations with the same task assignment (:func:`task_unit`: ``repartition``, the
number of tasks and whether the tasks share a record cache) share one split of the log. With the
record cache on, the tasks of the stream thread share one cache whose evictions depend on all of
them, so the whole thread is one unit (one shard; the commit clock starts at the log's first
arrival, ``TaskTimeline.start_time``); :func:`assign_tasks` computes the task column from
the key and partition columns only (on Spark in a pandas UDF, never collecting the log).

The shard evaluator (:func:`task_partial`) runs ``toolkit.semantics.kafka_streams.figures.evaluate_task``
on the shard's tasks and returns the common partial of ``toolkit.metrics.summary``: state
deltas sit at ``(arrival_time, row)``, the global processing order (arrival order, ties by
row, as the replay orders the log), so the merge gives exactly ``replay(...).summary()``.
Record values are not shipped (no figure depends on them).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from toolkit.engine.kafka_streams.partitioner import tasks_for_keys
from toolkit.semantics.kafka_streams.fast import FAST, code_tasks, fast_applies, fast_task, key_codes
from toolkit.semantics.kafka_streams.figures import (
    check_arrivals,
    combine,
    evaluate_task,
    shard_key,
    shared_cache,
    table_arrays,
    topic_partitions,
)
from toolkit.settings import Setting, SettingError

#: the ``path`` of a Kafka Streams row evaluated by the replay's own code (the engine)
ENGINE = "kafka_streams"


def choose_paths(configs: list[Setting], path: str) -> list[str]:
    """Each row's path: ``fast`` where :func:`fast_applies` (unless ``path="engine"``), else the
    replay's ``kafka_streams``; ``path="fast"`` refuses a row the fast path does not cover."""
    out = []
    for c in configs:
        ok = fast_applies(c)
        if path == FAST and not ok:
            raise SettingError("path", f"the Kafka Streams fast path does not apply to {c}: it needs tumbling or "
                               "hopping windows (tumbling:SIZE, sliding:SIZE/ADVANCE) with emit=update, final, or "
                               "suppress without suppress_time_limit, suppress_max_records or suppress_max_bytes")
        out.append(FAST if ok and path != "engine" else ENGINE)
    return out


@dataclass(frozen=True)
class TaskTimeline:
    """What a Kafka Streams configuration needs from the whole log: the processing-time span
    (``start_time``/``end_time``: first and last arrival; the end is when what is still held is
    flushed) and its task assignment (``repartition``, ``tasks``)."""

    start_time: int
    end_time: int
    repartition: bool
    tasks: int


def task_unit(config: Setting, timeline: TaskTimeline) -> tuple:
    """The task assignment of a configuration: configurations with equal units share a split. With
    a record cache the tasks share their stream thread's cache (an eviction depends on all of
    them): the unit is then the whole thread, one shard."""
    return ("task", timeline.repartition, timeline.tasks, shared_cache(config))


def assign_tasks(unit: tuple, keys: np.ndarray, partitions: np.ndarray) -> np.ndarray:
    """The task (int64) of every record under ``unit`` (:func:`task_unit`); all 0 when the tasks
    share one record cache (one shard: the thread)."""
    _, repartition, tasks, shared = unit
    if shared:
        return np.zeros(len(keys), dtype=np.int64)
    return record_tasks(repartition, tasks, keys, partitions)


def record_tasks(repartition: bool, tasks: int, keys: np.ndarray, partitions: np.ndarray) -> np.ndarray:
    """The stream task (int64) of every record."""
    if repartition:
        return tasks_for_keys(np.asarray(keys, dtype=object), int(tasks))
    return np.asarray(partitions, dtype=np.int64).copy()


def task_timelines(configs: list[Setting], sources: Any) -> dict[int, TaskTimeline]:
    """One :class:`TaskTimeline` per configuration, from ``sources.span()`` (a few aggregates of
    the log) and, for ``repartition=False``, ``sources.spread_key()`` (a key found in two
    partitions, or None). Refuses what the replay refuses, naming the setting."""
    span = sources.span()
    if span["records"] == 0:
        raise SettingError("log", "the log has no valid records to replay")
    if span["min_event_time"] < 0:
        raise SettingError("event_time", "event_time: Kafka Streams has no negative timestamps; the log has records "
                           f"before 1970-01-01 (smallest event_time {span['min_event_time']} ms)")
    n_part = topic_partitions(int(span["max_partition"]), getattr(sources, "partitions", None))
    out: dict[int, TaskTimeline] = {}
    spread_checked = False
    for i, c in enumerate(configs):
        n = n_part if c.tasks is None else int(c.tasks)
        if not c.repartition:
            if span["min_partition"] < 0:
                raise SettingError("repartition", "repartition=False makes each log partition a task; partitions must be >= 0")
            if n < n_part:
                raise SettingError("tasks", f"tasks={n} is fewer than the log's {n_part} partitions; with "
                                   "repartition=False each partition is one task (leave tasks unset)")
            if not spread_checked:
                spread = sources.spread_key()
                spread_checked = True
                if spread is not None:
                    k, ps = spread
                    raise SettingError("repartition", f"repartition=False needs a co-partitioned log, but key {k!r} is in "
                                       f"partitions {sorted(ps)[:5]}: Kafka Streams would aggregate it in several tasks "
                                       "separately; use repartition=True (re-key through a repartition topic)")
        out[i] = TaskTimeline(int(span["first_arrival"]), int(span["last_arrival"]), bool(c.repartition), n)
    return out


def _empty_partial() -> dict:
    z = np.zeros(0, dtype=np.int64)
    return {"scalars": {}, "latency": (z, z), "state": (z, z, z, z, z)}


def task_partial(shard: Any, config: Setting, path: str, timeline: TaskTimeline) -> dict:
    """The partial figures of a shard of whole tasks (``toolkit.fast.evaluate.Shard`` with its
    ``partition`` column) under the Kafka Streams setting ``config``: the replay's own
    :func:`toolkit.semantics.kafka_streams.figures.evaluate_task`, in the common partial form."""
    from toolkit.fast.evaluate import SCALARS

    n = shard.n
    if n == 0:
        part = _empty_partial()
        part["scalars"] = {s: 0 for s in SCALARS}
        return part
    pos = np.arange(n, dtype=np.int64)
    if path == FAST:
        task = code_tasks(shard.key_code, shard.keys, timeline.repartition, timeline.tasks, shard.partition)
        a = {"ts": shard.ts, "arr": shard.arrival}
        p = fast_task(a, pos, task, timeline.tasks, config, timeline.end_time, start_time=timeline.start_time,
                      codes=shard.key_code, uniq=shard.keys)
    else:
        keys = shard.keys[shard.key_code]
        task = record_tasks(timeline.repartition, timeline.tasks, keys, shard.partition)
        a = {"ts": shard.ts, "arr": shard.arrival, "part": shard.partition, "keys": keys, "vals": shard.values,
             "rows": shard.row, "has_arr": True}
        p = evaluate_task(a, pos, task, timeline.tasks, config, timeline.end_time, start_time=timeline.start_time)
    sc = p["scalars"]
    st_pos, st_time, dw, dr = p["state"]
    end = timeline.end_time
    scalars = {
        "valid": sc["records"], "on_time": sc["on_time"], "late_accepted": sc["late_accepted"], "dropped": sc["dropped"],
        "windows": sc["windows"], "exact_windows": sc["exact"], "fired_windows": sc["fired_windows"],
        "true_pairs": sc["true_pairs"], "first_pairs": sc["pairs_first"], "final_pairs": sc["pairs_final"],
        "firings": sc["firings"], "late_firings": sc["late_firings"], "retractions": sc["retractions"],
        # the time integral of the state step function up to the last arrival, delta by delta
        "state_area_windows": int((dw * (end - st_time)).sum()), "state_area_records": int((dr * (end - st_time)).sum()),
        "at_end_firings": sc["at_end_firings"],
    }
    at = shard.arrival[st_pos]
    return {"scalars": scalars, "latency": p["latency"], "state": (at, dw, dr, at, shard.row[st_pos])}


def sweep_figures(table: pd.DataFrame, s: Setting, invalid: int = 0, partitions: Any = None, path: str = ENGINE) -> dict:
    """A sweep row's figures for the Kafka Streams setting ``s``, evaluated task by task
    (:func:`shard_key`, :func:`evaluate_task`, :func:`combine`) or, ``path="fast"``, all tasks at
    once by :func:`toolkit.semantics.kafka_streams.fast.fast_task`: exactly ``replay(...).summary()``'s
    (``partitions``: the declared ones, ``EventLog.declared_partitions``)."""
    a = table_arrays(table)
    check_arrivals(a)
    end_time, start_time = int(a["arr"][-1]), int(a["arr"][0])
    pos = np.arange(len(a["ts"]), dtype=np.int64)
    if path == FAST and s.repartition:  # the tasks from the key codes, each key hashed once
        codes, uniq = key_codes(a["keys"])
        n_tasks = topic_partitions(a["part"], partitions) if s.tasks is None else int(s.tasks)
        task = code_tasks(codes, uniq, True, n_tasks, a["part"])
        return combine([fast_task(a, pos, task, n_tasks, s, end_time, start_time=start_time, codes=codes,
                                  uniq=uniq)], invalid)
    task, n_tasks = shard_key(a, s, partitions)
    if path == FAST:
        return combine([fast_task(a, pos, task, n_tasks, s, end_time, start_time=start_time)], invalid)
    if shared_cache(s):  # the tasks share the thread's record cache: evaluated together
        return combine([evaluate_task(a, pos, task, n_tasks, s, end_time, start_time=start_time)], invalid)
    partials = []
    order = np.argsort(task, kind="stable")
    bounds = np.flatnonzero(np.r_[True, task[order][1:] != task[order][:-1], True])
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        sel = order[lo:hi]  # one task's records, still in arrival order
        sub = {k: (v[sel] if isinstance(v, np.ndarray) else v) for k, v in a.items()}
        partials.append(evaluate_task(sub, pos[sel], task[sel], n_tasks, s, end_time, start_time=start_time))
    return combine(partials, invalid)
