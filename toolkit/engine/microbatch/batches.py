"""Micro-batches from arrival times and the processing-time trigger interval.

Spark's ``ProcessingTimeExecutor`` ticks at epoch-aligned multiples of the interval ``I``; the
data batch at tick ``T`` reads every record that arrived in ``(T - I, T]``. A tick without new
records runs no data batch. It runs a *no-data batch* iff the watermark computed after the last
executed batch is greater than that batch's own (``MicroBatchExecution``:
``lastExecution.shouldRunAnotherBatch``); since the watermark moves only with new rows, that is
at most one per quiet period, at its first tick. In complete mode Spark runs no no-data batch
at all (``StateStoreSaveExec.shouldRunAnotherBatch`` asks only in append and update mode; seen
in real Spark: ``complete_*`` fixtures).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def data_ticks(arrival: np.ndarray, interval: int) -> tuple[np.ndarray, np.ndarray]:
    """(tick of every data batch ascending, data-batch index of every record)."""
    arrival = np.asarray(arrival, dtype=np.int64)
    tick = -(-arrival // np.int64(interval)) * np.int64(interval)
    ticks, index = np.unique(tick, return_inverse=True)
    return ticks, index.astype(np.int64)


@dataclass(frozen=True)
class Batches:
    """The executed micro-batches, in order (batch id = position).

    ``tick``: trigger time; ``watermark``: the watermark the batch runs with (evicts and, in
    append mode, emits windows with ``end <= watermark``); ``late_watermark``: the one its late
    filter uses, the previous executed batch's watermark (0 for the first); ``is_data``;
    ``of_data``: executed batch id of every data batch.
    """

    tick: np.ndarray
    watermark: np.ndarray
    late_watermark: np.ndarray
    is_data: np.ndarray
    of_data: np.ndarray

    def __len__(self) -> int:
        return len(self.tick)


def executed_batches(ticks: np.ndarray, after: np.ndarray, interval: int, no_data_batches: bool = True) -> Batches:
    """The batches Spark runs, given the data ticks and the global watermark after each data batch.

    Data batch j runs with ``after[j-1]`` (0 before any data). After data batch j, when the next
    tick holds no data, a no-data batch runs at ``ticks[j] + interval`` iff ``after[j]`` is
    greater than batch j's watermark (never when ``no_data_batches`` is False: complete mode).
    """
    ticks = np.asarray(ticks, dtype=np.int64)
    after = np.asarray(after, dtype=np.int64)
    m = len(ticks)
    wm_data = np.concatenate([[0], after[:-1]]).astype(np.int64) if m else np.zeros(0, np.int64)
    next_tick = ticks + np.int64(interval)
    quiet = np.ones(m, dtype=bool)
    if m > 1:
        quiet[:-1] = ticks[1:] != next_tick[:-1]
    nodata = quiet & (after > wm_data) & bool(no_data_batches)
    # interleave: data batch j, then its no-data batch when it runs
    slots = 1 + nodata.astype(np.int64)
    of_data = np.concatenate([[0], np.cumsum(slots)[:-1]]).astype(np.int64) if m else np.zeros(0, np.int64)
    n = int(slots.sum())
    tick = np.empty(n, dtype=np.int64)
    wm = np.empty(n, dtype=np.int64)
    is_data = np.zeros(n, dtype=bool)
    tick[of_data] = ticks
    wm[of_data] = wm_data
    is_data[of_data] = True
    nd = of_data[nodata] + 1
    tick[nd] = next_tick[nodata]
    wm[nd] = after[nodata]
    late = np.concatenate([[0], wm[:-1]]).astype(np.int64) if n else np.zeros(0, np.int64)
    return Batches(tick, wm, late, is_data, of_data)
