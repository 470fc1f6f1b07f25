"""``python -m toolkit bench kafka_streams``: a ``semantics="kafka_streams"`` sweep row on the replay's
path (the engine, the batch answer and the figures: ``toolkit.semantics.kafka_streams.sweep.sweep_figures``)
and, where it applies, on the fast path (``path="fast"``: ``toolkit.semantics.kafka_streams.fast``),
with a check that both give the same figures (every ``SUMMARY_COLUMNS`` column).

Sub-cases (``--only``) on a generated log of ``--records`` records and ``--keys`` keys, 4 tasks,
arrival times uniform over an hour, event time = arrival + 1 s - an exponential delay (mean
300 ms), floored at 0: ``update``, ``suppress``, ``final`` (tumbling 1 s, grace 200 ms), ``hopping``
(10 s / 5 s, update), ``session`` (30 s gap, grace 1 s, update) and ``sliding``
(``kafka_sliding:1s``, update), all with the record cache off (``cache_max_bytes=0``), ``cached``
(``update`` with the record cache at Kafka's defaults) and ``cached_suppress``. The ``year_*``
cases run on a year-like log (``toolkit.log.synth.generate("year", ...)``: 330,000 records, 16 keys, 3
partitions over 2023, delays of minutes with a few held back for hours), ``tumbling:1h``, grace
15 min, Kafka's default record cache: ``year_update``, ``year_suppress``, ``year_final``,
``year_hopping`` (1 h / 15 min). Sessions and ``kafka_sliding`` have no fast path (``-``).

Figures are CPU seconds of this process (``time.process_time``; wall seconds beside) and record-
configurations per CPU-second (records / CPU seconds of one row); ``--no-replay`` times the fast
path alone.
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
    "cached_suppress": dict(window="tumbling:1s", grace="200ms", emit="suppress"),
}
YEAR_CASES = {
    "year_update": dict(window="tumbling:1h", grace="15min", emit="update"),
    "year_suppress": dict(window="tumbling:1h", grace="15min", emit="suppress"),
    "year_final": dict(window="tumbling:1h", grace="15min", emit="final"),
    "year_hopping": dict(window="sliding:1h/15min", grace="15min", emit="update"),
}
#: the year-like log of issue 27: records, keys, partitions
YEAR = (330_000, 16, 3)


def _generated(n: int, keys: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    arr = np.sort(rng.integers(0, 3_600_000, n))
    ts = np.maximum(arr - rng.exponential(300, n).astype(np.int64) + 1000, 0)
    return pd.DataFrame({"event_time": ts, "arrival_time": arr,
                         "key": np.array([f"k{i}" for i in rng.integers(0, keys, n)], dtype=object),
                         "partition": rng.integers(0, 4, n), "value": rng.random(n), "row": np.arange(n)})


def _year(seed: int) -> pd.DataFrame:
    from toolkit.bench.engines import year_log

    n, keys, _ = YEAR
    return year_log(n, keys, seed).table


def _same(a: dict, b: dict) -> bool:
    from toolkit.metrics.summary import SUMMARY_COLUMNS

    return all(a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]) for k in SUMMARY_COLUMNS)


def _row(name: str, table: pd.DataFrame, spec: dict, replay: bool) -> None:
    """Time one case on both paths and print one line."""
    from toolkit.semantics.kafka_streams.fast import fast_applies
    from toolkit.semantics.kafka_streams.sweep import sweep_figures
    from toolkit.settings import Setting

    n = len(table)
    s = Setting.parse(semantics="kafka_streams", **spec, **({} if name.startswith("year") else {"tasks": 4}))
    rate = lambda cpu: f"{n / max(cpu, 1e-9) / 1e6:6.2f} M"  # noqa: E731
    slow = fast = None
    line = f"{name:<16} {str(s.window):<17}"
    if replay:
        slow, t = timed(lambda: sweep_figures(table, s, path="kafka_streams"))
        line += f" replay cpu {t.cpu:7.2f} s (wall {t.wall:6.2f}) {rate(t.cpu)} rec-cfg/cpu-s"
        base = t.cpu
    if fast_applies(s):
        sweep_figures(table.iloc[:1000], s, path="fast")  # compile the kernels once (cached on disk)
        fast, t = timed(lambda: sweep_figures(table, s, path="fast"))
        line += f" | fast cpu {t.cpu:6.2f} s (wall {t.wall:5.2f}) {rate(t.cpu)} rec-cfg/cpu-s"
        if replay:
            line += f"  x{base / max(t.cpu, 1e-9):,.0f}, same figures: {'yes' if _same(slow, fast) else 'NO'}"
    else:
        line += " | fast -"
    f = fast or slow
    if f is None:
        print(line, flush=True)
        return
    print(line + f"  (dropped {f['dropped']:,}, first-result completeness {f['completeness_first']:.4f})", flush=True)


def run(args) -> int:
    n, keys = int(args.records), int(args.keys)
    cases = {**CASES, **YEAR_CASES}
    only = args.only.split(",") if args.only else list(cases)
    unknown = [o for o in only if o not in cases]
    if unknown:
        raise ValueError(f"--only {','.join(unknown)}: choose among {', '.join(cases)}")
    replay = not getattr(args, "no_replay", False)
    if any(o in CASES for o in only):
        table = _generated(n, keys, args.seed)
        print(f"kafka_streams sweep-row benchmark: {n:,} records, {keys:,} keys, 4 tasks, seed {args.seed}")
        for name in (o for o in only if o in CASES):
            _row(name, table, CASES[name], replay)
    if any(o in YEAR_CASES for o in only):
        year = _year(args.seed)
        print(f"year-like log: {len(year):,} records, {YEAR[1]} keys, {YEAR[2]} partitions (tasks), "
              f"{(year['event_time'].max() - year['event_time'].min()) / 86_400_000:,.0f} days, seed {args.seed}")
        for name in (o for o in only if o in YEAR_CASES):
            _row(name, year, YEAR_CASES[name], replay)
    return 0
