"""``python -m toolkit bench beam``: the Beam engine's replay speed, and real Beam's on the same records.

A synthetic log like ``data/sample.csv`` (the ``sample`` model: 3 partitions, one silent for
40 s, 8 keys, lognormal delays with a held-back share; ``--records``, default 2,000, and
``--seed``) is replayed with ``semantics="beam"``, 1 s windows, a 500 ms delay, under a few
trigger shapes (``--only``):

- ``default``: ``tumbling:1s``, the default trigger (one ON_TIME pane per window);
- ``early_late``: ``tumbling:1s``, ``after_watermark(early=after_count:5,late=after_count:1)``,
  1 s allowed lateness, accumulating (EARLY, ON_TIME and LATE panes);
- ``sessions``: ``session:100ms``, ``after_watermark(late=after_count:1)``, 1 s allowed lateness,
  discarding (merging windows, evaluated with every key in one step).

- ``fast``: the closed form against the replay (``toolkit.semantics.beam.fast``, sweep rows with
  ``path="fast"`` against ``path="engine"``) on the same log: 8 sweep rows (``tumbling:1s`` and
  ``sliding:1s/250ms``, the default trigger and ``after_watermark(late=after_count:1)``,
  accumulating and discarding; 500 ms delay, 1 s allowed lateness);
- ``fast_year``: the same on a year-like log (the ``year`` model: 330,000 records over 2023,
  16 keys, 3 partitions, delays of minutes, 3 % held back up to 4 hours), ``tumbling:1h`` and
  ``sliding:1h/15min``, 15 min delay and allowed lateness; the replay on its first row only
  (about 40 s of CPU a row).

For the ``fast`` cases (:func:`fast_case`): the timelines (once per sweep) and the shared setup
(arrival sort, window pairs, runs: once per window) are timed apart from each row's evaluation,
as ``bench sweep`` (a) times Flink's closed form; printed: record-configurations per CPU-second
of the evaluation, the CPU seconds of the whole in-process ``toolkit.sweep`` of those rows, and
the replay's record-configurations per CPU-second on the same rows; the figures of every row
timed on both paths must be equal (else exit 1). Real Beam is not asked (a sweep row's figures
are the replay's, checked against real Beam by the corpus).

For the other cases: ``toolkit.replay`` end to end (records per CPU second, wall and CPU seconds), then the
same records as one Beam scenario (oracles/beam/README.md: the elements in arrival order, the
watermark advances the replay gives Beam, processing-time advances when the trigger has a
processing-time part) through our GroupByKey step (:func:`toolkit.engine.beam.run_scenario`)
and, when the Beam oracle's virtualenv exists (``python oracles/beam/beam_oracle.py setup``),
through real Apache Beam's BundleBasedDirectRunner (a ``TestStream``), in one process started
once (Beam's import and a warm-up pipeline are not timed). Printed: both times, the ratio, and
whether the panes are equal (per key, in order: window, PaneInfo, output timestamp, values).
The cases have no processing-time trigger: a log's scenario with one (processing time advanced to
each arrival) did not finish in real Beam's DirectRunner within 150-600 s here, even at 20
records (our engine says such pipelines stall; the runner's stall monitor did not end them), so
real Beam is not asked. Without the virtualenv it says so and prints ours alone (``--no-beam``: ours alone anyway,
for logs too big for real Beam). On a shared machine trust CPU seconds
more than wall seconds (Beam's are its process's, all threads).
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from toolkit.bench._timing import timed
from toolkit.bench.engines import year_log

DEFAULT_RECORDS = 2_000
"""The default ``--records``: real Beam's DirectRunner takes 5-15 ms of wall time per TestStream
event here, so the three cases finish in a couple of minutes."""

CASES: dict[str, dict[str, Any]] = {
    "default": dict(window="tumbling:1s", delay="500ms"),
    "early_late": dict(window="tumbling:1s", delay="500ms", lateness="1s",
                       beam_trigger="after_watermark(early=after_count:5,late=after_count:1)"),
    "sessions": dict(window="session:100ms", delay="500ms", lateness="1s", accumulation="discarding",
                     beam_trigger="after_watermark(late=after_count:1)"),
}

#: the closed form against the replay: log -> (windows, delay, lateness, rows replayed)
FAST_CASES: dict[str, dict[str, Any]] = {
    "fast": dict(windows=["tumbling:1s", "sliding:1s/250ms"], delay="500ms", lateness="1s", replayed=8),
    "fast_year": dict(windows=["tumbling:1h", "sliding:1h/15min"], delay="15min", lateness="15min", replayed=1),
}
FAST_TRIGGERS = ["default", "after_watermark(late=after_count:1)"]
YEAR = dict(records=330_000, keys=16, partitions=3)
"""The year-like log of ``fast_year`` (``toolkit.bench.engines.year_log``: one year; the model has 3 partitions)."""

ORACLE = Path(__file__).resolve().parents[2] / "oracles" / "beam" / "beam_oracle.py"
"""Real Beam's runner script (in the source tree; absent from an installed package)."""

