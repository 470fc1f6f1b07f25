"""From a log to the steps a Flink SQL source performs: records in arrival order and the
periodic watermark emissions (ticks) between them.

Processing time is the arrival time. Flink asks the watermark generators every
``pipeline.auto-watermark-interval`` I; the ticks are at ``first arrival + k * I`` (k >= 1) up
to ``end`` (default: the last arrival), and a record arriving at or before a tick is read
before it. Ties in arrival keep the log's order. I = 0 turns periodic emission off: real
Flink SQL then sends no watermark before the end of input (t03_interval_zero). The oracle (``oracles/flink_sql``) runs
exactly these steps in real Flink, so the replay and Flink see the same interleaving.
"""
from __future__ import annotations


def source_steps(records: list[dict], interval: int, end: int | None = None) -> list[dict]:
    """``[{"record": r} | {"tick": t}]`` for records with an ``arrival`` (ms) each; interval 0
    turns periodic emission off (no ticks)."""
    if isinstance(interval, bool) or not isinstance(interval, int) or interval < 0:
        raise ValueError(f"pipeline.auto-watermark-interval must be 0 or a positive number of ms, got {interval!r}")
    if not records:
        raise ValueError("a Flink SQL source needs at least one record")
    order = sorted(range(len(records)), key=lambda i: (records[i]["arrival"], i))
    if interval == 0:
        return [{"record": records[i]} for i in order]
    first = records[order[0]]["arrival"]
    last = max(end if end is not None else first, records[order[-1]]["arrival"])
    out: list[dict] = []
    tick = first + interval
    for i in order:
        r = records[i]
        while tick < r["arrival"]:
            out.append({"tick": tick})
            tick += interval
        out.append({"record": r})
    while tick <= last:
        out.append({"tick": tick})
        tick += interval
    return out
