"""Flink SQL's row-time ``MiniBatchAssigner`` (``table.exec.mini-batch.enabled`` with
``allow-latency`` I), between the source and the window aggregation: which watermarks go on.

A watermark W goes on only if ``W >= next``; ``next`` starts at ``I - 1`` (the end of the first
mini-batch) and after W is the last millisecond of the mini-batch after W's,
``(W + 1) - (W + 1) mod I + I - 1`` (after 1999 with I = 1 s: 2999). Records pass unchanged;
the final ``MAX`` always goes on. Real Flink 2.3: ``m02_minibatch_small_steps``, ``g40_tumble``.
"""
from __future__ import annotations

from toolkit.engine.flink.watermarks import MAX_WATERMARK


class MiniBatchAssigner:
    """The row-time ``MiniBatchAssigner``: which watermarks it lets through (module doc)."""

    def __init__(self, interval: int) -> None:
        if interval <= 0:
            raise ValueError(f"table.exec.mini-batch.allow-latency must be positive, got {interval} ms")
        self.interval = interval
        self.next = interval - 1  # the first mini-batch ends at I - 1 (g40: 540 is held, I = 1 s)

    def passes(self, watermark: int) -> bool:
        """True if ``watermark`` goes on to the window aggregation."""
        if watermark == MAX_WATERMARK:
            return True
        if watermark < self.next:
            return False
        after = watermark + 1
        self.next = after - after % self.interval + self.interval - 1
        return True
