"""Flink SQL's window aggregation, record by record (COUNT and SUM per key and window).

Rules (real Flink 2.3, ``tests/fixtures/flink_sql``; docs/flink_sql_semantics.md):

- A window ``[start, end)`` fires when the watermark reaches ``end - 1``; its row is emitted
  before that watermark goes on. One watermark fires windows in increasing end order.
- A record is **dropped** iff every window it belongs to has fired (``end - 1 <= watermark``
  for the last of them). Otherwise it is added to the windows that have not fired; windows
  already emitted are not updated (HOP and CUMULATE: a record whose first window fired still
  counts in its later windows). There is no allowed lateness.
- Sessions (``SESSION ... PARTITION BY k`` and the legacy ``GROUP BY SESSION``): the record's
  ``[ts, ts + gap)`` merges with every open session of its key it overlaps or touches; it is
  dropped iff the merged session has fired (so only a record that merges with nothing can be
  late). A fired session is gone: a later record near it opens a new one.
- The final ``MAX`` watermark of a bounded input fires every open window.

:class:`LocalBuffer` reproduces the two-phase plan's ``LocalWindowAggregate`` only to count
what the global operator's ``numLateRecordsDropped`` shows (dropped *accumulators*).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from toolkit.engine.flink.watermarks import MAX_WATERMARK, MIN_WATERMARK
from toolkit.engine.flink_sql.windows import WindowSpec, window_start


@dataclass
class Row:
    """One emitted result row (``op``: ``+I``, or ``-U`` / ``+U`` for an update)."""

    key: str
    start: int
    end: int
    count: int
    total: int
    indices: list[int] = field(default_factory=list)
    op: str = "+I"


class WindowAggregate:
    """Window table-valued-function aggregation (and the legacy group window without early or
    late firing): per key, the windows not yet fired with their count, sum and records."""

    def __init__(self, spec: WindowSpec) -> None:
        self.spec = spec
        self.watermark = MIN_WATERMARK
        self.open: dict[str, dict[tuple[int, int], list]] = {}
        #: rows emitted while processing records (none here; see legacy.py)
        self.pending: list[Row] = []

    def process(self, key: str, ts: int, value: int, index: int) -> bool:
        """Add one record; False if it is dropped as late."""
        if self.spec.merging:
            return self._process_session(key, ts, value, index)
        live = [w for w in self.spec.windows(ts) if w[1] - 1 > self.watermark]
        if not live:
            return False
        state = self.open.setdefault(key, {})
        for w in live:
            acc = state.setdefault(w, [0, 0, []])
            acc[0] += 1
            acc[1] += value
            acc[2].append(index)
        return True

    def _process_session(self, key: str, ts: int, value: int, index: int) -> bool:
        state = self.open.setdefault(key, {})
        start, end = ts, ts + self.spec.gap
        merged = [w for w in state if w[0] <= end and w[1] >= start]
        for w in merged:
            start, end = min(start, w[0]), max(end, w[1])
        if end - 1 <= self.watermark:
            return False
        acc = [1, value, [index]]
        for w in merged:
            old = state.pop(w)
            acc[0] += old[0]
            acc[1] += old[1]
            acc[2] = old[2] + acc[2]
        state[(start, end)] = acc
        return True

    def advance(self, watermark: int) -> list[Row]:
        """A new watermark: the rows of every window it fires, by end, then key and start."""
        self.watermark = max(self.watermark, watermark)
        rows = []
        for key, state in self.open.items():
            fired = [w for w in state if w[1] - 1 <= self.watermark]
            for w in fired:
                cnt, total, idx = state.pop(w)
                rows.append(Row(key, w[0], w[1], cnt, total, sorted(idx)))
        rows.sort(key=lambda r: (r.end, r.key, r.start))
        return rows


class LocalBuffer:
    """The two-phase plan's ``LocalWindowAggregate`` (TUMBLE, HOP, CUMULATE): it holds the records
    and sends them on to the global window operator only when a watermark reaches the next
    slice boundary (``start + interval - 1``, with the window offset) while the earliest held
    slice has ended (``min slice end - 1 <= watermark``), and at the end of input; the
    watermark goes on after them. The global operator then judges them against the watermark
    it has, and counts one dropped row per (key, slice) of a sending. Flink starts the local
    watermark at 0 (the field's Java default in 2.3.0), so watermarks <= 0 send nothing."""

    def __init__(self, spec: WindowSpec) -> None:
        self.spec = spec
        self.interval = spec.slice
        self.offset = spec.offset
        self.current = 0
        self.next_trigger = 0
        self.held: list[tuple] = []

    def add(self, record: tuple) -> None:
        """Hold one record ``(key, ts, value, index, step)``."""
        self.held.append(record)

    def on_watermark(self, watermark: int) -> list[tuple]:
        """A watermark reaches the local operator: the records it sends on now (maybe none)."""
        if watermark <= self.current:
            return []
        self.current = watermark
        if watermark < self.next_trigger:
            return []
        out: list[tuple] = []
        if self.held and min(self.spec.slice_end(r[1]) for r in self.held) - 1 <= watermark:
            out, self.held = self.held, []
        if watermark == MAX_WATERMARK:
            self.next_trigger = watermark
        else:
            trigger = window_start(watermark, self.offset, self.interval) + self.interval - 1
            self.next_trigger = trigger if trigger > watermark else trigger + self.interval
        return out
