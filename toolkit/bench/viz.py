"""``python -m toolkit bench viz [--records N] [--svg]``: time the charts on a large generated log.

Generates ``records`` records with numpy (arrival times 1 ms apart on average, log-normal
transport delays, 2% held back up to 5 s, Zipf-like keys, 4 partitions) and a replay-shaped
result whose fates follow the bounded-out-of-orderness rule at the arrival watermark
(dropped when the record's lateness exceeds the delay), its watermark series (every 200 ms
tick, per partition and at the operator), one emission per key and 1 s window, and the state
series. Then it times every record-level chart (building the Altair chart and its JSON
spec) and reports the spec sizes: the charts must take seconds and embed thousands of rows,
never millions. The replay itself is not timed here (see the engine and sweep benchmarks).
Prints seconds, spec size and rows embedded per chart.
"""
from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

import toolkit.viz as viz
from toolkit.bench._timing import timed
from toolkit.errors import UserError
from toolkit.log import EventLog


def make_log(records: int, seed: int = 0, delay_ms: int = 300) -> tuple[Any, Any]:
    """A generated EventLog of ``records`` rows and a matching replay-shaped result."""
    rng = np.random.default_rng(seed)
    n = int(records)
    arrival = np.cumsum(rng.integers(0, 3, n, dtype=np.int64)) + 1_700_000_000_000
    transport = np.minimum(rng.lognormal(4.0, 0.8, n).astype(np.int64), 10_000)
    held = rng.random(n) < 0.02
    transport[held] += rng.integers(0, 5_000, int(held.sum()))
    event = arrival - transport
    keys = np.array([f"k{i}" for i in range(100)], dtype=object)
    key = keys[np.minimum(rng.zipf(1.5, n) - 1, 99)]
    partition = rng.integers(0, 4, n, dtype=np.int64)
    table = pd.DataFrame({"row": np.arange(n, dtype=np.int64), "event_time": event, "arrival_time": arrival,
                          "key": key, "partition": partition, "value": np.ones(n, dtype=np.int64)})
    quarantine = pd.DataFrame({"row": pd.Series([], dtype=np.int64), "column": [], "reason": [], "raw": []})
    log = EventLog(table, quarantine, source=f"generated({n})")

    # fates: late when behind the running max by more than the delay
    running = np.maximum.accumulate(event)
    prev = np.r_[np.iinfo(np.int64).min, running[:-1]]
    late = np.maximum(prev, event) - event > delay_ms
    fate = np.where(late, "dropped", "on_time").astype(object)
    fates = pd.DataFrame({"row": table["row"].to_numpy(), "fate": pd.Categorical(fate, categories=[
        "on_time", "late_accepted", "dropped"])})
    # watermarks at 200 ms ticks
    ticks = np.arange(arrival[0] + 200, arrival[-1] + 200, 200, dtype=np.int64)
    pos = np.searchsorted(arrival, ticks, side="right") - 1
    frames = []
    for p in range(4):
        mask = partition == p
        run_p = np.maximum.accumulate(np.where(mask, event, np.iinfo(np.int64).min))
        frames.append(pd.DataFrame({"level": "partition", "id": p, "time": ticks,
                                    "watermark": run_p[pos] - delay_ms - 1, "status": "active"}))
    op = np.min(np.stack([f["watermark"].to_numpy() for f in frames]), axis=0)
    frames.append(pd.DataFrame({"level": "operator", "id": 0, "time": ticks, "watermark": op, "status": "active"}))
    watermarks = pd.concat(frames, ignore_index=True)
    # one emission per key and 1 s window
    starts = np.arange((event.min() // 1000) * 1000, event.max(), 1000, dtype=np.int64)
    k = len(keys)
    ws = np.repeat(starts, k)
    emit_pos = np.minimum(np.searchsorted(op, ws + 999, side="left"), len(ticks) - 1)
    emissions = pd.DataFrame({
        "key": np.tile(keys, len(starts)), "window_start": ws, "window_end": ws + 1000, "max_timestamp": ws + 999,
        "pane": 0, "timing": "on_time", "kind": "fire", "count": 1, "sum": 1, "value": 1,
        "watermark": op[emit_pos], "emit_time": ticks[emit_pos], "at_end": False})
    open_windows = np.full(len(ticks), k * 2)
    state = pd.DataFrame({"time": ticks, "open_windows": open_windows,
                          "buffered_records": np.diff(np.r_[0, pos + 1]).cumsum() % 5000})
    result = SimpleNamespace(fates=fates, watermarks=watermarks, emissions=emissions, state=state,
                             late=pd.DataFrame(), settings={"delay": delay_ms},
                             summary=lambda: {"records": n})
    return log, result


def chart_timings(records: int = 10_000_000, seed: int = 0, svg: bool = False) -> list[dict[str, Any]]:
    """Time each chart on a generated log; returns rows ``chart, seconds, spec_bytes, rows_embedded``."""
    (log, result), generation = timed(lambda: make_log(records, seed))
    rows = [{"chart": f"generate {records:,} records (not a chart)", "seconds": generation.wall,
             "spec_bytes": 0, "rows_embedded": 0}]
    charts = {
        "event_time_scatter": lambda: viz.event_time_scatter(log, result),
        "lateness_histogram": lambda: viz.lateness_histogram(log, result, delay_ms=300),
        "watermark_lag": lambda: viz.watermark_lag(result),
        "firing_timeline": lambda: viz.firing_timeline(result),
        "state_over_time": lambda: viz.state_over_time(result),
        "drops_by_partition": lambda: viz.drops_by_partition(log, result),
        "drops_by_key": lambda: viz.drops_by_key(log, result),
    }
    for name, make in charts.items():
        (spec, text), t = timed(lambda: _spec_and_text(make))
        row = {"chart": name, "seconds": t.wall, "spec_bytes": len(text),
               "rows_embedded": sum(len(v) for v in spec.get("datasets", {}).values())}
        if svg:
            import vl_convert

            _, t = timed(lambda: vl_convert.vegalite_to_svg(spec))
            row["svg_seconds"] = t.wall
        rows.append(row)
    return rows


def _spec_and_text(make) -> tuple[dict, str]:
    spec = make().to_dict()
    return spec, json.dumps(spec)


def run(args) -> int:
    if args.records < 1:
        raise UserError(f"--records must be positive, got {args.records}")
    rows = chart_timings(args.records, args.seed, svg=getattr(args, "svg", False))
    for r in rows:
        extra = f"  svg {r['svg_seconds']:.2f} s" if "svg_seconds" in r else ""
        print(f"{r['chart']:<44} {r['seconds']:7.2f} s  spec {r['spec_bytes'] / 1e3:8.1f} kB  "
              f"rows {r['rows_embedded']:>6,}{extra}")
    return 0
