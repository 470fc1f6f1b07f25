"""Source side of watermarking: per-partition generators, source subtasks, the emitter.

Flink rules reproduced here:

- :class:`WatermarkEmitter` (``TimestampsAndWatermarksOperator.WatermarkEmitter``) is what a
  source forwards downstream: a watermark ``<=`` the last forwarded one is dropped; while
  idle, only a strictly higher watermark makes it ACTIVE again (ACTIVE is sent right before
  that watermark); ``mark_idle`` sends IDLE once.
- A :class:`SourceSubtask` reads several partitions (splits) and combines them with Flink
  2.3's :class:`WatermarkOutputMultiplexer` (rules in its doc): the min over active splits;
  when every split is idle, first the max over all splits, then IDLE. Watermarks emitted in
  ``on_event`` go to the immediate output, periodic ones to the deferred output, combined
  once per periodic tick after every partition was asked.
- Partition ``p`` is read by subtask ``p % parallelism``. A subtask without partitions is
  idle from the start. Splits are registered at the start (default) or at their first
  record, and may be removed (:class:`SourceSubtask`).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from toolkit.engine.flink.watermarks import MIN_WATERMARK, WatermarkGenerator, WatermarkStrategy

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
    """One split's state in a :class:`WatermarkOutputMultiplexer` (Flink 2.3
    ``CombinedWatermarkStatus.PartialWatermark``): its highest watermark and an idle flag; any
    watermark call clears the flag."""

    __slots__ = ("watermark", "idle")

    def __init__(self) -> None:
        self.watermark = MIN_WATERMARK
        self.idle = False

    def set_watermark(self, ts: int) -> bool:
        """Clear the idle flag; True if ``ts`` raised the split's watermark."""
        self.idle = False
        if ts > self.watermark:
            self.watermark = ts
            return True
        return False


class MultiplexedOutput:
    """What a split's generator writes to (Flink's ``WatermarkOutput``): ``emit_watermark``,
    ``mark_idle``, ``mark_active``. Immediate outputs combine at once, deferred ones only at
    :meth:`WatermarkOutputMultiplexer.on_periodic_emit`."""

    __slots__ = ("state", "mux")

    def __init__(self, state: PartialWatermark, mux: "WatermarkOutputMultiplexer | None") -> None:
        self.state = state
        self.mux = mux  # None = deferred

    def emit_watermark(self, ts: int) -> None:
        mux = self.mux
        if self.state.set_watermark(ts) and mux is not None and ts > mux.combined:
            mux.update_combined()

    def mark_idle(self) -> None:
        self.state.idle = True
        if self.mux is not None:
            self.mux.update_combined()

    def mark_active(self) -> None:
        self.state.idle = False
        if self.mux is not None:
            self.mux.update_combined()


class WatermarkOutputMultiplexer:
    """Flink 2.3's ``WatermarkOutputMultiplexer`` + ``CombinedWatermarkStatus``: combines the
    watermarks of a source subtask's splits into the subtask's watermark.

    Rules (read from the 2.3.0 classes, checked line by line by the multiplexer oracle):

    - Each split is registered under an id (a duplicate id is an error) and may be
      unregistered (returns whether it was registered; nothing is emitted then).
    - Combining: with no split registered no watermark is emitted and the idle flag keeps
      its last value (so IDLE is emitted again if the splits were all idle when the last one
      was unregistered; a fresh multiplexer is not idle). Otherwise, when some split is
      active, the candidate is the min watermark over the active splits; when **every** split
      is idle, the candidate is the **max** watermark over all splits. The candidate is emitted
      if it is higher than the combined watermark (which therefore never goes back). Then, if
      every split is idle, IDLE is emitted (on every combining call while all are idle; the
      :class:`WatermarkEmitter` downstream forwards it once). The multiplexer itself never
      emits ACTIVE: the emitter sends it with the next higher watermark.
    - An immediate output combines when a watermark raises its split's watermark above the
      combined one, and on every idle/active call; a deferred output only updates its split,
      combined at the next :meth:`on_periodic_emit`.

    ``output(kind, value)`` receives ``("watermark", ts)`` and ``("status", "idle")``.
    """

    __slots__ = ("output", "states", "combined", "idle")

    def __init__(self, output: Downstream) -> None:
        self.output = output
        self.states: dict[object, PartialWatermark] = {}
        self.combined = MIN_WATERMARK
        self.idle = False

    def register(self, split: object) -> None:
        """``registerNewOutput``: a new split, at ``MIN_WATERMARK``, active."""
        if split in self.states:
            raise ValueError(f"Already contains an output for ID {split}")
        self.states[split] = PartialWatermark()

    def unregister(self, split: object) -> bool:
        """``unregisterOutput``: forget a split (no combining now); False if it was unknown."""
        return self.states.pop(split, None) is not None

    def _state(self, split: object) -> PartialWatermark:
        try:
            return self.states[split]
        except KeyError:
            raise ValueError(f"no output registered under id {split}") from None

    def immediate_output(self, split: object) -> MultiplexedOutput:
        return MultiplexedOutput(self._state(split), self)

    def deferred_output(self, split: object) -> MultiplexedOutput:
        return MultiplexedOutput(self._state(split), None)

    def on_periodic_emit(self) -> None:
        self.update_combined()

    def update_combined(self) -> None:
        """``updateCombinedWatermark`` (see the class doc)."""
        if not self.states:  # nothing to combine; the idle flag keeps its last value
            if self.idle:
                self.output("status", "idle")
            return
        highest = MIN_WATERMARK
        lowest_active = None
        for s in self.states.values():
            w = s.watermark
            if w > highest:
                highest = w
            if not s.idle and (lowest_active is None or w < lowest_active):
                lowest_active = w
        self.idle = lowest_active is None
        candidate = highest if lowest_active is None else lowest_active
        if candidate > self.combined:
            self.combined = candidate
            self.output("watermark", candidate)
        if self.idle:
            self.output("status", "idle")


