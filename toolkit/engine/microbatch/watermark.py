"""Spark's ``WatermarkTracker``: one global event-time watermark, moved between micro-batches.

After every batch, each input with a ``withWatermark`` whose rows the batch read proposes
``max event time - delay`` and keeps the largest it ever proposed; an input that has never
delivered a row proposes 0. The global watermark becomes the policy (``min``, Spark's default,
or ``max``; ``spark.sql.streaming.multipleWatermarkPolicy``) over the inputs, if that is greater
than the current one: it starts at 0 (1970-01-01) and never decreases.
"""
from __future__ import annotations

import numpy as np

_NONE = np.iinfo(np.int64).min


def batch_source_maxima(event_time: np.ndarray, batch: np.ndarray, n_batches: int, source: np.ndarray,
                        n_sources: int) -> np.ndarray:
    """The max event time per (data batch, input) (int64, ``(n_batches, n_sources)``; the
    smallest int64 where the input read no row): what the watermark needs from the records."""
    ts = np.asarray(event_time, dtype=np.int64)
    per = np.full((n_batches, n_sources), _NONE, dtype=np.int64)
    np.maximum.at(per, (np.asarray(batch, np.int64), np.asarray(source, np.int64)), ts)
    return per


def watermarks_from_maxima(per: np.ndarray, delay: int, policy: str) -> np.ndarray:
    """The global watermark after each data batch from :func:`batch_source_maxima`'s table."""
    n_batches = len(per)
    running = np.maximum.accumulate(per, axis=0) if n_batches else per
    proposed = np.where(running == _NONE, np.int64(0), running - np.int64(delay))
    chosen = proposed.min(axis=1) if policy == "min" else proposed.max(axis=1)
    return np.maximum.accumulate(np.maximum(chosen, 0)) if n_batches else chosen


def watermarks_after(event_time: np.ndarray, batch: np.ndarray, n_batches: int, source: np.ndarray,
                     n_sources: int, delay: int, policy: str) -> np.ndarray:
    """The global watermark after each data batch (int64, length ``n_batches``).

    ``batch``/``source``: data-batch index and input index (0..n_sources-1) of every record.
    """
    return watermarks_from_maxima(batch_source_maxima(event_time, batch, n_batches, source, n_sources), delay, policy)
