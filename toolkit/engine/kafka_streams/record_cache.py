"""Kafka Streams' record cache in front of an aggregation's window store (``ThreadCache``,
``NamedCache``, ``CachingWindowStore`` / ``CachingSessionStore``; commits by ``StreamThread``).

Rules (Kafka's ``ThreadCache``, ``NamedCache`` and the caching stores, KIP-63):

- **One cache per stream thread** of ``statestore.cache.max.bytes`` (default 10 MiB; one thread,
  Kafka's default, so every task shares it); inside it one *named cache* per task's store.
- **Put.** An update of a window is written into the task's named cache as a dirty entry, not
  forwarded. A newer update of the same window replaces the entry (the update is *compacted*),
  moves it to the most-recently-used end and to the end of the dirty order (the order of the
  latest write). A session merged away is written as a dirty ``null`` (its tombstone).
- **Eviction.** After a put, while the thread's cache holds more than ``max_bytes``, the
  least-recently-used entry **of the named cache just written** is evicted (if that cache is
  empty, eviction stops). Evicting a dirty entry flushes its named cache: the evicted entry
  first, then every other dirty entry in dirty order.
- **Commit.** Every ``commit.interval.ms`` (default 30 s) of wall-clock time the thread
  commits, which flushes every task's named cache (tasks in task order). Kafka commits when
  ``now - last_commit > interval``; ``now`` here is the arrival time of the record just
  processed, and the clock starts at the first arrival (the thread's start).
- **Flush.** Each dirty entry is written to the store and forwarded downstream with the
  latest aggregate; a ``null`` whose window neither the store nor an earlier flush holds is
  skipped ("did not exist in underlying store and also not in the cache"), then the
  ``null`` entries leave the cache. The forwarded timestamp is the aggregate's own (time and
  sliding windows: ``TimestampedCacheFlushListener``) or, for sessions, the timestamp of the
  input record whose processing wrote the entry (its record context).

**Entry sizes** (``NamedCache.LRUNode.size``, ``LRUCacheEntry``, ``ProcessorRecordContext``):
cache key + 24 (node pointers) + 1 (dirty flag) + value + 8 (timestamp) + 8 (offset) + 4
(partition) + the record context's topic name in chars + header bytes. The cache key is the store
key with an 8-byte segment prefix: key bytes + 8 (window start) + 4 (sequence number) for window
stores, key bytes + 16 (session end and start) for session stores. The value of a window store is
the aggregate with an 8-byte timestamp; of a session store the aggregate alone; ``null`` counts 0.
Key bytes are the UTF-8 bytes of ``str(key)`` (the String serde); ``RecordSizes`` holds the
figures the log cannot tell (the serialized aggregate, the topic name, headers).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from toolkit.engine.kafka_streams.partitioner import key_bytes
from toolkit.errors import UserError

#: ``statestore.cache.max.bytes`` (``cache.max.bytes.buffering`` before 3.4) default: 10 MiB
DEFAULT_CACHE_MAX_BYTES = 10 * 1024 * 1024
#: ``commit.interval.ms`` default (at-least-once processing)
DEFAULT_COMMIT_INTERVAL_MS = 30_000
#: the repartition topic ``groupByKey`` reads after ``repartition()`` in an application
#: ``watermark-lab`` (the topic of every cached record's context)
REPARTITION_TOPIC = "watermark-lab-KSTREAM-REPARTITION-0000000001-repartition"
#: the input topic, when the log is read without repartitioning
SOURCE_TOPIC = "events"

_NODE = 8 + 8 + 8  # LRUNode: entry, previous, next
_CONTEXT = 8 + 8 + 4  # ProcessorRecordContext: timestamp, offset, partition
_SEGMENT = 8  # SegmentedCacheFunction's segment id prefix


@dataclass(frozen=True)
class RecordSizes:
    """What the cache counts for an entry beyond the key: ``aggregate_bytes`` (the serialized
    aggregate, default 16: a long count and a double sum), ``topic`` (the record context's topic
    name; its length in chars counts), ``header_bytes`` (record headers: none by default) and
    ``timestamped`` (a window store value carries the aggregate's 8-byte timestamp, as the DSL's
    ``TimestampedWindowStore`` does; session stores never)."""

    aggregate_bytes: int = 16
    topic: str = REPARTITION_TOPIC
    header_bytes: int = 0
    timestamped: bool = True

    def entry(self, key_len: int, session: bool, tombstone: bool) -> int:
        """Bytes of one cache entry for a key of ``key_len`` bytes (see the module doc)."""
        cache_key = _SEGMENT + key_len + (16 if session else 12)
        value = 0 if tombstone else self.aggregate_bytes + (8 if self.timestamped and not session else 0)
        return cache_key + _NODE + 1 + value + _CONTEXT + len(self.topic) + self.header_bytes


@dataclass(frozen=True)
class CacheConfig:
    """The record cache's settings: ``max_bytes`` (``statestore.cache.max.bytes``; 0: no cache,
    as ``withCachingDisabled()``), ``commit_interval`` (ms) and the record-size model."""

    max_bytes: int = DEFAULT_CACHE_MAX_BYTES
    commit_interval: int = DEFAULT_COMMIT_INTERVAL_MS
    sizes: RecordSizes = RecordSizes()

    def __post_init__(self) -> None:
        for name in ("max_bytes", "commit_interval"):
            v = getattr(self, name)
            if isinstance(v, bool) or not hasattr(v, "__index__") or v < 0:
                raise UserError(f"cache {name} must be a non-negative integer, got {v!r}")

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0


class NamedCache:
    """One task's store cache: entries in LRU order (a dict: first = eldest) and the dirty keys
    in the order of their latest write."""

    __slots__ = ("entries", "dirty", "stored", "size", "listener")

    def __init__(self, listener: Callable[[tuple, tuple, int], None]) -> None:
        """``listener(window key, (count|None, sum, timestamp), index)``: the store's flush listener."""
        self.entries: dict[tuple, list] = {}  # window key -> [(count|None, sum, timestamp), bytes, dirty]
        self.dirty: dict[tuple, None] = {}
        self.stored: set[tuple] = set()  # windows the underlying store holds (flushed, not null)
        self.size = 0
        self.listener = listener

    def put(self, wkey: tuple, value: tuple, nbytes: int) -> int:
        """Write a dirty entry; returns the change in bytes."""
        old = self.entries.pop(wkey, None)
        self.entries[wkey] = [value, nbytes, True]
        self.dirty.pop(wkey, None)
        self.dirty[wkey] = None
        delta = nbytes - (old[1] if old else 0)
        self.size += delta
        return delta

    def evict(self, index: int) -> int:
        """Evict the eldest entry (flushing if it is dirty); returns the bytes freed."""
        wkey = next(iter(self.entries))
        value, nbytes, dirty = self.entries.pop(wkey)
        self.size -= nbytes
        if dirty:
            self.dirty.pop(wkey, None)
            nbytes += self.flush(index, (wkey, value))
        return nbytes

    def flush(self, index: int, evicted: tuple | None = None) -> int:
        """Forward the dirty entries (an evicted one first); returns the bytes freed by nulls."""
        batch = [evicted] if evicted else []
        for wkey in self.dirty:
            entry = self.entries[wkey]
            entry[2] = False
            batch.append((wkey, entry[0]))
        self.dirty.clear()
        freed = 0
        for wkey, value in batch:
            if value[0] is None:  # a null (tombstone)
                if wkey in self.entries:
                    freed += self.entries.pop(wkey)[1]
                if wkey not in self.stored:
                    continue  # never reached the store: nothing to forward
                self.stored.discard(wkey)
            else:
                self.stored.add(wkey)
            self.listener(wkey, value, index)
        self.size -= freed
        return freed