_DRIVER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import beam_oracle
cases = json.load(open(sys.argv[2]))
beam_oracle.run_case(cases[0]["warmup"])  # Beam's import and the runner's first start: not timed
out = []
for c in cases:
    w0, c0 = time.perf_counter(), time.process_time()
    panes, stalled = beam_oracle.run_case(c["case"])
    out.append({"panes": panes, "stalled": stalled, "wall": time.perf_counter() - w0,
                "cpu": time.process_time() - c0})
json.dump(out, open(sys.argv[3], "w"))
"""


def beam_python() -> tuple[Path | None, str]:
    """The Beam oracle's interpreter, or None and why not (never sets it up: that takes minutes)."""
    if not ORACLE.exists():
        return None, "the Beam oracle (oracles/beam/beam_oracle.py) is not in this installation"
    spec = importlib.util.spec_from_file_location("_beam_oracle", ORACLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # definitions only; it re-executes itself only from main()
    if not Path(mod.ENV_PYTHON).exists():
        return None, (f"the Beam oracle's virtualenv is missing ({mod.ENV}; set it up once with "
                      "'python oracles/beam/beam_oracle.py setup', a few minutes)")
    return Path(mod.ENV_PYTHON), f"apache-beam {mod.BEAM_VERSION} BundleBasedDirectRunner"


def scenario(log: Any, setting: Any) -> dict:
    """The log's records under ``setting`` as one Beam scenario (oracles/beam/README.md, ms):
    elements in arrival order (value = the record's position, unique), before each record the
    Beam watermark advances the replay makes (Flink's operator watermark ``W`` of the setting's
    strategy, delay, interval and partitions, as Beam's ``W + 1 ms``), and, when the trigger has
    a processing-time part, processing time advanced to each arrival (it starts at 0)."""
    from toolkit.engine.flink.pipeline import watermark_timeline
    from toolkit.semantics.beam.windowing import window_spec

    t = log.table
    order = np.argsort(t["arrival_time"].to_numpy(np.int64), kind="stable")
    ts = t["event_time"].to_numpy(np.int64)[order]
    arr = t["arrival_time"].to_numpy(np.int64)[order]
    keys = t["key"].astype(str).to_numpy(object)[order]
    part = (t["partition"].to_numpy(np.int64)[order] if setting.partitions_as_sources and "partition" in t
            else np.zeros(len(t), np.int64))
    tl = watermark_timeline(ts, arr, part, setting.watermark_strategy(), interval=setting.interval,
                            parallelism=setting.source_parallelism)
    change_pos = tl.change_pos if tl.change_pos is not None else np.zeros(0, np.int64)
    uses_clock = setting.beam_trigger.uses_processing_time
    events: list[dict] = []
    clock, last_wm, k = 0, None, 0

    def clock_to(ms: int) -> None:
        nonlocal clock
        if uses_clock and ms > clock:
            events.append({"processing_time_advance": int(ms - clock)})
            clock = ms

    for i in range(len(ts) + 1):
        while k < len(tl) and (i == len(ts) or change_pos[k] <= i):
            clock_to(int(tl.time[k]))
            w = int(tl.watermark[k]) + 1
            if last_wm is None or w > last_wm:  # TestStream: watermarks strictly increase
                events.append({"watermark": w})
                last_wm = w
            k += 1
        if i == len(ts):
            break
        clock_to(int(arr[i]))
        events.append({"element": {"key": keys[i], "value": i, "ts": int(ts[i])}})
    spec = setting.beam_trigger.to_spec()
    return {"name": str(setting), "window": window_spec(setting), "trigger": spec,
            "allowed_lateness_ms": int(setting.lateness), "accumulation": setting.accumulation,
            "timestamp_combiner": setting.timestamp_combiner, "events": events}


def per_key(panes: list[dict]) -> dict[str, list[dict]]:
    """Panes grouped by key, each key's in emission order (how Beam's output is compared)."""
    out: dict[str, list[dict]] = {}
    for p in panes:
        out.setdefault(p["key"], []).append(p)
    return out


def same_panes(result: Any, panes: list[dict]) -> bool:
    """``toolkit.replay``'s panes are the scenario's: per key, window, timing, index and count."""
    em = result.emissions
    ours = sorted((str(k), int(ws), int(we), int(i), str(t), int(c)) for k, ws, we, i, t, c in
                  em[["key", "window_start", "window_end", "pane", "beam_timing", "count"]].itertuples(index=False))
    theirs = sorted((str(p["key"]), int(p["window"][0]), int(p["window"][1]), int(p["index"]), p["timing"],
                     int(p["count"])) for p in panes)
    return ours == theirs


def _run_beam(python: Path, cases: list[dict]) -> list[dict]:
    warmup = {"window": {"type": "fixed", "size": 10}, "events": [{"element": {"key": "a", "value": 1, "ts": 1}}]}
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp, "cases.json"), Path(tmp, "panes.json")
        src.write_text(json.dumps([{"case": c, "warmup": warmup} for c in cases]))
        done = subprocess.run([str(python), "-c", _DRIVER, str(ORACLE.parent), str(src), str(dst)],
                              capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        if done.returncode:
            raise RuntimeError(f"real Beam failed:\n{done.stderr[-3000:]}")
        return json.loads(dst.read_text())


def run(args: Any) -> int:
    from toolkit.log.synth import generate

    n = DEFAULT_RECORDS if getattr(args, "records", None) is None else int(args.records)
    if n < 1:
        raise ValueError(f"--records must be >= 1, got {n}")
    only = args.only.split(",") if getattr(args, "only", None) else [*CASES, *FAST_CASES]
    unknown = [o for o in only if o not in CASES and o not in FAST_CASES]
    if unknown:
        raise ValueError(f"--only {','.join(unknown)}: choose among {', '.join([*CASES, *FAST_CASES])}")
    log = generate("sample", n, seed=int(args.seed))
    load = os.getloadavg()
    print(f"beam replay benchmark: {n:,} records ('sample' model, 8 keys, 3 partitions, seed {args.seed}); "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    replays = [o for o in only if o in CASES]
    ok = _replay_cases(log, replays, args) if replays else True
    for name in (o for o in only if o in FAST_CASES):
        case_log = log if name == "fast" else year_log(YEAR["records"], YEAR["keys"], int(args.seed))
        ok &= fast_case(case_log, name)
    return 0 if ok else 1


def _replay_cases(log: Any, only: list[str], args: Any) -> bool:
    """The replay, our step on the log as a scenario and real Beam (when it runs) for ``only``;
    False when real Beam's panes differ from ours."""
    import toolkit
    from toolkit.engine.beam import run_scenario
    from toolkit.settings import Setting

    n = log.n_records
    python, oracle = (None, "--no-beam") if getattr(args, "no_beam", False) else beam_python()
    print(f"real Beam: {oracle}" if python else f"real Beam: not run: {oracle}; ours alone", flush=True)
    toolkit.replay(log, Setting.parse(semantics="beam", **CASES[only[0]]))  # imports and first calls: not timed
    rows, cases = [], []
    for name in only:
        s = Setting.parse(semantics="beam", **CASES[name])
        r, t_replay = timed(lambda: toolkit.replay(log, s))
        case = scenario(log, s)
        (panes, stalled, _), t_ours = timed(lambda: run_scenario(case))
        if not same_panes(r, panes):
            raise RuntimeError(f"{name}: toolkit.replay's panes are not those of the same records as a scenario")
        rows.append((name, s, r.summary(), t_replay, panes, stalled, t_ours, len(case["events"])))
        cases.append(case)
    beam = _run_beam(python, cases) if python else [None] * len(rows)
    ok = True
    for (name, s, summ, t_replay, panes, stalled, t_ours, n_events), real in zip(rows, beam):
        print(f"\n{name}: {s}")
        print(f"  toolkit.replay      wall {t_replay.wall:7.3f} s  cpu {t_replay.cpu:7.3f} s  "
              f"{n / max(t_replay.cpu, 1e-9):>10,.0f} records/cpu-s  ({summ['firings']:,} panes, "
              f"{summ['dropped']:,} dropped)")
        print(f"  ours, scenario      wall {t_ours.wall:7.3f} s  cpu {t_ours.cpu:7.3f} s  "
              f"{n / max(t_ours.cpu, 1e-9):>10,.0f} records/cpu-s  ({n_events:,} events, {len(panes):,} panes"
              f"{', stalled' if stalled else ''})")
        if real is None:
            continue
        same = per_key(panes) == per_key(real["panes"]) and stalled == real["stalled"]
        ok &= same
        print(f"  real Beam           wall {real['wall']:7.3f} s  cpu {real['cpu']:7.3f} s  "
              f"{n / max(real['cpu'], 1e-9):>10,.0f} records/cpu-s  ({len(real['panes']):,} panes"
              f"{', stalled' if real['stalled'] else ''})")
        print(f"  real Beam / ours    {real['cpu'] / max(t_ours.cpu, 1e-9):.1f}x cpu, "
              f"{real['wall'] / max(t_ours.wall, 1e-9):.1f}x wall; panes "
              + ("equal" if same else "DIFFER"), flush=True)
    if not ok:
        print("\nthe panes differ from real Beam's: a conformance bug (add the case to tests/fixtures/beam)",
              file=sys.stderr)
    return ok


def fast_configs(name: str) -> list:
    """The sweep rows of a ``fast`` case (:data:`FAST_CASES`)."""
    from toolkit.settings import Setting

    c = FAST_CASES[name]
    return [Setting.parse(semantics="beam", window=w, beam_trigger=t, accumulation=a, delay=c["delay"], lateness=c["lateness"])
            for w in c["windows"] for t in FAST_TRIGGERS for a in ("accumulating", "discarding")]


def fast_case(log: Any, name: str) -> bool:
    """The closed form against the replay on ``log`` (module doc); False when a row's figures differ."""
    import toolkit
    from toolkit.metrics.summary import merge_config, partial_rows
    from toolkit.semantics import get
    from toolkit.sweeps.timelines import local_sources

    configs, t = fast_configs(name), log.table
    beam = get(configs[0].semantics)
    n, replayed = len(t), FAST_CASES[name]["replayed"]
    print(f"\n{name}: the fast path against the replay, {len(configs)} sweep rows x {n:,} records "
          f"({t['key'].nunique()} keys, {t['partition'].nunique()} partitions)", flush=True)
    timelines, build = timed(lambda: beam.timelines(configs, local_sources(t)))
    shard, setup = timed(lambda: _fast_setup(t, configs, timelines))
    for i in {str(c.window): i for i, c in enumerate(configs)}.values():  # first calls per window: not timed
        beam.evaluate(shard, configs[i], "fast", timelines[i])
    parts, cpu = [], []
    for i, c in enumerate(configs):
        part, tm = timed(lambda: beam.evaluate(shard, c, "fast", timelines[i]))
        parts.append(part)
        cpu.append(tm.cpu)
    rows, sweep_t = timed(lambda: toolkit.sweep(log, configs, progress=False))
    print(f"  timelines {build.cpu:.2f} s CPU (once per sweep); shared setup (arrival sort, window pairs, runs, distinct window ends) "
          f"{setup.cpu:.2f} s CPU (once per window)")
    for c, sec in zip(configs, cpu):
        print(f"  fast    {str(c.window):<18} {str(c.beam_trigger):<38} {c.accumulation:<12} {sec * 1000:8.1f} ms CPU  "
              f"{n / max(sec, 1e-9) / 1e6:6.1f} M records/CPU-s")
    total = sum(cpu)
    print(f"  fast path: {total:.2f} s CPU for {len(configs)} rows => {n * len(configs) / max(total, 1e-9) / 1e6:.1f} M "
          f"record-configurations per CPU-second (evaluation)")
    print(f"  toolkit.sweep of the {len(configs)} rows in-process (paths {', '.join(sorted(set(rows['path'])))}): "
          f"{sweep_t.cpu:.2f} s CPU, {sweep_t.wall:.2f} s wall = {sweep_t.cpu / len(configs):.2f} s CPU a row")
    ok, rep_cpu = True, 0.0
    for i, c in enumerate(configs[:replayed]):
        part, tm = timed(lambda: beam.evaluate(shard, c, "beam", timelines[i]))
        rep_cpu += tm.cpu
        span = dict(start_time=timelines[i].start_time, end_time=timelines[i].end_time)
        ok &= _same(merge_config(partial_rows(0, part), **span), merge_config(partial_rows(0, parts[i]), **span))
    rate = n * replayed / max(rep_cpu, 1e-9)
    print(f"  replay (path='engine') on {replayed} of the rows: {rep_cpu:.2f} s CPU => {rate:,.0f} record-configurations "
          f"per CPU-second; fast / replay {n * replayed / max(sum(cpu[:replayed]), 1e-9) / rate:,.0f}x per CPU-second; "
          f"figures {'equal' if ok else 'DIFFER'}", flush=True)
    return ok


def _same(a: dict, b: dict) -> bool:
    """Equal figures (a missing latency, NaN, equals NaN)."""
    return all(a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]) for k in a)


def _fast_setup(t: Any, configs: list, timelines: dict) -> Any:
    """One shard of the whole log with its window pairs, runs and distinct window ends built
    (shared by every row of a window)."""
    from toolkit.fast.evaluate import FixedWindows, Shard

    shard = Shard(t["key"].to_numpy(dtype=object), t["event_time"].to_numpy(), t["arrival_time"].to_numpy(),
                  t["row"].to_numpy())
    for i, c in enumerate(configs):
        shard.runs(FixedWindows.of(c.window), timelines[i].shape)
        shard.pairs(FixedWindows.of(c.window)).distinct_max_ts()
    return shard
