"""The bookkeeping every windowed aggregation processor of a task shares (Kafka's
``AbstractKStreamTimeWindowAggregateProcessor`` and ``KStreamSessionWindowAggregateProcessor``).

- **stream time** (``observed``): the largest record timestamp the processor has seen, updated
  *before* the record is processed (:meth:`WindowAggregateProcessor.observe`);
- **store time** (``store_time``): the largest window position written to the task's store, and
  the store's **retention** (``Materialized.withRetention``; default from the windows): the store
  forgets what lies ``retention`` or more behind its store time;
- **emit on close**: whether results wait for the window close, and the throttle (``CloseTracker``).
"""
from __future__ import annotations

from typing import Any, Callable

from toolkit.engine.kafka_streams.emit import NO_TIMESTAMP, CloseTracker

Forward = Callable[..., None]


class WindowAggregateProcessor:
    """One task's windowed aggregation: its windows, output, emit mode, stream and store time."""

    def __init__(self, windows: Any, forward: Forward, on_close: bool, emit_interval: int) -> None:
        self.w = windows
        self.forward = forward
        self.on_close = on_close
        self.tracker = CloseTracker(emit_interval)
        self.observed = NO_TIMESTAMP
        self.store_time = NO_TIMESTAMP
        self.retention = windows.retention_ms

    def observe(self, ts: int) -> int:
        """Advance stream time with a record's timestamp (first thing ``process`` does); returns it."""
        if ts > self.observed:
            self.observed = ts
        return self.observed

    def _visible(self, start: int) -> bool:
        """Whether the window store still shows a window starting at ``start``: update-mode stores
        hide ``start <= store_time - retention``, the time-ordered store read on close hides
        ``start < store_time - retention``."""
        oldest = self.store_time - self.retention
        return start >= oldest if self.on_close else start > oldest
