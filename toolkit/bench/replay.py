"""Benchmark: ``python -m toolkit bench replay`` — records/s of a full replay.

A synthetic log of 1 M records over 8 partitions (1,000 keys, 10,000 records/s of processing
time, event times up to 2 s behind arrival), replayed with 1 s tumbling windows, a 1 s
bounded-out-of-orderness delay, 200 ms periodic watermarks, source parallelism 2. The log is
built first (not timed); the figure covers ``toolkit.replay`` end to end (watermark timeline,
window operator, result frames, record fates).
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from toolkit.bench._timing import timed
from toolkit.log import EventLog
from toolkit.replays import replay


def make_log(records: int = 1_000_000, partitions: int = 8, keys: int = 1000, seed: int = 42) -> Any:
    rng = np.random.default_rng(seed)
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, records // 10, records))  # ~10k records/s
    event_time = arrival - rng.integers(0, 2000, records)
    names = np.array([f"k{i}" for i in range(keys)], dtype=object)
    return EventLog.from_arrays(
        event_time, arrival, key=names[rng.integers(0, keys, records)],
        partition=rng.integers(0, partitions, records), value=np.ones(records, dtype=np.int64),
    )


def bench_replay(records: int = 1_000_000, partitions: int = 8, keys: int = 1000, seed: int = 42) -> dict:
    """Run the benchmark, print one JSON line and return it as a dict."""
    n = int(records)
    log, build = timed(lambda: make_log(n, partitions, keys, seed))
    result, run_replay = timed(
        lambda: replay(log, window="tumbling:1s", delay="1s", interval="200ms", source_parallelism=2)
    )
    s = result.summary()
    out = {
        "bench": "replay",
        "records": n,
        "partitions": partitions,
        "keys": keys,
        "build_log_s": round(build.wall, 3),
        "replay_s": round(run_replay.wall, 3),
        "records_per_s": round(n / run_replay.wall),
        "firings": s["firings"],
        "late_side_output": s["late_side_output"],
        "on_time": s["on_time"],
    }
    print(json.dumps(out))
    return out


def run(args: Any) -> int:
    """Entry point of ``python -m toolkit bench replay`` (uses ``--records``, ``--keys``, ``--seed``)."""
    bench_replay(
        records=getattr(args, "records", None) or 1_000_000,
        keys=getattr(args, "keys", None) or 1000,
        seed=getattr(args, "seed", 42),
    )
    return 0
