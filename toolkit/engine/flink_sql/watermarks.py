"""The watermark a Flink SQL source generates from ``WATERMARK FOR ts AS ts - INTERVAL d``,
per partition (split), with the table's ``scan.watermark.emit.strategy``:

- ``on-periodic`` (the default): the running max of ``ts - d``, handed out only when Flink asks
  periodically (``pipeline.auto-watermark-interval``; 0 = never, so no watermark before the
  end of input: t03_interval_zero). No ``- 1``: h01_running_max, h02_fire_edge.
- ``on-event``: the same running max, emitted right after a record that raises it
  (t04_on_event); periodic calls emit nothing (``GeneratedWatermarkGeneratorSupplier`` in
  2.3.0). A record that does not raise it emits nothing, so it does not make an idle
  partition active again (g245_cumulate, g267_legacy_hop).

``table.exec.source.idle-timeout`` wraps either in Flink's ``WatermarksWithIdleness``.
"""
from __future__ import annotations

from dataclasses import dataclass

from toolkit.engine.flink.watermarks import (
    MIN_WATERMARK,
    BoundedOutOfOrderness,
    WatermarkGenerator,
    WatermarkOutput,
    WatermarkStrategy,
)

EMIT_STRATEGIES = ("on-periodic", "on-event")


class OnEventGenerator(WatermarkGenerator):
    """Flink's ``GeneratedWatermarkGeneratorSupplier.DefaultWatermarkGenerator`` in ``on-event``
    mode: emits ``ts - delay`` right after a record **only when it rises** (a record that does not
    raise it emits nothing, so it does not make an idle partition active in the multiplexer)."""

    emits_on_event = True

    def __init__(self, delay: int) -> None:
        self.delay = delay
        self.current = MIN_WATERMARK

    def on_event(self, ts: int, pt: int, output: WatermarkOutput, marker: bool = False) -> None:
        if ts - self.delay > self.current:
            self.current = ts - self.delay
            output.emit_watermark(self.current)


@dataclass(frozen=True)
class OnEvent(WatermarkStrategy):
    """``scan.watermark.emit.strategy = 'on-event'``."""

    delay: int
    name = "on_event"

    def create(self) -> OnEventGenerator:
        return OnEventGenerator(self.delay)


def sql_watermark_strategy(delay: int, emit_strategy: str = "on-periodic") -> WatermarkStrategy:
    """The per-partition strategy of ``WATERMARK FOR ts AS ts - INTERVAL delay``."""
    if emit_strategy not in EMIT_STRATEGIES:
        raise ValueError(f"scan.watermark.emit.strategy must be one of {EMIT_STRATEGIES}, got {emit_strategy!r}")
    if emit_strategy == "on-event":
        return OnEvent(delay)
    return BoundedOutOfOrderness(delay, legacy=True)  # max - delay, asked periodically
