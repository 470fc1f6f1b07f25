"""``python -m toolkit bench sessions``: session windows on the fast path against the engine path.

The log is ``bench sweep``'s (record i arrives at i/10 ms, its event time up to 2 s earlier,
keys uniform). The grid: session gap 200 ms (``--gap``), 20 delays x 5 allowed lateness
values (100 configurations), periodic watermarks every 200 ms.

* (a) fast path only: the compiled session operator and the figures of every configuration
  on one shard, one process (the timelines and the shard's sort are built once beforehand and
  timed apart; numba's compilation is done by a warm-up on a few records): record-
  configurations per second by wall and by CPU time;
* (b) the whole in-process ``toolkit.sweep`` of the grid (timelines, merge, result table);
* (c) the engine path in the same run on the same log: one configuration (delay 1 s,
  lateness 500 ms) through the reference operator, over the whole log (``--engine-records``
  caps it), and a check that both paths give identical figures for it;
* (d) dynamic sessions (``dynamic_session:gap_ms``, Flink's ``withDynamicGap``): each record's
  gap drawn (seeded) uniformly from [gap / 2, 3 gap / 2]; (a)'s grid and measurement on the
  fast path, then one configuration through the engine path (capped like (c)) with a check
  that both give identical figures.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

import toolkit
from toolkit.bench._anchors import DELAYS, LATENESS, flink_bench_table as bench_table
from toolkit.bench._timing import Timer, timed
from toolkit.durations import parse_duration
from toolkit.fast import sessions as fast_sessions
from toolkit.fast.evaluate import Shard
from toolkit.settings import grid
from toolkit.sweeps.timelines import build_timelines, local_sources


def _grid(gap: str) -> dict:
    return dict(window=f"session:{gap}", delay=DELAYS, lateness=LATENESS, interval=200)


def warm_up() -> float:
    """Compile (or load from numba's cache) the session kernel; seconds taken."""
    t = pd.DataFrame({"row": [0, 1], "event_time": [0, 5], "arrival_time": [0, 10], "key": ["a", "a"]})
    _, w = timed(lambda: toolkit.sweep(t, window="session:10ms", progress=False))
    return w.wall


def case_a(table: pd.DataFrame, gap: str, label: str = "(a) fast sessions") -> float:
    """Fast sessions only: per-configuration evaluation on one shard, one core (``label`` heads
    the output: ``bench sweep`` prints it as its sub-case ``s``)."""
    configs = grid(**_grid(gap))
    timelines, build = timed(lambda: build_timelines(configs, local_sources(table)))
    with Timer() as setup:
        shard = Shard(table["key"].to_numpy(), table["event_time"].to_numpy(), table["arrival_time"].to_numpy(),
                      table["row"].to_numpy())
        spec = fast_sessions.SessionWindows.of(configs[0].window)
        view = fast_sessions.KeyOrder.of(shard)
        view.segs(timelines[0].shape)
        view.true_sessions(spec.gap)
    with Timer() as evaluation:
        for i, c in enumerate(configs):
            fast_sessions.partial(shard, spec, timelines[i], c.lateness)
    n = len(table) * len(configs)
    wall, cpu = evaluation.wall, evaluation.cpu
    print(f"{label}, {len(configs)} configurations x {len(table):,} records, one process:")
    print(f"    timelines: {build.wall:.2f} s; shared setup (arrival sort, key groups, true sessions): {setup.wall:.2f} s")
    print(f"    per-configuration evaluation: {wall:.2f} s wall = {wall / len(configs) * 1000:.1f} ms/config, "
          f"{cpu:.2f} s CPU")
    print(f"    => {n / wall / 1e6:.1f} M record-configurations/s (wall), {n / cpu / 1e6:.1f} M per CPU-second; "
          f"{n / (wall + build.wall + setup.wall) / 1e6:.1f} M/s including timelines and setup")
    return n / cpu


def case_b(table: pd.DataFrame, gap: str) -> pd.DataFrame:
    res, t = timed(lambda: toolkit.sweep(table, progress=False, execution="local", **_grid(gap)))
    n = len(table) * len(res)
    print(f"(b) in-process sweep of {len(res)} session configurations over {len(table):,} records: {t.wall:.1f} s wall, "
          f"{t.cpu:.1f} s CPU => {n / t.wall / 1e6:.1f} M record-configurations/s (all paths: {sorted(set(res['path']))})")
    return res


def case_c(table: pd.DataFrame, gap: str, limit: int, fast_rate: float | None) -> None:
    part = table.iloc[: min(len(table), limit)] if limit else table
    one = dict(window=f"session:{gap}", delay=1000, lateness=500, interval=200)
    eng, te = timed(lambda: toolkit.sweep(part, path="engine", progress=False, **one))
    fst, tf = timed(lambda: toolkit.sweep(part, path="fast", progress=False, **one))
    rate = len(part) / te.cpu
    print(f"(c) engine path, 1 configuration x {len(part):,} records: {te.wall:.1f} s wall, {te.cpu:.1f} s CPU "
          f"=> {len(part) / te.wall / 1e3:.1f} k record-configurations/s (wall), {rate / 1e3:.1f} k per CPU-second")
    print(f"    fast path, the same configuration (whole sweep call): {tf.wall:.2f} s wall")
    same = fst.drop(columns=["path"]).equals(eng.drop(columns=["path"]))
    print(f"    identical figures on both paths: {same}")
    if fast_rate:
        print(f"    fast sessions (a) vs engine, per CPU-second: {fast_rate / rate:.0f}x")


def with_gaps(table: pd.DataFrame, gap_ms: int, seed: int) -> pd.DataFrame:
    """The bench log with a ``gap_ms`` column: gaps uniform in [gap / 2, 3 gap / 2] (>= 1 ms)."""
    rng = np.random.default_rng(seed + 1)
    lo, hi = max(1, gap_ms // 2), max(1, gap_ms // 2) + gap_ms
    return table.assign(gap_ms=rng.integers(lo, hi + 1, len(table), dtype=np.int64))


def case_d(table: pd.DataFrame, gap_ms: int, seed: int, limit: int) -> float:
    """Dynamic sessions: the fast path per configuration on one shard, then the engine check."""
    t = with_gaps(table, gap_ms, seed)
    g = dict(_grid("1ms"), window="dynamic_session:gap_ms")
    configs = grid(**g)
    timelines, build = timed(lambda: build_timelines(configs, local_sources(t)))
    with Timer() as setup:
        shard = Shard(t["key"].to_numpy(), t["event_time"].to_numpy(), t["arrival_time"].to_numpy(), t["row"].to_numpy(),
                      gaps={"gap_ms": t["gap_ms"].to_numpy()})
        spec = fast_sessions.session_spec(configs[0].window)
        view = fast_sessions.KeyOrder.of(shard)
        view.segs(timelines[0].shape)
        view.true_sessions(spec)
    with Timer() as evaluation:
        for i, c in enumerate(configs):
            fast_sessions.partial(shard, spec, timelines[i], c.lateness)
    n = len(t) * len(configs)
    print(f"(d) dynamic sessions (gaps uniform in [{gap_ms // 2}, {gap_ms // 2 + gap_ms}] ms), {len(configs)} "
          f"configurations x {len(t):,} records, one process:")
    print(f"    timelines: {build.wall:.2f} s; shared setup: {setup.wall:.2f} s; per-configuration evaluation: "
          f"{evaluation.wall:.2f} s wall, {evaluation.cpu:.2f} s CPU")
    print(f"    => {n / evaluation.wall / 1e6:.1f} M record-configurations/s (wall), {n / evaluation.cpu / 1e6:.1f} M per "
          "CPU-second")
    part = t.iloc[: min(len(t), limit)] if limit else t
    one = dict(window="dynamic_session:gap_ms", delay=1000, lateness=500, interval=200)
    eng, te = timed(lambda: toolkit.sweep(part, path="engine", progress=False, **one))
    fst = toolkit.sweep(part, path="fast", progress=False, **one)
    print(f"    engine path, 1 configuration x {len(part):,} records: {te.cpu:.1f} s CPU "
          f"=> {len(part) / te.cpu / 1e3:.1f} k per CPU-second; identical figures on both paths: "
          f"{fst.drop(columns=['path']).equals(eng.drop(columns=['path']))}")
    return n / evaluation.cpu


def run(args) -> int:
    gap_ms = parse_duration(getattr(args, "gap", None) or "200ms", name="--gap")
    if gap_ms <= 0:
        raise ValueError(f"--gap must be a positive duration such as 200ms, got {args.gap!r}")
    gap = f"{gap_ms}ms"
    limit = getattr(args, "engine_records", None)
    if limit is not None and limit < 1:
        raise ValueError(f"--engine-records must be at least 1, got {limit}")
    only = set((args.only or "a,b,c,d").split(","))
    unknown = only - {"a", "b", "c", "d"}
    if unknown:
        raise ValueError(f"--only: unknown sub-case(s) {', '.join(sorted(unknown))}; choose from a, b, c, d")
    print(f"machine: {os.cpu_count()} cores, load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
          "(shared with other work: treat timings as indicative)")
    print(f"numba warm-up (compile or load the cached kernel): {warm_up():.1f} s")
    table = bench_table(args.records, args.keys, args.seed)
    rate = None
    if "a" in only:
        rate = case_a(table, gap)
    if "b" in only:
        case_b(table, gap)
    if "c" in only:
        case_c(table, gap, limit if limit is not None else 0, rate)
    if "d" in only:
        case_d(table, gap_ms, args.seed, limit if limit is not None else 0)
    return 0
