"""``KTable.suppress(...)`` after a windowed aggregation (``KTableSuppressProcessorSupplier`` with an
``InMemoryTimeOrderedKeyValueChangeBuffer``): ``Suppressed.untilWindowCloses(BufferConfig)`` and
``Suppressed.untilTimeLimit(Duration, BufferConfig)``, unbounded or bounded buffers.

Sits after an aggregation that emits on every update and sees only what it forwards:

- its own stream time is the max **timestamp of the records it receives** (the aggregation's
  output timestamps: a time/sliding window's max record time, a session's end). With the cache
  off this equals the task's stream time: the record that raised it was accepted and forwarded;
- each received record is buffered under its windowed key (a newer value replaces the older and
  keeps its place: the buffer is *non-resetting*), at a **buffer time**: the window's end for
  ``untilWindowCloses``, the (first buffered) record's timestamp for ``untilTimeLimit``;
- after each received record, buffered entries with ``buffer time <= stream time - duration`` are
  emitted in buffer order (buffer time, then the windowed key's bytes: key, then window) with the
  buffered record's timestamp. ``duration``: ``untilWindowCloses`` the windows' grace (sessions
  ``grace + inactivity gap``), ``untilTimeLimit`` its time limit. ``untilWindowCloses`` drops
  tombstones (sessions merged away: ``safeToDropTombstones``) and its emissions are final
  results; ``untilTimeLimit`` forwards them, and its emissions are (rate-limited) updates;
- **bounded buffers** (``BufferConfig.maxRecords`` / ``maxBytes``): then, while the buffer holds
  more than ``max_records`` entries or ``max_bytes`` bytes, ``emitEarlyWhenFull()`` emits from the
  head in buffer order, and ``shutDownWhenFull()`` stops the application (a ``StreamsException``:
  :class:`SuppressBufferFull` here). ``untilWindowCloses`` takes only strict configs (unbounded or
  shut down when full: Kafka's ``StrictBufferConfig``).

Buffer size (``computeRecordSize``): the serialized windowed key (key bytes + 8, sessions + 16) + the
record's ``BufferValue``: prior value + old value (unless it is the prior itself) + new value + the
record context (8 + 8 + 4 + topic chars). A value is ``aggregate_bytes`` or, absent, 0; the upstream
sends old values to a suppression, so the old value is there when the window had one before. The
first buffering of a window keeps its old value as the prior (one array, counted once).

For time windows ``untilWindowCloses`` releases exactly when the aggregation closes the window
(``end <= S - grace``). Sliding and session windows end inclusively and the aggregation still
accepts a window while ``end >= S - grace`` (sessions: ``end >= S - grace - gap``), so a window whose
end equals that bound is released by the suppression and may still be updated and released again:
its "final" result can come twice.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any, Callable

from toolkit.engine.kafka_streams.emit import NO_TIMESTAMP
from toolkit.engine.kafka_streams.partitioner import key_bytes
from toolkit.engine.kafka_streams.record_cache import RecordSizes
from toolkit.errors import UserError

EMIT_EARLY = "emit_early"
SHUT_DOWN = "shut_down"
WHEN_FULL = (SHUT_DOWN, EMIT_EARLY)


@dataclass(frozen=True)
class SuppressConfig:
    """``Suppressed`` and its ``BufferConfig``: ``time_limit`` (ms; None = ``untilWindowCloses``),
    ``max_records`` / ``max_bytes`` (None = unbounded), ``when_full`` and the record-size model."""

    time_limit: int | None = None
    max_records: int | None = None
    max_bytes: int | None = None
    when_full: str = SHUT_DOWN
    sizes: RecordSizes = RecordSizes()

    def __post_init__(self) -> None:
        if self.when_full not in WHEN_FULL:
            raise UserError(f"when_full must be one of {', '.join(WHEN_FULL)}, got {self.when_full!r}")
        if self.time_limit is None and self.when_full == EMIT_EARLY:
            raise UserError("untilWindowCloses takes a strict buffer config (unbounded or shutDownWhenFull): "
                            "emitEarlyWhenFull would emit results that are not final")
        for name in ("time_limit", "max_records", "max_bytes"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not hasattr(v, "__index__") or v < 0):
                raise UserError(f"suppress {name} must be a non-negative integer, got {v!r}")

    @property
    def bounded(self) -> bool:
        return self.max_records is not None or self.max_bytes is not None

    def deployable(self) -> str:
        """The ``Suppressed`` call."""
        buf = "Suppressed.BufferConfig.unbounded()"
        r, m = self.max_records, self.max_bytes
        if r is not None or m is not None:
            buf = ("Suppressed.BufferConfig." + (f"maxRecords({r})" if r is not None else f"maxBytes({m}L)")
                   + (f".withMaxBytes({m}L)" if r is not None and m is not None else "")
                   + (".emitEarlyWhenFull()" if self.when_full == EMIT_EARLY else ".shutDownWhenFull()"))
        if self.time_limit is None:
            return f"Suppressed.untilWindowCloses({buf})"
        return f"Suppressed.untilTimeLimit(Duration.ofMillis({self.time_limit}), {buf})"


class SuppressBufferFull(UserError):
    """``shutDownWhenFull()``: the buffer went over its capacity; Kafka Streams stops."""

    def __init__(self, index: int, task: int, records: int, size: int, config: SuppressConfig) -> None:
        cap_r = "unbounded" if config.max_records is None else config.max_records
        cap_b = "unbounded" if config.max_bytes is None else config.max_bytes
        super().__init__(f"KTABLE-SUPPRESS buffer exceeded its max capacity. Currently [{records}/{cap_r}] records "
                         f"and [{size}/{cap_b}] bytes (task {task}, at the record in arrival position {index}): "
                         "with shutDownWhenFull() Kafka Streams throws a StreamsException and shuts down")
        self.index, self.task, self.records, self.size = index, task, records, size


class Suppress:
    """One task's suppression buffer (see the module doc)."""

    def __init__(self, duration: int, forward: Callable[..., None], config: SuppressConfig | None = None,
                 session: bool = False, task: int = 0) -> None:
        self.config = config or SuppressConfig()
        self.until_close = self.config.time_limit is None
        self.duration = duration if self.until_close else int(self.config.time_limit or 0)
        self.downstream = forward
        self.session = session
        self.task = task
        self.observed = NO_TIMESTAMP
        self.buffer: dict[tuple, list] = {}  # (key, start, end) -> [kind, count, sum, timestamp, bytes, has prior]
        self.heap: list[tuple] = []  # (buffer time, key bytes, end, start, key)
        self.size = 0
        self.had_value: set[tuple] = set()  # windows whose upstream value existed (old value not null)
        sizes = self.config.sizes
        self._ctx = 8 + 8 + 4 + len(sizes.topic) + sizes.header_bytes
        self._agg = sizes.aggregate_bytes

    def forward(self, kind: str, key: Any, start: int, end: int, count: int, total: float,
                timestamp: int, index: int) -> None:
        """Receive one record from the aggregation (its ``forward``)."""
        if timestamp > self.observed:
            self.observed = timestamp
        wk = (key, start, end)
        old = wk in self.had_value
        new = kind != "tombstone"
        if new:
            self.had_value.add(wk)
        else:
            self.had_value.discard(wk)
        entry = self.buffer.get(wk)
        kb = key_bytes(key)
        if entry is None:
            prior = old  # the old value is kept as the prior: one array
            nbytes = len(kb) + (16 if self.session else 8) + (self._agg if old else 0) + (self._agg if new else 0)
            heapq.heappush(self.heap, (end if self.until_close else timestamp, kb, end, start, key))
        else:
            prior = entry[5]
            nbytes = (len(kb) + (16 if self.session else 8) + (self._agg if prior else 0)
                      + (self._agg if old else 0) + (self._agg if new else 0))
            self.size -= entry[4]
        nbytes += self._ctx
        self.size += nbytes
        self.buffer[wk] = [kind, count, total, timestamp, nbytes, prior]
        self._evict_while(lambda: bool(self.heap) and self.heap[0][0] <= self.observed - self.duration, index)
        if self._over():
            if self.config.when_full == SHUT_DOWN:
                raise SuppressBufferFull(index, self.task, len(self.buffer), self.size, self.config)
            self._evict_while(self._over, index)

    def _over(self) -> bool:
        c = self.config
        return ((c.max_records is not None and len(self.buffer) > c.max_records)
                or (c.max_bytes is not None and self.size > c.max_bytes))

    def _evict_while(self, condition: Callable[[], bool], index: int) -> None:
        while condition():
            _, _, end, start, key = heapq.heappop(self.heap)
            kind, count, total, ts, nbytes, _ = self.buffer.pop((key, start, end))
            self.size -= nbytes
            if kind == "tombstone":
                if not self.until_close:
                    self.downstream("tombstone", key, start, end, count, total, ts, index)
            else:
                self.downstream("final" if self.until_close else "update", key, start, end, count, total, ts, index)

    def flush(self) -> None:
        """End of input (not a Kafka behaviour): emit what the buffer still holds."""
        self._evict_while(lambda: bool(self.heap), -1)


#: the name the cache-off engine has always used for the unbounded final-results suppression
SuppressUntilWindowCloses = Suppress
