"""``KStreamSlidingWindowAggregate``: Kafka's sliding windows, count and sum per key, per task.

Kafka's sliding windows are ``[start, start + time_difference]`` (both ends inclusive) and exist
only where records define them: each record ``r`` has a *left window* ``[r - td, r]`` and, when a
later record of the key falls within ``(r, r + td]``, a *right window* ``[r + 1, r + 1 + td]``.
Rules (``KStreamSlidingWindowAggregate.process``, the reverse-iterator path the built-in stores take):

- stream time ``S`` = max record timestamp seen (updated first); ``close = S - grace``.
- a record whose own left window is ``[ts - td, ts]`` with ``ts + td < close`` is skipped whole
  (dropped-records sensor +1; no final emission check after it).
- ``ts < td`` (an *early* record): it goes to the combined window ``[0, td]`` instead of a left window
  (``processEarly``; no final emission check after it either).
- otherwise the key's windows with start in ``[max(0, ts - 2 td), ts + 1]`` are read newest first:
  a window starting at ``ts + 1`` marks the record's right window as existing; windows with
  ``end > ts`` contain the record and are updated (the first one's pre-update aggregate seeds the
  record's right window); a window ending exactly at ``ts`` is the record's left window (updated;
  if it already holds a record at ``>= ts`` nothing else is created); the first window ending
  before ``ts`` gives the previous record time and the aggregate to seed the left window. Then the
  previous record's right window (if missing and ``prev + 1 + td >= ts``), the record's left window
  (if missing) and its right window (if missing and a later record exists) are created.
- an update of a window with ``end < close`` is skipped (sensor +1 per window); a created right
  window is written and forwarded without that check (it always ends after ``close``).
- the store hides windows with ``start <= store_time - retention`` (``store_time``: largest start
  written; retention default ``2 td + grace``; on close the time-ordered store's ``<``).
- emitting on close: windows with start in ``[lower, close - td - 1]`` (lower 0 the first time, then
  ``max(0, last_close - td)``), all keys of the task, by start then key bytes.
"""
from __future__ import annotations

import bisect
import heapq
from typing import Any

from toolkit.engine.kafka_streams.emit import NO_TIMESTAMP
from toolkit.engine.kafka_streams.partitioner import key_bytes
from toolkit.engine.kafka_streams.window_aggregate_processor import Forward, WindowAggregateProcessor
from toolkit.engine.kafka_streams.windows import SlidingWindows


class _KeyWindows:
    """One key's windows in the store: sorted starts and start -> [count, sum, timestamp]."""

    __slots__ = ("starts", "aggs")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.aggs: dict[int, list] = {}


