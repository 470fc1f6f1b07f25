"""Timer queues: Flink's heap-backend timer queue, reproduced operation for operation.

Flink's heap state backend keeps all event-time (or processing-time) timers of an operator
in ONE binary heap (``HeapPriorityQueueSet``: 1-based array, ``siftUp``/``siftDown``,
removal moves the last element into the hole) ordered by timestamp only, plus a set that
makes (timestamp, key, window) unique. Timers with equal timestamps therefore fire in an
order that depends on the heap's history; ``FlinkTimerHeap`` performs exactly the same
operations, so equal-timestamp timers fire in Flink's order, per key and overall.
"""
from __future__ import annotations

from heapq import heappop, heappush


class FlinkTimerHeap:
    """``add`` / ``remove`` / ``peek_timestamp`` / ``poll`` with Flink's exact tie order."""

    __slots__ = ("_q", "_index")

    def __init__(self):
        self._q: list = [None]          # 1-based heap of [ts, key, window]
        self._index: dict = {}          # (ts, key, window) -> position in _q

    def __len__(self) -> int:
        return len(self._q) - 1

    def __contains__(self, tk) -> bool:
        return tk in self._index

    def add(self, ts: int, key, window) -> bool:
        tk = (ts, key, window)
        if tk in self._index:
            return False
        q = self._q
        q.append(tk)
        self._sift_up(len(q) - 1)
        return True

    def remove(self, ts: int, key, window) -> bool:
        tk = (ts, key, window)
        idx = self._index.pop(tk, None)
        if idx is None:
            return False
        self._remove_at(idx, tk)
        return True

    def peek_timestamp(self):
        q = self._q
        return q[1][0] if len(q) > 1 else None

    def poll(self):
        """Remove and return the head ``(ts, key, window)``."""
        q = self._q
        head = q[1]
        del self._index[head]
        self._remove_at(1, head)
        return head

    def _remove_at(self, idx: int, removed) -> None:
        q = self._q
        last_idx = len(q) - 1
        if idx != last_idx:
            element = q[last_idx]
            q[idx] = element
            self._index[element] = idx
            q.pop()
            # adjustElementAtIndex: siftDown, and siftUp if it did not move
            self._sift_down(idx)
            if q[idx] is element:
                self._sift_up(idx)
        else:
            q.pop()

    def _sift_up(self, idx: int) -> None:
        q = self._q
        index = self._index
        cur = q[idx]
        ts = cur[0]
        parent = idx >> 1
        while parent > 0 and ts < q[parent][0]:
            p = q[parent]
            q[idx] = p
            index[p] = idx
            idx = parent
            parent >>= 1
        q[idx] = cur
        index[cur] = idx

    def _sift_down(self, idx: int) -> None:
        q = self._q
        index = self._index
        size = len(q) - 1
        cur = q[idx]
        ts = cur[0]
        first = idx << 1
        second = first + 1
        if second <= size and q[second][0] < q[first][0]:
            first = second
        while first <= size and q[first][0] < ts:
            c = q[first]
            q[idx] = c
            index[c] = idx
            idx = first
            first = idx << 1
            second = first + 1
            if second <= size and q[second][0] < q[first][0]:
                first = second
        q[idx] = cur
        index[cur] = idx


class HeapqTimers:
    """Same interface on ``heapq`` with lazy deletion; ties fire in registration order.

    Used when tie order cannot change the output (the event-time trigger: per key, each
    window has its own firing time and cleanup timers emit nothing), because it is faster.
    ``heap`` holds ``(ts, seq, key, window)``; ``live`` maps ``(ts, key, window)`` to the seq
    of its current entry.
    """

    __slots__ = ("heap", "live", "seq")

    def __init__(self):
        self.heap: list = []
        self.live: dict = {}
        self.seq = 0

    def __len__(self) -> int:
        return len(self.live)

    def __contains__(self, tk) -> bool:
        return tk in self.live

    def add(self, ts: int, key, window) -> bool:
        tk = (ts, key, window)
        if tk in self.live:
            return False
        self.seq += 1
        self.live[tk] = self.seq
        heappush(self.heap, (ts, self.seq, key, window))
        return True

    def remove(self, ts: int, key, window) -> bool:
        return self.live.pop((ts, key, window), None) is not None

    def peek_timestamp(self):
        heap, live = self.heap, self.live
        while heap:
            ts, seq, key, window = heap[0]
            if live.get((ts, key, window)) == seq:
                return ts
            heappop(heap)
        return None

    def poll(self):
        self.peek_timestamp()
        ts, seq, key, window = heappop(self.heap)
        tk = (ts, key, window)
        del self.live[tk]
        return tk

