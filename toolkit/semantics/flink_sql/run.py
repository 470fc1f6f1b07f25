"""One Flink SQL setting run over a log's columns: the setting as the simulator's scenario header,
the log as the source's steps, and what the simulator returns turned into arrays.

The per-record Python objects the simulator takes (``toolkit.engine.flink_sql``: one dict per
record and step) live only inside :func:`run_setting`; what it returns (:class:`SqlRun`) is
columnar: per record in arrival order, per emitted row, and the watermark timelines.

- **Setting -> scenario** (:func:`scenario_head`): ``window`` gives the window TVF
  (``tumbling:SIZE`` = TUMBLE, ``sliding:SIZE/SLIDE`` = HOP, ``cumulate:SIZE/STEP`` = CUMULATE,
  ``session:GAP`` = SESSION partitioned by the key),
  ``window_syntax=legacy`` the legacy group window; ``delay`` is the ``WATERMARK`` interval,
  ``interval`` ``pipeline.auto-watermark-interval``, ``idleness``
  ``table.exec.source.idle-timeout``, ``early_fire`` / ``late_fire`` / ``allow_lateness`` the
  ``table.exec.emit.*`` options, ``mini_batch`` ``table.exec.mini-batch.allow-latency`` (set:
  enabled), ``watermark_emit`` the table's ``scan.watermark.emit.strategy``.
- **Log -> steps**: each partition of the log is a split (``partitions_as_sources``; else one),
  the declared partitions too (a silent one holds the watermark); records in arrival order with
  the periodic ticks between them (``toolkit.engine.flink_sql.source_steps``). The simulator
  sees no values (SUM is taken here from the log's values of each row's records, so any number
  works) and keys as text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from toolkit.engine.flink.watermarks import MAX_WATERMARK
from toolkit.engine.flink_sql import simulate, source_steps
from toolkit.settings import Cumulate, Session, Setting, SettingError, Sliding, Tumbling

#: what a simulator message names -> the setting the user typed (the most specific first)
_NAMED = (("idle-timeout", "idleness"), ("early-fire", "early_fire"), ("late-fire", "late_fire"),
          ("allow-lateness", "allow_lateness"), ("mini-batch", "mini_batch"), ("auto-watermark-interval", "interval"),
          ("emit.strategy", "watermark_emit"), ("Session window", "window_syntax"), ("window", "window"),
          ("HOP", "window"), ("CUMULATE", "window"))


def sql_duration(ms: int) -> str:
    """A duration as Flink's table options write it (``'<n> ms'``)."""
    return f"{int(ms)} ms"


def window_head(s: Setting) -> dict:
    """The scenario's ``case.window`` of a setting (see the module doc)."""
    w, legacy = s.window, s.window_syntax == "legacy"
    prefix = "legacy_" if legacy else ""
    if isinstance(w, Cumulate):
        return {"kind": "cumulate", "size": w.size, "step": w.step, "offset": w.offset}
    if isinstance(w, Tumbling):
        return {"kind": prefix + "tumble", "size": w.size, "offset": w.offset}
    if isinstance(w, Sliding):
        return {"kind": prefix + "hop", "size": w.size, "slide": w.slide, "offset": w.offset}
    if isinstance(w, Session):
        return {"kind": prefix + "session", "gap": w.gap}
    raise SettingError("window", f"window {w} has no Flink SQL window (TUMBLE, HOP, CUMULATE, SESSION)")


def table_options(s: Setting) -> dict[str, str]:
    """The ``SET`` options of a setting (Flink SQL's names and spellings)."""
    out: dict[str, str] = {}
    if s.idleness is not None:
        out["table.exec.source.idle-timeout"] = sql_duration(s.idleness)
    for which, on in (("early", s.early_fire), ("late", s.late_fire)):
        if on:
            out[f"table.exec.emit.{which}-fire.enabled"] = "true"
            out[f"table.exec.emit.{which}-fire.delay"] = "0 ms"
    if s.allow_lateness:
        out["table.exec.emit.allow-lateness"] = sql_duration(s.allow_lateness)
    if s.mini_batch is not None:
        out["table.exec.mini-batch.enabled"] = "true"
        out["table.exec.mini-batch.allow-latency"] = sql_duration(s.mini_batch)
        out["table.exec.mini-batch.size"] = "1000"
    return out


