"""Watermark alignment: which records a source reads when, under
``WatermarkStrategy.withWatermarkAlignment(group, maxAllowedWatermarkDrift, updateInterval)``.

Flink 2.3's rules (``SourceOperator``, ``SourceCoordinator``, ``WatermarkSampler``), on the
simulated clock of the replay (checked against real Flink by ``oracles/flink_alignment``):

- Every source subtask keeps, per split and for its combined watermark, the *latest* value and a
  ring of the last ``buffer_size`` samples (``pipeline.watermark-alignment.buffer-size``, default
  3; the ring starts full of ``Long.MIN_VALUE``). Decisions read the *oldest* sample (the latest
  when ``buffer_size`` is 0).
- Every ``update_interval`` (at ``t0 + k * update_interval``, ``t0`` the first arrival) each
  subtask samples (pushes every latest value into its ring), checks (below) and reports its
  latest combined watermark (nothing before it has one; ``Long.MAX_VALUE`` once all its splits
  finished). The coordinator announces ``maxAllowedWatermark = min(reports) + drift`` (MAX on
  overflow) to the subtasks that reported; each sets its ``maxDesiredWatermark`` (MAX until the
  first announcement) and checks again. The round trip is taken as instantaneous: the
  announcement of a report applies at the tick that sent it.
- A check: the subtask stops reading altogether (``WAITING_FOR_ALIGNMENT``) while
  ``maxDesired < oldest combined sample`` and resumes when that no longer holds; a split is paused
  (``pauseOrResumeSplits``) when its oldest sample ``> maxDesired`` and resumed when a check finds
  it ``<=``. A split's watermark update (at a periodic emission) pauses it at once by the same test.
- A paused split's records wait; a record is read at its arrival time, or, when it arrives while
  its split is paused or its subtask waits, at the time point that lets it be read (it keeps its
  place in the log's order among the records read then). So alignment moves processing times.
- A split finishes right after its last record is read (a bounded split): it leaves the
  multiplexer (the combined watermark follows at the next periodic emission) and the alignment.
  A declared split without records never finishes.

At one time point the order is: the alignment update, then the records with ``arrival <= t``,
then the periodic watermark emission (``t0 + k * interval``).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MIN = -(2**63)
MAX = 2**63 - 1


@dataclass(frozen=True)
class WatermarkAlignment:
    """``withWatermarkAlignment(group, maxAllowedWatermarkDrift, updateInterval)`` and
    ``pipeline.watermark-alignment.buffer-size``; times in ms."""

    drift: int
    update_interval: int = 1000
    buffer_size: int = 3
    group: str = "default"

    def __post_init__(self) -> None:
        if self.drift < 0:
            raise ValueError(f"the maximal drift must not be negative, got {self.drift}")
        if self.update_interval <= 0:
            raise ValueError(f"the update interval must be positive, got {self.update_interval}")
        if self.buffer_size < 0:
            raise ValueError(f"the buffer size must not be negative, got {self.buffer_size}")


class _Out:
    """A generator's output: the highest watermark it emitted."""

    def __init__(self) -> None:
        self.wm = MIN

    def emit_watermark(self, ts: int) -> None:
        self.wm = max(self.wm, int(ts))

    def mark_idle(self) -> None:  # pragma: no cover - strategies with idleness are refused
        raise ValueError("watermark alignment is modelled without idleness")

    def mark_active(self) -> None:  # pragma: no cover
        pass


@dataclass
class _Split:
    sid: int
    records: np.ndarray  # positions in the input, in arrival order
    gen: Any
    ring: deque
    out: _Out = field(default_factory=_Out)
    latest: int = MIN
    next: int = 0
    paused: bool = False
    finished: bool = False


@dataclass
class _Subtask:
    index: int
    splits: list[_Split]
    ring: deque
    emitted: int = MIN  # the combined watermark emitted (WatermarkToDataOutput)
    max_desired: int = MAX
    waiting: bool = False


