"""Small hand-made logs, replay results and sweep results following the data contracts.

Used so the charts, report and explorer can be tested without depending on the replay and
sweep engines' exact numbers.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from toolkit.log import EventLog

MIN = -(2**63)
MAX = 2**63 - 1


def small_log(keys=("a", "b", "<script>alert(1)</script>")) -> EventLog:
    # 12 records over 2 partitions; arrival times 0..1100 step 100
    event = [100, 250, 80, 400, 390, 700, 120, 900, 950, 600, 1000, 1050]
    arrival = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200]
    key = [keys[i % len(keys)] for i in range(12)]
    part = [i % 2 for i in range(12)]
    return EventLog.from_arrays(event, arrival, key=np.array(key, dtype=object), partition=part, value=1)


SMALL_FATES = ["on_time", "on_time", "late_accepted", "on_time", "on_time", "on_time",
               "dropped", "on_time", "on_time", "dropped", "on_time", "on_time"]


def fake_result(log: EventLog, fates=SMALL_FATES) -> SimpleNamespace:
    table = log.table
    fates_df = pd.DataFrame({"row": table["row"].to_numpy(), "fate": fates})
    wm = []
    for t in range(0, 1400, 200):
        for p in (0, 1):
            wm.append(("partition", p, t, MIN if t == 0 else t - 200 - 50 * p, "active"))
        wm.append(("operator", "op", t, MIN if t == 0 else t - 250, "active"))
    wm.append(("operator", "op", 1400, MAX, "active"))
    watermarks = pd.DataFrame(wm, columns=["level", "id", "time", "watermark", "status"])
    emissions = pd.DataFrame([
        # key, start, end, maxts, pane, timing, kind, count, sum, value, watermark, emit_time, at_end
        ("a", 0, 500, 499, 0, "on_time", "fire", 3, 3, 3, 550, 800, False),
        ("a", 0, 500, 499, 1, "late", "fire", 4, 4, 4, 550, 1000, False),
        ("b", 0, 500, 499, 0, "on_time", "fire", 2, 2, 2, 550, 800, False),
        ("b", 500, 1000, 999, 0, "at_end", "fire", 3, 3, 3, MAX, 1400, True),
        ("a", 500, 1000, 999, 0, "on_time", "fire", 1, 1, 1, 1000, 1200, False),
        ("a", 500, 1000, 999, 1, "late", "retract", 1, 1, 1, 1000, 1300, False),
    ], columns=["key", "window_start", "window_end", "max_timestamp", "pane", "timing", "kind", "count", "sum",
                "value", "watermark", "emit_time", "at_end"])
    state = pd.DataFrame({"time": [0, 200, 400, 600, 800, 1000, 1200],
                          "open_windows": [0, 2, 3, 4, 2, 3, 1], "buffered_records": [0, 2, 4, 6, 3, 4, 1]})
    late = pd.DataFrame({"row": [6, 9], "key": ["a", "a"], "event_time": [120, 600], "value": [1, 1],
                         "watermark": [450, 750], "arrival_time": [700, 1000]})
    return SimpleNamespace(fates=fates_df, watermarks=watermarks, emissions=emissions, state=state, late=late,
                           settings={"window": "tumbling:500ms", "delay_ms": 50, "lateness_ms": 200,
                                     "interval_ms": 200},
                           summary=lambda: {"records": 12, "on_time": 9, "late_accepted": 1, "dropped": 2})


def fake_sweep() -> pd.DataFrame:
    rows = []
    for d in (0, 100, 250, 500, 1000):
        for lat in (0, 1000):
            comp_first = min(1.0, 0.90 + d / 10000)
            comp_final = min(1.0, comp_first + (0.05 if lat else 0))
            rows.append({
                "window": "tumbling:1s", "delay_ms": d, "lateness_ms": lat, "interval_ms": 200,
                "records": 1000, "on_time": int(comp_first * 1000), "late_accepted": int((comp_final - comp_first) * 1000),
                "dropped": 1000 - int(comp_final * 1000), "invalid": 0,
                "completeness_first": comp_first, "completeness_final": comp_final,
                "exact_windows": comp_first - 0.02, "latency_p50_ms": 200 + d, "latency_p95_ms": 300 + d,
                "latency_p99_ms": 400 + d + (5 if lat else 0), "latency_max_ms": 500 + d, "firings": 100,
                "late_firings": 10 if lat else 0, "retractions": 0, "peak_state_windows": 10 + lat // 100,
                "peak_state_records": 100 + lat // 10, "mean_state_records": 50.5 + lat / 100,
            })
    return pd.DataFrame(rows)
