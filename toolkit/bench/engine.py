"""``python -m toolkit bench engine``: records/s of the reference window operator, the class
``build_operator`` picks (as replays and sweeps get it).

The stream is the oracle's bench stream (``flink_oracle.py bench``): record i has
``key = "k" + (mix64(seed<<32 + 2i) mod keys)`` and
``ts = i*1000/rate - (mix64(seed<<32 + 2i + 1) mod max_delay)`` with rate 10,000/s and
max delay 2,000 ms; after every 1,000 records a watermark ``max ts seen - 1000``. Cases:
keyed tumbling 1 s windows with an incremental count (the figure to compare with Flink's
~0.83 M records/s), sliding 1 s / 500 ms, and event-time sessions with a 200 ms gap.
Only the operator loop is timed (the stream is built with numpy beforehand); records/s are
given by wall time and by the process's CPU time (the fairer figure on a shared machine).
"""
from __future__ import annotations

import numpy as np

from toolkit.bench._timing import Timer, timed
from toolkit.engine.flink import (
    Count,
    EventTimeSessionWindows,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
    build_operator,
)

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser on uint64 arrays."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def make_stream(n: int, keys: int, seed: int, rate: int = 10_000, max_delay: int = 2000):
    i = np.arange(n, dtype=np.uint64)
    base = np.uint64(seed) << np.uint64(32)
    with np.errstate(over="ignore"):
        kh = _mix64(base + np.uint64(2) * i)
        dh = _mix64(base + np.uint64(2) * i + np.uint64(1))
    key_idx = (kh % np.uint64(keys)).astype(np.int64)
    delay = (dh % np.uint64(max_delay)).astype(np.int64)
    ts = np.arange(n, dtype=np.int64) * 1000 // rate - delay
    names = np.array([f"k{j}" for j in range(keys)], dtype=object)
    return names[key_idx].tolist(), ts.tolist()


def _run_case(make_op, keys, ts, wm_every=1000, wm_lag=1000):
    op = make_op()
    pe = op.process_element
    pw = op.process_watermark
    n = len(ts)
    fired = 0
    max_ts = -(2**63)
    with Timer() as timer:
        for start in range(0, n, wm_every):
            stop = min(start + wm_every, n)
            chunk_ts = ts[start:stop]
            for k, t in zip(keys[start:stop], chunk_ts):
                pe(k, t, 1)
            m = max(chunk_ts)
            if m > max_ts:
                max_ts = m
            pw(max_ts - wm_lag)
            out = op.drain()
            fired += len(out)
        op.end_input()
        out = op.drain()
        fired += len(out)
    return timer.wall, timer.cpu, fired


def calibration_loop(n: int = 1_000_000) -> float:
    """Seconds for a reference pure-Python loop (1 M tuple-keyed dict increments). Printed
    with the figures: on a shared machine, records/s fall roughly in proportion to it, so
    compare runs by records/s x calibration seconds."""
    d: dict = {}
    with Timer() as timer:
        for i in range(n):
            k = (i & 1023, 5)
            d[k] = d.get(k, 0) + 1
    return timer.wall


def run(args) -> int:
    n, nkeys = args.records, args.keys
    (keys, ts), built = timed(lambda: make_stream(n, nkeys, args.seed))
    print(f"stream: {n:,} records, {nkeys} keys, built in {built.wall:.2f} s "
          "(not timed below); one core, pure Python")
    cases = {
        "tumbling": lambda: build_operator(TumblingEventTimeWindows(1000), function=Count()),
        "sliding": lambda: build_operator(SlidingEventTimeWindows(1000, 500), function=Count()),
        "session": lambda: build_operator(EventTimeSessionWindows(200), function=Count()),
    }
    only = set(args.only.split(",")) if args.only else set(cases)
    cal = calibration_loop()
    print(f"calibration loop: {cal:.2f} s (grows when the machine is busy)")
    for name, make_op in cases.items():
        if name not in only:
            continue
        dt, cpu, out = _run_case(make_op, keys, ts)
        print(f"{name:9s} {n / dt / 1e3:6.0f} k records/s wall, {n / cpu / 1e3:6.0f} k records/s CPU  "
              f"({dt:.2f} s wall, {cpu:.2f} s CPU, {out:,} outputs incl. late records)")
    return 0
