"""``KStreamWindowAggregate`` for ``TimeWindows``: count and sum per key and window, per task.

Rules (Kafka's ``KStreamWindowAggregate.process`` and ``AbstractKStreamTimeWindowAggregateProcessor``):

- stream time ``S`` = max record timestamp the processor has seen, *including* the record
  being processed (it is updated first); ``close = S - grace``.
- for each window of ``windows_for(ts)`` (ascending start): if ``end > close`` the record is
  added (the window's timestamp becomes the max record timestamp in it) and, emitting on
  update, the new aggregate is forwarded with that timestamp; otherwise the record is skipped
  **for that window** and the dropped-records sensor is incremented once per skipped window
  (a hopping-window record can count several times, or be kept by some windows only).
  So a window is closed once ``S >= end + grace``.
- emitting on close, after the record: windows with ``start`` in ``[lower, close - size]``
  are forwarded, ordered by window start then key bytes, where ``lower`` is 0 the first time
  and ``max(0, last_close - size) + 1`` after; skipped while ``close - size < 0`` and when
  ``windows_for(close - size) == windows_for(lower - 1)`` (no new window to emit).
  The emission reads the time-ordered window store, which hides windows with
  ``start < store_time - retention`` (``store_time``: the largest window start written to the
  task's store; ``retention`` defaults to ``size + grace``): a closed window that the throttle
  or a jump of stream time leaves unemitted until then is never emitted.
"""
from __future__ import annotations

import heapq
from typing import Any

from toolkit.engine.kafka_streams.emit import NO_TIMESTAMP
from toolkit.engine.kafka_streams.partitioner import key_bytes
from toolkit.engine.kafka_streams.window_aggregate_processor import Forward, WindowAggregateProcessor
from toolkit.engine.kafka_streams.windows import TimeWindows


class TimeWindowAggregate(WindowAggregateProcessor):
    """One task's time-window aggregation (its window store and stream time).

    The store keeps a window until its retention drops it: update-mode stores hide
    ``start <= store_time - retention``, the time-ordered store used on close hides
    ``start < store_time - retention``.
    """

    def __init__(self, windows: TimeWindows, forward: Forward, on_close: bool, emit_interval: int) -> None:
        super().__init__(windows, forward, on_close, emit_interval)
        self.store: dict[int, dict[Any, list]] = {}  # window start -> key -> [count, sum, timestamp]
        self.starts: list[int] = []  # heap of the starts in ``store`` (expiry)
        self.pending: list[int] = []  # heap of the starts not emitted yet (on close)

    def process(self, index: int, key: Any, ts: int, value: float, now: int) -> tuple[int, int]:
        """Process one record; returns (windows that accepted it, windows that skipped it)."""
        w = self.w
        close = self.observe(ts) - w.grace
        size, adv = w.size, w.advance
        start = (max(0, ts - size + adv) // adv) * adv
        accepted = dropped = 0
        fwd = self.forward
        while start <= ts:
            end = start + size
            if end > close:
                bucket = self.store.get(start)
                if bucket is None:
                    bucket = self.store[start] = {}
                    heapq.heappush(self.starts, start)
                    if self.on_close:
                        heapq.heappush(self.pending, start)
                agg = bucket.get(key)
                if agg is None:
                    agg = bucket[key] = [1, 0.0 + value, ts]
                else:
                    agg[0] += 1
                    agg[1] += value
                    if ts > agg[2]:
                        agg[2] = ts
                accepted += 1
                if start > self.store_time:
                    self.store_time = start
                if not self.on_close:
                    fwd("update", key, start, end, agg[0], agg[1], agg[2], index)
            else:
                dropped += 1
            start += adv
        if self.on_close:
            self._maybe_emit_final(index, close, now)
        self._expire()
        return accepted, dropped

    def _expire(self) -> None:
        """Drop the windows the store's retention no longer keeps."""
        while self.starts and not self._visible(self.starts[0]):
            del self.store[heapq.heappop(self.starts)]

    def _maybe_emit_final(self, index: int, close: int, now: int) -> None:
        if not self.tracker.should_emit(now, close):
            return
        w = self.w
        upper = close - w.size
        if upper < 0:
            return
        last = self.tracker.last_emit_close
        lower = 0 if last == NO_TIMESTAMP else max(0, last - w.size) + 1
        if last != NO_TIMESTAMP and w.first_start(upper) == w.first_start(lower - 1) and \
                (upper // w.advance) == ((lower - 1) // w.advance):
            return  # windowsFor(upper) equals windowsFor(lower - 1): nothing new closed
        self._emit_until(upper, index)
        self.tracker.last_emit_close = close

    def _emit_until(self, upper: int, index: int) -> None:
        size = self.w.size
        while self.pending and self.pending[0] <= upper:
            start = heapq.heappop(self.pending)
            if not self._visible(start) or start not in self.store:
                continue  # expired in the store before it could be emitted
            bucket = self.store[start]
            for key in sorted(bucket, key=key_bytes):
                c, s, t = bucket[key]
                self.forward("final", key, start, start + size, c, s, t, index)

    def snapshot(self) -> list[tuple]:
        """``(key, start, end, count, sum, timestamp)`` of the windows the store still returns."""
        size = self.w.size
        return [(k, st, st + size, a[0], a[1], a[2]) for st in sorted(self.store) if self._visible(st)
                for k, a in sorted(self.store[st].items(), key=lambda kv: key_bytes(kv[0]))]

    def flush(self) -> None:
        """End of input (not a Kafka behaviour): forward what an on-close aggregation still holds."""
        if self.on_close:
            self._emit_until(2**62, -1)
