"""Real Apache Beam as the oracle for toolkit.engine.beam.

Runs Beam scenario files (JSON, format in README.md) through the Python SDK's
BundleBasedDirectRunner with a ``TestStream`` (timestamped elements, watermark advances,
processing-time advances), ``WindowInto(window_fn, trigger=..., allowed_lateness=...,
accumulation_mode=..., timestamp_combiner=...)`` and a ``GroupByKey``; a DoFn records every
output pane with its PaneInfo, window, output timestamp and values.

Beam is never a dependency of the project: ``setup`` creates a virtualenv of its own
(default ``~/.cache/watermark-lab/beam-oracle/venv``, or ``$WATERMARK_LAB_BEAM_ENV``) with
``apache-beam==2.77.0``, and ``run`` re-executes itself inside it. Many cases run in one
process (Beam's import and runner start are slow).

    python oracles/beam/beam_oracle.py setup
    python oracles/beam/beam_oracle.py run SCENARIO_DIR_OR_FILES... --out DIR
    python oracles/beam/beam_oracle.py transcripts --out FILE   # Beam's trigger_transcripts.yaml
    python oracles/beam/beam_oracle.py snippets CASE_DIR --out FILE  # run toolkit.deploy's Beam code
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BEAM_VERSION = "2.77.0"
ENV = Path(os.environ.get("WATERMARK_LAB_BEAM_ENV",
                          Path.home() / ".cache" / "watermark-lab" / "beam-oracle" / "venv"))
ENV_PYTHON = ENV / "bin" / "python"


def setup() -> None:
    """Create the oracle's own virtualenv with apache-beam (idempotent)."""
    if not ENV_PYTHON.exists():
        ENV.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(ENV)], check=True)
    subprocess.run([str(ENV_PYTHON), "-m", "pip", "install", "-q", f"apache-beam=={BEAM_VERSION}"],
                   check=True)


def _in_env() -> bool:
    try:
        import apache_beam  # noqa: F401
    except ImportError:
        return False
    return apache_beam.__version__ == BEAM_VERSION


def _reexec() -> None:
    if not ENV_PYTHON.exists():
        setup()
    os.execv(str(ENV_PYTHON), [str(ENV_PYTHON), __file__, *sys.argv[1:]])


# ----------------------------------------------------------------------------- inside Beam's env
def _us(ms: int):
    from apache_beam.utils.timestamp import Timestamp
    return Timestamp(micros=int(ms) * 1000)


def _dur(ms: int):
    from apache_beam.utils.timestamp import Duration
    return Duration(micros=int(ms) * 1000)


def build_window_fn(spec: dict):
    from apache_beam.transforms import window as w
    kind = spec["type"]
    off = _us(spec.get("offset", 0))
    if kind == "fixed":
        return w.FixedWindows(_dur(spec["size"]), off)
    if kind == "sliding":
        return w.SlidingWindows(_dur(spec["size"]), _dur(spec["period"]), off)
    if kind == "sessions":
        return w.Sessions(_dur(spec["gap"]))
    raise ValueError(f"unknown window type {kind!r}")


