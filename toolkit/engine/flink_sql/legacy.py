"""The legacy group window (``GROUP BY k, TUMBLE(ts, size)`` / ``HOP``) with Flink SQL's
experimental emit options, as real Flink 2.3 runs it (``l02``-``l05`` in
tests/fixtures/flink_sql; docs/flink_sql_semantics.md, rule 7).

- ``table.exec.emit.early-fire.enabled`` with delay 0: every record added to a window before
  the watermark passes it fires the window at once.
- The watermark reaching ``end - 1`` fires the window (the on-time firing).
- ``table.exec.emit.late-fire.enabled`` with delay 0 and ``table.exec.emit.allow-lateness`` L:
  the window is kept until the watermark reaches ``end - 1 + L``; every record added meanwhile
  fires it at once. Without late firing, L is ignored (lateness 0).
- A record whose windows are all past ``end - 1 + L`` is dropped (counted per record).
- A firing emits ``+I`` the first time, then ``-U`` (the previous row) and ``+U`` (the new
  one), and nothing when the window is unchanged since its last row.

Delays above 0 (processing-time firing) are refused: they depend on the wall clock. Flink
itself refuses emit options on a legacy SESSION window, and so does this module.
"""
from __future__ import annotations

from toolkit.engine.flink.watermarks import MIN_WATERMARK
from toolkit.engine.flink_sql.operator import Row
from toolkit.engine.flink_sql.options import EmitOptions
from toolkit.engine.flink_sql.windows import WindowSpec


class EmittingWindowAggregate:
    """Per key and window: count, sum, records and the last row emitted."""

    def __init__(self, spec: WindowSpec, emit: EmitOptions) -> None:
        if spec.merging:
            raise ValueError("Flink SQL refuses table.exec.emit.* on a legacy SESSION window: "
                             "\"Session window doesn't support EMIT strategy currently\" (l09, l10)")
        self.spec = spec
        self.early = emit.early
        self.late = emit.late
        self.lateness = emit.lateness if emit.late else 0
        self.watermark = MIN_WATERMARK
        self.open: dict[str, dict[tuple[int, int], list]] = {}
        self.pending: list[Row] = []

    def _fire(self, key: str, w: tuple[int, int], acc: list) -> None:
        cnt, total, idx, last = acc
        if last is not None and last[:2] == (cnt, total):
            return
        if last is not None:
            self.pending.append(Row(key, w[0], w[1], last[0], last[1], last[2], op="-U"))
        self.pending.append(Row(key, w[0], w[1], cnt, total, sorted(idx), op="+I" if last is None else "+U"))
        acc[3] = (cnt, total, sorted(idx))

    def process(self, key: str, ts: int, value: int, index: int) -> bool:
        """Add one record (firing at once where early or late firing says so); False if dropped."""
        live = [w for w in self.spec.windows(ts) if w[1] - 1 + self.lateness > self.watermark]
        if not live:
            return False
        state = self.open.setdefault(key, {})
        for w in live:
            acc = state.setdefault(w, [0, 0, [], None])
            acc[0] += 1
            acc[1] += value
            acc[2].append(index)
            on_time = w[1] - 1 > self.watermark
            if (on_time and self.early) or (not on_time and self.late):
                self._fire(key, w, acc)
        return True

    def advance(self, watermark: int) -> list[Row]:
        """A new watermark: on-time firings of the windows it passes, then cleanup; the rows
        emitted since the last call (record-driven first), in order."""
        old, self.watermark = self.watermark, max(self.watermark, watermark)
        for key, state in self.open.items():
            for w in sorted(state, key=lambda w: (w[1], w[0])):
                if old < w[1] - 1 <= self.watermark:
                    self._fire(key, w, state[w])
            for w in [w for w in state if w[1] - 1 + self.lateness <= self.watermark]:
                del state[w]
        rows, self.pending = self.pending, []
        return rows
