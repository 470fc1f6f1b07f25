"""``python -m toolkit demo``: the main job on the sample log, end to end.

Loads ``data/sample.csv``, describes it, replays it with one setting, sweeps watermark
delay x allowed lateness x idle timeout with Flink's semantics (on the embedded local Spark
session) and the same delays with Spark Structured Streaming's, recommends a setting per
engine with its code, compares the engines record by record on Flink's recommended setting,
and writes ``reports/demo.html`` (which shows the engines side by side).
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample.csv"
#: how data/generate.py writes the sample (its COMMANDS["sample.csv"]): model, records, seed, bad rows
SAMPLE_MODEL = ("sample", 30_000, 42, 6)

DEMO_WINDOW = "tumbling:1s"
DEMO_DELAYS = ["0ms", "100ms", "250ms", "500ms", "1s", "2s", "5s"]
DEMO_LATENESS = ["0ms", "1s", "5s"]
# partition 2 of the sample falls silent for ~40 s: without an idle timeout it holds the
# watermark (and every window) back, which the sweep shows next to a 2 s timeout
DEMO_IDLENESS = [None, "2s"]
# every registered engine (toolkit.semantics.names()) with a translation is swept and compared


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run the main job on the sample log and write reports/demo.html")
    p.add_argument("--log", default=None, help="event log to use (default: data/sample.csv)")
    p.add_argument("--out", default="reports/demo.html", help="report path (default: reports/demo.html)")
    p.add_argument("--master", default=None, help="Spark master URL (default: $SPARK_MASTER or local[*])")
    p.add_argument("--no-spark", action="store_true", help="sweep in-process instead of on Spark")
    p.add_argument("--spark-log-level", default=None, metavar="LEVEL",
                   help="Spark's log level (default ERROR, or $WATERMARK_LAB_SPARK_LOG_LEVEL)")
    p.set_defaults(func=run)


def sample_path() -> Path:
    """``data/sample.csv`` of a source checkout. An installed package has no ``data/`` folder:
    then the same sample (deterministic, data/generate.py's command) is written once into the
    user's cache folder."""
    if SAMPLE.is_file():
        return SAMPLE
    from toolkit.log import synth

    cached = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "watermark-lab" / SAMPLE.name
    if not cached.is_file():
        model, records, seed, bad_rows = SAMPLE_MODEL
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        synth.write(synth.generate(model, records, seed=seed), tmp, format="csv", bad_rows=bad_rows, seed=seed)
        tmp.replace(cached)
    return cached


def _step(message: str) -> float:
    print(f"[demo] {message}", flush=True)
    return time.perf_counter()


def run(args: argparse.Namespace) -> int:
    import toolkit
    from toolkit.commands._width import terminal_width, wrapped
    from toolkit.commands.report import set_spark_log_level
    from toolkit.spark import require_java

    set_spark_log_level(getattr(args, "spark_log_level", None))
    if not getattr(args, "no_spark", False):
        require_java()
    if args.log is None:  # shown relative, so reports name no folder of this machine
        sample = sample_path()
        args.log = os.path.relpath(sample) if sample.is_relative_to(Path.cwd()) else str(sample)
    t0 = _step(f"loading {args.log}")
    log = toolkit.load_log(args.log, event_time="event_time", arrival_time="arrival_time",
                           key="key", partition="partition", value="value", time_unit="ms",
                           max_invalid_fraction=0.01)
    print(log.describe().text(width=terminal_width()))

    _step(f"replaying with window={DEMO_WINDOW}, delay=500ms, lateness=1s, interval=200ms")
    result = toolkit.replay(log, window=DEMO_WINDOW, delay="500ms", lateness="1s", interval="200ms")
    from toolkit.commands.replay import summary_text

    print(wrapped(summary_text(result.summary(), result.setting, source=args.log)))

    from toolkit.replays.translate import delay_axes, translatable
    from toolkit.semantics import get
    from toolkit.sweeps.choose import engine_name

    engines = list(translatable())
    where = "in-process" if args.no_spark else "on Spark"
    _step(f"sweeping {len(DEMO_DELAYS)} delays x {len(DEMO_LATENESS)} lateness values x idleness off/2s {where}, "
          f"with the semantics of {', '.join(engine_name(e) for e in engines)} (each engine's own settings only)")
    results = toolkit.sweep(
        log, semantics=engines, window=DEMO_WINDOW, **delay_axes(engines, DEMO_DELAYS), lateness=DEMO_LATENESS,
        idleness=DEMO_IDLENESS, interval="200ms", execution="local" if args.no_spark else "spark", master=args.master,
        # each engine's own axes worth showing (Kafka Streams: results on every update, or once at the close)
        **{k: v for e in engines for k, v in get(e).showcase_axes.items()},
    )
    from toolkit.deployment import engines as deploy_engines
    from toolkit.viz._format import text_table

    print(text_table(results, ["semantics", "delay_ms", "lateness_ms", "idleness_ms", "completeness_first",
                               "completeness_final", "dropped", "latency_p99_ms"]))
    recs = toolkit.recommend(results, completeness=0.99, per="semantics")
    for name, rec in recs.items():
        print(f"[demo] recommendation for {name}: {rec['setting'] if rec['setting'] is not None else 'none'}")
        print(rec["reason"])
        if rec["deploy"]:
            engine, code = next(iter(rec["deploy"].items()))
            print(f"[demo] as {deploy_engines()[engine]} code (python -m toolkit deploy ... prints it for "
                  "any setting):")
            print(code)
    lead = recs[engines[0]]["setting"]
    if lead is not None:
        _step(f"the {engine_name(engines[0])} recommendation in every engine, record by record "
              "(python -m toolkit compare ... does this for any setting)")
        print(toolkit.compare_engines(log, lead, semantics=engines).summary_text(examples=1, width=terminal_width()))

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _step(f"writing {out}")
    # the report replays the recommended setting for its record-level charts
    toolkit.report(log, sweep=results, out=out, title=f"Watermark Lab demo: {Path(args.log).name}")
    print(f"[demo] done in {time.perf_counter() - t0:.1f} s: open {out} in a browser")
    return 0
