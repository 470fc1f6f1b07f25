"""The operator's watermark over processing time: one type for the replay, the sweep's engine
path and its closed form.

A timeline lists the *advances* of the window operator's input watermark (Flink's
``WatermarkEmitter`` and valve drop watermarks that are not strictly higher, so ``watermark``
is strictly increasing) and where each sits in the processing order. It is small (one entry
per advance, never per record for periodic emission) and global across keys, so Spark
broadcasts it and each key shard derives the watermark current at each of its records.

Ordering rule. Change ``k`` happens *after* every record whose arrival order key
``(arrival_time, row)`` is ``<= (time[k], after_row[k])`` and before the others:

* periodic emission at processing time ``T``: ``after_row = INT64_MAX`` (records with
  arrival time <= T are processed before the tick, DESIGN "Periodic emission");
* emission right after record ``r`` (interval 0, a punctuated record): ``time = arrival(r)``,
  ``after_row = row(r)``.

``start_time`` is the first arrival (start of the state-over-time integral); ``end_time``
is when the end-of-input MAX watermark fires what is pending (``at_end``). A timeline built
from the records themselves (``toolkit.engine.flink.pipeline.watermark_timeline``) also carries
the periodic ticks (``ticks``, a :class:`PeriodicTicks`: where a replay samples its state),
the change positions among those records (``change_pos``) and, for display, every change at
each level (``log``).

Size rule: nothing here grows with the log's time span divided by the interval. The
periodic calls are a grid ``first + k * interval`` described by three numbers; only the
calls that can change something (those after new records, and while an idleness countdown
runs; for a processing-time watermark, those that reach a :class:`TimerTargets` value or
precede a record) are run and stored.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

INT64_MIN = np.iinfo(np.int64).min
INT64_MAX = np.iinfo(np.int64).max
_EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class TickShape:
    """Where the changes sit in the arrival order (shared by every delay of a sweep)."""

    time: np.ndarray  # int64 processing time of each change, nondecreasing
    after_row: np.ndarray  # int64, see the module docstring

    def __len__(self) -> int:
        return len(self.time)


@dataclass(frozen=True, eq=False)
class PeriodicTicks:
    """A replay's periodic watermark calls, stored sparsely.

    ``interval > 0``: the calls sit at ``first + k * interval`` for ``k = 1..count``; only
    the calls in ``time`` were run (``watermark``: the operator watermark after each). Any
    other call had no new record and no idleness change since the previous one, so it emits
    nothing new: its watermark is the one after the last run call before it. (A watermark
    that moves with processing time, replayed with timer targets, also moves at the calls
    that were not run, where no timer fires and no record is processed: there
    :meth:`watermark_at` is the last run call's, a lower bound, and only the run calls are
    exact.)
    ``interval == 0``: one call after every record; ``time``/``watermark`` list all of them.
    """

    time: np.ndarray  # int64, nondecreasing: the calls that were run
    watermark: np.ndarray  # int64 operator watermark after each run call
    first: int = 0
    interval: int = 0
    count: int = 0

    def __len__(self) -> int:
        return self.count if self.interval > 0 else len(self.time)

    def watermark_at(self, times: np.ndarray) -> np.ndarray:
        """Operator watermark after the periodic call at each of ``times`` (grid times)."""
        j = np.searchsorted(self.time, np.asarray(times, dtype=np.int64), side="right") - 1
        out = np.full(len(j), INT64_MIN, dtype=np.int64)
        ok = j >= 0
        out[ok] = self.watermark[j[ok]]
        return out

    def sample(self, max_samples: int) -> tuple[np.ndarray, np.ndarray]:
        """Every ``ceil(len / max_samples)``-th call (from the first): times and watermarks,
        at most ``max_samples`` of them, whatever the span."""
        k = len(self)
        every = max(1, -(-k // max(1, int(max_samples))))
        if self.interval <= 0:
            return self.time[::every], self.watermark[::every]
        idx = np.arange(0, k, every, dtype=np.int64)
        times = np.int64(self.first) + np.int64(self.interval) * (idx + 1)
        return times, self.watermark_at(times)

    def all(self) -> tuple[np.ndarray, np.ndarray]:
        """Every call and the watermark after it (materialises ``len(self)`` entries: small
        spans only; :meth:`sample` otherwise)."""
        return self.sample(len(self) or 1)


_NO_TICKS = PeriodicTicks(_EMPTY, _EMPTY)


@dataclass(frozen=True, eq=False)
class WatermarkTimeline:
    """Operator watermark advances, their place in the processing order, start and end."""

    shape: TickShape
    watermark: np.ndarray  # int64, strictly increasing
    start_time: int
    end_time: int
    ticks: PeriodicTicks = _NO_TICKS
    change_pos: np.ndarray | None = None  # records (arrival order) before each change, when known
    log: list = field(default_factory=list)  # (level, id, time, watermark, status) per change
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.watermark)

    @property
    def time(self) -> np.ndarray:
        return self.shape.time

    @property
    def tick_time(self) -> np.ndarray:
        """Every periodic call's time (materialised: small spans; ``ticks.sample`` otherwise)."""
        return self.ticks.all()[0]

    @property
    def tick_watermark(self) -> np.ndarray:
        """The operator watermark after every periodic call (see :attr:`tick_time`)."""
        return self.ticks.all()[1]

    @property
    def change_time(self) -> np.ndarray:
        return self.shape.time

    @property
    def change_watermark(self) -> np.ndarray:
        return self.watermark

    def shifted(self, delta: int) -> "WatermarkTimeline":
        """The same changes with every watermark lowered by ``delta`` (another delay)."""
        wm = self.watermark.astype(np.int64) - np.int64(delta)
        return WatermarkTimeline(self.shape, wm, self.start_time, self.end_time, meta=dict(self.meta))

    def with_shape(self, shape: TickShape) -> "WatermarkTimeline":
        """The same timeline on an equal ``shape`` object (lets timelines share per-shape work)."""
        return WatermarkTimeline(shape, self.watermark, self.start_time, self.end_time, self.ticks,
                                 self.change_pos, self.log, self.meta)

    def ticks_before(self, arrival: np.ndarray, row: np.ndarray) -> np.ndarray:
        """How many changes precede each record."""
        return ticks_before(self.shape, arrival, row)

    def watermark_before(self, arrival: np.ndarray, row: np.ndarray) -> np.ndarray:
        """Operator watermark current when each record is processed (INT64_MIN before any)."""
        seg = ticks_before(self.shape, arrival, row)
        out = np.full(len(seg), INT64_MIN, dtype=np.int64)
        has = seg > 0
        out[has] = self.watermark[seg[has] - 1]
        return out

    def record_watermark(self, n: int) -> np.ndarray:
        """Operator watermark in effect when each of the ``n`` records (arrival order) was
        processed; needs ``change_pos`` (a timeline built from those records)."""
        if self.change_pos is None:
            raise ValueError("this timeline was not built from the records: use watermark_before(arrival, row)")
        idx = np.searchsorted(self.change_pos, np.arange(n, dtype=np.int64), side="right") - 1
        out = np.full(n, INT64_MIN, dtype=np.int64)
        ok = idx >= 0
        out[ok] = self.watermark[idx[ok]]
        return out


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



