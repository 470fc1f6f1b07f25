"""``python -m toolkit bench sweep``: fast-path throughput, 100-configuration sweeps in-process
and on local Spark, and the speed-up over the engine, real Flink and real Spark Structured
Streaming, each measured in the same run on the same log.

The log is the Flink oracle's anchor log (``toolkit.bench._anchors.flink_bench_table``: the same
records the oracle's bench job generates, 1,000 keys by default). Sub-cases (``--only a,b,c,s``):
``a`` fast-path record-configurations per second on one core; ``b`` wall time of a
100-configuration sweep in-process and on local Spark (session started beforehand); ``c`` one
setting at a time against our sweeps' time per setting, in one aligned table (theirs, ours, wall
and CPU ratios, whether the figures are the same): the engine path (measured on a slice,
extrapolated); real Flink, whose anchor job is run now over the same records (one configuration
of the grid; the sweep's row for it must have Flink's figures) when the oracle is found beside
the repository (``../shared/oracle`` or ``$WATERMARK_LAB_ORACLE``), otherwise the output says so
and gives no Flink ratio; real Spark Structured Streaming, run now on the same records for one
of a Spark-semantics sweep's 20 delays (:func:`toolkit.bench._anchors.spark_setting`: the sweep's
row must have Spark's figures and our replay Spark's every emitted window), or why Spark was not
measured. Without case b, case c runs the in-process sweep itself for its ratios. ``s``
session windows on the fast path (record-configurations per CPU-second; ``bench sessions``
compares them with the engine). ``e`` one sweep row per engine on a year of data
(330,000 records, or ``--records`` when fewer), the path each took against that engine's replay
(``toolkit.bench.engines``).
``--json FILE`` also writes the figures (seconds, ratios,
checks, load average) as JSON. Scaling with the log size: ``bench scale``. Figures depend on
the machine and on what else runs on it (the load average is printed).
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.bench import engines as bench_engines, sessions as bench_sessions
from toolkit.bench._anchors import (
    DELAYS,
    LATENESS,
    SPARK_DELAY_MS,
    check_flink,
    check_spark,
    check_spark_windows,
    flink_anchor,
    flink_bench_table,
    flink_setting,
    replay_windows,
    spark_anchor,
    spark_setting,
)
from toolkit.bench._timing import Timer, timed
from toolkit.fast.evaluate import FixedWindows, Shard, partial
from toolkit.settings import grid
from toolkit.spark import spark_session
from toolkit.sweeps import distribute
from toolkit.sweeps.timelines import build_timelines, local_sources


def bench_table(records: int, keys: int, seed: int) -> pd.DataFrame:
    """The Flink anchor job's records (see :func:`toolkit.bench._anchors.flink_bench_table`)."""
    return flink_bench_table(records, keys, seed)


def _grid():
    """100 configurations around the anchor job's setting (Flink's watermarks: ``legacy``,
    one tick per block of records); the anchor's own setting is one of them."""
    anchor = flink_setting()
    return dict(window=anchor["window"], strategy=anchor["strategy"], delay=DELAYS, lateness=LATENESS,
                interval=anchor["interval"])


def case_a(table: pd.DataFrame) -> dict:
    """Fast-path evaluation only (timelines built, pairs shared), one core."""
    configs = grid(**_grid())
    arr, ts = table["arrival_time"].to_numpy(), table["event_time"].to_numpy()
    timelines, build = timed(lambda: build_timelines(configs, local_sources(table)))
    with Timer() as setup:
        shard = Shard(table["key"].to_numpy(), ts, arr, table["row"].to_numpy())
        spec = FixedWindows.of(configs[0].window)
        shard.runs(spec, timelines[0].shape)
    with Timer() as evaluation:
        for i, c in enumerate(configs):
            partial(shard, spec, timelines[i], c.lateness)
    wall, cpu = evaluation.wall, evaluation.cpu
    total = build.wall + setup.wall + wall
    n = len(table) * len(configs)
    print(f"(a) fast path, {len(configs)} configurations x {len(table):,} records, one process:")
    print(f"    timelines (tick table + {len({c.delay for c in configs})} delays): {build.wall:.2f} s")
    print(f"    shared setup (arrival sort, window pairs, runs): {setup.wall:.2f} s")
    print(f"    per-configuration evaluation: {wall:.2f} s = {wall / len(configs) * 1000:.1f} ms/config")
    print(f"    CPU time of the evaluation: {cpu:.2f} s = {cpu / len(configs) * 1000:.1f} ms/config "
          f"=> {n / cpu / 1e6:.1f} M record-configurations per CPU-second")
    print(f"    => {n / wall / 1e6:.1f} M record-configurations/s (evaluation, wall), "
          f"{n / total / 1e6:.1f} M/s including timelines and setup")
    return {"record_configurations_per_s": n / wall, "record_configurations_per_cpu_s": n / cpu,
            "per_s_with_setup": n / total}


