"""From a log to the steps a Flink SQL source performs: records in arrival order and the
periodic watermark emissions (ticks) between them.

Processing time is the arrival time. Flink asks the watermark generators every
``pipeline.auto-watermark-interval`` I; the ticks are at ``first arrival + k * I`` (k >= 1) up
to ``end`` (default: the last arrival), and a record arriving at or before a tick is read
before it. Ties in arrival keep the log's order. I = 0 turns periodic emission off: real
Flink SQL then sends no watermark before the end of input (t03_interval_zero). The oracle (``oracles/flink_sql``) runs
exactly these steps in real Flink, so the replay and Flink see the same interleaving.

**Sparse ticks** (``sparse=True``, what a replay uses): only the ticks at which something can
happen, so a year at I = 200 ms is not 157 million steps. At a tick a split's watermark rises
only if a record raised its running max since the previous tick (the first tick at or after
each record's arrival, k), and its idleness timer (Flink's ``IdlenessTimer``) changes only at
k (activity seen: reset), k + 1 (no activity since: the countdown starts) and the first tick
more than the idle timeout after that, ``k + 2 + timeout // I`` (idle); a split with no record
starts its countdown at the first tick. Every other tick asks the generators and changes
nothing, so leaving it out changes no watermark, status or row
(``tests/engine/test_flink_sql_sparse_ticks.py`` replays both).
"""
from __future__ import annotations

import numpy as np


def source_steps(records: list[dict], interval: int, end: int | None = None, *, sparse: bool = False,
                 idle_timeout: int | None = None) -> list[dict]:
    """``[{"record": r} | {"tick": t}]`` for records with an ``arrival`` (ms) each; interval 0
    turns periodic emission off (no ticks). ``sparse``: only the ticks that can change a
    watermark or an idle status (module doc), for an idle timeout ``idle_timeout`` ms (None: none)."""
    if isinstance(interval, bool) or not isinstance(interval, int) or interval < 0:
        raise ValueError(f"pipeline.auto-watermark-interval must be 0 or a positive number of ms, got {interval!r}")
    if not records:
        raise ValueError("a Flink SQL source needs at least one record")
    order = sorted(range(len(records)), key=lambda i: (records[i]["arrival"], i))
    if interval == 0:
        return [{"record": records[i]} for i in order]
    first = records[order[0]]["arrival"]
    last = max(end if end is not None else first, records[order[-1]]["arrival"])
    count = (last - first) // interval  # ticks first + m * interval, m = 1 .. count
    arrival = np.fromiter((records[i]["arrival"] for i in order), dtype=np.int64, count=len(order))
    if sparse:
        ticks = _needed_ticks(arrival, first, interval, count, idle_timeout)
    else:
        ticks = first + interval * np.arange(1, count + 1, dtype=np.int64)
    # tick j goes before the first record arriving after it (a record at the tick's time is read first)
    before = np.searchsorted(ticks, arrival, side="left")  # ticks earlier than each record
    out: list[dict] = []
    done = 0
    tick_list = ticks.tolist()
    for i, upto in zip(order, before.tolist()):
        out.extend({"tick": t} for t in tick_list[done:upto])
        done = upto
        out.append({"record": records[i]})
    out.extend({"tick": t} for t in tick_list[done:])
    return out


def _needed_ticks(arrival: np.ndarray, first: int, interval: int, count: int,
                  idle_timeout: int | None) -> np.ndarray:
    """The tick times (ascending) at which a watermark or an idle status can change (module doc)."""
    k = np.maximum(1, -(-(arrival - first) // interval))  # the first tick at or after each arrival
    parts = [k, k + 1, np.array([1, 2], dtype=np.int64)]
    if idle_timeout is not None:
        wait = int(idle_timeout) // interval + 1
        parts += [k + 1 + wait, np.array([1 + wait], dtype=np.int64)]
    m = np.unique(np.concatenate(parts))
    m = m[(m >= 1) & (m <= count)]
    return first + interval * m
