#!/usr/bin/env python3
"""Compile the DataStream Java that ``deploy`` prints, unchanged, against real Flink 2.3's jars.

Usage (the project's Python: it needs ``toolkit``; the jars come from
``python3 ../shared/oracle/flink_oracle.py setup``)::

    .venv/bin/python oracles/flink_datastream/compile_check.py tests/fixtures/flink_deploy

For each setting in ``SETTINGS`` the printed snippet (``NAME.java``) goes, as printed, into the
body of a method of a class that holds what a snippet asks the user to bring: the ``Event`` and
``Result`` types, ``CountAndSum`` (an ``AggregateFunction``), ``CollectValues`` (a
``ProcessWindowFunction``), the watermark generators a Watermark Lab extension names, and the
``source``; the imports are the packages of the Flink classes a snippet uses. ``javac`` then
compiles it against ``flink-dist``; ``compiled.json`` records, per case, ``"compiled"`` or
javac's errors. ``tests/deploy/test_deploy_compiles.py`` checks that the printed Java is still
``NAME.java`` and that every case compiled. Running the snippets on a log is left to the window
oracle (``../shared/oracle``), whose jobs are built from the same settings.
"""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "flink_sql"))
from flink_sql_oracle import flink_lib  # noqa: E402  (the same jars as the Flink SQL oracle)

#: name -> the setting whose printed Java is compiled: ``python -m toolkit deploy``'s options, or
#: ``toolkit.deploy``'s keywords where the command line has no option (stages)
SETTINGS = {
    "tumbling_lateness": "--window tumbling:1s --delay 500ms --lateness 1s",
    "sliding_offset_count_evictor": "--window sliding:10s/5s,1s --delay 2s --idleness 5s --trigger count:3 --evictor count:2",
    "session_values": "--window session:5s --strategy monotonous --function values",
    "dynamic_session": "--window dynamic_session:gap_ms --trigger purging:continuous:5s",
    "stagger_natural": "--window tumbling:1min --stagger natural",
    "global_end_of_stream": "--window global_eos --trigger end_of_stream",
    "processing_time": "--window tumbling:1s --trigger processing_time",
    "continuous_processing": "--window tumbling:1s --trigger continuous_processing:5s",
    "time_evictor_never": "--window tumbling:10s --trigger never --evictor time:2s",
    "idle_advance": "--window tumbling:1s --strategy idle_advance --step 1s",
    "punctuated": "--window tumbling:1s --strategy punctuated --marker is_marker",
    "second_window": "--window tumbling:1s --second-window tumbling:10s --second-lateness 1s",
    "stages_values": {"window": "tumbling:1s", "function": "values", "stages": ["window=tumbling:10s function=values"]},
    "global_never": "--window global --trigger never",
    "global_count_purging": "--window global --trigger purging:count:100 --evictor time:5s",
}

IMPORTS = """import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.*;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.*;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.*;
import org.apache.flink.streaming.api.windowing.evictors.*;
import org.apache.flink.streaming.api.windowing.triggers.*;
import org.apache.flink.streaming.api.windowing.windows.*;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
"""