#: the sweep most lines of case c's table divide by its settings
IN_PROCESS = f"in-process, {len(DELAYS) * len(LATENESS)} settings"


@dataclass
class SweepTimes:
    """The 100-configuration sweep's times (seconds) and its results (in-process)."""

    in_process_s: float
    in_process_cpu_s: float
    results: pd.DataFrame
    spark_s: float | None = None  # on local Spark, when case b ran
    identical: bool | None = None  # in-process and on Spark

    def figures(self) -> dict:
        return {"in_process_s": self.in_process_s, "in_process_cpu_s": self.in_process_cpu_s,
                "local_spark_s": self.spark_s, "identical_in_process_and_on_spark": self.identical}


@dataclass
class Comparison:
    """One line of case c's table: our time per setting against another's, same log."""

    theirs: str  # who ran one setting: "real Flink, whole process"
    ours: str  # which of our sweeps, divided by its settings: "in-process, 100 settings"
    ours_s: float
    ours_cpu_s: float | None
    theirs_s: float
    theirs_cpu_s: float | None
    same: str  # "yes", "NO" or "" (not checked on this line)

    def figures(self) -> dict:
        ratio = self.theirs_s / self.ours_s if self.ours_s else None
        cpu = self.theirs_cpu_s / self.ours_cpu_s if self.theirs_cpu_s is not None and self.ours_cpu_s else None
        return {"theirs": self.theirs, "ours": self.ours, "theirs_s": self.theirs_s, "theirs_cpu_s": self.theirs_cpu_s,
                "ours_s": self.ours_s, "ours_cpu_s": self.ours_cpu_s, "ratio": ratio, "ratio_cpu": cpu,
                "same_figures": {"yes": True, "NO": False}.get(self.same)}


def case_b(table: pd.DataFrame, spark) -> SweepTimes:
    local, in_process = timed(lambda: toolkit.sweep(table, progress=False, execution="local", **_grid()))
    print(f"(b) 100-configuration sweep over {len(table):,} records: in-process {in_process.wall:.1f} s "
          f"({in_process.cpu:.1f} s CPU)")
    shards = spark.sparkContext.defaultParallelism  # one key shard per core: fewest fixed costs
    dist, distributing = timed(lambda: distribute(table, spark=spark, shards=shards))
    _, warm_up = timed(lambda: toolkit.sweep(dist, progress=False, execution="spark", spark=spark, shards=shards,
                                             window="tumbling:1s"))
    remote, on_spark = timed(lambda: toolkit.sweep(dist, progress=False, execution="spark", spark=spark,
                                                   shards=shards, **_grid()))
    print(f"    on local Spark ({spark.sparkContext.master}, {shards} key shards, session started): {on_spark.wall:.1f} s "
          f"(before it, once: {distributing.wall:.1f} s to distribute the log by key and cache it, "
          f"{warm_up.wall:.1f} s for a 1-configuration warm-up that starts the Python workers)")
    same = local.equals(remote)
    print(f"    identical results in-process and on Spark: {same}")
    dist.spark_df.unpersist()
    return SweepTimes(in_process.wall, in_process.cpu, local, on_spark.wall, same)


