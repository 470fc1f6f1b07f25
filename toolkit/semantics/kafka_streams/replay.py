"""A replay with ``semantics="kafka_streams"``: the log through Kafka Streams' windowed aggregation.

The log becomes this topology (``toolkit.engine.kafka_streams``, checked against Kafka's own
unit tests; ``docs/kafka_streams_semantics.md``)::

    builder.stream("events")                 // key = the log's key, timestamp = event_time
           [.repartition(Repartitioned.numberOfPartitions(tasks))]   // repartition=True (default)
           .groupByKey()
           .windowedBy(<window> with grace)   // tumbling / sliding (hopping) / kafka_sliding / session / global
           [.emitStrategy(EmitStrategy.onWindowClose())]             // emit="final"
           .aggregate(count and sum, Materialized...)                // the record cache: cache_max_bytes,
                                                                     // commit_interval (0: withCachingDisabled())
           [.suppress(Suppressed.untilWindowCloses(...) | untilTimeLimit(...))]  // emit="suppress"

- **Tasks.** ``repartition=True`` (default): the record goes through a repartition topic of
  ``tasks`` partitions, written by Kafka's default partitioner (``murmur2`` of the key's UTF-8
  string bytes); task *i* reads partition *i*. ``tasks`` defaults to the input topic's number of
  partitions, as Kafka sizes a repartition topic like its source topic (and runs one task per
  partition of it): the largest partition id + 1 of the log or, when the partitions the job reads
  were declared (``load_log(..., partitions=...)``, ``--partitions``), of the declared ones, since
  a partition that delivered no record is a partition of the topic all the same.
  ``repartition=True`` is the default because nothing guarantees that a recorded log's partitions are keyed by the
  aggregation key, and hashing is what Kafka Streams does whenever it has to re-key.
  ``repartition=False``: the input is already co-partitioned (``groupByKey`` reads the source
  topic directly): task = the log's partition; a key found in two partitions is refused, since
  Kafka would then aggregate it in two tasks separately.
- **Processing order** per task = arrival order (ties: log row order); system time for the
  on-close throttle (1 s) is the arrival time. Stream time is per task.
- **End of input.** Windows an on-close aggregation or a suppression still holds are emitted at
  the last arrival, flagged ``at_end`` (Kafka never flushes; a bounded Flink source does).

Result (same columns and meanings as a Flink replay):

- ``emissions``: ``key, window_start, window_end`` (**end exclusive** as Flink's: Kafka's
  ``window.end()`` for TimeWindows, ``window.end() + 1`` for sliding and session windows, whose
  ends Kafka includes; ``kafka_window_end`` keeps Kafka's value), ``max_timestamp`` (=
  ``window_end - 1``), ``pane``, ``timing`` (``early``: an update while the task's stream time is
  still before the window end; ``late``: an update after it, accepted thanks to grace;
  ``on_time``: a final result; ``at_end``), ``kind`` (``fire``; ``retract`` for a session
  tombstone), ``count, sum, value``, ``watermark`` (the task's stream time at the emission: Kafka's
  analogue), ``emit_time``, ``at_end``, ``seq``, and Kafka's own ``task``, ``kafka_kind``
  (update | tombstone | final), ``timestamp`` (the output record's timestamp).
- ``fates`` (metrics' codes): ``dropped`` = no window accepted the record (Kafka skipped it: the
  dropped-records sensor); ``late_accepted`` = accepted, but it arrived after every window it can
  belong to had ended in its task's stream time (TimeWindows: ``S >= last start + size``;
  kafka_sliding: ``S > ts + DIFF``; sessions: ``S > ts + gap``), so grace alone kept it;
  ``on_time`` otherwise.
- ``late``: the dropped records, ``watermarks``: each task's stream time (``level`` ``task``)
  after every record that moved it, ``state``: open windows and the records they hold after
  every record.

Figures (``summary()`` = a sweep row) and sharding: :mod:`toolkit.semantics.kafka_streams.figures`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.engine.kafka_streams.time_window_columnar import task_stream_time
from toolkit.metrics.fates import DROPPED, FATE_NAMES
from toolkit.semantics.kafka_streams.figures import (
    check_arrivals,
    combine,
    end_offset,
    evaluate_task,
    shard_key,
)
from toolkit.settings import Setting, describe_setting, result_notes


def kafka_parts(log: Any, s: Setting, a: dict) -> dict:
    """The fields of a ``ReplayResult`` for ``log`` under the Kafka Streams setting ``s``
    (``a``: the log's columns in arrival order)."""
    check_arrivals(a)
    task, n_tasks = shard_key(a, s, getattr(log, "declared_partitions", None))
    n = len(a["ts"])
    pos = np.arange(n, dtype=np.int64)
    end_time = int(a["arr"][-1])
    part = evaluate_task(a, pos, task, n_tasks, s, end_time, detail=True, start_time=int(a["arr"][0]))
    res = part["result"]
    em = res.emissions
    off = end_offset(s)
    kind = em["kind"]
    tomb = kind == "tombstone"
    order = np.lexsort((np.arange(len(kind)), part["emit_pos"]))  # emission order (flush last)
    end_excl = em["window_end"] + off
    count = pd.array(np.where(tomb, -1, em["count"]), dtype="Int64")
    count[tomb] = pd.NA
    emissions = pd.DataFrame({
        "key": em["key"], "window_start": pd.array(em["window_start"], dtype="Int64"),
        "window_end": pd.array(end_excl, dtype="Int64"), "max_timestamp": (end_excl - 1).astype(np.int64),
        "pane": em["pane"].astype(np.int64), "timing": part["timing"],
        "kind": np.where(tomb, "retract", "fire").astype(object), "count": count, "sum": em["sum"], "value": em["sum"],
        "watermark": em["stream_time"].astype(np.int64), "emit_time": pd.array(part["emit_time"], dtype="Int64"),
        "at_end": em["at_end"].astype(bool),
    }).iloc[order].reset_index(drop=True)
    emissions["seq"] = np.arange(len(emissions), dtype=np.int64)
    emissions["task"] = em["task"][order].astype(np.int64)
    emissions["kafka_kind"] = kind[order]
    emissions["kafka_window_end"] = em["window_end"][order].astype(np.int64)
    emissions["timestamp"] = em["timestamp"][order].astype(np.int64)
    codes = part["codes"]
    table_rows = log.table["row"].to_numpy(dtype=np.int64)
    fates = pd.DataFrame({"row": table_rows, "fate": FATE_NAMES[pd.Series(codes, index=a["rows"]).loc[table_rows].to_numpy()]},
                         index=log.table.index)
    d = codes == DROPPED
    _, before = task_stream_time(a["ts"], task)
    late = pd.DataFrame({"row": pd.array(a["rows"][d], dtype="Int64"), "key": a["keys"][d],
                         "event_time": a["ts"][d].astype(np.int64), "value": np.asarray(a["vals"])[d],
                         "watermark": res.stream_time[d].astype(np.int64), "arrival_time": pd.array(a["arr"][d], dtype="Int64"),
                         "seq": np.arange(int(d.sum()), dtype=np.int64), "task": task[d].astype(np.int64)})
    moved = res.stream_time != before
    watermarks = pd.DataFrame({"level": "task", "id": task[moved].astype(np.int64),
                               "time": pd.array(a["arr"][moved], dtype="Int64"),
                               "watermark": pd.array(res.stream_time[moved], dtype="Int64"), "status": "active"})
    p_pos, p_time, dw, dr = part["state"]
    state = pd.DataFrame({"time": p_time, "open_windows": np.cumsum(dw), "buffered_records": np.cumsum(dr)}).astype("int64")
    settings_d = describe_setting(s)
    settings_d["has_arrival_time"] = True
    settings_d["tasks"] = n_tasks
    summary = combine([part], int(getattr(log, "n_invalid", 0)))
    summary["late_side_output"] = 0  # Kafka Streams has no late side output (the dropped records: ``late``)
    summary["tasks"] = n_tasks
    summary["deployable"] = res.description["deployable"]
    summary["settings"] = settings_d
    summary["notes"] = result_notes(s)  # e.g. emit=update: a window's first result is partial by design
    return {"emissions": emissions, "fates": fates, "late": late, "watermarks": watermarks, "state": state,
            "settings": settings_d, "setting": s, "_summary": summary}
