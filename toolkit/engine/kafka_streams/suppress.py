"""``KTable.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))`` (``KTableSuppressProcessor``).

Sits after an aggregation that emits on every update and sees only what it forwards:

- its own stream time is the max **timestamp of the records it receives** (the aggregation's
  output timestamps: a time/sliding window's max record time, a session's end). With the cache
  off this equals the task's stream time: the record that raised it was accepted and forwarded;
- each received record is buffered under its windowed key (a newer value replaces the older),
  with buffer time = the window's end;
- after each received record, buffered entries with ``window end <= stream time - grace`` are
  emitted in buffer order (buffer time, then key bytes, then window start) with the buffered
  record's timestamp; tombstones (sessions merged away) are dropped (``safeToDropTombstones``).
  ``grace`` is the windows' grace; for session windows Kafka uses ``grace + inactivity gap``.

For time windows that is exactly when the aggregation closes the window (``end <= S - grace``).
Sliding and session windows end inclusively and the aggregation still accepts a window while
``end >= S - grace`` (sessions: ``end >= S - grace - gap``), so a window whose end equals that
bound is released by the suppression and may still be updated and released again: its "final"
result can come twice.
"""
from __future__ import annotations

import heapq
from typing import Any, Callable

from toolkit.engine.kafka_streams.emit import NO_TIMESTAMP
from toolkit.engine.kafka_streams.partitioner import key_bytes


class SuppressUntilWindowCloses:
    """One task's final-results suppression buffer."""

    def __init__(self, duration: int, forward: Callable[..., None]) -> None:
        self.duration = duration
        self.downstream = forward
        self.observed = NO_TIMESTAMP
        self.buffer: dict[tuple, tuple] = {}  # (key, start, end) -> (kind, count, sum, timestamp)
        self.heap: list[tuple] = []  # (end, key bytes, start, key)

    def forward(self, kind: str, key: Any, start: int, end: int, count: int, total: float,
                timestamp: int, index: int) -> None:
        """Receive one record from the aggregation (its ``forward``)."""
        if timestamp > self.observed:
            self.observed = timestamp
        wk = (key, start, end)
        if wk not in self.buffer:
            heapq.heappush(self.heap, (end, key_bytes(key), start, key))
        self.buffer[wk] = (kind, count, total, timestamp)
        self._evict(self.observed - self.duration, index)

    def _evict(self, expiry: int, index: int) -> None:
        heap = self.heap
        while heap and heap[0][0] <= expiry:
            end, _, start, key = heapq.heappop(heap)
            kind, count, total, ts = self.buffer.pop((key, start, end))
            if kind != "tombstone":
                self.downstream("final", key, start, end, count, total, ts, index)

    def flush(self) -> None:
        """End of input (not a Kafka behaviour): emit what the buffer still holds."""
        self._evict(2**62, -1)