def case_c(table: pd.DataFrame, sweep: SweepTimes | None, keys: int, seed: int) -> list[Comparison]:
    """One setting run by the engine path, by real Flink and by real Spark Structured Streaming,
    against our sweeps' time per setting over the same records; prints the table and returns it."""
    n_configs = len(DELAYS) * len(LATENESS)
    print(f"(c) one setting at a time (the engine path, real Flink, real Spark Structured Streaming) against our "
          f"sweeps per setting, the same {len(table):,} records:")
    if sweep is None:  # case b did not run: the in-process sweep now, for the ratios (seconds at 1 M records)
        results, t = timed(lambda: toolkit.sweep(table, progress=False, execution="local", **_grid()))
        sweep = SweepTimes(t.wall, t.cpu, results)
        print(f"    our 100-configuration sweep in-process, run now for the ratios: {t.wall:.1f} s ({t.cpu:.1f} s CPU)")
    ours, ours_cpu = sweep.in_process_s / n_configs, sweep.in_process_cpu_s / n_configs
    part = table.iloc[: min(len(table), 50_000)]
    _, engine = timed(lambda: toolkit.sweep(part, path="engine", progress=False, **flink_setting()))
    scale = len(table) / len(part)
    print(f"    engine path: {engine.wall:.2f} s ({engine.cpu:.2f} s CPU) for one configuration over {len(part):,} "
          f"records" + (f" => ~{engine.wall * scale:.1f} s per configuration over {len(table):,} (extrapolated)"
                                                    if scale > 1 else ""))
    table_rows = [Comparison(f"engine path{' (extrapolated)' if scale > 1 else ''}", IN_PROCESS, ours, ours_cpu, engine.wall * scale,
                             engine.cpu * scale, "")]
    flink = flink_anchor(len(table), keys, seed)
    if isinstance(flink, str):
        print(f"    real Flink: not measured in this run: {flink}")
    else:
        same = check_flink(flink, _anchor_row(sweep.results))
        print(f"    {flink.engine}, run now, setting {_setting_text()}:")
        print(f"        {flink.wall_s:.1f} s process wall, {flink.cpu_s:.1f} s CPU ({flink.note})")
        print(f"        the sweep's row for that setting: {same}")
        ok = "yes" if same.startswith("same") else "NO"
        table_rows.append(Comparison("real Flink, whole process", IN_PROCESS, ours, ours_cpu, flink.wall_s,
                                     flink.cpu_s, ok))
        if flink.job_s:
            table_rows.append(Comparison("real Flink, job alone", IN_PROCESS, ours, None, flink.job_s, None, ok))
        if sweep.spark_s:
            table_rows.append(Comparison("real Flink, whole process", f"on local Spark, {n_configs} settings", sweep.spark_s / n_configs,
                                         None, flink.wall_s, None, ok))
    spark_row = _spark_anchor(table)
    if spark_row:
        table_rows.append(spark_row)
    print(_comparison_table(table_rows))
    return table_rows


def _spark_anchor(table: pd.DataFrame) -> Comparison | None:
    """Real Spark Structured Streaming against our sweep of Spark-semantics settings, same log:
    the sweep of 20 delays in-process (time per setting), one of them run on real Spark now;
    its emitted windows checked against the sweep's row and our replay's windows."""
    n = len(DELAYS)
    results, ours = timed(lambda: toolkit.sweep(table, progress=False, execution="local",
                                                **{**spark_setting(), "delay": DELAYS}))
    per, per_cpu = ours.wall / n, ours.cpu / n
    print(f"    Spark semantics, setting {_spark_text()}:")
    print(f"        our sweep of it and {n - 1} other delays in-process: {ours.wall:.1f} s ({ours.cpu:.1f} s CPU) "
          f"for {n} settings")
    try:
        session = spark_session()
    except Exception as exc:  # noqa: BLE001 - no Java / no pyspark: said, not raised
        print(f"        real Spark Structured Streaming: not measured in this run: no Spark session ({exc})")
        return None
    with tempfile.TemporaryDirectory(prefix="bench-spark-") as work:
        spark = spark_anchor(table, session, Path(work))
    if isinstance(spark, str):
        print(f"        real Spark Structured Streaming: not measured in this run: {spark}")
        return None
    row = results[results["delay_ms"] == SPARK_DELAY_MS].iloc[0]
    cpu = f", {spark.cpu_s:.1f} s CPU (Spark's JVM and the driver)" if spark.cpu_s is not None else ""
    print(f"        {spark.engine}, run now: {spark.job_s:.1f} s for the query{cpu} ({spark.note}; "
          "session already running)")
    same_row = check_spark(spark, row)
    same_windows = check_spark_windows(spark, replay_windows(table))
    print(f"        the sweep's row for that setting: {same_row}")
    print(f"        our replay of that setting: {same_windows}")
    ok = "yes" if same_row.startswith("same") and same_windows.startswith("the same") else "NO"
    return Comparison("real Spark Structured Streaming, query", f"in-process, {n} Spark-semantics settings", per, per_cpu,
                      spark.job_s, spark.cpu_s, ok)


