"""What a replay fed its operators, in the oracle's window-scenario format, and its outputs
as the window oracle prints them (to check a replay against real Flink)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.engine.flink.pipeline import PipelineResult, WatermarkTimeline
from toolkit.engine.flink.scenarios.jsonl import dumps
from toolkit.semantics.flink.window_operator import scenario_config, stage_scenario_config
from toolkit.settings import Setting, Stage, Tumbling, staggered_offset


def scenario_lines(s: Setting, tl: WatermarkTimeline, a: dict) -> list[str]:
    """Records and operator watermarks in the order the operator saw them (window-scenario format)."""
    if s.function != "count_sum":
        raise ValueError("export supports the default count/sum function only")
    if s.stagger != "aligned" and len(a["arr"]):  # the scenario format has no stagger: the offset it drew
        w = s.window
        s = s.replace(window=Tumbling(w.size, staggered_offset(w, s.stagger, int(a["arr"][0]))), stagger="aligned")
    cfg = scenario_config(s)
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


def stage_lines(stage: Stage, res: PipelineResult, k: int) -> list[str]:
    """What stage ``k >= 2`` saw: stage ``k - 1``'s results (ts = max_timestamp, value = sum)
    and the watermarks stage ``k - 1`` forwarded, in the window-scenario format."""
    out = [dumps(stage_scenario_config(stage))]
    for ev in res.stage_inputs.get(k, []):
        if ev[0] == "watermark":
            out.append(dumps({"watermark": int(ev[1])}))
        else:
            _, key, ts, value = ev
            if isinstance(value, float) and not value.is_integer():
                raise ValueError("export needs integer values (the scenario format has integer values)")
            out.append(dumps({"record": {"key": str(key), "ts": int(ts), "value": int(value)}}))
    return out


def join_lines(s: Setting, tl: WatermarkTimeline, a: dict, inputs: Any) -> list[str]:
    """A join's interleaving (the union of both inputs, as its one window operator saw it) in
    the window-scenario format with the oracle's full-state ``process`` function; each value
    is written ``2 * value + side`` (side 0 = first input, 1 = second), so the oracle's
    ``values`` say which input every element of a firing came from (:func:`join_counts`)."""
    side = inputs.input_of(a["rows"])
    vals = np.asarray(a["vals"])
    if not np.issubdtype(vals.dtype, np.integer):
        v = vals.astype(float)
        if not np.all(v == np.round(v)):
            raise ValueError("export needs integer values (the scenario format has integer values)")
    enc = dict(a, vals=2 * vals.astype(np.int64) + side)
    lines = scenario_lines(s, tl, enc)
    cfg = scenario_config(s)
    cfg["function"] = "process"
    lines[0] = dumps(cfg)
    return lines


def join_counts(values: list[int]) -> dict:
    """Left/right elements, pairs and the value sum of a join firing from the oracle's
    ``values`` of an exported join (:func:`join_lines`)."""
    left = sum(1 for v in values if v % 2 == 0)
    right = len(values) - left
    return {"count": len(values), "sum": sum(v >> 1 for v in values), "left": left, "right": right, "pairs": left * right}


def oracle_lines(result: Any, stage: int = 1) -> list[dict]:
    """Emissions and late records as the window oracle prints them (function ``aggregate``),
    in emission order (``seq``). A join's first stage: ``values`` is None and ``left``,
    ``right``, ``pairs`` are added (compare with :func:`join_counts` of the oracle's)."""
    items: list[tuple[int, dict]] = []
    if getattr(result, "pipeline", None):
        em, late = result.pipeline[stage - 1].emissions, result.pipeline[stage - 1].late
    else:
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
        if "pairs" in em.columns:
            items[-1][1].update(left=int(r.left), right=int(r.right), pairs=int(r.pairs))
    for r in late.itertuples(index=False):
        v = r.value
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        items.append((int(r.seq), {"kind": "late", "key": r.key, "ts": int(r.event_time), "value": v}))
    items.sort(key=lambda x: x[0])
    return [d for _, d in items]


def valve_lines(result: Any) -> list[str]:
    """What the first operator's ``StatusWatermarkValve`` received: every source subtask's
    watermark and status changes, in order, one channel per subtask (the valve-scenario
    format of ``../shared/oracle``): for a union, the subtasks of every log."""
    s = result.setting
    tl = result.timeline
    out = [dumps({"channels": int(s.source_parallelism)})]
    state: dict[int, tuple] = {}
    for level, sid, _t, wm, status in tl.log:
        if level != "subtask":
            continue
        prev_wm, prev_status = state.get(sid, (None, "active"))
        if status != prev_status:
            out.append(dumps({"channel": int(sid), "status": status}))
        if wm is not None and wm != prev_wm:
            out.append(dumps({"channel": int(sid), "watermark": int(wm)}))
        state[sid] = (wm, status)
    return out


def valve_outputs(result: Any) -> list[tuple[str, Any]]:
    """The operator watermarks (and idle/active changes) the replay's valve produced, as
    ``("watermark", w)`` / ``("status", s)``, to compare with the valve oracle's output."""
    out: list[tuple[str, Any]] = []
    wm, status = None, "active"
    for level, _sid, _t, w, st in result.timeline.log:
        if level != "operator":
            continue
        if st != status:
            out.append(("status", st))
            status = st
        if w is not None and w != wm:
            out.append(("watermark", int(w)))
            wm = w
    return out
