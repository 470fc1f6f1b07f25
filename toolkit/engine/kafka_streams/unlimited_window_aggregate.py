"""``KStreamWindowAggregate`` over ``UnlimitedWindows``: one running count and sum per key.

Rules (Kafka's ``KStreamWindowAggregate.process`` with ``UnlimitedWindows``): stream time moves as
for any window, but the close time ``S - grace`` never reaches the window's end (``Long.MAX_VALUE``),
so every record at or after ``start`` is added and, emitting on update, forwarded with the window's
largest record timestamp. A record before ``start`` belongs to no window (nothing is counted, the
dropped-records sensor neither). ``onWindowClose()`` is refused when the topology is built.
"""
from __future__ import annotations

from typing import Any

from toolkit.engine.kafka_streams.partitioner import key_bytes
from toolkit.engine.kafka_streams.window_aggregate_processor import Forward, WindowAggregateProcessor
from toolkit.engine.kafka_streams.windows import LONG_MAX, UnlimitedWindows
from toolkit.errors import UserError


class UnlimitedWindowAggregate(WindowAggregateProcessor):
    """One task's aggregation over ``UnlimitedWindows``."""

    def __init__(self, windows: UnlimitedWindows, forward: Forward, on_close: bool, emit_interval: int) -> None:
        if on_close:
            raise UserError("Kafka Streams refuses EmitStrategy.onWindowClose() with UnlimitedWindows: their window "
                            "never closes (IllegalArgumentException when the topology is built)")
        super().__init__(windows, forward, on_close, emit_interval)
        self.aggs: dict[Any, list] = {}  # key -> [count, sum, timestamp]

    def process(self, index: int, key: Any, ts: int, value: float, now: int) -> tuple[int, int]:
        """Add the record to its key's window; returns (windows that accepted it, windows that skipped it)."""
        self.observe(ts)
        start = self.w.start
        if ts < start:
            return 0, 0
        agg = self.aggs.get(key)
        if agg is None:
            agg = self.aggs[key] = [1, 0.0 + value, ts]
        else:
            agg[0] += 1
            agg[1] += value
            if ts > agg[2]:
                agg[2] = ts
        self.forward("update", key, start, LONG_MAX, agg[0], agg[1], agg[2], index)
        return 1, 0

    def snapshot(self) -> list[tuple]:
        """``(key, start, end, count, sum, timestamp)`` of every key's window."""
        s = self.w.start
        return [(k, s, LONG_MAX, a[0], a[1], a[2]) for k, a in sorted(self.aggs.items(), key=lambda kv: key_bytes(kv[0]))]

    def flush(self) -> None:
        """Nothing waits for a close."""
