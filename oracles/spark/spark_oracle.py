"""Drive real PySpark Structured Streaming on Spark-semantics case files; write golden outputs.

Usage::

    python oracles/spark/spark_oracle.py CASE.jsonl... --out-dir DIR [--processing-time] [--parallel N]

A case file is JSON lines: the first line ``{"config": {...}}``, then one record a line
``{"event_time": ms, "arrival_time": ms, "key": str, "partition": int, "value": int}`` (epoch ms;
session cases with a per-record gap add ``"gap": ms``, which may be null, zero or negative).
Config keys::

    window: {"kind": "tumbling"|"sliding"|"session", "size": ms, "slide": ms, "gap": ms,
             "offset": ms,                       # window(ts, size, slide, startTime=offset)
             "gap_column": bool}                 # per-record gap: the records' "gap" field
    delay: ms                                    # withWatermark(ts, "<delay> milliseconds")
    trigger_interval: ms                         # processing-time trigger interval I
    output_mode: "append" | "update" | "complete"
    partitions_as_sources: bool                  # one file stream + withWatermark per partition
    partitions: [int, ...]                       # the inputs (a partition may never speak)
    multiple_watermark_policy: "min" | "max"     # spark.sql.streaming.multipleWatermarkPolicy

How a processing-time run is reproduced deterministically: trigger ticks are epoch-aligned
multiples of I (Spark's ``ProcessingTimeExecutor``), so the data batch at tick ``T = k*I`` holds
the records with arrival in ``(T - I, T]``. Every tick that has records becomes one JSON-lines
file per input (an empty file for an input without records in it), read with
``maxFilesPerTrigger=1`` under ``trigger(availableNow=True)``: one Spark micro-batch per tick.
A real run also executes a *no-data batch* at the first tick of a quiet period when the
watermark would move (``MicroBatchExecution``: ``lastExecution.shouldRunAnotherBatch``). We give
Spark that chance with empty files at the first tick after every data batch; an empty-file
batch whose watermark equals the previous batch's is one Spark would not have run (it did
nothing: no rows, no emission, no eviction) and is removed, the batch ids renumbered.
``--processing-time`` instead runs a real ``trigger(processingTime=...)`` query in wall-clock
time (files dropped into the folder mid-interval) to check that emulation.

Output per case ``NAME.out.jsonl``: one line per executed batch::

    {"batch": id, "tick": ms, "watermark": ms, "input_rows": n, "rows_dropped_by_watermark": n,
     "rows": [[key, window_start, window_end, count, sum], ...]}

or a single ``{"error": "<Spark error class>: <message head>"}`` when Spark refuses the query.
Many cases run sequentially in one Spark session. Only the standard library and pyspark.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path


def read_case(path: Path) -> tuple[dict, list[dict]]:
    """Return (config, records) of a case file."""
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return lines[0]["config"], lines[1:]


def ceil_tick(arrival: int, interval: int) -> int:
    """The trigger tick (multiple of ``interval``) whose batch reads a record arriving then."""
    return -(-arrival // interval) * interval


def plan_files(config: dict, records: list[dict]) -> list[tuple[int, dict[int, list[dict]], bool]]:
    """[(tick, {input: records}, is_data)] in tick order: data ticks and the tick after each."""
    interval = config["trigger_interval"]
    inputs = config["partitions"] if config["partitions_as_sources"] else [0]
    by_tick: dict[int, dict[int, list[dict]]] = {}
    for r in records:
        src = r["partition"] if config["partitions_as_sources"] else 0
        by_tick.setdefault(ceil_tick(r["arrival_time"], interval), {i: [] for i in inputs})[src].append(r)
    ticks = sorted(by_tick)
    plan = []
    for i, t in enumerate(ticks):
        plan.append((t, by_tick[t], True))
        nxt = t + interval
        if config["output_mode"] == "complete":
            continue  # no no-data batches in complete mode
        if i + 1 == len(ticks) or ticks[i + 1] != nxt:
            plan.append((nxt, {i: [] for i in inputs}, False))
    return plan


def iso_ms(text: str) -> int:
    """Epoch ms of a progress timestamp such as ``2026-01-01T00:00:05.000Z``."""
    dt = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return int(round(dt.timestamp() * 1000))


def build_query(spark, config: dict, dirs: dict[int, Path]):
    """The streaming DataFrame: file streams (one per input) -> withWatermark -> union -> agg."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    schema = StructType([
        StructField("event_time", LongType()), StructField("arrival_time", LongType()),
        StructField("key", StringType()), StructField("partition", LongType()),
        StructField("value", LongType()), StructField("gap", LongType()),
    ])
    delay = f"{config['delay']} milliseconds"
    frames = []
    for src in sorted(dirs):
        df = (spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).json(str(dirs[src]))
              .withColumn("ts", F.timestamp_millis("event_time")).withWatermark("ts", delay))
        frames.append(df)
    df = frames[0]
    for other in frames[1:]:
        df = df.union(other)
    w = config["window"]
    if w["kind"] in ("tumbling", "sliding"):
        slide = w["slide"] if w["kind"] == "sliding" else w["size"]
        if w.get("offset"):
            win = F.window("ts", f"{w['size']} milliseconds", f"{slide} milliseconds", f"{w['offset']} milliseconds")
        elif w["kind"] == "tumbling":
            win = F.window("ts", f"{w['size']} milliseconds")
        else:
            win = F.window("ts", f"{w['size']} milliseconds", f"{slide} milliseconds")
    elif w.get("gap_column"):
        win = F.session_window("ts", F.concat(F.col("gap").cast("string"), F.lit(" milliseconds")))
    else:
        win = F.session_window("ts", f"{w['gap']} milliseconds")
    out = (df.groupBy(win.alias("w"), "key")
           .agg(F.count(F.lit(1)).alias("count"), F.sum("value").alias("sum"))
           .select("key", (F.unix_millis(F.col("w.start"))).alias("window_start"),
                   (F.unix_millis(F.col("w.end"))).alias("window_end"), "count", "sum"))
    return out


