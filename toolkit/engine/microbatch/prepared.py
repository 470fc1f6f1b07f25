"""``MicroBatchLog``: a log prepared once for many Spark-semantics runs (a sweep).

Most of a run's work depends on the log alone, not on the setting: the key codes (a sort of
every key), the data batch of every record under a trigger interval, the max event time per
(data batch, input), a window's (record, window) pairs and their (key, window) groups, and,
in update mode, those pairs ordered by (window, data batch). A ``MicroBatchLog`` computes each
on first use and keeps it for the next run that asks with the same interval / window / inputs
(a few of each: the bounded caches below), so a sweep of delays, output modes or policies pays
for them once. ``run_prepared(config, log)`` (``toolkit.engine.microbatch.run``) gives exactly
what ``run_microbatch`` gives on the same columns: ``run_microbatch`` prepares a log for its
one run and calls it.

Rule the reuse rests on: executed batch ids grow with data-batch ids (no-data batches are
inserted between them, ``batches.executed_batches``), so an order by data batch is an order by
executed batch for every setting with that trigger interval.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable

import numpy as np

from toolkit.engine.microbatch.aggregation import WindowGroups, window_pairs
from toolkit.engine.microbatch.batches import data_ticks
from toolkit.engine.microbatch.config import MicroBatchConfigError
from toolkit.engine.microbatch.watermark import batch_source_maxima

#: entries kept per cache (least recently used dropped)
CACHE_ENTRIES = 3
#: (record, window) pairs kept across the window caches: a sliding window has (size / slide)
#: pairs a record, so past this only the newest window stays (about 40 bytes a pair)
CACHE_PAIRS = 16_000_000


def key_codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct keys, code of every record): sorted keys, or, when the keys do not compare
    (mixed types), keys in order of first appearance.

    Text keys are coded by hashing (a pass over the records), then only the distinct keys are
    sorted: the same codes as ``np.unique``, without comparing strings for a whole log."""
    keys = np.asarray(keys)
    if keys.dtype.kind == "O" and len(keys):
        codes, uniq = _hash_codes(keys)
        if all(type(u) is str for u in uniq):  # str compares as np.unique compares it: same order
            order = np.argsort(uniq, kind="stable")
            rank = np.empty(len(uniq), dtype=np.int64)
            rank[order] = np.arange(len(uniq), dtype=np.int64)
            return uniq[order], rank[codes]
    try:
        uniq, inv = np.unique(keys, return_inverse=True)
        return uniq, inv.astype(np.int64)
    except TypeError:  # mixed key types: order of first appearance
        index: dict = {}
        inv = np.fromiter((index.setdefault(k, len(index)) for k in keys), np.int64, len(keys))
        return np.array(list(index), dtype=object), inv