def build_trigger(spec: dict | None):
    from apache_beam.transforms import trigger as t
    if spec is None:
        return None
    kind = spec["type"]
    if kind == "default":
        return t.DefaultTrigger()
    if kind == "after_watermark":
        return t.AfterWatermark(early=build_trigger(spec.get("early")),
                                late=build_trigger(spec.get("late")))
    if kind == "after_count":
        return t.AfterCount(spec["n"])
    if kind == "after_processing_time":
        # Python's AfterProcessingTime takes seconds; a fractional delay is handed to Beam as
        # it is (Beam then fails to build the pipeline: the expect_failure cases record how)
        ms = spec["delay_ms"]
        return t.AfterProcessingTime(ms // 1000 if ms % 1000 == 0 else ms / 1000)
    if kind == "repeatedly":
        return t.Repeatedly(build_trigger(spec["trigger"]))
    if kind in ("after_any", "after_all", "after_each"):
        cls = {"after_any": t.AfterAny, "after_all": t.AfterAll, "after_each": t.AfterEach}[kind]
        return cls(*[build_trigger(s) for s in spec["triggers"]])
    if kind == "orfinally":
        return t.OrFinally(build_trigger(spec["main"]), build_trigger(spec["finally"]))
    raise ValueError(f"unknown trigger type {kind!r}")


_STALLS: list[str] = []


def _watch_stalls() -> None:
    """The DirectRunner reports "pipeline stall" (a watermark hold that is never released, so
    the watermark never reaches the end of time) as a malformed tuple, which surfaces as
    ``TypeError: exceptions must derive from BaseException``. Record the real reason."""
    from apache_beam.runners.direct import executor
    update = executor._ExecutorServiceParallelExecutor._VisibleExecutorUpdate
    if getattr(update, "_oracle_watched", False):
        return
    original = update.__init__

    def init(self, exception=None):
        if isinstance(exception, tuple) and "stall" in str(exception[0]):
            _STALLS.append(str(exception[0]))
        original(self, exception)

    update.__init__ = init
    update._oracle_watched = True


def run_case(case: dict, window_into=None) -> tuple[list[dict], bool]:
    """Run one scenario through the BundleBasedDirectRunner: the panes it emits (per key in
    emission order) and whether the pipeline stalled (Beam never finished it). ``window_into``:
    a ``beam.WindowInto`` to use instead of the one the case's specs describe (a deploy snippet's)."""
    import apache_beam as beam
    from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions
    from apache_beam.runners.direct.direct_runner import BundleBasedDirectRunner
    from apache_beam.testing.test_stream import TestStream
    from apache_beam.transforms import trigger as t
    from apache_beam.transforms.window import TimestampCombiner, TimestampedValue
    from apache_beam.utils.windowed_value import PaneInfoTiming

    timing_names = {PaneInfoTiming.EARLY: "EARLY", PaneInfoTiming.ON_TIME: "ON_TIME",
                    PaneInfoTiming.LATE: "LATE", PaneInfoTiming.UNKNOWN: "UNKNOWN"}
    combiners = {"end_of_window": TimestampCombiner.OUTPUT_AT_EOW,
                 "earliest": TimestampCombiner.OUTPUT_AT_EARLIEST,
                 "latest": TimestampCombiner.OUTPUT_AT_LATEST}

    stream = TestStream()
    for ev in case["events"]:
        if "element" in ev:
            e = ev["element"]
            stream.add_elements([TimestampedValue((e["key"], e["value"]), _us(e["ts"]))])
        elif "watermark" in ev:
            stream.advance_watermark_to(_us(ev["watermark"]))
        elif "processing_time_advance" in ev:
            stream.advance_processing_time(_dur(ev["processing_time_advance"]))
        else:
            raise ValueError(f"unknown event {ev!r}")
    stream.advance_watermark_to_infinity()

    class Record(beam.DoFn):
        """Appends each pane as a JSON line to ``sink`` (the DoFn is pickled: no shared list)."""

        def __init__(self, sink: str):
            self.sink = sink

        def process(self, kv, window=beam.DoFn.WindowParam, ts=beam.DoFn.TimestampParam,
                    pane=beam.DoFn.PaneInfoParam):
            key, values = kv
            values = sorted(values)
            with open(self.sink, "a") as f:
                f.write(json.dumps({
                    "key": key, "window": [window.start.micros // 1000, window.end.micros // 1000],
                    "timestamp_us": ts.micros, "timing": timing_names[pane.timing],
                    "is_first": pane.is_first, "is_last": pane.is_last, "index": pane.index,
                    "nonspeculative_index": pane.nonspeculative_index,
                    "values": values, "count": len(values), "sum": sum(values)}) + "\n")

    trigger = build_trigger(case.get("trigger")) or t.DefaultTrigger()
    mode = {"accumulating": t.AccumulationMode.ACCUMULATING,
            "discarding": t.AccumulationMode.DISCARDING}[case.get("accumulation", "accumulating")]
    # AfterCount, AfterWatermark without late firings, ... "may finish": Beam refuses them
    # unless told; they are part of what users write, so the oracle allows them.
    options = PipelineOptions(["--allow_unsafe_triggers"])
    options.view_as(StandardOptions).streaming = True
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as tmp:
        sink = tmp.name
    _watch_stalls()
    _STALLS.clear()
    p = beam.Pipeline(runner=BundleBasedDirectRunner(), options=options)
    if window_into is None:
        window_into = beam.WindowInto(build_window_fn(case["window"]), trigger=trigger,
                                      allowed_lateness=_dur(case.get("allowed_lateness_ms", 0)),
                                      accumulation_mode=mode,
                                      timestamp_combiner=combiners[case.get("timestamp_combiner",
                                                                            "end_of_window")])
    _ = (p | stream
         | window_into
         | beam.GroupByKey()
         | beam.ParDo(Record(sink)))
    try:
        try:
            p.run().wait_until_finish()
        except TypeError:
            if not _STALLS:
                raise
        return [json.loads(line) for line in Path(sink).read_text().splitlines()], bool(_STALLS)
    finally:
        os.unlink(sink)


def dump_case(case: dict) -> str:
    """A case as JSON text: one key per line, one event / pane per line (small diffs)."""
    lines = ["{"]
    items = list(case.items())
    for i, (k, v) in enumerate(items):
        end = "," if i < len(items) - 1 else ""
        if isinstance(v, list) and v:
            inner = ",\n  ".join(json.dumps(x) for x in v)
            lines.append(f" {json.dumps(k)}: [\n  {inner}\n ]{end}")
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v)}{end}")
    return "\n".join(lines) + "\n}\n"


