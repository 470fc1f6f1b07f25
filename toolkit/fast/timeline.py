"""The operator watermark timeline: when (in processing order) the window operator's
watermark advances, and to what.

A timeline is small (one entry per watermark advance, never per record for periodic
emission) and global across keys, so Spark broadcasts it and each key shard derives the
watermark current at each of its records by a merge on the arrival order.

Ordering rule. A tick ``k`` happens *after* every record whose arrival order key
``(arrival_time, row)`` is ``<= (time[k], after_row[k])`` and before the others:

* periodic emission at processing time ``T``: ``after_row = INT64_MAX`` (records with
  arrival time <= T are processed before the tick, DESIGN "Periodic emission");
* per-record emission after record ``r``: ``time = arrival(r)``, ``after_row = row(r)``.

Only *advances* are kept (Flink's ``WatermarkEmitter`` and the valve drop watermarks that
are not strictly higher), so ``watermark`` is strictly increasing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

INT64_MIN = np.iinfo(np.int64).min
INT64_MAX = np.iinfo(np.int64).max


@dataclass(frozen=True, eq=False)
class TickShape:
    """Where the ticks sit in the arrival order (shared by every delay of a sweep)."""

    time: np.ndarray  # int64 processing time of each tick, nondecreasing
    after_row: np.ndarray  # int64, see module docstring

    def __len__(self) -> int:
        return len(self.time)


@dataclass(frozen=True, eq=False)
class Timeline:
    """Operator watermark advances plus the replay's start and end processing times.

    ``start_time`` is the first arrival (start of the state-over-time integral);
    ``end_time`` is when the end-of-input MAX watermark fires what is pending (``at_end``).
    """

    shape: TickShape
    watermark: np.ndarray  # int64, strictly increasing
    start_time: int
    end_time: int
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.watermark)

    @property
    def time(self) -> np.ndarray:
        return self.shape.time

    def shifted(self, delta: int) -> "Timeline":
        """The same ticks with every watermark lowered by ``delta`` (another delay)."""
        wm = self.watermark.astype(np.int64) - np.int64(delta)
        return Timeline(self.shape, wm, self.start_time, self.end_time, dict(self.meta))

    def watermark_before(self, arrival: np.ndarray, row: np.ndarray) -> np.ndarray:
        """Operator watermark current when each record is processed (INT64_MIN before any)."""
        seg = ticks_before(self.shape, arrival, row)
        out = np.full(len(seg), INT64_MIN, dtype=np.int64)
        has = seg > 0
        out[has] = self.watermark[seg[has] - 1]
        return out

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"time": self.shape.time, "after_row": self.shape.after_row, "watermark": self.watermark})


def ticks_before(shape: TickShape, arrival: np.ndarray, row: np.ndarray) -> np.ndarray:
    """Number of ticks processed before each record (records given in any order).

    Tick ``(T, q)`` precedes record ``(a, r)`` iff ``T < a`` or ``T == a and q < r``.
    """
    arrival = np.asarray(arrival, dtype=np.int64)
    row = np.asarray(row, dtype=np.int64)
    t = shape.time
    q = shape.after_row
    if len(t) == 0:
        return np.zeros(len(arrival), dtype=np.int64)
    if bool((q == INT64_MAX).all()):
        return np.searchsorted(t, arrival, side="left").astype(np.int64)
    # general case: merge ticks and records in one lexicographic order; records sort
    # before a tick with the same (time, row) key (a tick "after row r" follows r).
    n, k = len(arrival), len(t)
    key_t = np.concatenate([t, arrival])
    key_q = np.concatenate([q, row])
    kind = np.concatenate([np.ones(k, dtype=np.int8), np.zeros(n, dtype=np.int8)])
    order = np.lexsort((kind, key_q, key_t))
    is_tick = kind[order] == 1
    ticks_so_far = np.cumsum(is_tick)
    out = np.empty(n, dtype=np.int64)
    rec_pos = ~is_tick
    out[order[rec_pos] - k] = ticks_so_far[rec_pos]
    return out


def arrival_positions(shape: TickShape, arrival_sorted: np.ndarray, row_sorted: np.ndarray) -> np.ndarray:
    """For records already in arrival order: how many records precede each tick."""
    seg = ticks_before(shape, arrival_sorted, row_sorted)  # nondecreasing
    return np.searchsorted(seg, np.arange(1, len(shape) + 1), side="left").astype(np.int64)


def from_changes(
    change_pos: np.ndarray, change_time: np.ndarray, change_watermark: np.ndarray,
    arrival: np.ndarray, row: np.ndarray, start_time: int, end_time: int,
) -> Timeline:
    """A timeline from operator watermark changes placed between records (``change_pos`` =
    records in arrival order before the change; arrays ``arrival``/``row`` in that order).

    A change at the arrival time of the record just before it sits right after that record
    (``after_row`` = its row): exact for a watermark emitted after every record or by a
    punctuated record, and the same as ``INT64_MAX`` for a periodic tick (every record with
    that arrival time precedes a periodic tick)."""
    pos = np.asarray(change_pos, dtype=np.int64)
    time = np.asarray(change_time, dtype=np.int64)
    arrival = np.asarray(arrival, dtype=np.int64)
    after = np.full(len(pos), INT64_MAX, dtype=np.int64)
    if len(arrival):
        prev = np.maximum(pos - 1, 0)
        at_rec = (pos > 0) & (time == arrival[prev])
        after[at_rec] = np.asarray(row, dtype=np.int64)[prev[at_rec]]
    return Timeline(TickShape(time, after), np.asarray(change_watermark, dtype=np.int64), int(start_time), int(end_time))