SPLIT_DISCOVERY = ("at_start", "at_first_record")


class SourceSubtask:
    """One source subtask: its partitions' generators, combined by a
    :class:`WatermarkOutputMultiplexer` (split id = partition) into a :class:`WatermarkEmitter`.

    Watermarks a generator emits in ``on_event`` go to its split's immediate output, periodic
    ones to the deferred output (Flink's ``ProgressiveTimestampsAndWatermarks``); a periodic
    tick asks every registered partition's generator (partition order), then combines.

    Splits over time (``discovery``):

    - ``"at_start"`` (default): every partition is a split registered when the job starts,
      as Flink's Kafka source assigns every partition that exists at startup; a partition
      whose first record comes late holds the subtask's watermark at its ``MIN`` until it
      emits or goes idle.
    - ``"at_first_record"``: a partition is registered just before its first record, as a
      partition created while the job runs is registered when the Kafka source's periodic
      partition discovery (``partition.discovery.interval.ms``, 5 min by default since
      FLIP-288) finds it; until then it holds nothing back.

    :meth:`add_split` / :meth:`remove_split` register and unregister a split at any time
    (``remove_split`` is what a finished split of a bounded source does:
    ``releaseOutputForSplit`` -> ``unregisterOutput``, combining at the next call).
    """

    def __init__(
        self,
        index: int,
        partitions: list[int],
        strategy: WatermarkStrategy,
        downstream: Downstream,
        discovery: str = "at_start",
    ) -> None:
        if discovery not in SPLIT_DISCOVERY:
            raise ValueError(f"split discovery must be one of {SPLIT_DISCOVERY}, got {discovery!r}")
        self.index = index
        self.partitions = list(partitions)
        self.discovery = discovery
        self.strategy = strategy
        self.emitter = WatermarkEmitter(downstream)
        self.mux = WatermarkOutputMultiplexer(self._forward)
        self.generators: dict[int, WatermarkGenerator] = {}
        self.states: dict[int, PartialWatermark] = {}
        self.deferred: dict[int, MultiplexedOutput] = {}
        self.immediate: dict[int, MultiplexedOutput] = {}
        if discovery == "at_start":
            for p in self.partitions:
                self.add_split(p)
        if not self.partitions:
            self.emitter.mark_idle()

    def add_split(self, partition: int) -> None:
        """Register a split (a partition) now: a fresh generator, the split at ``MIN``, active."""
        self.mux.register(partition)
        if partition not in self.partitions:
            self.partitions.append(partition)
        self.generators[partition] = self.strategy.create()
        self.states[partition] = self.mux.states[partition]
        self.deferred[partition] = self.mux.deferred_output(partition)
        self.immediate[partition] = self.mux.immediate_output(partition)

    def remove_split(self, partition: int) -> bool:
        """Unregister a finished split (no emission now; the next combining call releases
        whatever it held back). False if it was not registered."""
        for d in (self.generators, self.states, self.deferred, self.immediate):
            d.pop(partition, None)
        return self.mux.unregister(partition)

    def _forward(self, kind: str, value: object) -> None:
        if kind == "watermark":
            self.emitter.emit_watermark(value)  # type: ignore[arg-type]
        else:
            self.emitter.mark_idle()

    @property
    def combined(self) -> int:
        return self.mux.combined

    @property
    def all_idle(self) -> bool:
        return self.mux.idle

    def update_combined(self) -> None:
        self.mux.update_combined()

    def _output(self, partition: int) -> MultiplexedOutput:
        out = self.immediate.get(partition)
        if out is None:
            if self.discovery != "at_first_record":
                raise ValueError(f"partition {partition} is not a split of source subtask {self.index}")
            self.add_split(partition)
            out = self.immediate[partition]
        return out

    def on_event(self, partition: int, ts: int, pt: int, marker: bool = False) -> None:
        out = self._output(partition)
        self.generators[partition].on_event(ts, pt, out, marker)

    def on_events(self, partition: int, ts: np.ndarray, pt: np.ndarray) -> None:
        out = self._output(partition)
        self.generators[partition].on_events(ts, pt, out)

    def on_periodic_emit(self, pt: int) -> None:
        deferred = self.deferred
        for p, gen in self.generators.items():   # registration order (partition order at start)
            gen.on_periodic_emit(pt, deferred[p])
        self.mux.on_periodic_emit()


def subtask_partitions(partitions: list[int] | np.ndarray, parallelism: int) -> list[list[int]]:
    """Partition ``p`` goes to subtask ``p % parallelism``; returns each subtask's sorted partitions."""
    if parallelism < 1:
        raise ValueError(f"source parallelism must be >= 1, got {parallelism}")
    out: list[list[int]] = [[] for _ in range(parallelism)]
    for p in sorted(int(x) for x in set(np.asarray(partitions).tolist())):
        out[p % parallelism].append(p)
    return out
