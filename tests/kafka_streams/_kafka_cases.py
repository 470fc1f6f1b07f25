"""Shared helpers for the re-expressed Kafka Streams tests.

Kafka's tests aggregate strings (``MockAggregator.TOSTRING_ADDER``: "0+1+2" is the initializer
"0" followed by the values 1 and 2); ours count and sum. ``agg("0+1+2")`` turns Kafka's expected
string into ``(count, sum)`` so the assertions keep Kafka's literals. Letters (topic2 of the join
tests) stand for the numbers in ``LETTERS``.
"""
from __future__ import annotations

from toolkit.engine.kafka_streams import run_windowed_aggregation

LETTERS = {"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0}
DAY = 24 * 3600 * 1000


def value(v: str) -> float:
    return LETTERS[v] if v in LETTERS else float(v)


def agg(s: str) -> tuple[int, float]:
    """Kafka's aggregate string -> (count, sum): the first part is the initializer."""
    parts = s.split("+")[1:]
    return len(parts), sum(value(p) for p in parts)


def kvt(key: str, start: int, end: int, aggregate: str, ts: int) -> tuple:
    """A ``KeyValueTimestamp<Windowed<>(key, Window(start, end)), aggregate, ts>``."""
    c, s = agg(aggregate)
    return (key, start, end, c, s, ts)


def run(records, windows, emit="on_window_update", *, emit_interval=0, arrival=None, tasks=1, flush=False):
    """Pipe ``(key, value, timestamp)`` records through one task (TopologyTestDriver: one partition,
    emit interval 0, no end-of-input flush)."""
    keys = [r[0] for r in records]
    vals = [value(r[1]) for r in records]
    ts = [r[2] for r in records]
    from toolkit.engine.kafka_streams import Emit

    return run_windowed_aggregation(keys, ts, vals, arrival, windows=windows,
                                    emit=Emit(emit, emit_interval), tasks=tasks, flush_at_end=flush)


def out(result, kinds=("update", "tombstone", "final")) -> list[tuple]:
    """Emissions as ``(key, start, end, count, sum, timestamp)`` (tombstones: count 0, sum None)."""
    return [(k, s, e, c, sm, t) for k, s, e, c, sm, kind, t in result.rows(kinds)]


def split_at(result, positions: list[int]) -> list[list[tuple]]:
    """Emissions grouped by the record that caused them, cut after each position in ``positions``
    (``checkAndClearProcessResult`` after the records up to that position)."""
    e = result.emissions
    rows = out(result)
    groups, lo = [], -1
    for p in positions:
        groups.append([r for r, i in zip(rows, e["emit_index"].tolist()) if lo < i <= p])
        lo = p
    return groups


def table(result) -> set[tuple]:
    """What a KTable fed by the emissions holds at the end: the last value of every window key,
    windows whose last record is a tombstone left out (what a record cache that only forwards a
    key's latest value, flushed at the end, would show)."""
    last: dict[tuple, tuple] = {}
    for k, s, e, c, sm, kind, t in result.rows():
        last[(k, s, e)] = (kind, c, sm, t)
    return {(k, s, e, c, sm, t) for (k, s, e), (kind, c, sm, t) in last.items() if kind != "tombstone"}