def _hash_codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code per record in order of first appearance, distinct keys as an object array), by hash."""
    index: dict = {}
    codes = np.fromiter((index.setdefault(k, len(index)) for k in keys.tolist()), np.int64, len(keys))
    return codes, np.array(list(index), dtype=object)


class _Lru:
    """A small least-recently-used cache: at most ``CACHE_ENTRIES`` entries and, when ``size``
    is given, at most ``CACHE_PAIRS`` pairs in all (the newest entry is always kept)."""

    def __init__(self, size: Callable | None = None) -> None:
        self._d: OrderedDict = OrderedDict()
        self._size = size

    def get(self, key, make: Callable):
        if key in self._d:
            self._d.move_to_end(key)
            return self._d[key]
        value = make()
        self._d[key] = value
        while len(self._d) > 1 and (len(self._d) > CACHE_ENTRIES or (
                self._size is not None and sum(self._size(v) for v in self._d.values()) > CACHE_PAIRS)):
            self._d.popitem(last=False)
        return value


class MicroBatchLog:
    """A log's columns for ``run_prepared`` (any row order), with its setting-free work cached.

    ``event_time``, ``arrival_time``, ``partition`` (int64), ``value``; ``keys`` (distinct) and
    ``key_code`` per record (:func:`key_codes`, or ``codes`` when the caller has them)."""

    def __init__(self, event_time, arrival_time, key, value, partition=None, codes=None) -> None:
        self.event_time = np.asarray(event_time, dtype=np.int64)
        self.arrival_time = np.asarray(arrival_time, dtype=np.int64)
        n = len(self.event_time)
        self.value = np.asarray(value)
        self.partition = (np.zeros(n, dtype=np.int64) if partition is None
                          else np.asarray(partition, dtype=np.int64))
        # ``codes``: (distinct keys, code per record) already known (ascending codes of sorted keys)
        self.keys: np.ndarray
        self.key_code: np.ndarray
        self.keys, self.key_code = key_codes(np.asarray(key)) if codes is None else codes
        self._ticks = _Lru()
        self._sources = _Lru()
        self._maxima = _Lru()
        self._windows = _Lru(lambda w: len(w.record))
        self._window_batch_order = _Lru(len)
        self._seen_partitions: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.event_time)

    def ticks(self, interval: int) -> tuple[np.ndarray, np.ndarray]:
        """(tick of every data batch ascending, data-batch index of every record) (``data_ticks``)."""
        return self._ticks.get(int(interval), lambda: data_ticks(self.arrival_time, interval))

    def sources(self, declared: tuple[int, ...] | None) -> tuple[np.ndarray, int]:
        """(input index of every record, number of inputs) when each partition is an input:
        ``declared`` (the config's ``sources``) or, when None, the partitions in the log. A
        partition that is not declared is a ``MicroBatchConfigError`` naming it."""
        return self._sources.get(declared, lambda: self._make_sources(declared))

    def _make_sources(self, declared: tuple[int, ...] | None) -> tuple[np.ndarray, int]:
        if declared is None:
            if self._seen_partitions is None:
                self._seen_partitions = np.unique(self.partition)
            sources = self._seen_partitions
        else:
            sources = np.asarray(sorted(set(declared)), dtype=np.int64)
        part = self.partition
        src = np.searchsorted(sources, part)
        bad = (src >= len(sources)) | (sources[np.minimum(src, len(sources) - 1)] != part)
        if bad.any():
            raise MicroBatchConfigError(
                f"partitions_as_sources: partition {int(part[bad][0])} is not among the sources {sources.tolist()}")
        return src, len(sources)

    def maxima(self, interval: int, declared: tuple[int, ...] | None, per_input: bool) -> np.ndarray:
        """The max event time per (data batch, input) (``watermark.batch_source_maxima``);
        ``per_input``: each partition an input (else one input)."""
        def make() -> np.ndarray:
            ticks, data_idx = self.ticks(interval)
            if per_input:
                src, n_src = self.sources(declared)
            else:
                src, n_src = np.zeros(len(self), dtype=np.int64), 1
            return batch_source_maxima(self.event_time, data_idx, len(ticks), src, n_src)
        return self._maxima.get((int(interval), declared if per_input else None, bool(per_input)), make)

    def windows(self, size: int, slide: int, offset: int) -> WindowGroups:
        """The (record, window) pairs of ``window(ts, size, slide, offset)`` and their groups."""
        return self._windows.get((int(size), int(slide), int(offset)), lambda: self._make_windows(size, slide, offset))

    def _make_windows(self, size: int, slide: int, offset: int) -> WindowGroups:
        rec, start = window_pairs(self.event_time, size, slide, offset)
        k = self.key_code[rec]
        order = np.lexsort((start, k))
        new = np.zeros(len(rec), dtype=bool)
        if len(rec):
            new[0] = True
            new[1:] = (k[order][1:] != k[order][:-1]) | (start[order][1:] != start[order][:-1])
        gid = np.empty(len(rec), dtype=np.int64)
        gid[order] = np.cumsum(new) - 1
        firsts = order[new]
        return WindowGroups(rec, start, k, gid, k[firsts], start[firsts])

    def window_batch_order(self, size: int, slide: int, offset: int, interval: int) -> np.ndarray:
        """The pairs of that window ordered by (group, data batch) (stable: pair order within ties)."""
        def make() -> np.ndarray:
            w = self.windows(size, slide, offset)
            _, data_idx = self.ticks(interval)
            return np.lexsort((data_idx[w.record], w.group))
        return self._window_batch_order.get((int(size), int(slide), int(offset), int(interval)), make)
