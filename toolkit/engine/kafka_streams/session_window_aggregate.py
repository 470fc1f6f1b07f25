"""``KStreamSessionWindowAggregate``: count and sum per key and session, per task.

Rules (Kafka's ``KStreamSessionWindowAggregate.process``):

- stream time ``S`` = max record timestamp seen (updated first);
  ``close = S - grace - inactivity_gap``.
- the record at ``ts`` looks up the key's sessions with ``end >= ts - gap`` and
  ``start <= ts + gap`` (ascending), skipping sessions the session store has already expired:
  ``end <= store_time - retention`` where ``store_time`` is the largest session end the task's
  store has been written (``retention`` defaults to ``gap + grace``). The merged window spans
  ``[ts, ts]`` and every session found; its aggregate is the found sessions' merged with the record.
- if ``merged.end < close`` the record is skipped (dropped-records sensor +1; nothing changes).
- else, unless the merged window is ``[ts, ts]`` itself, every found session is removed and,
  emitting on update, a tombstone is forwarded for it (timestamp: its end); then the merged
  session is stored and forwarded with timestamp = its end.
- emitting on close, after every record: sessions with ``end`` in ``[max(0, last_close),
  close - 1]`` (all keys of the task), ordered by end, key bytes, start, forwarded with timestamp =
  their end; the emission reads the time-ordered store, which does not apply the retention filter.
"""
from __future__ import annotations

import heapq
from typing import Any

from toolkit.engine.kafka_streams.partitioner import key_bytes
from toolkit.engine.kafka_streams.window_aggregate_processor import Forward, WindowAggregateProcessor
from toolkit.engine.kafka_streams.windows import SessionWindows


class SessionWindowAggregate(WindowAggregateProcessor):
    """One task's session aggregation (its session store and stream time)."""

    def __init__(self, windows: SessionWindows, forward: Forward, on_close: bool, emit_interval: int) -> None:
        super().__init__(windows, forward, on_close, emit_interval)
        self.sessions: dict[Any, list[list]] = {}  # key -> [[start, end, count, sum], ...] by start
        self.closing: list[tuple] = []  # heap (end, key bytes, start, key) of sessions written (on close)
        self.queued: set[tuple] = set()

    def process(self, index: int, key: Any, ts: int, value: float, now: int) -> tuple[int, int]:
        w = self.w
        gap = w.inactivity_gap
        close = self.observe(ts) - w.grace - gap
        found: list[list] = []
        live = self.sessions.get(key)
        expiry = self.store_time - self.retention
        if live:
            keep = []
            lo, hi = ts - gap, ts + gap
            for s in live:
                if s[1] <= expiry and (not self.on_close or s[1] < self.tracker.last_emit_close):
                    continue  # expired in the store (and already emitted): forget it
                keep.append(s)
                if s[1] > expiry and s[1] >= lo and s[0] <= hi:
                    found.append(s)
            self.sessions[key] = live = keep
        m_start = m_end = ts
        count, total = 0, 0.0
        for s in found:
            count += s[2]
            total += s[3]
            if s[0] < m_start:
                m_start = s[0]
            if s[1] > m_end:
                m_end = s[1]
        if m_end < close:
            accepted, dropped = 0, 1
        else:
            accepted, dropped = 1, 0
            if not (m_start == ts and m_end == ts):
                for s in found:
                    live.remove(s)
                    if not self.on_close:
                        self.forward("tombstone", key, s[0], s[1], 0, float("nan"), s[1], index)
            elif found:  # the one session [ts, ts] itself: updated in place
                live.remove(found[0])
            session = [m_start, m_end, count + 1, total + value]
            if live is None:
                live = self.sessions[key] = []
            live.append(session)
            live.sort(key=lambda s: s[0])
            if m_end > self.store_time:
                self.store_time = m_end
            if self.on_close:
                if (m_end, m_start, key) not in self.queued:
                    self.queued.add((m_end, m_start, key))
                    heapq.heappush(self.closing, (m_end, key_bytes(key), m_start, key))
            else:
                self.forward("update", key, m_start, m_end, session[2], session[3], m_end, index)
        if self.on_close:
            self._maybe_emit_final(index, close, now)
        return accepted, dropped

    def _maybe_emit_final(self, index: int, close: int, now: int) -> None:
        if not self.tracker.should_emit(now, close):
            return
        upper = close - 1
        if upper < 0:
            return
        lower = max(0, self.tracker.last_emit_close)
        if upper < lower:
            return
        self._emit_until(lower, upper, index)
        self.tracker.last_emit_close = close

    def _emit_until(self, lower: int, upper: int, index: int) -> None:
        heap = self.closing
        while heap and heap[0][0] <= upper:
            end, _, start, key = heapq.heappop(heap)
            self.queued.discard((end, start, key))
            if end < lower:
                continue
            for s in self.sessions.get(key, ()):
                if s[0] == start and s[1] == end:  # still in the store (not merged away)
                    self.forward("final", key, start, end, s[2], s[3], end, index)
                    break

    def snapshot(self) -> list[tuple]:
        """``(key, start, end, count, sum, timestamp)`` of the sessions the store still returns."""
        expiry = self.store_time - self.retention
        rows = [(k, s[0], s[1], s[2], s[3], s[1]) for k, live in self.sessions.items() for s in live if s[1] > expiry]
        return sorted(rows, key=lambda r: (r[2], key_bytes(r[0]), r[1]))

    def flush(self) -> None:
        """End of input (not a Kafka behaviour): forward the sessions not emitted yet."""
        if self.on_close:
            self._emit_until(max(0, self.tracker.last_emit_close), 2**62, -1)