def write_inputs(root: Path, plan, inputs: list[int], start_mtime: float) -> dict[int, Path]:
    """Write one file per (tick, input) with increasing modification times; return the dirs."""
    dirs = {}
    for src in inputs:
        d = root / f"in{src}"
        d.mkdir(parents=True)
        dirs[src] = d
    for n, (tick, per_src, _) in enumerate(plan):
        for src in inputs:
            f = dirs[src] / f"b{n:05d}.json"
            f.write_text("".join(json.dumps(r) + "\n" for r in per_src[src]))
            os.utime(f, (start_mtime + n, start_mtime + n))
    return dirs


def collect_rows(batch_df, attempts: int = 3) -> list[list]:
    """A micro-batch's rows. The driver reads them from a local socket the JVM opens for the
    collect; on a loaded machine that socket can be gone before Python connects
    (``CANNOT_OPEN_SOCKET``), a transport failure, not Spark's answer: the same collect is asked
    again (the batch's rows do not change), any other error is raised as it is."""
    for attempt in range(attempts):
        try:
            return [list(r) for r in batch_df.collect()]
        except Exception as exc:
            chain, e = [], exc  # PySpark may raise an UnboundLocalError over the socket error
            while e is not None and len(chain) < 5:
                chain.append(str(e))
                e = e.__cause__ or e.__context__
            if not any("CANNOT_OPEN_SOCKET" in c for c in chain) or attempt == attempts - 1:
                raise
            time.sleep(0.5)
    raise AssertionError("unreachable")


