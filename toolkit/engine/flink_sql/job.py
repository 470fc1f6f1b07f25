"""A Flink SQL windowed query over one scenario, step by step, as real Flink SQL runs it.

The scenario (``tests/fixtures/flink_sql``, format in ``oracles/flink_sql/README.md``) lists
the steps a source performs: records (from a partition) and periodic ticks. The pipeline:

- **Source.** ``WATERMARK FOR ts AS ts - INTERVAL d``: per partition (split), the running max
  of ``ts - d`` (no ``- 1`` as the DataStream API's bounded out-of-orderness has), asked only
  at ticks, or after every record (:mod:`toolkit.engine.flink_sql.watermarks`);
  ``table.exec.source.idle-timeout`` wraps it in Flink's ``WatermarksWithIdleness``;
  the splits are combined by Flink's ``WatermarkOutputMultiplexer``. Both come from
  :mod:`toolkit.engine.flink` (the same Flink classes run underneath Flink SQL). The end of
  the bounded input sends ``MAX`` (no status change), **unless every split is idle** then:
  Flink's chained outputs drop watermarks while the announced status is idle, so the final
  watermark never arrives and the windows still open never fire.
- **Mini-batch** (``table.exec.mini-batch.enabled``): :mod:`toolkit.engine.flink_sql.minibatch`
  holds some watermarks back; records pass unchanged.
- **Window aggregation**: :class:`toolkit.engine.flink_sql.operator.WindowAggregate` (the
  legacy group window with ``table.exec.emit.*``: :mod:`toolkit.engine.flink_sql.legacy`); with the
  two-phase plan (TUMBLE, HOP, CUMULATE) the records first wait in the local aggregate
  (:class:`~toolkit.engine.flink_sql.operator.LocalBuffer`), which decides when the global
  operator sees them and what its late-record counter shows.

:func:`run` returns what the oracle writes: ``source_watermark`` / ``source_status`` lines,
then the sink's ``row`` / ``watermark`` / ``status`` lines in order, then ``metrics``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolkit.engine.flink.sources import SourceSubtask
from toolkit.engine.flink.watermarks import MAX_WATERMARK
from toolkit.engine.flink_sql.legacy import EmittingWindowAggregate
from toolkit.engine.flink_sql.minibatch import MiniBatchAssigner
from toolkit.engine.flink_sql.operator import LocalBuffer, Row, WindowAggregate
from toolkit.engine.flink_sql.options import duration_ms, emit_options, flag
from toolkit.engine.flink_sql.watermarks import sql_watermark_strategy
from toolkit.engine.flink_sql.windows import window_spec

TWO_PHASE = ("tumble", "hop", "cumulate")


class Sink:
    """The window task: mini-batch filter, local buffer, window operator; writes the lines."""

    def __init__(self, case: dict, options: dict) -> None:
        self.spec = window_spec(case["window"])
        emit = emit_options(options)
        if (emit.early or emit.late) and not self.spec.legacy:  # Flink 2.3's own refusal (t01)
            raise ValueError("a window TVF aggregation does not support table.exec.emit.early-fire.enabled "
                             "and table.exec.emit.late-fire.enabled: use the legacy group window "
                             "(GROUP BY TUMBLE(ts, ...))")
        # table.exec.emit.allow-lateness alone is accepted and ignored by a window TVF (t02)
        self.operator: WindowAggregate | EmittingWindowAggregate = (
            EmittingWindowAggregate(self.spec, emit) if emit.any and self.spec.legacy
            else WindowAggregate(self.spec))
        two_phase = not self.spec.legacy and self.spec.kind in TWO_PHASE
        self.local = LocalBuffer(self.spec) if two_phase else None
        self.dropped = 0
        self.mini_batch = None
        if flag(options, "table.exec.mini-batch.enabled"):
            latency = options.get("table.exec.mini-batch.allow-latency")
            if latency is None:
                raise ValueError("table.exec.mini-batch.enabled needs table.exec.mini-batch.allow-latency")
            self.mini_batch = MiniBatchAssigner(duration_ms(latency, "table.exec.mini-batch.allow-latency"))
        self.lines: list[dict[str, Any]] = []
        self.waiting: list[dict[str, Any]] = []  # rows emitted before the next watermark
        self.fates: list[dict[str, Any]] = []
        self.emitted: list[dict[str, Any]] = []

    def _rows(self, rows: list[Row], cause: str, step: int) -> None:
        for r in rows:
            self.emitted.append({"key": r.key, "start": r.start, "end": r.end, "op": r.op, "count": r.count,
                                 "total": r.total, "indices": list(r.indices), "cause": cause, "step": step})
            row = {"kind": "row", "op": r.op, "k": r.key, "window_start": r.start, "window_end": r.end,
                   "cnt": r.count, "total": r.total, "next_watermark_step": None}
            if self.spec.legacy:  # the legacy queries add MAX(idx) AS last_idx
                row["last_idx"] = r.indices[-1]
            self.lines.append(row)
            self.waiting.append(row)

    def record(self, key: str, ts: int, value: int, index: int, step: int) -> None:
        if self.local is not None:  # held by the local aggregate until it sends them on
            self.local.add((key, ts, value, index, step))
            return
        if not self._process(key, ts, value, index, step):
            self.dropped += 1

    def _process(self, key: str, ts: int, value: int, index: int, step: int) -> bool:
        watermark = self.operator.watermark
        kept = self.operator.process(key, ts, value, index)
        self.fates.append({"index": index, "step": step, "fate": "kept" if kept else "dropped",
                           "watermark": watermark})
        self._rows(self.operator.pending, "record", step)
        self.operator.pending = []
        return kept

    def watermark(self, ts: int, step: int) -> None:
        if self.mini_batch is not None and not self.mini_batch.passes(ts):
            return
        if self.local is not None:
            late = {(self.spec.slice_end(r[1]), r[0]) for r in self.local.on_watermark(ts) if not self._process(*r)}
            self.dropped += len(late)  # one dropped row per key and slice of the sending
        self._rows(self.operator.advance(ts), "end_of_input" if ts == MAX_WATERMARK else "watermark", step)
        for row in self.waiting:
            row["next_watermark_step"] = step
        self.waiting = []
        self.lines.append({"kind": "watermark", "ts": ts, "step": step})

    def metrics(self) -> dict[str, Any]:
        if self.local is not None:
            name = "GlobalWindowAggregate"
        else:
            name = "GroupWindowAggregate" if self.spec.legacy else "WindowAggregate"
        return {"kind": "metrics", "late": {name + ".numLateRecordsDropped": self.dropped}}


@dataclass
class Simulation:
    """One scenario replayed.

    - ``lines``: the oracle's lines (without the plan);
    - ``fates``: per record (in step order) its fate (``kept`` / ``dropped``), its step and the
      window operator's watermark when it arrived;
    - ``emitted``: every row in emission order with its records (``indices``), what caused it
      (``watermark``, ``record`` for a legacy early/late firing, ``end_of_input``), the step
      that caused it and ``time``: that step's processing time (a tick's time, a record's
      arrival; None at the end of input).
    """

    lines: list[dict[str, Any]]
    fates: list[dict[str, Any]]
    emitted: list[dict[str, Any]]


def run(head: dict, steps: list[dict]) -> list[dict[str, Any]]:
    """The oracle's output lines (without the plan) for one scenario."""
    return simulate(head, steps).lines


