"""``replay([left, right], two_input="interval:LOWER/UPPER")``: Flink's interval join of two
logs, ``left.keyBy(k).intervalJoin(right.keyBy(k)).between(LOWER, UPPER)``.

The operator is a TwoInputStreamOperator (:class:`toolkit.engine.flink.join.IntervalJoinOperator`,
checked against real Flink 2.3 on exact interleavings, tests/fixtures/interval_join): each
input has its own source subtasks (every log its own partitions, generators, idleness and
``source_parallelism``) and its own ``StatusWatermarkValve``; the operator watermark is the
min over the inputs that are not idle (:class:`toolkit.engine.flink.valve.TwoInputValves`). A
record behind that watermark is late: skipped, in ``result.late`` (Flink's
``sideOutputLeftLateData``/``...Right...``), fate ``dropped`` with reason ``late``; every
other record is buffered and joined with each record of the other log (same key) whose
timestamp lies in ``[ts + LOWER, ts + UPPER]`` (right relative to left), as it comes; it is
``on_time`` whether or not it found a partner (``pairs`` in ``fates`` says how many).

Time model: each log's watermarks are computed as a one-log replay computes them (periodic
ticks from its own first arrival, ``interval > 0``); the two inputs are interleaved by
processing time, records before watermark changes at equal times, the left log first.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.settings import Setting, SettingError

JOIN_COLUMNS = ["key", "left_ts", "right_ts", "timestamp", "left_value", "right_value", "left_row", "right_row",
                "watermark", "emit_time", "at_end", "kind", "seq"]


def parse_interval(spec: str) -> tuple[int, int]:
    """``interval:LOWER/UPPER`` (durations, signed; inclusive bounds, Flink's ``between``)."""
    from toolkit.settings import duration

    text = str(spec).strip()
    body = text.split(":", 1)[1] if ":" in text else ""
    lo, sep, hi = body.partition("/")
    if not text.lower().startswith("interval:") or not sep:
        raise SettingError("two_input", f"two_input {spec!r}: an interval join is 'interval:LOWER/UPPER', e.g. "
                           "'interval:-5s/5s' (right.ts - left.ts within [LOWER, UPPER])")
    lower = duration(lo.strip().lstrip("+"), "two_input", allow_negative=True)
    upper = duration(hi.strip().lstrip("+"), "two_input", allow_negative=True)
    if lower > upper:
        raise SettingError("two_input", f"two_input {spec!r}: LOWER must be <= UPPER (Flink: lowerBound <= upperBound)")
    return lower, upper


def check_setting(s: Setting) -> None:
    """What an interval join stage cannot take, named."""
    for name, given in (("stages", bool(s.stages) or s.second_window is not None), ("evictor", s.evictor is not None),
                        ("lateness", s.lateness != 0), ("function", s.function != "count_sum"),
                        ("trigger", str(s.trigger) not in ("event_time", "default"))):
        if given:
            raise SettingError(name, f"an interval join has no {name} (its records are joined as they come and "
                               "dropped when behind the watermark); leave it at its default")
    if s.interval <= 0:
        raise SettingError("interval", "an interval join replay needs periodic watermarks (interval > 0) and logs "
                           "with arrival times")
    if s.watermark_strategy().create().emits_on_event:
        raise SettingError("strategy", f"an interval join replay takes periodic strategies; {s.strategy_name} emits "
                           "on events")


def _input_events(log: Any, s: Setting) -> tuple[dict, list[tuple[int, str, object]], int]:
    """One input: its records (arrival order) and its valve's outputs ``(time, kind, value)``."""
    from toolkit.engine.flink.pipeline import watermark_timeline

    if not hasattr(log, "table") or getattr(log, "is_spark", False):
        raise SettingError("log", "an interval join replays local logs (toolkit.load_log; collect a Spark-backed log "
                           "with log.to_pandas() first)")
    if not log.has_arrival_time:
        raise SettingError("log", "an interval join replay needs arrival times in both logs")
    t = log.table.iloc[log.arrival_order()]
    a = {"ts": t["event_time"].to_numpy(dtype=np.int64), "arr": t["arrival_time"].to_numpy(dtype=np.int64),
         "part": t["partition"].to_numpy(dtype=np.int64), "keys": t["key"].to_numpy(dtype=object),
         "vals": t["value"].to_numpy(), "rows": t["row"].to_numpy(dtype=np.int64)}
    if not s.partitions_as_sources:
        a["part"] = np.zeros_like(a["part"])
    if not len(a["ts"]):
        raise SettingError("log", "a log of the interval join has no valid records")
    tl = watermark_timeline(a["ts"], a["arr"], a["part"], s.watermark_strategy(), interval=s.interval,
                            parallelism=s.source_parallelism, rows=a["rows"], split_discovery=s.split_discovery)
    out: list[tuple[int, str, object]] = []
    wm, status = None, "active"
    for level, _, t, w, st in tl.log:
        if level != "operator":
            continue
        if w is not None and w != wm:
            out.append((int(t), "watermark", int(w)))
            wm = w
        if st != status:
            out.append((int(t), "status", st))
            status = st
    return a, out, int(tl.end_time)


def replay_interval_join(logs: list[Any], s: Setting, spec: str) -> dict:
    """The parts of a :class:`toolkit.replays.run.ReplayResult` (see the module doc)."""
    from toolkit.replays.union import union_logs
    from toolkit.settings import describe_setting

    lower, upper = parse_interval(spec)
    check_setting(s)
    if len(logs) != 2:
        raise SettingError("two_input", f"an interval join joins exactly two logs, got {len(logs)}")
    union, inputs = union_logs(list(logs), 1, True)  # row numbering of both logs (input, input_row)
    arrays, outs, ends = [], [], []
    for i, lg in enumerate(logs):
        a, ev, end = _input_events(lg, s)
        a["rows"] = a["rows"] + np.int64(inputs.offsets[i])
        arrays.append(a)
        outs.append(ev)
        ends.append(end)
    events, joins, late, state, wm_rows = _run_join(arrays, outs, max(ends), lower, upper)
    em, late_df = _join_frames(joins, late)
    rows = union.table["row"].to_numpy(dtype=np.int64)
    fate = np.full(len(rows), "on_time", dtype=object)
    reason = np.full(len(rows), "", dtype=object)
    is_late = np.isin(rows, late_df["row"].to_numpy())
    fate[is_late] = "dropped"
    reason[is_late] = "late"
    pairs = pd.concat([em["left_row"], em["right_row"]]).value_counts()
    fates = pd.DataFrame({"row": rows, "fate": fate, "reason": reason,
                          "pairs": pairs.reindex(rows, fill_value=0).to_numpy(dtype=np.int64),
                          "input": inputs.input_of(rows) + 1, "input_row": inputs.input_row(rows)})
    wms = _watermark_frame(wm_rows)
    state_df = pd.DataFrame(state, columns=["time", "open_windows", "buffered_records"]).astype("int64")
    settings_d = describe_setting(s)
    settings_d.update({"has_arrival_time": True, "inputs": 2, "two_input": f"interval:{lower}/{upper}",
                       "lower_ms": lower, "upper_ms": upper})
    figures = {"pairs": int(len(em)), "pairs_at_end": int(em["at_end"].sum()),
               "left_late": int((late_df["input"] == 1).sum()), "right_late": int((late_df["input"] == 2).sum()),
               "peak_buffered_records": int(state_df["buffered_records"].max()) if len(state_df) else 0}
    steps = _scenario_steps(arrays, outs, events, lower, upper)
    return {"emissions": em, "fates": fates, "late": late_df, "watermarks": wms, "state": state_df,
            "settings": settings_d, "setting": s, "_figures": lambda: dict(figures),
            "_export": lambda stage=1: steps() if callable(steps) else steps}


def _run_join(arrays: list[dict], outs: list[list[tuple]], end: int, lower: int,
              upper: int) -> tuple[list[tuple], list[tuple], list[tuple], list[tuple], list[tuple]]:
    """Feed both inputs' records and watermark outputs through one ``IntervalJoinOperator``, in
    time order (at a time, records before the valves' outputs; both inputs' valves combined),
    then end the input at ``end``. Returns the ordered events, the joins, the late records, the
    state after each valve output and at the end, and the watermark rows (per input and the
    operator's)."""
    from toolkit.engine.flink.join import IntervalJoinOperator
    from toolkit.engine.flink.valve import TwoInputValves
    from toolkit.engine.flink.watermarks import MAX_WATERMARK

    op = IntervalJoinOperator(lower, upper)
    wm_rows: list[tuple] = []
    now = [0]

    def combined(kind: str, value: object) -> None:
        if kind == "watermark":
            op.process_watermark(int(value))  # type: ignore[arg-type]
            wm_rows.append(("operator", 0, now[0], int(value), "active"))

    valves = TwoInputValves(1, 1, combined)
    # one ordered event list: (time, 0 record / 1 valve output, input, index)
    events: list[tuple[int, int, int, int]] = []
    for i, a in enumerate(arrays):
        events += [(int(t), 0, i, j) for j, t in enumerate(a["arr"].tolist())]
        events += [(t, 1, i, j) for j, (t, _, _) in enumerate(outs[i])]
    events.sort()
    joins: list[tuple] = []
    late: list[tuple] = []
    state: list[tuple[int, int, int]] = []

    def collect(at_end: bool) -> None:
        for r in op.drain():
            if r.kind == "join":
                joins.append((r.key, r.left_ts, r.right_ts, r.timestamp, r.left, r.right, r.left_id, r.right_id,
                              r.watermark, r.processing_time, at_end, "join", len(joins) + len(late)))
            else:
                late.append((r.record_id, r.key, r.timestamp, r.value, r.watermark, r.processing_time, r.input))

    for t, kind, i, j in events:
        now[0] = t
        op.set_processing_time(t)
        if kind == 0:
            a = arrays[i]
            op.process_element(i + 1, a["keys"][j], int(a["ts"][j]), a["vals"][j].item() if hasattr(a["vals"][j], "item")
                               else a["vals"][j], int(a["rows"][j]))
        else:
            _, k, v = outs[i][j]
            wm_rows.append((f"input{i + 1}", i + 1, t, v if k == "watermark" else None, v if k == "status" else "active"))
            valves.feed(i, k, v)
        collect(False)
        if kind == 1:
            state.append((t,) + op.state_size())
    now[0] = end
    op.set_processing_time(end)
    op.end_input()
    collect(True)
    state.append((end,) + op.state_size())
    wm_rows.append(("operator", 0, end, MAX_WATERMARK, "active"))
    return events, joins, late, state, wm_rows


def _join_frames(joins: list[tuple], late: list[tuple]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The joined pairs (``JOIN_COLUMNS``) and the late records, typed."""
    em = pd.DataFrame(joins, columns=JOIN_COLUMNS)
    for c in ("left_ts", "right_ts", "timestamp", "left_row", "right_row", "watermark", "emit_time", "seq"):
        em[c] = em[c].astype("int64")
    em["at_end"] = em["at_end"].astype(bool)
    late_df = pd.DataFrame(late, columns=["row", "key", "event_time", "value", "watermark", "arrival_time", "input"])
    late_df = late_df.astype({"row": "int64", "event_time": "int64", "watermark": "int64", "arrival_time": "int64",
                              "input": "int64"})
    return em, late_df


def _watermark_frame(wm_rows: list[tuple]) -> pd.DataFrame:
    """The watermark rows as a frame; MIN (no watermark yet) reads as missing."""
    from toolkit.engine.flink.watermarks import MIN_WATERMARK

    wms = pd.DataFrame(wm_rows, columns=["level", "id", "time", "watermark", "status"])
    wms["watermark"] = pd.array([None if w is None or w == MIN_WATERMARK else int(w) for w in wms["watermark"]],
                                dtype="Int64")
    return wms


def _scenario_steps(arrays, outs, events, lower, upper) -> list[str]:
    """The interleaving the operator saw in IntervalJoinOracle's format (header, then steps)."""
    import json

    lines = [json.dumps({"name": "replay", "lower": lower, "upper": upper})]
    if any(k == "status" for ev in outs for _, k, _ in ev):
        return _refuse_export
    for _t, kind, i, j in events:
        if kind == 0:
            a = arrays[i]
            v = a["vals"][j]
            lines.append(json.dumps({"input": i + 1, "key": str(a["keys"][j]), "ts": int(a["ts"][j]),
                                     "value": v.item() if hasattr(v, "item") else v}, ensure_ascii=False))
        else:
            _, k, v = outs[i][j]
            step = {"input": i + 1, "watermark": int(v)} if k == "watermark" else {"input": i + 1, v: True}
            lines.append(json.dumps(step))
    return lines


def _refuse_export() -> list[str]:
    raise ValueError("this interval join had an idle input: the scenario format has no way to say that a record "
                     "arrives while its input stays idle (in the oracle's sources a record makes its input active); "
                     "export a replay without idleness")


__all__ = ["JOIN_COLUMNS", "parse_interval", "replay_interval_join"]
