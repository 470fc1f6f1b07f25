"""Emit strategies and the emit-on-window-close bookkeeping shared by the aggregations.

- ``ON_WINDOW_UPDATE`` (``EmitStrategy.onWindowUpdate()``, the default): every update of a
  window is forwarded at once (the record cache off: ``statestore.cache.max.bytes = 0`` or
  ``Materialized.withCachingDisabled()``); with the cache (``record_cache``) updates are
  compacted and forwarded on commit or eviction.
- ``ON_WINDOW_CLOSE`` (``EmitStrategy.onWindowClose()``, KIP-825): nothing is forwarded on
  update; after processing a record the aggregation checks (at most once per
  ``emit_interval`` of **system time**, internal config
  ``__emit.interval.ms.kstreams.windowed.aggregation__``, default 1000 ms; the replay uses
  the record's arrival time as system time) whether its close time progressed since the last
  emission, and forwards every closed, not yet emitted window of the task (all keys).

The throttle is Kafka's ``shouldEmitFinal``: if ``now < next_time_to_emit`` skip; otherwise
``next_time_to_emit = now + emit_interval`` and emit only if ``last_emit_close_time`` is unset
or smaller than the current window close time.
"""
from __future__ import annotations

from dataclasses import dataclass

from toolkit.errors import UserError

ON_WINDOW_UPDATE = "on_window_update"
ON_WINDOW_CLOSE = "on_window_close"
#: ``KTable.suppress(Suppressed.untilWindowCloses(unbounded()))`` after an update-emitting aggregation
SUPPRESS_UNTIL_WINDOW_CLOSES = "suppress"
EMIT_STRATEGIES = (ON_WINDOW_UPDATE, ON_WINDOW_CLOSE, SUPPRESS_UNTIL_WINDOW_CLOSES)
DEFAULT_EMIT_INTERVAL_MS = 1000
NO_TIMESTAMP = -1  # ConsumerRecord.NO_TIMESTAMP


@dataclass(frozen=True)
class Emit:
    """How results leave the aggregation: ``strategy`` and the close-emission throttle."""

    strategy: str = ON_WINDOW_UPDATE
    emit_interval: int = DEFAULT_EMIT_INTERVAL_MS

    def __post_init__(self) -> None:
        if self.strategy not in EMIT_STRATEGIES:
            raise UserError(f"emit must be one of {', '.join(EMIT_STRATEGIES)}, got {self.strategy!r}")
        if isinstance(self.emit_interval, bool) or not hasattr(self.emit_interval, "__index__") or self.emit_interval < 0:
            raise UserError(f"emit_interval must be a non-negative integer of milliseconds, got {self.emit_interval!r}")

    @property
    def on_close(self) -> bool:
        return self.strategy == ON_WINDOW_CLOSE


class CloseTracker:
    """``lastEmitWindowCloseTime`` and the ``TimeTracker`` throttle of one processor (task)."""

    __slots__ = ("interval", "last_emit_close", "next_time_to_emit")

    def __init__(self, interval: int) -> None:
        self.interval = interval
        self.last_emit_close = NO_TIMESTAMP
        self.next_time_to_emit = 0

    def should_emit(self, now: int, close_time: int) -> bool:
        if now < self.next_time_to_emit:
            return False
        self.next_time_to_emit = now + self.interval
        return self.last_emit_close == NO_TIMESTAMP or self.last_emit_close < close_time
