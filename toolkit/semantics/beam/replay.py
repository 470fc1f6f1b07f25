"""Replay log arrays through Apache Beam's semantics (``toolkit.engine.beam``).

A log has no Beam source, so the watermark comes from the same strategies as the Flink side
(``toolkit.engine.flink.pipeline.watermark_timeline``: per-partition generators, periodic
emission every ``interval`` of processing time, the valve). A Flink watermark W promises no
record at or before W, Beam's none before it: the Beam step receives ``W + 1 ms`` (for the
bounded-out-of-orderness generator, ``max - delay``). Records enter in arrival order; the
clock (``AfterProcessingTime``) is the arrival time; the end of the log advances the
watermark to the end of time (a bounded source: those panes are ``at_end``).

Times are milliseconds outside; inside, the engine counts microseconds, the Python SDK's
granularity, exactly as the committed real-Beam corpus was checked. A pane's
``timestamp`` (its output timestamp) is reported in ms, floored (an end-of-window pane of
[0, 10 s) says 9999 ms, as the Java SDK would).

Processing-time triggers follow the Python SDK (the checked truth): a processing-time
timer's time is compared with the window end as if it were a watermark, so with epoch
arrival times an ``AfterProcessingTime`` firing after the window end is a LATE pane (see
docs/beam_semantics.md; Java runners do not do this).

Fates, one per record: ``on_time`` (in an EARLY or ON_TIME pane of one of its windows),
``late_accepted`` (only in LATE panes), ``dropped`` (in no pane) with a reason: ``expired``
(every window was past end + allowed lateness on arrival), ``finished`` (a window's trigger
had finished), ``never_fired`` (taken but never emitted: a trigger that did not fire again,
in Beam a stalled pipeline).

``toolkit.replay(log, semantics="beam", ...)`` and the sweeps share one driver and one
definition of the figures (:mod:`toolkit.semantics.beam.figures`); the sweep's key shards are
:mod:`toolkit.semantics.beam.sweep`'s; the scenario-style :func:`replay_beam` stays for arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from toolkit.engine.beam.pane import EARLY, ON_TIME
from toolkit.engine.beam.runner import GroupByKeyStep
from toolkit.engine.beam.scenario import US_PER_MS
from toolkit.engine.flink.pipeline import watermark_timeline
from toolkit.engine.flink.watermarks import BoundedOutOfOrderness, WatermarkStrategy
from toolkit.semantics.beam.figures import drive, figures
from toolkit.semantics.beam.windowing import beam_windowing

EMISSION_COLUMNS = ["key", "window_start", "window_end", "timestamp", "pane", "timing",
                    "nonspeculative_index", "is_first", "is_last", "count", "sum", "emit_time", "at_end"]


@dataclass
class BeamReplay:
    """``emissions``: one row per pane (EMISSION_COLUMNS, ms); ``fates``: one row per record
    in the order given (``fate``, ``reason``); ``stalled``: a watermark hold was left at the
    end (Beam's DirectRunner would never finish); ``watermarks``: (time, watermark) of each
    Beam watermark advance, in ms."""

    emissions: pd.DataFrame
    fates: pd.DataFrame
    stalled: bool
    watermarks: pd.DataFrame

    def summary(self) -> dict:
        """Counts: records by fate, panes by timing, and whether it stalls."""
        f = self.fates["fate"].value_counts()
        t = self.emissions["timing"].value_counts()
        return {"records": int(len(self.fates)), "on_time": int(f.get("on_time", 0)),
                "late_accepted": int(f.get("late_accepted", 0)), "dropped": int(f.get("dropped", 0)),
                "panes": int(len(self.emissions)), "early_panes": int(t.get("EARLY", 0)),
                "on_time_panes": int(t.get("ON_TIME", 0)), "late_panes": int(t.get("LATE", 0)),
                "stalled": bool(self.stalled)}


def replay_beam(event_time, arrival_time, keys, values, *, window: dict, trigger: dict | None = None,
                allowed_lateness: int = 0, accumulation: str = "accumulating",
                timestamp_combiner: str = "end_of_window", strategy: WatermarkStrategy | None = None,
                delay: int = 0, interval: int = 200, partition=None) -> BeamReplay:
    """Replay the records (arrays of equal length, ms) under Beam's ``WindowInto(window,
    trigger, allowed_lateness, accumulation_mode, timestamp_combiner)`` + GroupByKey, the
    watermark from ``strategy`` (default: bounded out-of-orderness with ``delay``)."""
    ts = np.asarray(event_time, dtype=np.int64)
    arr = np.asarray(arrival_time, dtype=np.int64)
    keys = np.asarray(keys, dtype=object)
    vals = np.asarray(values)
    n = len(ts)
    if not (len(arr) == len(keys) == len(vals) == n):
        raise ValueError("event_time, arrival_time, keys and values must have the same length")
    if n == 0:
        raise ValueError("no records to replay")
    windowing = beam_windowing(window, trigger, allowed_lateness=allowed_lateness,
                               accumulation=accumulation, timestamp_combiner=timestamp_combiner)
    order = np.argsort(arr, kind="stable")
    ts_o, arr_o = ts[order], arr[order]
    part = np.zeros(n, np.int64) if partition is None else np.asarray(partition, dtype=np.int64)[order]
    tl = watermark_timeline(ts_o, arr_o, part, strategy or BoundedOutOfOrderness(delay), interval=interval)
    change_pos = tl.change_pos if tl.change_pos is not None else np.zeros(0, np.int64)

    step = GroupByKeyStep(windowing)
    clock = 0
    rows: list[tuple] = []
    wm_rows: list[tuple[int, int]] = []

    def at(time_ms: int) -> None:
        nonlocal clock
        if time_ms * US_PER_MS > clock:
            step.advance_processing_time(time_ms * US_PER_MS - clock)  # panes of due PT timers
            clock = time_ms * US_PER_MS

    def emit(panes, time_ms, at_end=False) -> None:
        for p in panes:
            rows.append((p.key, p.window_start // US_PER_MS, p.window_end // US_PER_MS,
                         p.timestamp // US_PER_MS, p.pane.index, p.pane.timing, p.pane.nonspeculative_index,
                         p.pane.is_first, p.pane.is_last, p.values, time_ms, at_end))

    k = 0
    for i in range(n + 1):
        while k < len(tl) and (i == n or change_pos[k] <= i):
            t = int(tl.time[k])
            before = len(step.panes)
            at(t)
            emit(step.panes[before:], t)
            w = int(tl.watermark[k]) + 1  # Flink's "at or before" -> Beam's "before"
            wm_rows.append((t, w))
            emit(step.advance_watermark(w * US_PER_MS), t)
            k += 1
        if i == n:
            break
        t = int(arr_o[i])
        before = len(step.panes)
        at(t)
        emit(step.panes[before:], t)
        # the payload is the record's position: membership is exact; sums use the real values
        emit(step.element(str(keys[order[i]]), int(order[i]), int(ts_o[i]) * US_PER_MS), t)
    end = int(tl.end_time) if len(tl) else int(arr_o[-1])
    emit(step.finish(), end, at_end=True)

    in_early_or_on_time = np.zeros(n, bool)
    in_any = np.zeros(n, bool)
    out = []
    for key, ws, we, tsp, idx, timing, nsi, first, last, ids, t, at_end in rows:
        ids = np.asarray(ids, dtype=np.int64)
        in_any[ids] = True
        if timing in (EARLY, ON_TIME):
            in_early_or_on_time[ids] = True
        v = vals[ids]
        out.append((key, ws, we, tsp, idx, timing, nsi, first, last, len(ids),
                    v.sum() if len(ids) else 0, t, at_end))
    em = pd.DataFrame(out, columns=EMISSION_COLUMNS)
    fate = np.where(in_early_or_on_time, "on_time", np.where(in_any, "late_accepted", "dropped")).astype(object)
    reason = np.full(n, "", dtype=object)
    reasons_by_record: dict[int, set] = {}
    for d in step.drops:
        reasons_by_record.setdefault(int(d.value), set()).add(d.reason)
    for r in np.flatnonzero(~in_any):
        got = reasons_by_record.get(int(r), set())
        reason[r] = "finished" if "finished" in got else ("expired" if "expired" in got else "never_fired")
    fates = pd.DataFrame({"fate": fate, "reason": reason})
    wms = pd.DataFrame(wm_rows, columns=["time", "watermark"], dtype="int64")
    return BeamReplay(em, fates, step.stalled, wms)


def beam_parts(log, s, a: dict) -> dict:
    """The fields of a ``ReplayResult`` for ``log`` under the Beam setting ``s`` (``a``: the log's
    columns in arrival order, ``toolkit.replays.run._log_arrays``). ``summary()`` is the sweep's
    row for ``s`` (the same :func:`drive` and :func:`figures`), plus Beam's own counts."""
    from types import SimpleNamespace

    from toolkit.fast.evaluate import Shard
    from toolkit.metrics.summary import merge_config, partial_rows
    from toolkit.replays.frames import fates_frame, watermarks_frame
    from toolkit.settings import SettingError, describe_setting
    from toolkit.sweeps.timelines import build_timelines, local_sources

    if not a["has_arr"]:
        raise SettingError("semantics", "semantics='beam' takes processing time (AfterProcessingTime, the periodic "
                           "watermark) from arrival times, but the log has none; load it with an arrival-time column")
    n = len(a["ts"])
    if n == 0:
        raise SettingError("log", "the log has no valid records to replay")
    table = log.table
    tl = build_timelines([s], local_sources(table))[0]
    shard = Shard(a["keys"], a["ts"], a["arr"], a["rows"], values=a["vals"])
    keys = shard.keys[shard.key_code]
    d = drive(keys, shard.ts, shard.arrival, shard.row, s, tl)
    part, fate = figures(shard, s, d)
    invalid = int(getattr(log, "n_invalid", 0))
    summary = merge_config(partial_rows(0, part), start_time=tl.start_time, end_time=tl.end_time, invalid=invalid)
    # emissions
    vals = np.asarray(shard.values)
    beam_wm = dict(d.beam_watermarks)
    wm_times = np.asarray(list(beam_wm), dtype=np.int64)
    wm_vals = np.asarray(list(beam_wm.values()), dtype=np.int64)
    rows = []
    for seq, p in enumerate(d.panes):
        key, ws, we, tsp, idx, timing, nsi, first, last, ids, t, at_end, pos, cause = p
        ids_a = np.asarray(ids, dtype=np.int64)
        sm = vals[ids_a].sum() if len(ids_a) else 0
        j = int(np.searchsorted(wm_times, t, side="right")) - 1
        wm = pd.NA if at_end or j < 0 else int(wm_vals[j])
        rows.append((key, ws, we, we - 1, idx, "at_end" if at_end else timing.lower(), "fire", len(ids_a), sm, sm, wm, t,
                     bool(at_end), seq, timing, bool(first), bool(last), nsi, tsp, cause, shard.row[ids_a].tolist()))
    cols = ["key", "window_start", "window_end", "max_timestamp", "pane", "timing", "kind", "count", "sum", "value",
            "watermark", "emit_time", "at_end", "seq", "beam_timing", "is_first", "is_last", "nonspeculative_index",
            "timestamp", "cause", "rows"]
    em = pd.DataFrame(rows, columns=cols)
    for c in ("window_start", "window_end", "count", "emit_time", "watermark"):
        em[c] = pd.array(em[c].tolist(), dtype="Int64")
    for c in ("max_timestamp", "pane", "seq", "nonspeculative_index", "timestamp"):
        em[c] = em[c].astype("int64")
    em["at_end"] = em["at_end"].astype(bool)
    # fates and the records Beam dropped (no late side output in Beam: ``late`` lists them)
    fates = fates_frame(log, shard.row, fate)
    reasons: dict[int, set] = {}
    for dr in d.drops:
        reasons.setdefault(int(dr.value), set()).add(dr.reason)
    dropped = np.flatnonzero(fate == 2)
    why = ["finished" if "finished" in reasons.get(int(i), ()) else "expired" if "expired" in reasons.get(int(i), ())
           else "never_fired" for i in dropped.tolist()]
    wm_at = tl.watermark_before(shard.arrival[dropped], shard.row[dropped]) + 1 if len(dropped) else np.zeros(0, np.int64)
    late = pd.DataFrame({"row": pd.array(shard.row[dropped], dtype="Int64"), "key": keys[dropped],
                         "event_time": shard.ts[dropped].astype(np.int64), "value": vals[dropped],
                         "watermark": np.asarray(wm_at, dtype=np.int64),
                         "arrival_time": pd.array(shard.arrival[dropped], dtype="Int64"),
                         "seq": np.arange(len(dropped), dtype=np.int64), "reason": pd.array(why, dtype=object)})
    fates["reason"] = ""
    if len(dropped):
        fates.loc[fates.index[pd.Index(fates["row"]).get_indexer(shard.row[dropped])], "reason"] = why
    # watermarks: the Flink-side levels (partition, subtask, operator); Beam's = operator + 1 ms
    strategy = s.watermark_strategy()
    wtl = watermark_timeline(a["ts"], a["arr"], a["part"] if s.partitions_as_sources else np.zeros(n, np.int64), strategy,
                             interval=s.interval, parallelism=s.source_parallelism, marker=a["marker"], rows=a["rows"])
    wms = watermarks_frame(wtl, SimpleNamespace(end_time=d.end_time), True)
    if len(d.samples):
        smp = np.asarray(d.samples, dtype=np.int64)
        order = np.lexsort((smp[:, 2], smp[:, 1], smp[:, 0]))
        smp = smp[order]
        state = pd.DataFrame({"time": smp[:, 3], "open_windows": np.cumsum(smp[:, 4]),
                              "buffered_records": np.cumsum(smp[:, 5])}).astype("int64")
    else:
        state = pd.DataFrame({"time": [], "open_windows": [], "buffered_records": []}).astype("int64")
    settings_d = describe_setting(s)
    settings_d["has_arrival_time"] = True
    timing = em["beam_timing"].value_counts()
    summary.update({"late_side_output": 0, "early_panes": int(timing.get("EARLY", 0)),
                    "on_time_panes": int(timing.get("ON_TIME", 0)), "late_panes": int(timing.get("LATE", 0)),
                    "empty_panes": int((em["count"] == 0).sum()), "stalled": bool(d.stalled),
                    "deployable": "beam.WindowInto(...) in the Python SDK: toolkit.deploy(setting, engine='beam')",
                    "settings": settings_d})
    return {"emissions": em, "fates": fates, "late": late, "watermarks": wms, "state": state, "settings": settings_d,
            "setting": s, "timeline": tl, "_summary": summary}