class SlidingWindowAggregate(WindowAggregateProcessor):
    """One task's sliding-window aggregation."""

    def __init__(self, windows: SlidingWindows, forward: Forward, on_close: bool, emit_interval: int) -> None:
        super().__init__(windows, forward, on_close, emit_interval)
        self.td = windows.time_difference
        self.keys: dict[Any, _KeyWindows] = {}
        self.by_start: dict[int, set] = {}  # start -> keys with a window there (for close emission / cleanup)
        self.heap: list[int] = []  # every start in the store (cleanup)
        self.emit_heap: list[int] = []  # starts not emitted yet (on close)
        self._acc = 0
        self._drop = 0

    # -- the store ---------------------------------------------------------------------------
    def _fetch(self, key: Any, lo: int, hi: int) -> list[tuple[int, list]]:
        kw = self.keys.get(key)
        if kw is None:
            return []
        a = bisect.bisect_left(kw.starts, lo)
        b = bisect.bisect_right(kw.starts, hi)
        return [(s, kw.aggs[s]) for s in kw.starts[a:b] if self._visible(s)]

    def _put(self, key: Any, start: int, agg: list) -> None:
        kw = self.keys.get(key)
        if kw is None:
            kw = self.keys[key] = _KeyWindows()
        if start not in kw.aggs:
            bisect.insort(kw.starts, start)
            ks = self.by_start.get(start)
            if ks is None:
                ks = self.by_start[start] = set()
                heapq.heappush(self.heap, start)
                if self.on_close:
                    heapq.heappush(self.emit_heap, start)
            ks.add(key)
        kw.aggs[start] = agg
        if start > self.store_time:
            self.store_time = start

    def _update(self, key: Any, start: int, old: list | None, ts: int, value: float, index: int, close: int) -> None:
        """``updateWindowAndForward``: add the record to ``[start, start + td]`` unless it is closed."""
        end = start + self.td
        if end >= close:
            if old is None:
                agg = [1, 0.0 + value, ts]
            else:
                agg = [old[0] + 1, old[1] + value, max(ts, old[2])]
            self._put(key, start, agg)
            self._acc += 1
            if not self.on_close:
                self.forward("update", key, start, end, agg[0], agg[1], agg[2], index)
        else:
            self._drop += 1

    # -- processing --------------------------------------------------------------------------
    def process(self, index: int, key: Any, ts: int, value: float, now: int) -> tuple[int, int]:
        td = self.td
        close = self.observe(ts) - self.w.grace
        self._acc = self._drop = 0
        if ts + td < close:
            self._cleanup()
            return 0, 1
        if ts < td:
            self._process_early(index, key, ts, value, close)
            return self._acc, self._drop
        self._process_reverse(index, key, ts, value, close)
        if self.on_close:
            self._maybe_emit_final(index, close, now)
        self._cleanup()
        return self._acc, self._drop

    def _process_reverse(self, index: int, key: Any, ts: int, value: float, close: int) -> None:
        td = self.td
        seen: set[int] = set()
        left_agg = right_agg = None
        left_exists = right_exists = False
        prev = None
        for start, agg in reversed(self._fetch(key, max(0, ts - 2 * td), ts + 1)):
            seen.add(start)
            end = start + td
            if start == ts + 1:
                right_exists = True
            elif end > ts:
                if right_agg is None:
                    right_agg = list(agg)
                self._update(key, start, agg, ts, value, index, close)
            elif end == ts:
                left_exists = True
                self._update(key, start, agg, ts, value, index, close)
                if agg[2] < ts:
                    prev = agg[2]
                else:
                    return
            else:
                left_agg = agg
                prev = agg[2]
                break
        self._create_windows(index, key, ts, value, close, seen, right_agg, left_agg, left_exists, right_exists, prev)

    def _create_windows(self, index, key, ts, value, close, seen, right_agg, left_agg, left_exists, right_exists, prev) -> None:
        td = self.td
        if prev is not None:
            prev_right = prev + 1
            if prev_right not in seen and prev_right + td >= ts:
                self._update(key, prev_right, [0, 0.0, ts], ts, value, index, close)
        if not left_exists:
            if prev is not None and ts - td <= prev:
                seed = [left_agg[0], left_agg[1], ts]
            else:
                seed = [0, 0.0, ts]
            self._update(key, ts - td, seed, ts, value, index, close)
        if not right_exists and right_agg is not None and right_agg[2] > ts:
            self._create_right(index, key, ts, right_agg)

    def _create_right(self, index: int, key: Any, ts: int, agg: list) -> None:
        start = ts + 1
        self._put(key, start, list(agg))
        if not self.on_close:
            self.forward("update", key, start, start + self.td, agg[0], agg[1], agg[2], index)

    def _process_early(self, index: int, key: Any, ts: int, value: float, close: int) -> None:
        combined = None
        right_agg = None
        right_exists = False
        seen: set[int] = set()
        prev = None
        for start, agg in self._fetch(key, 0, ts + 1):
            seen.add(start)
            if start == 0:
                combined = agg
                if agg[2] < ts:
                    prev = agg[2]
            elif start <= ts:
                right_agg = list(agg)
                self._update(key, start, agg, ts, value, index, close)
            elif start == ts + 1:
                right_exists = True
        if right_agg is None and combined is not None and combined[2] > ts:
            right_agg = list(combined)
        if not right_exists and right_agg is not None and right_agg[2] > ts:
            self._create_right(index, key, ts, right_agg)
        if prev is not None and (prev + 1) not in seen:
            self._update(key, prev + 1, [0, 0.0, ts], ts, value, index, close)
        if combined is None:
            self._update(key, 0, [0, 0.0, ts], ts, value, index, close)
        else:
            self._update(key, 0, combined, ts, value, index, close)

    # -- closing -----------------------------------------------------------------------------
    def _cleanup(self) -> None:
        """Forget windows the store no longer shows (Kafka drops them by retention)."""
        heap = self.heap
        while heap and not self._visible(heap[0]):
            self._drop_start(heapq.heappop(heap))

    def _drop_start(self, start: int) -> None:
        for k in self.by_start.pop(start, ()):
            kw = self.keys[k]
            del kw.aggs[start]
            del kw.starts[bisect.bisect_left(kw.starts, start)]
            if not kw.starts:
                del self.keys[k]

    def _maybe_emit_final(self, index: int, close: int, now: int) -> None:
        if not self.tracker.should_emit(now, close):
            return
        td = self.td
        upper = close - td - 1
        if upper < 0:
            return
        last = self.tracker.last_emit_close
        lower = 0 if last == NO_TIMESTAMP else max(0, last - td)
        self._emit_range(lower, upper, index)
        self.tracker.last_emit_close = close

    def _emit_range(self, lower: int, upper: int, index: int) -> None:
        heap = self.emit_heap
        while heap and heap[0] <= upper:
            start = heapq.heappop(heap)
            if start < lower or not self._visible(start) or start not in self.by_start:
                continue
            for k in sorted(self.by_start[start], key=key_bytes):
                agg = self.keys[k].aggs[start]
                self.forward("final", k, start, start + self.td, agg[0], agg[1], agg[2], index)

    def snapshot(self) -> list[tuple]:
        """``(key, start, end, count, sum, timestamp)`` of the windows the store still returns."""
        rows = [(k, st, st + self.td, a[0], a[1], a[2]) for k, kw in self.keys.items()
                for st, a in kw.aggs.items() if self._visible(st)]
        return sorted(rows, key=lambda r: (r[1], key_bytes(r[0])))

    def flush(self) -> None:
        """End of input (not a Kafka behaviour): forward the windows an on-close aggregation holds."""
        if self.on_close:
            last = self.tracker.last_emit_close
            self._emit_range(0 if last == NO_TIMESTAMP else max(0, last - self.td), 2**62, -1)