class ThreadCache:
    """The stream thread's cache: one :class:`NamedCache` per task, ``max_bytes`` in all.

    ``forward(task)`` is the downstream of each task's store; :meth:`put_for` gives the
    aggregation's ``forward`` that writes into the cache instead (``update`` and ``tombstone``
    rows). ``context_ts`` is the timestamp of the record being processed (its record context)."""

    def __init__(self, config: CacheConfig, forward: Callable[[int], Callable[..., None]], session: bool) -> None:
        self.config = config
        self.session = session
        self.caches: dict[int, NamedCache] = {}
        self.forward = forward
        self.size = 0
        self.context_ts = -1
        self.last_commit: int | None = None
        self.evictions = 0
        self.commits = 0
        self._key_len: dict[Any, int] = {}

    def _cache(self, task: int) -> NamedCache:
        cache = self.caches.get(task)
        if cache is None:
            down = self.forward(task)

            def listener(wkey: tuple, value: tuple, index: int) -> None:
                key, start, end = wkey
                if value[0] is None:
                    down("tombstone", key, start, end, 0, float("nan"), value[2], index)
                else:
                    down("update", key, start, end, value[0], value[1], value[2], index)

            cache = self.caches[task] = NamedCache(listener)
        return cache

    def put_for(self, task: int) -> Callable[..., None]:
        """The aggregation's ``forward`` for ``task``: writes into the cache."""
        cache = self._cache(task)
        sizes, session, limit = self.config.sizes, self.session, self.config.max_bytes

        def put(kind: str, key: Any, start: int, end: int, count: int, total: float, timestamp: int,
                index: int) -> None:
            klen = self._key_len.get(key)
            if klen is None:
                klen = self._key_len[key] = len(key_bytes(key))
            tomb = kind == "tombstone"
            ts = self.context_ts if session or tomb else timestamp
            value = (None if tomb else count, total, ts)
            self.size += cache.put((key, start, end), value, sizes.entry(klen, session, tomb))
            while self.size > limit and cache.entries:
                self.size -= cache.evict(index)
                self.evictions += 1
        return put

    def maybe_commit(self, now: int, index: int) -> None:
        """After a record processed at wall-clock ``now``: commit if the interval has passed."""
        if self.last_commit is None:
            self.last_commit = now
        elif now - self.last_commit > self.config.commit_interval:
            self.commit(index)
            self.last_commit = now

    def commit(self, index: int) -> None:
        """Flush every task's cache (task order)."""
        self.commits += 1
        for task in sorted(self.caches):
            self.flush(task, index)

    def flush(self, task: int, index: int) -> None:
        """Flush one task's cache (``ThreadCache.flush(namespace)``)."""
        self.size -= self._cache(task).flush(index)


__all__ = ["CacheConfig", "RecordSizes", "ThreadCache", "NamedCache", "DEFAULT_CACHE_MAX_BYTES",
           "DEFAULT_COMMIT_INTERVAL_MS", "REPARTITION_TOPIC", "SOURCE_TOPIC"]
