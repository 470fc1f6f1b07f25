"""The partitions a job really reads, declared by the user: ``load_log(..., partitions=[0, 1, 2, 3])``,
``--partitions 0-3`` on the command line.

A log only knows the partitions that have a valid record. A partition whose rows were all
quarantined, or that was idle for the whole capture, is missing from it, yet the real job
still reads it: in Spark (``partitions_as_sources=True``, policy ``min``) an input that never
delivers a row holds the global watermark at 0 for good (docs/spark_semantics.md, rule 12); in
Flink a split without records keeps its source subtask's watermark at ``Long.MIN_VALUE`` until
``withIdleness`` marks it idle. The declaration tells the replay and the sweep about such
partitions (``log.declared_partitions``); ``describe()`` lists them ("declared, no records").
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from toolkit.log.errors import LogError
from toolkit.log.model import EventLog


class PartitionsError(LogError):
    """A bad ``partitions`` declaration (the message starts with the option's name)."""


def _fmt(parts) -> str:
    return "[" + ", ".join(str(int(p)) for p in parts) + "]"


def parse_partitions(spec: Any) -> tuple[int, ...]:
    """Sorted, distinct partition ids from a list/range of integers or a text such as ``"0-3"``,
    ``"0,1,5-7"`` (ranges inclusive). Negative ids, empty lists and anything else are a
    :class:`PartitionsError` naming ``partitions``."""
    if isinstance(spec, str):
        items: list[int] = []
        for part in spec.split(","):
            t = part.strip()
            m = re.fullmatch(r"(\d+)\s*-\s*(\d+)", t)
            if m:
                lo, hi = int(m.group(1)), int(m.group(2))
                if hi < lo:
                    raise PartitionsError(f"partitions {spec!r}: the range {t!r} ends before it starts")
                items.extend(range(lo, hi + 1))
            elif re.fullmatch(r"\d+", t):
                items.append(int(t))
            else:
                raise PartitionsError(f"partitions {spec!r}: {t!r} is not a partition id (non-negative integer) "
                                      "nor a range such as 0-3")
    else:
        try:
            raw = list(spec)
        except TypeError:
            raise PartitionsError(f"partitions: give a list of partition ids or a text such as '0-3', got {spec!r}") from None
        items = []
        for p in raw:
            if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)):
                raise PartitionsError(f"partitions {raw!r}: {p!r} is not a partition id (non-negative integer)")
            if p < 0:
                raise PartitionsError(f"partitions {raw!r}: partition ids are non-negative integers, got {int(p)}")
            items.append(int(p))
    if not items:
        raise PartitionsError(f"partitions {spec!r}: declare at least one partition")
    return tuple(sorted(set(items)))


def declare_partitions(log: EventLog, partitions: Any) -> EventLog:
    """Record on ``log`` the partitions the job reads (see the module doc) and return it. Every
    partition with a record must be declared (a :class:`PartitionsError` otherwise); the log's
    partitions must be integer ids, not names."""
    parts = parse_partitions(partitions)
    if log.partition_names is not None:
        raise PartitionsError(f"partitions {_fmt(parts)}: this log's partitions are names "
                              f"({', '.join(map(str, log.partition_names[:5]))}...), not integer ids; declare "
                              "partitions only for a log whose partition column holds integers")
    present = [int(p) for p in log.partitions]
    missing = sorted(set(present) - set(parts))
    if missing:
        raise PartitionsError(f"partitions {_fmt(parts)}: the log has records in partition"
                              f"{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}, which the "
                              "declaration leaves out; declare every partition the job reads")
    log.declared_partitions = parts
    log.silent_partitions = tuple(p for p in parts if p not in set(present))
    return log
