"""A consumer draining a backlog: the queue rule shared by ``stall`` and ``restart``.

A reader that was held back reads nothing until ``resume``; then it reads its records one by
one in their original arrival order, at most ``rate`` records per second. A record is read at

    t_0 = max(a_0, resume),   t_i = max(a_i, resume, t_{i-1} + 1000 / rate)   (ms)

so the records that arrived while it was held are read from ``resume`` at the drain rate, and
the records that arrive while it is still draining queue behind them. The drain ends at the
first record read at its own arrival time (the reader has caught up): it and every later record
keep their arrival times (the rate does not throttle the normal stream afterwards). Times are
rounded up to whole milliseconds.

The recurrence is computed without a loop: ``t_i = i*d + max_{j<=i}(b_j - j*d)`` with
``b_j = max(a_j, resume)`` and ``d = 1000 / rate``, a cumulative maximum per reader.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def drain(arrival: np.ndarray, reader: np.ndarray, resume: int, rate: float) -> np.ndarray:
    """New arrival times of queued records.

    ``arrival``: int64 ms of every record that queues (or may queue), sorted by reader, then in
    the reader's arrival order (arrival_time, row); ``reader``: the reader (e.g. partition) of
    each; ``resume``: when every reader starts reading again; ``rate``: records/s per reader.
    """
    a = np.asarray(arrival, dtype=np.int64)
    n = len(a)
    if n == 0:
        return a.copy()
    reader = np.asarray(reader)
    step = 1000.0 / float(rate)
    starts = np.r_[True, reader[1:] != reader[:-1]]
    group = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    index = np.arange(n) - first[group]  # position within the reader's queue
    b = (np.maximum(a, resume) - resume).astype(np.float64)
    best = pd.Series(b - index * step).groupby(group).cummax().to_numpy()
    t = resume + np.ceil(np.round(index * step + best, 6)).astype(np.int64)
    t = np.maximum(t, a)
    caught = (t == a) & (a >= resume)
    done = pd.Series(caught).groupby(group).cummax().to_numpy(dtype=bool)
    return np.where(done, a, t)