def change_positions(shape: TickShape, arrival_sorted: np.ndarray, row_sorted: np.ndarray) -> np.ndarray:
    """For records already in arrival order: how many records precede each change."""
    seg = ticks_before(shape, arrival_sorted, row_sorted)  # nondecreasing
    return np.searchsorted(seg, np.arange(len(shape), dtype=np.int64), side="right").astype(np.int64)


def from_changes(
    change_pos: np.ndarray, change_time: np.ndarray, change_watermark: np.ndarray,
    arrival: np.ndarray, row: np.ndarray, start_time: int, end_time: int, **extra,
) -> WatermarkTimeline:
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
    return WatermarkTimeline(TickShape(time, after), np.asarray(change_watermark, dtype=np.int64), int(start_time),
                             int(end_time), change_pos=pos, **extra)


def empty_timeline() -> WatermarkTimeline:
    return WatermarkTimeline(TickShape(_EMPTY, _EMPTY), _EMPTY, 0, 0)


class TimerTargets:
    """The watermark values at which a window operator can do something (its event-time
    timers: window ends ``maxTimestamp`` and cleanup times ``maxTimestamp + lateness``), for
    replaying a processing-time watermark sparsely: between two records only the periodic
    calls at which the watermark first reaches one of them can change a result.

    Stored as runs on arithmetic grids, never one value per window: a run ``(base, step,
    lo, hi)`` holds ``base + j * step`` for ``lo <= j <= hi``; a component is a base and step
    with sorted, disjoint ``[lo, hi]`` index intervals."""

    def __init__(self) -> None:
        self._parts: list[tuple[int, int, np.ndarray, np.ndarray]] = []

    def add_grid(self, base: int, step: int, lo: np.ndarray, hi: np.ndarray) -> "TimerTargets":
        """Add ``base + j * step`` for every ``j`` in any ``[lo[i], hi[i]]`` (intervals merged here)."""
        lo = np.asarray(lo, dtype=np.int64)
        hi = np.asarray(hi, dtype=np.int64)
        if len(lo):
            order = np.argsort(lo, kind="stable")
            lo, hi = lo[order], np.maximum.accumulate(hi[order])
            new = np.r_[True, lo[1:] > hi[:-1] + 1]
            starts = np.flatnonzero(new)
            ends = np.r_[starts[1:], len(lo)] - 1
            self._parts.append((int(base), int(step), lo[starts], hi[ends]))
        return self

    def add_values(self, values: np.ndarray) -> "TimerTargets":
        """Add explicit values (e.g. a session window's ``maxTimestamp`` per record)."""
        v = np.unique(np.asarray(values, dtype=np.int64))
        return self.add_grid(0, 1, v, v)

    def shifted(self, delta: int) -> "TimerTargets":
        """The same targets plus ``delta`` (cleanup times: ``maxTimestamp + lateness``)."""
        out = TimerTargets()
        out._parts = [(b + int(delta), s, lo, hi) for b, s, lo, hi in self._parts]
        return out

    def union(self, other: "TimerTargets") -> "TimerTargets":
        out = TimerTargets()
        out._parts = self._parts + other._parts
        return out

    def next_above(self, w: int) -> int | None:
        """The smallest target strictly above ``w`` (None: there is none)."""
        best: int | None = None
        for base, step, lo, hi in self._parts:
            j = (int(w) - base) // step + 1  # first grid index with base + j*step > w
            if j > int(hi[-1]):
                continue
            j = max(j, int(lo[0]))
            i = int(np.searchsorted(hi, j, side="left"))
            v = base + max(j, int(lo[i])) * step
            if best is None or v < best:
                best = v
        return best

    def __len__(self) -> int:
        return int(sum(int((hi - lo + 1).sum()) for _, _, lo, hi in self._parts))
