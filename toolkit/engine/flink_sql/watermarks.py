"""The watermark a Flink SQL source generates from ``WATERMARK FOR ts AS ts - INTERVAL d``,
per partition (split), with the table's ``scan.watermark.emit.strategy``:

- ``on-periodic`` (the default): the running max of ``ts - d``, handed out only when Flink asks
  periodically (``pipeline.auto-watermark-interval``; 0 = never, so no watermark before the
  end of input: t03_interval_zero). No ``- 1``: h01_running_max, h02_fire_edge.
- ``on-event``: the same running max, emitted right after every record (t04_on_event). Not
  simulated: in longer logs real Flink also marks the partitions idle about 200-250 ms of
  processing time after their last record although no idle timeout is set (g267_legacy_hop:
  records at 1000, IDLE at the tick at 1300; g245_cumulate), a rule not pinned down yet.

``table.exec.source.idle-timeout`` wraps either in Flink's ``WatermarksWithIdleness``.
"""
from __future__ import annotations

from toolkit.engine.flink.watermarks import BoundedOutOfOrderness, WatermarkStrategy

EMIT_STRATEGIES = ("on-periodic", "on-event")


def sql_watermark_strategy(delay: int, emit_strategy: str = "on-periodic") -> WatermarkStrategy:
    """The per-partition strategy of ``WATERMARK FOR ts AS ts - INTERVAL delay``."""
    if emit_strategy not in EMIT_STRATEGIES:
        raise ValueError(f"scan.watermark.emit.strategy must be one of {EMIT_STRATEGIES}, got {emit_strategy!r}")
    if emit_strategy == "on-event":
        raise ValueError("scan.watermark.emit.strategy 'on-event' is not simulated: real Flink marks "
                         "partitions idle without an idle timeout there (g245_cumulate, g267_legacy_hop)")
    return BoundedOutOfOrderness(delay, legacy=True)  # max - delay, asked periodically
