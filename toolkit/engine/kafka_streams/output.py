"""What a Kafka Streams windowed aggregation emits, as columns (the engine's result contract).

One row per record forwarded downstream of the aggregation (or of ``suppress``):

- ``key``, ``window_start``, ``window_end`` (Kafka's ``window.end()``: exclusive for
  ``TimeWindows``, inclusive for sliding and session windows; ``end_inclusive`` says which),
- ``count`` and ``sum`` of the values in the window (count 0 and sum NaN for a tombstone),
- ``kind``: ``update`` (emit on every update, cache off), ``tombstone`` (a session merged away:
  Kafka forwards ``Change(null, ...)`` for it), ``final`` (emit-on-window-close or ``suppress``),
- ``timestamp``: the output record's Kafka timestamp (time windows and sliding windows: the
  highest record timestamp in the window; sessions: the session end; suppress keeps the
  buffered record's timestamp),
- ``emit_index``: position, in arrival order, of the input record whose processing caused the
  row (``-1`` for the end-of-input flush), ``emit_time`` (that record's arrival time; the last
  arrival for the flush), ``task`` and ``at_end`` (see ``topology``),
- ``pane``: 0 for a window's first row, then 1, 2, ... (tombstones count), and ``stream_time``:
  the task's stream time when the row was emitted (the Kafka analogue of a firing's watermark).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

KINDS = ("update", "tombstone", "final")
FATES = np.array(["on_time", "dropped"], dtype=object)


class Sink:
    """Collects forwarded rows in Python lists; ``columns()`` turns them into arrays."""

    __slots__ = ("key", "start", "end", "count", "sum", "kind", "timestamp", "index", "task")

    def __init__(self) -> None:
        self.key: list = []
        self.start: list = []
        self.end: list = []
        self.count: list = []
        self.sum: list = []
        self.kind: list = []
        self.timestamp: list = []
        self.index: list = []
        self.task: list = []

    def forward(self, kind: str, key: Any, start: int, end: int, count: int, total: float,
                timestamp: int, index: int, task: int) -> None:
        self.key.append(key)
        self.start.append(start)
        self.end.append(end)
        self.count.append(count)
        self.sum.append(total)
        self.kind.append(kind)
        self.timestamp.append(timestamp)
        self.index.append(index)
        self.task.append(task)

    def columns(self, arrival: np.ndarray, end_time: int) -> dict[str, np.ndarray]:
        idx = np.asarray(self.index, dtype=np.int64)
        at_end = idx < 0
        emit_time = np.where(at_end, end_time, arrival[np.where(at_end, 0, idx)] if len(arrival) else 0)
        return {
            "key": np.asarray(self.key, dtype=object),
            "window_start": np.asarray(self.start, dtype=np.int64),
            "window_end": np.asarray(self.end, dtype=np.int64),
            "count": np.asarray(self.count, dtype=np.int64),
            "sum": np.asarray(self.sum, dtype=np.float64),
            "kind": np.asarray(self.kind, dtype=object),
            "timestamp": np.asarray(self.timestamp, dtype=np.int64),
            "emit_index": idx,
            "emit_time": np.asarray(emit_time, dtype=np.int64),
            "task": np.asarray(self.task, dtype=np.int64),
            "at_end": at_end,
        }


@dataclass
class KafkaStreamsResult:
    """Emissions (columns, in emission order), a fate per record and the task sensors.

    Per record (arrays in the order the records were given): ``task``, ``stream_time`` (the
    task's stream time after the record), ``dropped_windows`` (how many windows skipped the
    record: what it added to the dropped-records sensor) and ``fate`` (``on_time`` when at least
    one window accepted it, ``dropped`` when none did). ``state``: per task, the windows its store
    holds at the end of input (before the optional flush). ``dropped_records`` is Kafka's
    ``dropped-records-total`` per task; ``record_lateness_max`` / ``record_lateness_avg`` its
    ``record-lateness`` sensor per task (stream time before the record minus the record's
    timestamp, floored at 0).
    """

    emissions: dict[str, np.ndarray]
    task: np.ndarray
    stream_time: np.ndarray
    dropped_windows: np.ndarray
    accepted_windows: np.ndarray
    dropped_records: np.ndarray
    record_lateness_max: np.ndarray
    record_lateness_avg: np.ndarray
    end_inclusive: bool
    description: dict = field(default_factory=dict)
    #: per task, what its store holds when the input ends (before any end-of-input flush):
    #: ``(key, start, end, count, sum, timestamp)``
    state: list[list[tuple]] = field(default_factory=list)

    @property
    def fate_codes(self) -> np.ndarray:
        """0 = on_time, 1 = dropped (index into ``FATES``)."""
        return (self.accepted_windows == 0).astype(np.int64)

    @property
    def fates(self) -> np.ndarray:
        return FATES[self.fate_codes]

    @property
    def dropped_records_total(self) -> int:
        return int(self.dropped_records.sum())

    def summary(self) -> dict:
        """Counts a reader needs first: records and their fates, the sensor, emissions by kind."""
        kinds = self.emissions["kind"]
        return {
            "records": int(len(self.task)),
            "on_time": int((self.accepted_windows > 0).sum()),
            "dropped": int((self.accepted_windows == 0).sum()),
            "dropped_records_sensor": self.dropped_records_total,
            "updates": int((kinds == "update").sum()),
            "tombstones": int((kinds == "tombstone").sum()),
            "finals": int((kinds == "final").sum()),
            "at_end": int(self.emissions["at_end"].sum()),
            "tasks": int(len(self.dropped_records)),
            **{k: v for k, v in self.description.items() if k in ("windows", "emit", "deployable")},
        }

    def rows(self, kinds: tuple[str, ...] = KINDS) -> list[tuple]:
        """Emissions as ``(key, start, end, count, sum, kind, timestamp)`` tuples (for tests and reading)."""
        e = self.emissions
        out = []
        for i in range(len(e["key"])):
            if e["kind"][i] in kinds:
                s = e["sum"][i]
                out.append((e["key"][i], int(e["window_start"][i]), int(e["window_end"][i]), int(e["count"][i]),
                            None if np.isnan(s) else float(s), e["kind"][i], int(e["timestamp"][i])))
        return out

    def __len__(self) -> int:
        return len(self.emissions["key"])
