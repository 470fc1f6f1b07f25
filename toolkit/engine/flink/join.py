"""A windowed join of two inputs by key, Flink's ``a.join(b).where(k).equalTo(k).window(W)``.

Flink builds it (``CoGroupedStreams.WithWindow.apply``, checked on Flink 2.3.0's classes) as
``a.map(Input1Tagger).union(b.map(Input2Tagger)).keyBy(key).window(W).apply(CoGroupWindowFunction)``:
one window operator over the union of both inputs, so its watermark comes through **one**
``StatusWatermarkValve`` whose channels are the upstream subtasks of both inputs, and the
window keeps every element (a full-state window function). A join emits one result per pair
(one element of each input) of a key and window; :class:`JoinCount` emits, per firing, the
counts behind those pairs. Elements are ``(side, value)`` with side 0 (first input) or 1.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from toolkit.engine.flink.functions import ProcessWindowFunction


class JoinCountResult(NamedTuple):
    """One firing of a windowed join: ``pairs`` = ``left * right`` (what ``join`` emits, one
    row per pair), ``count``/``sum`` over the elements of both inputs."""

    count: int
    sum: Any
    left: int
    right: int
    pairs: int


class JoinCount(ProcessWindowFunction):
    """Per key and window: elements of each input and the number of joined pairs."""

    def process(self, key: Any, context: Any, elements: list) -> JoinCountResult:
        left = right = 0
        total: Any = 0
        for side, value in elements:
            if side == 0:
                left += 1
            else:
                right += 1
            total += value
        return JoinCountResult(left + right, total, left, right, left * right)


__all__ = ["JoinCount", "JoinCountResult"]


# ----------------------------------------------------------------------------------------
# interval join: KeyedStream.intervalJoin(other).between(lower, upper)
# ----------------------------------------------------------------------------------------

import heapq  # noqa: E402

from toolkit.engine.flink.watermarks import MAX_WATERMARK, MIN_WATERMARK  # noqa: E402

_I64 = 1 << 64


def _java_long_hash(v: int) -> int:
    """``HashMap.hash(Long.valueOf(v))``: ``h ^ (h >>> 16)`` of ``(int) (v ^ (v >>> 32))``."""
    u = v % _I64
    h = (u ^ (u >> 32)) & 0xFFFFFFFF
    return h ^ (h >> 16)


class JavaLongMap:
    """A ``java.util.HashMap<Long, V>``'s iteration order (what the heap state backend's
    ``MapState.entries()`` walks): buckets in index order ``hash & (capacity - 1)``, keys in a
    bucket in insertion order; capacity 16 at the first put, doubled when the size passes 3/4
    of it or when a bucket reaches 9 keys while the table is smaller than 64 (``treeifyBin``).
    (A bucket of 9+ colliding keys at capacity >= 64 becomes a tree bin, whose order this does
    not follow: that raises.)"""

    __slots__ = ("items", "seq", "cap", "_n")

    def __init__(self) -> None:
        self.items: dict[int, Any] = {}
        self.seq: dict[int, int] = {}
        self.cap = 16
        self._n = 0

    def __len__(self) -> int:
        return len(self.items)

    def get(self, key: int) -> Any:
        return self.items.get(key)

    def put(self, key: int, value: Any) -> None:
        if key in self.items:
            self.items[key] = value
            return
        mask = self.cap - 1
        h = _java_long_hash(key)
        in_bin = sum(1 for k in self.items if _java_long_hash(k) & mask == h & mask)
        self.items[key] = value
        self.seq[key] = self._n
        self._n += 1
        if in_bin >= 8:  # binCount >= TREEIFY_THRESHOLD - 1 after appending: treeifyBin
            if self.cap < 64:
                self.cap *= 2
            else:
                raise NotImplementedError("interval join: 9 buffered timestamps of one key in one HashMap bucket "
                                          "(a tree bin): its iteration order is not modelled")
        if len(self.items) > self.cap * 3 // 4:
            self.cap *= 2

    def remove(self, key: int) -> None:
        self.items.pop(key, None)
        self.seq.pop(key, None)

    def entries(self) -> list[tuple[int, Any]]:
        mask = self.cap - 1
        keys = sorted(self.items, key=lambda k: (_java_long_hash(k) & mask, self.seq[k]))
        return [(k, self.items[k]) for k in keys]


class JoinedPair(NamedTuple):
    """One result of an interval join: a left and a right element of one key."""

    kind: str  # "join"
    key: Any
    left_ts: int
    right_ts: int
    timestamp: int  # max(left_ts, right_ts), the result's timestamp
    left: Any
    right: Any
    left_id: Any
    right_id: Any
    watermark: int
    processing_time: int


class LateJoinInput(NamedTuple):
    """A record an interval join skipped as late (``sideOutputLeftLateData`` / ``...Right...``)."""

    kind: str  # "late"
    input: int  # 1 left, 2 right
    key: Any
    timestamp: int
    value: Any
    record_id: Any
    watermark: int
    processing_time: int


class IntervalJoinOperator:
    """Flink's ``IntervalJoinOperator`` (a TwoInputStreamOperator; checked against real Flink
    2.3 by tests/fixtures/interval_join). Rules:

    - bounds: ``left.ts + lower <= right.ts <= left.ts + upper`` (an exclusive bound moves by 1);
      ``lower <= upper``;
    - a record with ``ts < W`` (the operator watermark: the min over the inputs that are not
      idle, never decreasing) is late: skipped, to the side output of its input; a record is
      never late while ``W`` is ``MIN``;
    - otherwise it is buffered under its key and timestamp and joined, at once, with every
      buffered element of the other input in range, walking the other buffer in Java
      ``HashMap<Long, List>`` order (:class:`JavaLongMap`), each bucket in arrival order;
    - a cleanup timer at ``ts + upper`` (left, when ``upper > 0``; else ``ts``) or ``ts - lower``
      (right, when ``lower < 0``; else ``ts``) removes that timestamp's whole bucket once the
      watermark reaches it; an emptied buffer starts again as a fresh map;
    - the end of input is the MAX watermark (nothing is emitted by cleanup).
    """

    def __init__(self, lower: int, upper: int, lower_inclusive: bool = True, upper_inclusive: bool = True) -> None:
        if lower > upper:
            raise ValueError(f"interval join: lower bound {lower} must be <= upper bound {upper}")
        self.lower = lower if lower_inclusive else lower + 1
        self.upper = upper if upper_inclusive else upper - 1
        self.buffers: dict[tuple[Any, int], JavaLongMap] = {}
        self.timers: list[tuple[int, int, Any, int]] = []  # (time, seq, key, side)
        self._timer_set: set[tuple[int, Any, int]] = set()
        self._seq = 0
        self.watermark = MIN_WATERMARK
        self.pt = 0
        self._out: list = []
        self._buffered = 0

    def set_processing_time(self, t: int) -> None:
        self.pt = t

    def process_element(self, side: int, key: Any, ts: int, value: Any, record_id: Any = None) -> None:
        """A record of input ``side`` (1 left, 2 right)."""
        if ts == MIN_WATERMARK:
            raise ValueError("interval join: a Long.MIN_VALUE timestamp (Flink refuses it: FlinkException)")
        if ts < self.watermark:
            self._out.append(LateJoinInput("late", side, key, ts, value, record_id, self.watermark, self.pt))
            return
        left = side == 1
        lo, hi = (self.lower, self.upper) if left else (-self.upper, -self.lower)
        ours = self.buffers.get((key, side))
        if ours is None:
            ours = self.buffers[(key, side)] = JavaLongMap()
        bucket = ours.get(ts)
        if bucket is None:
            bucket = []
        bucket.append((value, record_id))
        ours.put(ts, bucket)
        self._buffered += 1
        other = self.buffers.get((key, 2 if left else 1))
        if other is not None:
            for ots, entries in other.entries():
                if ots < ts + lo or ots > ts + hi:
                    continue
                for v, rid in entries:
                    if left:
                        self._out.append(JoinedPair("join", key, ts, ots, max(ts, ots), value, v, record_id, rid,
                                                    self.watermark, self.pt))
                    else:
                        self._out.append(JoinedPair("join", key, ots, ts, max(ts, ots), v, value, rid, record_id,
                                                    self.watermark, self.pt))
        cleanup = (ts + hi if hi > 0 else ts)
        tk = (cleanup, key, side)
        if tk not in self._timer_set:
            self._timer_set.add(tk)
            heapq.heappush(self.timers, (cleanup, self._seq, key, side))
            self._seq += 1

    def process_watermark(self, w: int) -> None:
        """The operator's (combined) watermark moved to ``w``: cleanup timers up to it fire."""
        if w <= self.watermark:
            return
        self.watermark = w
        while self.timers and self.timers[0][0] <= w:
            t, _, key, side = heapq.heappop(self.timers)
            self._timer_set.discard((t, key, side))
            if side == 1:
                ts = t if self.upper <= 0 else t - self.upper
            else:
                ts = t + self.lower if self.lower <= 0 else t
            buf = self.buffers.get((key, side))
            if buf is not None:
                got = buf.get(ts)
                if got is not None:
                    self._buffered -= len(got)
                buf.remove(ts)
                if not len(buf):
                    del self.buffers[(key, side)]

    def end_input(self) -> None:
        self.process_watermark(MAX_WATERMARK)

    def drain(self) -> list:
        out = self._out
        self._out = []
        return out

    def state_size(self) -> tuple[int, int]:
        """``(keys with buffered elements per input, buffered elements)``."""
        return len(self.buffers), self._buffered