def run_case(spark, config: dict, records: list[dict], work: Path) -> list[dict]:
    """Run one case on Spark (availableNow, one file per input per tick); return the batches."""
    spark.conf.set("spark.sql.streaming.multipleWatermarkPolicy", config["multiple_watermark_policy"])
    inputs = config["partitions"] if config["partitions_as_sources"] else [0]
    plan = plan_files(config, records)
    dirs = write_inputs(work, plan, inputs, time.time() - len(plan) - 10)
    emitted: dict[int, list] = {}

    def sink(batch_df, batch_id):
        emitted[batch_id] = collect_rows(batch_df)

    try:
        df = build_query(spark, config, dirs)
        q = (df.writeStream.outputMode(config["output_mode"]).foreachBatch(sink)
             .option("checkpointLocation", str(work / "ckpt")).trigger(availableNow=True).start())
        q.awaitTermination()
    except Exception as exc:  # Spark refusing the query: record its error class and message head
        return [{"error": error_text(exc)}]
    progress = q.recentProgress
    return assemble(plan, progress, emitted)


def error_text(exc: Exception) -> str:
    """``<error class>: <first line>`` of a Spark error (or the exception's first line)."""
    cls = getattr(exc, "getCondition", lambda: None)() or getattr(exc, "getErrorClass", lambda: None)()
    head = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{cls}: {head}" if cls else head


def progress_figures(p: dict) -> tuple[int, int, int]:
    """(watermark ms, input rows, numRowsDroppedByWatermark) of one progress entry."""
    wm = iso_ms(p["eventTime"]["watermark"]) if "watermark" in p.get("eventTime", {}) else 0
    dropped = sum(op.get("numRowsDroppedByWatermark", 0) for op in p.get("stateOperators", []))
    return wm, int(p.get("numInputRows", 0)), int(dropped)


def assemble(plan, progress, emitted: dict[int, list]) -> list[dict]:
    """Match Spark's batches to the plan's ticks; drop empty-file batches Spark would not run."""
    by_id = {}
    for p in progress:
        by_id[p["batchId"]] = p  # a batch may report twice (data, then final); keep the last
    ids = sorted(by_id)
    out = []
    data_ticks = [t for t, _, _ in plan]
    if len(ids) < len(plan):
        raise RuntimeError(f"Spark ran {len(ids)} batches for {len(plan)} files per input")
    prev_wm = 0
    n = 0
    for i, bid in enumerate(ids):
        wm, rows, dropped = progress_figures(by_id[bid])
        rows_out = sorted(emitted.get(bid, []), key=lambda r: (r[0], r[1], r[2]))
        if i < len(plan):
            tick, _, is_data = plan[i]
        else:  # availableNow's own closing no-data batch: never expected (we end with one)
            tick, is_data = data_ticks[-1], False
        if not is_data and rows == 0 and wm == prev_wm:
            if rows_out or dropped:
                raise RuntimeError(f"batch {bid}: an idle empty-file batch emitted or dropped rows")
            continue  # Spark would not have run a no-data batch here
        out.append({"batch": n, "tick": tick, "watermark": wm, "input_rows": rows,
                    "rows_dropped_by_watermark": dropped, "rows": rows_out})
        prev_wm = wm
        n += 1
    return out