def failure(exc: BaseException) -> dict:
    """How real Beam failed: the root cause (the last exception of its ``__cause__`` /
    ``__context__`` chain), its type and message, and where it was raised (the innermost frame
    inside apache_beam, ``path/inside/apache_beam.py:function``); ``raised``: what surfaced."""
    import traceback
    surfaced = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    while (exc.__cause__ or exc.__context__) is not None:
        exc = exc.__cause__ or exc.__context__
    where = ""
    for fr in traceback.extract_tb(exc.__traceback__):
        if "apache_beam" in fr.filename:
            where = f"{fr.filename.split('apache_beam/', 1)[-1]}:{fr.name}"
    return {"error": type(exc).__name__, "message": str(exc).splitlines()[0] if str(exc) else "", "where": where,
            "raised": surfaced}


def run(paths: list[str], out: Path) -> None:
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(p.glob("*.json")) if p.is_dir() else [p])
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    failed: list[str] = []
    for i, f in enumerate(files):
        case = json.loads(f.read_text())
        try:
            case["expected"], case["stalled"] = run_case(case)
        except Exception as exc:  # Beam itself fails
            if case.get("expect_failure"):  # a case made to show how real Beam fails: a fixture
                case["expected"], case["stalled"], case["failed"] = [], False, failure(exc)
            else:  # unexpected: reported, never a fixture
                failed.append(f"{f.name}: {type(exc).__name__}: {exc}")
                print("FAILED", failed[-1], flush=True)
                continue
        case["oracle"] = f"apache-beam {BEAM_VERSION} BundleBasedDirectRunner"
        (out / f.name).write_text(dump_case(case))
        if (i + 1) % 25 == 0:
            print(f"{i + 1}/{len(files)} cases, {time.time() - t0:.0f} s", flush=True)
    print(f"{len(files) - len(failed)} of {len(files)} cases in {time.time() - t0:.0f} s -> {out}")
    if failed:
        (out / "FAILED.txt").write_text("\n".join(failed) + "\n")


