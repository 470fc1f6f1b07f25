"""``python -m toolkit bench kafka_streams``: a ``semantics="kafka_streams"`` sweep row (the
engine, the batch answer and the figures: ``toolkit.semantics.kafka_streams.sweep.sweep_figures``).

Sub-cases (``--only``): ``update``, ``suppress``, ``final`` (tumbling 1 s, grace 200 ms: the
columnar TimeWindows path), ``hopping`` (10 s / 5 s, update), ``session`` (30 s gap, grace 1 s,
update: record by record) and ``sliding`` (``kafka_sliding:1s``, update: record by record), all with
the record cache off (``cache_max_bytes=0``), and ``cached`` (``update`` with the record cache at
Kafka's defaults: record by record through the cache).
4 tasks; arrival times uniform over an hour, event time = arrival + 1 s - an exponential delay
(mean 300 ms), floored at 0. Figures are wall and CPU seconds of this process; on a shared
machine trust CPU seconds more.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit.bench._timing import timed

CASES = {
    "update": dict(window="tumbling:1s", grace="200ms", emit="update", cache_max_bytes=0),
    "suppress": dict(window="tumbling:1s", grace="200ms", emit="suppress", cache_max_bytes=0),
    "final": dict(window="tumbling:1s", grace="200ms", emit="final", cache_max_bytes=0),
    "hopping": dict(window="sliding:10s/5s", grace="200ms", emit="update", cache_max_bytes=0),
    "session": dict(window="session:30s", grace="1s", emit="update", cache_max_bytes=0),
    "sliding": dict(window="kafka_sliding:1s", grace="200ms", emit="update", cache_max_bytes=0),
    "cached": dict(window="tumbling:1s", grace="200ms", emit="update"),
}


def run(args) -> int:
    from toolkit.semantics.kafka_streams.sweep import sweep_figures
    from toolkit.settings import Setting

    n, keys = int(args.records), int(args.keys)
    only = args.only.split(",") if args.only else list(CASES)
    unknown = [o for o in only if o not in CASES]
    if unknown:
        raise ValueError(f"--only {','.join(unknown)}: choose among {', '.join(CASES)}")
    rng = np.random.default_rng(args.seed)
    arr = np.sort(rng.integers(0, 3_600_000, n))
    ts = np.maximum(arr - rng.exponential(300, n).astype(np.int64) + 1000, 0)
    table = pd.DataFrame({"event_time": ts, "arrival_time": arr,
                          "key": np.array([f"k{i}" for i in rng.integers(0, keys, n)], dtype=object),
                          "partition": rng.integers(0, 4, n), "value": rng.random(n), "row": np.arange(n)})
    print(f"kafka_streams sweep-row benchmark: {n:,} records, {keys:,} keys, 4 tasks, seed {args.seed}")
    for name in only:
        s = Setting.parse(semantics="kafka_streams", tasks=4, **CASES[name])
        f, t = timed(lambda: sweep_figures(table, s))
        print(f"{name:<9} {str(s.window):<18} wall {t.wall:7.2f} s   cpu {t.cpu:7.2f} s   "
              f"{n / max(t.cpu, 1e-9) / 1e3:,.0f} k records/cpu-s   (dropped {f['dropped']:,}, "
              f"first-result completeness {f['completeness_first']:.4f})", flush=True)
    return 0
