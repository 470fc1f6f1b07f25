"""Which stream task a record lands on: Kafka's default partitioner.

Kafka Streams repartitions a re-keyed stream (``groupBy``, or ``groupByKey`` after a key change)
through an internal topic; the producer's default partitioner puts a record with key bytes ``b``
in partition ``toPositive(murmur2(b)) % numPartitions`` (``BuiltInPartitioner.partitionForKey``,
used by Streams' ``DefaultStreamPartitioner``), and task ``i`` reads partition ``i``. Keys are
serialised as by Kafka's ``StringSerializer``: the UTF-8 bytes of the key's string form.

``murmur2`` is Kafka's variant of MurmurHash2 (seed ``0x9747b28c``, Java 32-bit signed int
arithmetic); ``to_positive`` clears the sign bit (``number & 0x7fffffff``), it is not ``abs``.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from toolkit.errors import UserError

_M = 0x5BD1E995
_SEED = 0x9747B28C
_MASK = 0xFFFFFFFF


def _signed(x: int) -> int:
    x &= _MASK
    return x - (1 << 32) if x & 0x80000000 else x


def murmur2(data: bytes) -> int:
    """Kafka's ``Utils.murmur2``: the 32-bit signed hash of ``data``."""
    length = len(data)
    h = (_SEED ^ length) & _MASK
    n4 = length // 4
    for i in range(n4):
        i4 = i * 4
        k = data[i4] | (data[i4 + 1] << 8) | (data[i4 + 2] << 16) | (data[i4 + 3] << 24)
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
    rest = length % 4
    base = length & ~3
    if rest == 3:
        h ^= data[base + 2] << 16
    if rest >= 2:
        h ^= data[base + 1] << 8
    if rest >= 1:
        h ^= data[base]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return _signed(h)


def to_positive(number: int) -> int:
    """Kafka's ``Utils.toPositive``: ``number & 0x7fffffff`` (not the absolute value)."""
    return number & 0x7FFFFFFF


def key_bytes(key: Any) -> bytes:
    """The bytes Kafka's ``StringSerializer`` writes for ``key``: UTF-8 of its string form."""
    return str(key).encode("utf-8")


def partition_for_key(key: Any, num_partitions: int) -> int:
    """``toPositive(murmur2(keyBytes)) % numPartitions``: the partition (= task) of ``key``."""
    if num_partitions < 1:
        raise UserError(f"tasks must be at least 1, got {num_partitions}")
    return to_positive(murmur2(key_bytes(key))) % num_partitions


def factorize(keys: Sequence[Any] | np.ndarray) -> tuple[np.ndarray, list]:
    """Integer codes (first-appearance order) and the distinct keys, without a per-record Python loop."""
    key_list = keys.tolist() if isinstance(keys, np.ndarray) else list(keys)
    uniq = list(dict.fromkeys(key_list))
    index = {k: i for i, k in enumerate(uniq)}
    codes = np.fromiter(map(index.__getitem__, key_list), dtype=np.int64, count=len(key_list))
    return codes, uniq


def tasks_for_keys(keys: Sequence[Any] | np.ndarray, tasks: int) -> np.ndarray:
    """The task of every record (int64 array), hashing each distinct key once."""
    if tasks < 1:
        raise UserError(f"tasks must be at least 1, got {tasks}")
    codes, uniq = factorize(keys)
    per_key = np.array([partition_for_key(k, tasks) for k in uniq], dtype=np.int64)
    return per_key[codes] if len(codes) else np.zeros(0, dtype=np.int64)