class _Reader:
    """The state of every source subtask and the coordinator; ``events`` is what happened."""

    def __init__(self, ts: np.ndarray, arr: np.ndarray, part: np.ndarray, strategy: Any,
                 parallelism: int, alignment: WatermarkAlignment, partitions: Any) -> None:
        self.ts, self.arr, self.a = ts, arr, alignment
        b = alignment.buffer_size
        ids = sorted(set(int(p) for p in np.unique(part)) | set(int(p) for p in (partitions if partitions is not None else ())))
        self.subtasks = [_Subtask(i, [], deque([MIN] * b)) for i in range(parallelism)]
        for p in ids:
            split = _Split(p, np.flatnonzero(part == p), strategy.create(), deque([MIN] * b))
            self.subtasks[p % parallelism].splits.append(split)
        self.reports: dict[int, int] = {}
        self.read_time = np.full(len(ts), -1, dtype=np.int64)
        self.unread = len(ts)
        self.events: list[tuple] = []

    def sample(self, ring: deque, latest: int) -> None:
        """``WatermarkSampler.sample``: the latest value enters the ring, the oldest leaves."""
        if self.a.buffer_size:
            ring.append(latest)
            ring.popleft()

    def oldest(self, ring: deque, latest: int) -> int:
        return ring[0] if self.a.buffer_size else latest

    def live(self, sub: _Subtask) -> list[_Split]:
        return [s for s in sub.splits if not s.finished]

    # -- the checks of SourceOperator ----------------------------------------------------------

    def check_waiting(self, sub: _Subtask) -> None:
        """Source-level alignment: stop reading while maxDesired < the oldest combined sample."""
        sub.waiting = sub.max_desired < self.oldest(sub.ring, sub.emitted)

    def check_splits(self, sub: _Subtask, at: int) -> None:
        """Split-level alignment: pause splits ahead of maxDesired, resume paused ones that are not."""
        pause = [s for s in self.live(sub) if self.oldest(s.ring, s.latest) > sub.max_desired and not s.paused]
        resume = [s for s in self.live(sub) if self.oldest(s.ring, s.latest) <= sub.max_desired and s.paused]
        self.pause_resume(pause, resume, at)

    def pause_resume(self, pause: list[_Split], resume: list[_Split], at: int) -> None:
        if pause or resume:
            for s in pause:
                s.paused = True
            for s in resume:
                s.paused = False
            self.events.append(("pause_resume", at, [s.sid for s in pause], [s.sid for s in resume]))

    # -- the three things that happen at a time point ------------------------------------------

    def align(self, at: int) -> None:
        """Every subtask samples, checks and reports; the coordinator announces min + drift."""
        for sub in self.subtasks:
            if sub.splits and not self.live(sub):
                continue  # finished: it reported MAX
            for s in self.live(sub):
                self.sample(s.ring, s.latest)
            self.sample(sub.ring, sub.emitted)
            self.check_waiting(sub)
            self.check_splits(sub, at)
            if sub.emitted != MIN:
                self.reports[sub.index] = sub.emitted
        if not self.reports:
            return
        low = min(self.reports.values())
        allowed = MAX if low > MAX - self.a.drift else low + self.a.drift
        for sub in self.subtasks:
            if sub.index in self.reports:
                changed = allowed != sub.max_desired
                sub.max_desired = allowed
                self.check_waiting(sub)
                self.check_splits(sub, at)
                if changed:
                    self.events.append(("max_desired", at, sub.index, allowed))

    def read(self, at: int) -> None:
        """Every record that has arrived, of an unpaused split of a reading subtask, is read now."""
        for sub in self.subtasks:
            if sub.waiting:
                continue
            for s in self.live(sub):
                if s.paused:
                    continue
                while s.next < len(s.records) and self.arr[s.records[s.next]] <= at:
                    i = int(s.records[s.next])
                    self.read_time[i] = at
                    self.unread -= 1
                    s.gen.on_event(int(self.ts[i]), at, s.out)
                    s.next += 1
                if s.next == len(s.records) and len(s.records):
                    s.finished = True
                    self.events.append(("finished", at, s.sid))
            if sub.splits and all(s.finished for s in sub.splits):
                self.reports[sub.index] = MAX

    def periodic(self, at: int) -> None:
        """The periodic emission: each split's generator, then the subtask's combined watermark."""
        for sub in self.subtasks:
            for s in self.live(sub):
                s.gen.on_periodic_emit(at, s.out)
                if s.out.wm > s.latest:
                    s.latest = s.out.wm
                    if self.oldest(s.ring, s.latest) > sub.max_desired and not s.paused:
                        self.pause_resume([s], [], at)
            live = self.live(sub)
            combined = min((s.out.wm for s in live), default=MIN)
            if live and combined > sub.emitted:
                sub.emitted = combined
                self.events.append(("watermark", at, sub.index, combined))
                self.check_waiting(sub)


@dataclass(frozen=True)
class AlignedReads:
    """``read_time``: when each record is read (its new processing time), in the input's order;
    ``events``: ``("pause_resume", at, paused, resumed)``, ``("max_desired", at, subtask, ts)``,
    ``("watermark", at, subtask, ts)``, ``("finished", at, split)`` in the order they happened."""

    read_time: np.ndarray
    events: list


def aligned_reads(event_time: np.ndarray, arrival_time: np.ndarray, partition: np.ndarray, strategy: Any, *,
                  interval: int, parallelism: int, alignment: WatermarkAlignment,
                  partitions: Any = None) -> AlignedReads:
    """When each record is read under watermark alignment (module doc). Inputs in arrival order;
    ``strategy`` a generator factory (``toolkit.engine.flink.watermarks``) whose watermarks move
    only at periodic emissions; ``interval`` > 0; ``partitions``: declared splits (may be empty)."""
    if interval <= 0:
        raise ValueError("watermark alignment needs periodic watermarks (interval > 0)")
    ts = np.asarray(event_time, dtype=np.int64)
    arr = np.asarray(arrival_time, dtype=np.int64)
    part = np.asarray(partition, dtype=np.int64)
    r = _Reader(ts, arr, part, strategy, parallelism, alignment, partitions)
    if len(ts) == 0:
        return AlignedReads(r.read_time, r.events)
    t0 = int(arr[0])
    at = t0
    arrivals = np.unique(arr)
    while True:
        k = at - t0
        if k and k % alignment.update_interval == 0:
            r.align(at)
        r.read(at)
        if k and k % interval == 0:
            r.periodic(at)
        if r.unread == 0:
            return AlignedReads(r.read_time, r.events)
        at = _next_point(at, t0, interval, alignment.update_interval, arrivals)


def _next_point(at: int, t0: int, interval: int, update: int, arrivals: np.ndarray) -> int:
    """The next periodic tick, alignment update or arrival after ``at``."""
    k = at - t0
    nxt = min(t0 + (k // interval + 1) * interval, t0 + (k // update + 1) * update)
    j = int(np.searchsorted(arrivals, at, side="right"))
    return min(nxt, int(arrivals[j])) if j < len(arrivals) else nxt
