"""Sparse ticks (``source_steps(..., sparse=True)``): a replay that leaves out the periodic
emissions at which nothing can change gives what the simulator gives with every tick: the same
watermarks, statuses, rows (at the same processing times) and fates; and a year at 200 ms is a
few steps per record, not 157 million."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from toolkit.engine.flink_sql import simulate, source_steps

WINDOWS = [{"kind": "tumble", "size": 1000, "offset": 0}, {"kind": "hop", "size": 2000, "slide": 1000, "offset": 0},
           {"kind": "cumulate", "size": 3000, "step": 1000, "offset": 0}, {"kind": "session", "gap": 700},
           {"kind": "legacy_tumble", "size": 1000, "offset": 0}]


def _head(window: dict, delay: int, interval: int, idle: int | None, partitions: list[int], mini: int | None) -> dict:
    options = {"pipeline.auto-watermark-interval": f"{interval} ms"}
    if idle is not None:
        options["table.exec.source.idle-timeout"] = f"{idle} ms"
    if mini is not None:
        options |= {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": f"{mini} ms"}
    return {"case": {"window": window, "delay": delay, "interval": interval}, "partitions": partitions,
            "options": options, "with": {}}


def _timed(sim) -> list:
    return [(r["key"], r["start"], r["end"], r["op"], r["count"], r["cause"], r["time"]) for r in sim.emitted]


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_sparse_ticks_replay_as_every_tick(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 10_000)))
    n = data.draw(st.integers(1, 60))
    parts = data.draw(st.integers(1, 3))
    gaps = rng.exponential(data.draw(st.sampled_from([30, 300, 3000])), n).astype(np.int64)
    arrival = 1000 + np.cumsum(gaps)
    ts = arrival - rng.integers(0, 2500, n)
    p = rng.integers(0, parts, n)
    records = [{"t": int(t), "arrival": int(a), "k": f"k{i % 3}", "p": int(q), "v": 1}
               for i, (t, a, q) in enumerate(zip(ts, arrival, p))]
    interval = data.draw(st.sampled_from([50, 200, 1000]))
    idle = data.draw(st.sampled_from([None, 1, 150, 1000, 4000]))
    mini = data.draw(st.sampled_from([None, 500]))
    window = data.draw(st.sampled_from(WINDOWS))
    head = _head(window, data.draw(st.sampled_from([0, 300])), interval, idle, list(range(parts + 1)), mini)
    dense = simulate(head, source_steps(records, interval))
    sparse = simulate(head, source_steps(records, interval, sparse=True, idle_timeout=idle))
    assert _timed(sparse) == _timed(dense)
    assert [f["fate"] for f in sparse.fates] == [f["fate"] for f in dense.fates]
    assert [(f["index"], f["watermark"]) for f in sparse.fates] == [(f["index"], f["watermark"]) for f in dense.fates]
    seen = [(x["kind"], x.get("ts"), x.get("status")) for x in sparse.lines if x["kind"] != "row"]
    assert seen == [(x["kind"], x.get("ts"), x.get("status")) for x in dense.lines if x["kind"] != "row"]


def test_a_year_at_200ms_is_a_few_steps_per_record():
    year = 365 * 86_400_000
    arrival = np.linspace(0, year, 2000).astype(np.int64)
    records = [{"t": int(a), "arrival": int(a), "k": "a", "p": 0, "v": 1} for a in arrival]
    steps = source_steps(records, 200, sparse=True, idle_timeout=60_000)
    assert len(steps) <= 4 * len(records) + 4