__all__ += ["IntervalJoinOperator", "JavaLongMap", "JoinedPair", "LateJoinInput"]


def run_interval_join(head: dict, steps: list[dict]) -> list[dict]:
    """Run an interval-join scenario (the format of tests/fixtures/interval_join: a header with
    ``lower``, ``upper``, ``lower_inclusive``, ``upper_inclusive``; steps on input 1 or 2: a
    record ``key, ts, value``, a ``watermark`` or ``idle``) through :class:`IntervalJoinOperator`
    behind the two-input valve (:class:`toolkit.engine.flink.valve.TwoInputValves`, one channel per
    input: a record or watermark on an idle input makes it active first). Returns what the
    oracle prints: joins and late records, each with the ``step`` it came in."""
    from toolkit.engine.flink.valve import TwoInputValves

    op = IntervalJoinOperator(int(head["lower"]), int(head["upper"]), bool(head.get("lower_inclusive", True)),
                              bool(head.get("upper_inclusive", True)))
    valves = TwoInputValves(1, 1, lambda kind, value: op.process_watermark(value) if kind == "watermark" else None)
    idle = {1: False, 2: False}
    out: list[dict] = []
    for k, s in enumerate(steps):
        i = int(s["input"])
        valve = valves.valves[i - 1]
        if "idle" in s:
            idle[i] = True
            valve.input_status(0, "idle")
        elif "active" in s:
            idle[i] = False
            valve.input_status(0, "active")
        else:
            if idle[i]:
                idle[i] = False
                valve.input_status(0, "active")
            if "watermark" in s:
                valve.input_watermark(0, int(s["watermark"]))
            else:
                op.process_element(i, s["key"], int(s["ts"]), s["value"])
        for r in op.drain():
            if r.kind == "join":
                out.append({"kind": "join", "key": r.key, "left_ts": r.left_ts, "right_ts": r.right_ts,
                            "timestamp": r.timestamp, "left": r.left, "right": r.right, "step": k})
            else:
                out.append({"kind": "late", "input": r.input, "key": r.key, "ts": r.timestamp, "value": r.value,
                            "step": k})
    op.end_input()
    op.drain()
    return out


__all__ += ["run_interval_join"]