def simulate(head: dict, steps: list[dict]) -> Simulation:
    """Replay one scenario (see the module doc)."""
    case, options = head["case"], head.get("options", {})
    strategy = sql_watermark_strategy(case["delay"], head.get("with", {}).get("scan.watermark.emit.strategy",
                                                                             "on-periodic"))
    idle = options.get("table.exec.source.idle-timeout")
    if idle is not None:
        strategy = strategy.with_idleness(duration_ms(idle, "table.exec.source.idle-timeout"))
    sink = Sink(case, options)
    source_lines: list[dict[str, Any]] = []
    at = [0]

    def downstream(kind: str, value: object) -> None:
        if kind == "watermark":
            source_lines.append({"kind": "source_watermark", "ts": value, "step": at[0]})
            sink.watermark(int(value), at[0])  # type: ignore[call-overload]
        else:
            source_lines.append({"kind": "source_status", "status": value, "step": at[0]})
            sink.lines.append({"kind": "status", "status": value})

    source = SourceSubtask(0, list(head["partitions"]), strategy, downstream)
    index = 0
    for at[0], s in enumerate(steps):
        if "tick" in s:
            source.on_periodic_emit(int(s["tick"]))
            continue
        r = s["record"]
        # Flink's SourceOutputWithWatermarks sends the record on first, then asks the generator
        sink.record(str(r["k"]), int(r["t"]), int(r["v"]), index, at[0])
        source.on_event(int(r["p"]), int(r["t"]), int(r.get("arrival", 0)))
        index += 1
    at[0] = len(steps)
    if not source.emitter.idle:  # an idle output drops watermarks, the final MAX too
        source_lines.append({"kind": "source_watermark", "ts": MAX_WATERMARK, "step": at[0]})
        sink.watermark(MAX_WATERMARK, at[0])
    for row in sink.emitted:
        s = steps[row["step"]] if row["step"] < len(steps) else None
        row["time"] = None if s is None else s["tick"] if "tick" in s else s["record"].get("arrival")
    return Simulation(source_lines + sink.lines + [sink.metrics()], sink.fates, sink.emitted)