USER_PARTS = """
    /** What a record of the log is (the snippets read key, eventTime, value and a gap column). */
    public static class Event {
        public String key;
        public long eventTime;
        public double value;
        public long gap_ms;
        public boolean is_marker;
    }

    /** A window's result (count and sum of value). */
    public static class Result {
        public String key;
        public long count;
        public double sum;
    }

    public static class CountAndSum implements AggregateFunction<Event, Result, Result> {
        public Result createAccumulator() { return new Result(); }
        public Result add(Event e, Result r) { r.key = e.key; r.count++; r.sum += e.value; return r; }
        public Result getResult(Result r) { return r; }
        public Result merge(Result a, Result b) { a.count += b.count; a.sum += b.sum; return a; }
    }

    public static class CollectValues extends ProcessWindowFunction<Event, Result, String, TimeWindow> {
        public void process(String key, Context ctx, Iterable<Event> in, Collector<Result> out) {
            Result r = new Result();
            r.key = key;
            for (Event e : in) { r.count++; r.sum += e.value; }
            out.collect(r);
        }
    }

    public static class CountAndSumOfResults implements AggregateFunction<Result, Result, Result> {
        public Result createAccumulator() { return new Result(); }
        public Result add(Result e, Result r) { r.key = e.key; r.count++; r.sum += e.sum; return r; }
        public Result getResult(Result r) { return r; }
        public Result merge(Result a, Result b) { a.count += b.count; a.sum += b.sum; return a; }
    }

    public static class CollectResults extends ProcessWindowFunction<Result, Result, String, TimeWindow> {
        public void process(String key, Context ctx, Iterable<Result> in, Collector<Result> out) {
            for (Result e : in) { out.collect(e); }
        }
    }

    public static class NeverFire extends Trigger<Object, TimeWindow> {
        public TriggerResult onElement(Object e, long ts, TimeWindow w, TriggerContext c) { return TriggerResult.CONTINUE; }
        public TriggerResult onProcessingTime(long t, TimeWindow w, TriggerContext c) { return TriggerResult.CONTINUE; }
        public TriggerResult onEventTime(long t, TimeWindow w, TriggerContext c) { return TriggerResult.CONTINUE; }
        public void clear(TimeWindow w, TriggerContext c) {}
    }

    public static class YourWatermarkGenerator implements WatermarkGenerator<Event> {
        public void onEvent(Event e, long ts, WatermarkOutput out) {}
        public void onPeriodicEmit(WatermarkOutput out) {}
    }

    public static class YourPunctuatedGenerator extends YourWatermarkGenerator {}
"""


def printed(args: str | dict) -> str:
    """What ``python -m toolkit deploy ARGS`` prints (``str(toolkit.deploy(**ARGS))`` for keywords)."""
    if isinstance(args, dict):
        import toolkit

        return str(toolkit.deploy(**args))
    done = subprocess.run([sys.executable, "-m", "toolkit", "deploy", *shlex.split(args)], capture_output=True,
                          text=True, check=True)
    return done.stdout


def wrapped(name: str, snippet: str) -> tuple[str, str]:
    """The snippet, as printed, as the body of ``job(source)`` in a class with the user's parts."""
    cls = "Deployed_" + re.sub(r"\W", "_", name)
    body = "\n".join("        " + line for line in snippet.splitlines())
    return (f"{IMPORTS}\npublic class {cls} {{\n{USER_PARTS}\n"
            f"    static void job(Source<Event, ?, ?> source) throws Exception {{\n{body}\n    }}\n}}\n"), cls


def compile_one(name: str, snippet: str, work: Path) -> str:
    """javac's verdict: ``"compiled"`` or its error lines."""
    code, cls = wrapped(name, snippet)
    src = work / f"{cls}.java"
    src.write_text(code, encoding="utf-8")
    jars = [str(j) for j in sorted(flink_lib().glob("flink-dist-*.jar"))]
    done = subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "--release", "17", "-cp", ":".join(jars),
                           "-d", str(work / "classes"), str(src)], capture_output=True, text=True)
    if done.returncode == 0:
        return "compiled"
    return "\n".join(line.replace(str(work) + "/", "") for line in done.stderr.splitlines() if ": error:" in line)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    verdicts = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in SETTINGS.items():
            snippet = printed(args)
            (out / f"{name}.java").write_text(snippet, encoding="utf-8")
            verdicts[name] = {"args": args, "javac": compile_one(name, snippet, Path(tmp))}
            print(f"{name}: {verdicts[name]['javac']}", file=sys.stderr)
    (out / "compiled.json").write_text(json.dumps(verdicts, indent=1) + "\n", encoding="utf-8")
    return 0 if all(v["javac"] == "compiled" for v in verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
