#!/usr/bin/env python3
"""Write the watermark-alignment scenarios (NAME.jsonl) into a folder; deterministic.

Each split drains its records at a fixed rate (one record every ``every`` ms of simulated
time, from ``start``), its event time advancing ``step`` ms a record with a seeded jitter of up
to ``jitter`` ms (out of order): splits whose event time runs faster get ahead and alignment
holds them back. Usage: ``python oracles/flink_alignment/generate_cases.py OUT_DIR``.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

#: name: (delay, interval, drift, update, buffer, splits as (n, every, step, start, jitter))
CASES: dict[str, tuple] = {
    "a01_fast_slow_buffer1": (0, 50, 100, 100, 1, [(40, 10, 100, 0, 0), (40, 10, 10, 0, 0)]),
    "a02_fast_slow_default_buffer": (0, 50, 100, 100, 3, [(40, 10, 100, 0, 0), (40, 10, 10, 0, 0)]),
    "a03_fast_slow_no_buffer": (0, 50, 100, 100, 0, [(40, 10, 100, 0, 0), (40, 10, 10, 0, 0)]),
    "a04_zero_drift": (0, 50, 0, 100, 3, [(90, 10, 60, 0, 0), (90, 10, 20, 0, 0)]),
    "a05_three_splits_jitter": (30, 50, 250, 100, 3, [(150, 8, 40, 0, 60), (100, 12, 25, 0, 40), (120, 10, 10, 5, 20)]),
    "a06_update_not_multiple": (10, 100, 150, 150, 2, [(40, 10, 50, 0, 30), (40, 15, 20, 0, 0)]),
    "a07_late_split": (0, 50, 200, 100, 3, [(100, 10, 50, 0, 0), (60, 10, 20, 300, 0)]),
    "a08_source_level_wait": (0, 20, 200, 100, 0, [(40, 10, 100, 0, 0), (40, 10, 90, 0, 0)]),
    "a09_restart_burst": (50, 200, 500, 100, 3, [(200, 5, 80, 0, 100), (200, 5, 30, 0, 50), (200, 5, 20, 0, 0),
                                                 (60, 20, 15, 0, 0)]),
    "a10_wide_drift": (0, 50, 100000, 100, 3, [(80, 10, 100, 0, 0), (80, 10, 10, 0, 0)]),
    "a11_update_below_interval": (0, 200, 100, 50, 1, [(40, 10, 60, 0, 10), (40, 10, 15, 0, 10)]),
    "a12_no_buffer_jitter": (20, 50, 120, 100, 0, [(50, 7, 45, 0, 80), (50, 9, 15, 3, 30)]),
}


def random_case(seed: int) -> tuple:
    rnd = random.Random(seed)
    splits = [(rnd.randint(40, 120), rnd.choice([5, 7, 10, 13, 20]), rnd.choice([5, 10, 20, 50, 100]),
               rnd.choice([0, 0, 0, 17, 150]), rnd.choice([0, 0, 20, 80])) for _ in range(rnd.randint(2, 4))]
    return (rnd.choice([0, 10, 50]), rnd.choice([20, 50, 100]), rnd.choice([0, 50, 100, 300]),
            rnd.choice([50, 100, 150]), rnd.choice([0, 1, 2, 3, 3]), splits)


def lines(name: str, case: tuple, seed: int) -> list[str]:
    delay, interval, drift, update, buffer, splits = case
    rnd = random.Random(seed)
    recs = []
    for p, (n, every, step, start, jitter) in enumerate(splits):
        for i in range(n):
            recs.append((start + i * every, p, i, i * step + (rnd.randint(-jitter, jitter) if jitter else 0)))
    recs.sort()
    head = {"name": name, "delay": delay, "interval": interval, "drift": drift, "update": update, "buffer": buffer,
            "splits": [str(p) for p in range(len(splits))]}
    return [json.dumps(head)] + [json.dumps({"record": {"t": t, "arrival": a, "p": str(p)}}) for a, p, _, t in recs]


def main(out: str) -> None:
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    cases = dict(CASES)
    for seed in range(1, 13):
        cases[f"r{seed:02d}_random"] = random_case(seed)
    for i, (name, case) in enumerate(cases.items()):
        (d / f"{name}.jsonl").write_text("\n".join(lines(name, case, 1000 + i)) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/flink_alignment")