def _seconds(x: float | None) -> str:
    """A duration for a person: ``12.3 ms`` under a second, ``4.56 s`` above; ``-`` when unknown."""
    if x is None:
        return "-"
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s" if x < 100 else f"{x:,.0f} s"


def _ratio(theirs: float | None, ours: float | None) -> str:
    return f"{theirs / ours:,.0f}x" if theirs is not None and ours else "-"


def _comparison_table(rows: list[Comparison]) -> str:
    """Case c's figures per setting, in aligned columns (wall and CPU; ratio = theirs / ours)."""
    head = ["one setting run by", "against our sweep per setting", "theirs", "theirs CPU", "ours", "ours CPU",
            "ratio", "ratio CPU", "same figures"]
    body = [[r.theirs, r.ours, _seconds(r.theirs_s), _seconds(r.theirs_cpu_s), _seconds(r.ours_s), _seconds(r.ours_cpu_s),
             _ratio(r.theirs_s, r.ours_s), _ratio(r.theirs_cpu_s, r.ours_cpu_s), r.same or "-"] for r in rows]
    widths = [max(len(line[i]) for line in [head] + body) for i in range(len(head))]
    lines = []
    for line in [head] + body:
        cells = ([c.ljust(w) for c, w in zip(line[:2], widths)] + [c.rjust(w) for c, w in zip(line[2:-1], widths[2:-1])]
                 + [line[-1]])
        lines.append("    " + "  ".join(cells).rstrip())
    return "\n".join(lines)


def _spark_text() -> str:
    return str(toolkit.Setting.parse(**spark_setting()))


def _setting_text() -> str:
    return str(toolkit.Setting.parse(**flink_setting()))


def _anchor_row(results: pd.DataFrame) -> pd.Series:
    a = flink_setting()
    hit = results[(results["delay_ms"] == a["delay"]) & (results["lateness_ms"] == a["lateness"])
                  & (results["interval_ms"] == a["interval"]) & (results["strategy"] == a["strategy"])]
    return hit.iloc[0]


def run(args) -> int:
    only = set((args.only or "a,b,c,s,e").split(","))
    unknown = only - {"a", "b", "c", "s", "e"}
    if unknown:
        raise ValueError(f"--only: unknown sub-case {', '.join(sorted(unknown))} (bench sweep has a, b, c, s, e; "
                         "the 10 M-record run moved to 'bench scale')")
    out_json = _json_target(getattr(args, "json", None))
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f} at the start "
          "(shared with other work: treat timings as indicative)")
    figures: dict = {"bench": "sweep", "records": args.records, "keys": args.keys, "seed": args.seed,
                     "cores": os.cpu_count(), "load_average_start": load}
    table = bench_table(args.records, args.keys, args.seed)
    if "a" in only:
        figures["a"] = case_a(table)
    sweep = case_b(table, spark_session()) if "b" in only else None
    if sweep:
        figures["b"] = sweep.figures()
    if "c" in only:
        figures["c"] = [r.figures() for r in case_c(table, sweep, args.keys, args.seed)]
    if "s" in only:
        # session windows on the fast path, the same records and grid (bench sessions has the engine comparison)
        bench_sessions.warm_up()
        rate = bench_sessions.case_a(table, "200ms", label="(s) session windows (200 ms gap) on the fast path, the same log")
        figures["s"] = {"gap_ms": 200, "record_configurations_per_cpu_s": rate}
    if "e" in only:  # every engine's sweep row on a year of data (toolkit.bench.engines)
        n = min(args.records, 330_000)
        figures["e"] = [r.figures() for r in bench_engines.case_e(n, replay_records=min(30_000, n), seed=args.seed)]
    figures["load_average_end"] = os.getloadavg()[0]
    print(f"load average {figures['load_average_end']:.1f} at the end")
    if out_json:
        out_json.write_text(json.dumps(figures, indent=1) + "\n")
        print(f"figures written to {out_json}")
    return 0


def _json_target(path: str | None) -> Path | None:
    """``--json FILE``: where the figures go, checked before the minutes of benchmarking."""
    if not path:
        return None
    target = Path(path)
    if target.is_dir() or not target.parent.is_dir():
        raise ValueError(f"--json {path}: not a file in an existing folder")
    return target
