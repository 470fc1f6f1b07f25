"""Source side of watermarking: per-partition generators, source subtasks, the emitter.

Flink rules reproduced here:

- :class:`WatermarkEmitter` (``TimestampsAndWatermarksOperator.WatermarkEmitter``) is what a
  source forwards downstream: a watermark ``<=`` the last forwarded one is dropped; while
  idle, only a strictly higher watermark makes it ACTIVE again (ACTIVE is sent right before
  that watermark); ``mark_idle`` sends IDLE once.
- A :class:`SourceSubtask` reads several partitions (splits) and combines them like
  ``WatermarkOutputMultiplexer``/``CombinedWatermarkStatus``: each partition has a
  :class:`PartialWatermark` (its highest watermark and an idle flag; any watermark call
  clears the flag). Watermarks emitted in ``on_event`` go to the immediate output (combined
  at once when they exceed the combined watermark); periodic ones to the deferred output,
  combined once per periodic tick after every partition was asked. The combined watermark is
  the min over non-idle partitions, and only ever increases; when every partition is idle the
  subtask marks itself idle.
- Partition ``p`` is read by subtask ``p % parallelism``. A subtask without partitions is
  idle from the start.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from toolkit.engine.watermarks import MIN_WATERMARK, WatermarkGenerator, WatermarkStrategy

# downstream callback: (kind, value) with kind "watermark" (value = ts) or "status" (value = "idle"|"active")
Downstream = Callable[[str, object], None]


class WatermarkEmitter:
    """What a source operator forwards downstream (see module doc)."""

    __slots__ = ("downstream", "current", "idle")

    def __init__(self, downstream: Downstream) -> None:
        self.downstream = downstream
        self.current = MIN_WATERMARK
        self.idle = False

    def emit_watermark(self, ts: int) -> None:
        if ts <= self.current:
            return
        self.current = ts
        if self.idle:
            self.idle = False
            self.downstream("status", "active")
        self.downstream("watermark", ts)

    def mark_idle(self) -> None:
        if not self.idle:
            self.idle = True
            self.downstream("status", "idle")

    def mark_active(self) -> None:
        if self.idle:
            self.idle = False
            self.downstream("status", "active")


class PartialWatermark:
    """One partition's state inside a subtask (Flink ``CombinedWatermarkStatus.PartialWatermark``)."""

    __slots__ = ("watermark", "idle")

    def __init__(self) -> None:
        self.watermark = MIN_WATERMARK
        self.idle = False

    def set_watermark(self, ts: int) -> bool:
        self.idle = False
        if ts > self.watermark:
            self.watermark = ts
            return True
        return False


class _DeferredOutput:
    __slots__ = ("state",)

    def __init__(self, state: PartialWatermark) -> None:
        self.state = state

    def emit_watermark(self, ts: int) -> None:
        self.state.set_watermark(ts)

    def mark_idle(self) -> None:
        self.state.idle = True

    def mark_active(self) -> None:
        self.state.idle = False


class _ImmediateOutput:
    __slots__ = ("state", "subtask")

    def __init__(self, state: PartialWatermark, subtask: "SourceSubtask") -> None:
        self.state = state
        self.subtask = subtask

    def emit_watermark(self, ts: int) -> None:
        if self.state.set_watermark(ts) and ts > self.subtask.combined:
            self.subtask.update_combined()

    def mark_idle(self) -> None:
        self.state.idle = True
        self.subtask.update_combined()

    def mark_active(self) -> None:
        self.state.idle = False
        self.subtask.update_combined()


class SourceSubtask:
    """One source subtask: its partitions' generators combined into one output (see module doc).

    ``on_partition_change(partition, watermark, idle)`` (optional) observes every change of a
    partition's state, for timelines.
    """

    def __init__(
        self,
        index: int,
        partitions: list[int],
        strategy: WatermarkStrategy,
        downstream: Downstream,
    ) -> None:
        self.index = index
        self.partitions = list(partitions)
        self.generators: dict[int, WatermarkGenerator] = {p: strategy.create() for p in self.partitions}
        self.states: dict[int, PartialWatermark] = {p: PartialWatermark() for p in self.partitions}
        self.deferred = {p: _DeferredOutput(s) for p, s in self.states.items()}
        self.immediate = {p: _ImmediateOutput(s, self) for p, s in self.states.items()}
        self.emitter = WatermarkEmitter(downstream)
        self.combined = MIN_WATERMARK
        self.all_idle = False
        if not self.partitions:
            self.emitter.mark_idle()

    # Flink CombinedWatermarkStatus.updateCombinedWatermark + WatermarkOutputMultiplexer
    def update_combined(self) -> None:
        if not self.partitions:
            return
        lowest = None
        for s in self.states.values():
            if not s.idle and (lowest is None or s.watermark < lowest):
                lowest = s.watermark
        self.all_idle = lowest is None
        if lowest is not None and lowest > self.combined:
            self.combined = lowest
            self.emitter.emit_watermark(lowest)
        elif self.all_idle:
            self.emitter.mark_idle()

    def on_event(self, partition: int, ts: int, pt: int, marker: bool = False) -> None:
        self.generators[partition].on_event(ts, pt, self.immediate[partition], marker)

    def on_events(self, partition: int, ts: np.ndarray, pt: np.ndarray) -> None:
        self.generators[partition].on_events(ts, pt, self.immediate[partition])

    def on_periodic_emit(self, pt: int) -> None:
        for p in self.partitions:
            self.generators[p].on_periodic_emit(pt, self.deferred[p])
        self.update_combined()


def subtask_partitions(partitions: list[int] | np.ndarray, parallelism: int) -> list[list[int]]:
    """Partition ``p`` goes to subtask ``p % parallelism``; returns each subtask's sorted partitions."""
    if parallelism < 1:
        raise ValueError(f"source parallelism must be >= 1, got {parallelism}")
    out: list[list[int]] = [[] for _ in range(parallelism)]
    for p in sorted(int(x) for x in set(np.asarray(partitions).tolist())):
        out[p % parallelism].append(p)
    return out
