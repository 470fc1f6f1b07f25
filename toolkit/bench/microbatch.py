"""``python -m toolkit bench microbatch``: the Spark micro-batch engine and the Spark replay.

Sub-cases (``--only``): ``tumbling``, ``update`` (tumbling, update mode), ``sliding`` (10 s /
1 s: ten windows a record), ``session``, ``complete`` (tumbling 1 min with a -15 s offset,
complete mode), ``session_complete`` (10 s gap; engine runs on a synthetic log, 8 partitions as inputs,
1 s trigger, 500 ms delay), ``replay`` (``toolkit.replay(semantics="spark")`` end to end on
the "sample" synthetic model, tumbling 1 s) and ``sweep`` (``toolkit.sweep`` in-process of
the Spark-semantics settings of ``bench sweep`` (c): its log and its 20 delays, append mode,
then the same 20 in update mode; time per setting: the log's own work, done once per sweep,
shared by its settings). Figures are wall and CPU seconds of this process, with the load
average; on a shared machine trust CPU seconds more.
"""
from __future__ import annotations

import os

import numpy as np

from toolkit.bench._timing import timed
from toolkit.engine.microbatch import MicroBatchConfig, run_microbatch

CASES = {
    "tumbling": dict(window_kind="tumbling", size=1000, output_mode="append"),
    "update": dict(window_kind="tumbling", size=1000, output_mode="update"),
    "sliding": dict(window_kind="sliding", size=10_000, slide=1000, output_mode="append"),
    "session": dict(window_kind="session", gap=2000, output_mode="append"),
    # complete mode re-emits every window in every batch: a 1 min window keeps the output bounded
    "complete": dict(window_kind="tumbling", size=60_000, offset=-15_000, output_mode="complete"),
    "session_complete": dict(window_kind="session", gap=10_000, output_mode="complete"),  # ~1 session a key
}


def run(args) -> int:
    n, keys = int(args.records), int(args.keys)
    only = set(args.only.split(",")) if args.only else set(CASES) | {"replay", "sweep"}
    unknown = only - set(CASES) - {"replay", "sweep"}
    if unknown:
        raise ValueError(f"--only: unknown sub-case {', '.join(sorted(unknown))} "
                         f"(bench microbatch has {', '.join(list(CASES) + ['replay', 'sweep'])})")
    rng = np.random.default_rng(args.seed)
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, max(1, n), n))  # ~1 record per ms
    event = arrival - rng.exponential(500, n).astype(np.int64)
    key = rng.integers(0, keys, n)
    value = rng.integers(1, 100, n)
    part = rng.integers(0, 8, n)
    print(f"micro-batch benchmark: {n:,} records, {keys:,} keys, 8 inputs, seed {args.seed}")
    for name, kw in CASES.items():
        if name not in only:
            continue
        cfg = MicroBatchConfig(delay=500, trigger_interval=1000, partitions_as_sources=True, **kw)
        res, t = timed(lambda: run_microbatch(cfg, event, arrival, key, value, partition=part))
        print(f"engine {name:<10} wall {t.wall:7.2f} s   cpu {t.cpu:7.2f} s   {n / max(t.cpu, 1e-9) / 1e3:,.0f} k records/cpu-s"
              f"   ({len(res.batches):,} batches, {len(res.emissions.key):,} emissions)", flush=True)
    if "replay" in only:
        from toolkit.log import synth
        from toolkit.replays import replay

        log = synth.generate("sample", n, seed=args.seed)
        r, t = timed(lambda: replay(log, semantics="spark", window="tumbling:1s", delay="500ms"))
        print(f"replay spark tumbling  wall {t.wall:7.2f} s   cpu {t.cpu:7.2f} s   ({r.summary()['batches']:,} batches)")
    if "sweep" in only:
        sweep_case(n, keys, args.seed)
    return 0


def sweep_case(n: int, keys: int, seed: int) -> dict:
    """``toolkit.sweep`` in-process of bench sweep (c)'s Spark-semantics settings (its log, its
    20 delays), in append and in update mode: seconds per setting, wall and CPU, with the load."""
    import toolkit
    from toolkit.bench._anchors import DELAYS, spark_setting
    from toolkit.bench.sweep import bench_table

    table = bench_table(n, keys, seed)
    out = {}
    print(f"sweep of Spark-semantics settings in-process, bench sweep (c)'s log ({len(table):,} records, {keys:,} keys), "
          f"{len(DELAYS)} delays each:")
    for mode in ("append", "update"):
        grid = {**spark_setting(), "delay": DELAYS, "output_mode": mode}
        load = os.getloadavg()[0]
        rows, t = timed(lambda: toolkit.sweep(table, progress=False, execution="local", **grid))
        k = len(rows)
        out[mode] = {"settings": k, "wall_s": t.wall, "cpu_s": t.cpu, "load_average": load}
        print(f"    {mode:<6} {k} settings: wall {t.wall:6.2f} s  cpu {t.cpu:6.2f} s   per setting: wall {t.wall / k:.3f} s"
              f"  cpu {t.cpu / k:.3f} s   (load average {load:.1f} before)", flush=True)
    return out