def run_processing_time(spark, config: dict, records: list[dict], work: Path, scale_ms: int = 2000) -> list[dict]:
    """Check run: a real trigger(processingTime) query, files dropped mid-interval in wall time.

    The case's trigger interval is replayed as ``scale_ms`` of wall time (real ticks are
    epoch-aligned multiples of it). Returns the executed batches like ``run_case``.
    """
    spark.conf.set("spark.sql.streaming.multipleWatermarkPolicy", config["multiple_watermark_policy"])
    inputs = config["partitions"] if config["partitions_as_sources"] else [0]
    interval = config["trigger_interval"]
    plan = [p for p in plan_files(config, records) if p[2]]
    dirs = {}
    for src in inputs:
        dirs[src] = work / f"in{src}"
        dirs[src].mkdir(parents=True)
    emitted: dict[int, list] = {}

    def sink(batch_df, batch_id):
        emitted[batch_id] = collect_rows(batch_df)

    # seed files for the first tick before starting, so the first batch has data
    first = plan[0][0]
    df = build_query(spark, config, dirs)
    staged = []
    for n, (tick, per_src, _) in enumerate(plan):
        staged.append(((tick - first) // interval, per_src, n))
    now = time.time() * 1000
    base = (int(now // scale_ms) + 2) * scale_ms  # wall tick that plays the first data tick
    for src in inputs:
        (dirs[src] / "b00000.json").write_text("".join(json.dumps(r) + "\n" for r in plan[0][1][src]))
    q = (df.writeStream.outputMode(config["output_mode"]).foreachBatch(sink)
         .option("checkpointLocation", str(work / "ckpt")).trigger(processingTime=f"{scale_ms} milliseconds").start())
    for offset, per_src, n in staged[1:]:
        drop_at = base + offset * scale_ms - scale_ms / 2
        time.sleep(max(0.0, (drop_at - time.time() * 1000) / 1000))
        for src in inputs:
            tmp = dirs[src] / f".b{n:05d}.tmp"
            tmp.write_text("".join(json.dumps(r) + "\n" for r in per_src[src]))
            tmp.rename(dirs[src] / f"b{n:05d}.json")
    # wait until every file is read, then two more ticks for a closing no-data batch
    while sum(1 for p in q.recentProgress if p.get("numInputRows", 0) > 0) < len(plan) and q.isActive:
        time.sleep(0.5)
    time.sleep(2 * scale_ms / 1000)
    q.stop()
    out = []
    # idle triggers also report progress (every noDataProgressEventInterval, with the next batch
    # id and no input): only batches the sink saw ran
    by_id = {p["batchId"]: p for p in q.recentProgress if p["batchId"] in emitted}
    for bid in sorted(by_id):
        wm, rows, dropped = progress_figures(by_id[bid])
        out.append({"batch": bid, "watermark": wm, "input_rows": rows, "rows_dropped_by_watermark": dropped,
                    "rows": sorted(emitted.get(bid, []), key=lambda r: (r[0], r[1], r[2]))})
    return out


def make_spark():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master("local[2]").appName("spark-oracle")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC").config("spark.sql.shuffle.partitions", "1")
             .config("spark.sql.streaming.noDataMicroBatches.enabled", "true")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="+", type=Path)
    ap.add_argument("--out-dir", type=Path, required=True)
    ap.add_argument("--processing-time", action="store_true",
                    help="run a real processingTime trigger in wall time (check run; slow)")
    ap.add_argument("--parallel", type=int, default=3, help="queries run at once (default 3)")
    args = ap.parse_args(argv)
    args.cases = [c for c in args.cases if not c.name.endswith((".out.jsonl", ".pt.jsonl"))]  # outputs are no cases
    args.out_dir.mkdir(parents=True, exist_ok=True)
    spark = make_spark()

    def one(path: Path) -> None:
        session = spark.newSession()  # its own SQL conf (the watermark policy), shared context
        config, records = read_case(path)
        work = Path(tempfile.mkdtemp(prefix="spark-oracle-"))
        try:
            t = time.time()
            if args.processing_time:
                batches = run_processing_time(session, config, records, work)
            else:
                batches = run_case(session, config, records, work)
            name = path.name[:-len(".jsonl")] if path.name.endswith(".jsonl") else path.stem
            suffix = ".pt.jsonl" if args.processing_time else ".out.jsonl"
            (args.out_dir / (name + suffix)).write_text("".join(json.dumps(b) + "\n" for b in batches))
            print(f"{path.name}: {len(batches)} batches in {time.time() - t:.1f}s", flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    # queries are independent (own folders, checkpoints, session conf): run a few at once
    workers = 1 if args.processing_time else args.parallel
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for fut in [pool.submit(one, p) for p in args.cases]:
            fut.result()
    return 0


if __name__ == "__main__":
    sys.exit(main())