def _call_spec(expr: str) -> dict:
    """A window fn or trigger written in a transcript (Python call syntax, e.g.
    ``AfterWatermark(early=AfterCount(2))``) as a scenario spec, parsed with ast (never
    evaluated). Raises ValueError for what the scenario format does not model."""
    import ast

    def conv(node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            node = ast.Call(func=node, args=[], keywords=[])
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError(f"unsupported expression {ast.unparse(node)}")
        name = node.func.id
        args = [conv(a) for a in node.args]
        kw = {k.arg: conv(k.value) for k in node.keywords}
        # transcript times are whole units; scenarios count milliseconds: 1 unit = 1 ms
        if name in ("FixedWindows", "CustomTimestampingFixedWindowsWindowFn"):
            return {"type": "fixed", "size": args[0], "offset": args[1] if len(args) > 1 else 0}
        if name == "SlidingWindows":
            return {"type": "sliding", "size": args[0], "period": args[1]}
        if name == "Sessions":
            return {"type": "sessions", "gap": args[0]}
        if name == "Default":
            return {"type": "default"}
        if name == "AfterWatermark":
            return {"type": "after_watermark", "early": kw.get("early"), "late": kw.get("late")}
        if name == "AfterCount":
            return {"type": "after_count", "n": args[0]}
        if name == "Repeatedly":
            return {"type": "repeatedly", "trigger": args[0]}
        raise ValueError(f"{name} is outside the scenario format")

    return conv(ast.parse(expr, mode="eval").body)


def transcripts(out: Path) -> None:
    """Beam's own trigger_transcripts.yaml (from the installed SDK) as JSON: each transcript
    with its original text fields and, where it falls inside the scenario format, ``spec``
    (window, trigger, allowed_lateness_ms, accumulation, timestamp_combiner), else
    ``outside`` saying why. Transcript time units become milliseconds."""
    import apache_beam
    import yaml
    src = Path(apache_beam.__file__).parent / "testing" / "data" / "trigger_transcripts.yaml"
    docs = [d for d in yaml.safe_load_all(src.read_text()) if d]
    combiners = {"OUTPUT_AT_EOW": "end_of_window", "OUTPUT_AT_EARLIEST": "earliest",
                 "OUTPUT_AT_LATEST": "latest"}
    seen: dict[str, int] = {}
    for d in docs:
        n = seen[d["name"]] = seen.get(d["name"], 0) + 1
        d["fixture_name"] = d["name"] if n == 1 else f"{d['name']}_{n}"
        why = None
        if "error" in d:
            why = f"a negative transcript: Beam's checker must reject it ({d['error']})"
        if "window_fn" not in d:
            why = (why or "") + "; no window_fn (GlobalWindows), not modelled" if why else \
                "no window_fn: GlobalWindows, not modelled"
        tc = d.get("timestamp_combiner", "OUTPUT_AT_EOW")
        if tc not in combiners:
            why = why or f"timestamp combiner {tc} (a WindowFn-specific output time) is not modelled"
        try:
            spec = {"window": _call_spec(d.get("window_fn", "GlobalWindows")),
                    "trigger": _call_spec(d.get("trigger_fn", "Default")),
                    "allowed_lateness_ms": int(d.get("allowed_lateness", 0)),
                    "accumulation": d.get("accumulation_mode", "accumulating").lower(),
                    "timestamp_combiner": combiners.get(tc)}
        except ValueError as exc:
            spec, why = None, why or str(exc)
        if why:
            d["outside"] = why
        if spec and not why:
            d["spec"] = spec
        elif spec and "error" in d and "window_fn" in d:
            d["spec"] = spec  # negative transcripts inside the format are kept runnable
    out.write_text(json.dumps({"source": f"apache-beam {BEAM_VERSION} "
                               "apache_beam/testing/data/trigger_transcripts.yaml",
                               "transcripts": docs}, indent=1) + "\n")
    print(f"{len(docs)} transcripts, {sum('spec' in d for d in docs)} runnable -> {out}")


def snippets(cases: Path, out: Path) -> None:
    """Run each deploy snippet (``oracles/beam/deploy_snippets.py``): exec its code, take the
    ``windowing`` it defines, and run the case's events through it."""
    docs = []
    for f in sorted(cases.glob("*.json")):
        case = json.loads(f.read_text())
        scope: dict = {}
        exec(compile(case["code"], f.name, "exec"), scope)  # the printed snippet, as a user would paste it
        case["expected"], case["stalled"] = run_case(case, window_into=scope["windowing"])
        case["oracle"] = f"apache-beam {BEAM_VERSION} BundleBasedDirectRunner"
        docs.append(case)
        print(f"{f.name}: {len(case['expected'])} panes{' (stalled)' if case['stalled'] else ''}", flush=True)
    out.write_text(json.dumps({"oracle": f"apache-beam {BEAM_VERSION}", "cases": docs}, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("setup")
    r = sub.add_parser("run")
    r.add_argument("paths", nargs="+")
    r.add_argument("--out", required=True, type=Path)
    tr = sub.add_parser("transcripts")
    tr.add_argument("--out", required=True, type=Path)
    sn = sub.add_parser("snippets")
    sn.add_argument("cases", type=Path)
    sn.add_argument("--out", required=True, type=Path)
    args = ap.parse_args()
    if args.cmd == "setup":
        setup()
        return
    if not _in_env():
        _reexec()
    if args.cmd == "run":
        run(args.paths, args.out)
    elif args.cmd == "snippets":
        snippets(args.cases, args.out)
    else:
        transcripts(args.out)


if __name__ == "__main__":
    main()
