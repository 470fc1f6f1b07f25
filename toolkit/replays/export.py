"""What a replay fed its operators, in the oracle's window-scenario format, and its outputs
as the window oracle prints them (to check a replay against real Flink)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.engine.pipeline import PipelineResult, WatermarkTimeline
from toolkit.engine.scenarios.jsonl import dumps
from toolkit.settings import Setting, Tumbling, staggered_offset


def scenario_lines(s: Setting, tl: WatermarkTimeline, a: dict) -> list[str]:
    """Records and operator watermarks in the order the operator saw them (window-scenario format)."""
    if s.function != "count_sum":
        raise ValueError("export supports the default count/sum function only")
    if s.stagger != "aligned" and len(a["arr"]):  # the scenario format has no stagger: the offset it drew
        w = s.window
        s = s.replace(window=Tumbling(w.size, staggered_offset(w, s.stagger, int(a["arr"][0]))), stagger="aligned")
    cfg = s.scenario_config()
    vals = a["vals"]
    if not np.issubdtype(np.asarray(vals).dtype, np.integer):
        v = np.asarray(vals, dtype=float)
        if not np.all(v == np.round(v)):
            raise ValueError("export needs integer values (the scenario format has integer values)")
    out = [dumps(cfg)]
    keys = a["keys"].tolist()
    ts = a["ts"].tolist()
    vl = [int(x) for x in np.asarray(vals).tolist()]
    gaps = a["gap"].tolist() if a.get("gap") is not None else None
    gap_field = cfg["assigner"].get("gap_field", "gap")
    cp = tl.change_pos.tolist()
    cw = tl.change_watermark.tolist()
    j = 0
    for i in range(len(ts)):
        while j < len(cp) and cp[j] <= i:
            out.append(dumps({"watermark": cw[j]}))
            j += 1
        rec = {"key": str(keys[i]), "ts": ts[i], "value": vl[i]}
        if gaps is not None:
            rec[gap_field] = gaps[i]
        out.append(dumps({"record": rec}))
    while j < len(cp):
        out.append(dumps({"watermark": cw[j]}))
        j += 1
    return out


def stage2_lines(s: Setting, res: PipelineResult) -> list[str]:
    """What the second stage saw: stage-1 results (ts = max_timestamp, value = sum) and the
    watermarks stage 1 forwarded, in the window-scenario format."""
    out = [dumps(s.scenario_config(stage=2))]
    for ev in res.stage2_input:
        if ev[0] == "watermark":
            out.append(dumps({"watermark": int(ev[1])}))
        else:
            _, key, ts, value = ev
            if isinstance(value, float) and not value.is_integer():
                raise ValueError("export needs integer values (the scenario format has integer values)")
            out.append(dumps({"record": {"key": str(key), "ts": int(ts), "value": int(value)}}))
    return out


def oracle_lines(result: Any, stage: int = 1) -> list[dict]:
    """Emissions and late records as the window oracle prints them (function ``aggregate``),
    in emission order (``seq``)."""
    items: list[tuple[int, dict]] = []
    em = result.emissions if stage == 1 else result.second_emissions
    late = result.late if stage == 1 else result.second_late
    for r in em.itertuples(index=False):
        if r.kind != "fire":
            continue
        sm = r.sum
        if isinstance(sm, float) and sm.is_integer():
            sm = int(sm)
        items.append((int(r.seq), {
            "kind": "fire", "key": r.key,
            "start": None if pd.isna(r.window_start) else int(r.window_start),
            "end": None if pd.isna(r.window_end) else int(r.window_end),
            "max_ts": int(r.max_timestamp), "values": None, "count": int(r.count), "sum": sm,
            "watermark": int(r.watermark)}))
    for r in late.itertuples(index=False):
        v = r.value
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        items.append((int(r.seq), {"kind": "late", "key": r.key, "ts": int(r.event_time), "value": v}))
    items.sort(key=lambda x: x[0])
    return [d for _, d in items]