def scenario_head(s: Setting, partitions: list[int]) -> dict:
    """The simulator's scenario header of a setting over these source partitions."""
    head: dict[str, Any] = {"case": {"window": window_head(s), "delay": int(s.delay), "interval": int(s.interval)},
                            "partitions": list(partitions), "options": table_options(s), "with": {}}
    if s.watermark_emit != "on-periodic":
        head["with"]["scan.watermark.emit.strategy"] = s.watermark_emit
    return head


@dataclass
class SqlRun:
    """One setting's run, columnar (records in arrival order ``0..n-1``).

    Records: ``codes`` (fate: 0 on time = in a row that is not a late firing, 1 late accepted = only
    in late firings, 2 dropped = in no row), ``reason`` (``late``,
    ``never_fired`` or ``""``), ``met`` (the window operator's watermark when it judged the
    record; ``MIN`` before any, ``has_met`` False if it never reached it). Rows in emission
    order: ``r_key`` (key text), ``r_start``, ``r_end``, ``r_op`` (``+I``, ``-U``, ``+U``),
    ``r_count``, ``r_cause`` (``watermark``, ``record``, ``end_of_input``), ``r_time`` (processing
    time; the end time at the end of input), ``r_wm`` (the operator watermark then), ``r_timing``
    (``on_time``, ``early``, ``late``, ``at_end``), ``r_pane``, ``r_members`` / ``r_offsets`` (the
    records of each row, CSR). Watermarks: ``source`` and ``operator`` as ``(time, watermark)``,
    ``status`` as ``(time, status)``. ``end_time``: the last step's processing time;
    ``late_counter``: Flink's ``numLateRecordsDropped``."""

    n: int
    codes: np.ndarray
    reason: np.ndarray
    met: np.ndarray
    has_met: np.ndarray
    r_key: np.ndarray
    r_start: np.ndarray
    r_end: np.ndarray
    r_op: np.ndarray
    r_count: np.ndarray
    r_cause: np.ndarray
    r_time: np.ndarray
    r_wm: np.ndarray
    r_timing: np.ndarray
    r_pane: np.ndarray
    r_members: np.ndarray
    r_offsets: np.ndarray
    source: tuple[np.ndarray, np.ndarray]
    operator: tuple[np.ndarray, np.ndarray]
    status: tuple[np.ndarray, np.ndarray]
    start_time: int
    end_time: int
    late_counter: int


def _simulate(s: Setting, ts: np.ndarray, arr: np.ndarray, keys: np.ndarray, part: np.ndarray,
              partitions: list[int]) -> tuple[Any, list[dict]]:
    records = [{"t": int(t), "arrival": int(a), "k": str(k), "p": int(p), "v": 0}
               for t, a, k, p in zip(ts.tolist(), arr.tolist(), keys.tolist(), part.tolist())]
    try:
        steps = source_steps(records, int(s.interval), sparse=True,  # only the ticks where something can change
                             idle_timeout=None if s.idleness is None else int(s.idleness))
        return simulate(scenario_head(s, partitions), steps), steps
    except ValueError as exc:
        msg = str(exc)
        name = next((n for word, n in _NAMED if word in msg), "semantics")
        raise SettingError(name, f"Flink SQL refuses this setting: {msg}") from None


def run_setting(s: Setting, a: dict, sources: Any = None) -> SqlRun:
    """Run ``s`` over ``a`` (the log's columns in arrival order: ``ts``, ``arr``, ``keys``,
    ``part``, ``has_arr``); ``sources``: the declared partitions (each a split, with records or not)."""
    if not a["has_arr"]:
        raise SettingError("semantics", "semantics='flink_sql' reads records in arrival order, but the log has no "
                           "arrival times; load it with an arrival-time column")
    n = len(a["ts"])
    if not n:
        raise SettingError("log", "the log has no valid records to replay")
    ts, arr = np.asarray(a["ts"], np.int64), np.asarray(a["arr"], np.int64)
    part = np.asarray(a["part"], np.int64) if s.partitions_as_sources else np.zeros(n, np.int64)
    partitions = sorted(set(np.unique(part).tolist()) | (set(int(p) for p in sources) if
                                                         s.partitions_as_sources and sources is not None else set()))
    sim, steps = _simulate(s, ts, arr, np.asarray(a["keys"], dtype=object), part, partitions)
    step_time = np.array([st["tick"] if "tick" in st else st["record"]["arrival"] for st in steps], np.int64)
    step_record = np.cumsum([("record" in st) for st in steps]) - 1  # the record of a record step
    is_record = np.array(["record" in st for st in steps], bool)
    del steps
    end_time = int(step_time[-1])
    met = np.full(n, np.iinfo(np.int64).min, np.int64)
    has_met = np.zeros(n, bool)
    kept = np.zeros(n, bool)
    for f in sim.fates:
        i = f["index"]
        met[i], has_met[i], kept[i] = f["watermark"], True, f["fate"] == "kept"
    run = _rows(sim, n, met, step_time, step_record, is_record, end_time)
    in_rows = np.zeros(n, bool)
    fire = run["r_op"] != "-U"
    on_time = np.zeros(n, bool)
    for j in np.flatnonzero(fire):
        members = run["r_members"][run["r_offsets"][j]:run["r_offsets"][j + 1]]
        in_rows[members] = True
        if run["r_timing"][j] != "late":  # a late firing (legacy late-fire) is what allow_lateness kept
            on_time[members] = True
    codes = np.where(~in_rows, 2, np.where(on_time, 0, 1)).astype(np.int8)
    reason = np.where(codes == 2, np.where(has_met & ~kept, "late", "never_fired"), "").astype(object)
    lines = sim.lines
    src = [(x["step"], x["ts"]) for x in lines if x["kind"] == "source_watermark"]
    sink = [(x["step"], x["ts"]) for x in lines if x["kind"] == "watermark"]
    status = [(x["step"], x["status"]) for x in lines if x["kind"] == "source_status"]
    late_counter = sum(int(v) for x in lines if x["kind"] == "metrics" for v in x["late"].values())

    def timed(pairs: list, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
        st = np.array([p[0] for p in pairs], np.int64)
        t = np.where(st < len(step_time), step_time[np.minimum(st, len(step_time) - 1)], end_time) if len(st) else st
        return t.astype(np.int64), np.array([p[1] for p in pairs], dtype=dtype)

    return SqlRun(n=n, codes=codes, reason=reason, met=met, has_met=has_met, source=timed(src, np.int64),
                  operator=timed(sink, np.int64), status=timed(status, object), start_time=int(arr.min()),
                  end_time=end_time, late_counter=late_counter, **run)


def _rows(sim: Any, n: int, met: np.ndarray, step_time: np.ndarray, step_record: np.ndarray, is_record: np.ndarray,
          end_time: int) -> dict:
    """The emitted rows as arrays (see :class:`SqlRun`)."""
    em = sim.emitted
    sink_wm = {x["step"]: x["ts"] for x in sim.lines if x["kind"] == "watermark"}
    m = len(em)
    key = np.array([r["key"] for r in em], dtype=object)
    start = np.array([r["start"] for r in em], np.int64)
    end = np.array([r["end"] for r in em], np.int64)
    op = np.array([r["op"] for r in em], dtype=object)
    cause = np.array([r["cause"] for r in em], dtype=object)
    step = np.array([r["step"] for r in em], np.int64)
    count = np.array([r["count"] for r in em], np.int64)
    members = [np.asarray(r["indices"], np.int64) for r in em]
    offsets = np.zeros(m + 1, np.int64)
    offsets[1:] = np.cumsum([len(x) for x in members])
    flat = np.concatenate(members) if m else np.zeros(0, np.int64)
    time = np.full(m, end_time, np.int64)
    wm = np.full(m, MAX_WATERMARK, np.int64)
    timing = np.full(m, "at_end", dtype=object)
    pane = np.zeros(m, np.int64)
    seen: dict[tuple, int] = {}
    for j in range(m):
        c, st = cause[j], int(step[j])
        if c == "end_of_input":
            pass
        elif c == "watermark":
            time[j], wm[j], timing[j] = step_time[st], sink_wm[st], "on_time"
        else:  # a record fired it (legacy early / late firing): the operator's watermark when it came
            time[j] = step_time[st]
            wm[j] = met[step_record[st]] if is_record[st] else MAX_WATERMARK
            timing[j] = "early" if end[j] - 1 > wm[j] else "late"
        w = (key[j], int(start[j]), int(end[j]))
        if op[j] != "-U":
            pane[j] = seen.get(w, 0)
            seen[w] = pane[j] + 1
        else:
            pane[j] = seen.get(w, 1) - 1
    return {"r_key": key, "r_start": start, "r_end": end, "r_op": op, "r_count": count, "r_cause": cause,
            "r_time": time, "r_wm": wm, "r_timing": timing, "r_pane": pane, "r_members": flat, "r_offsets": offsets}
