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

``toolkit.replay(log, semantics="beam", ...)`` and the sweeps use :func:`drive` (one step for the
records of a set of whole keys, the watermark changes of the operator timeline
``toolkit.sweeps.timelines`` builds for Flink, processing-time timers fired at their own time)
and :func:`beam_partial` (the figures in the sweeps' mergeable partial form); the scenario-style
:func:`replay_beam` stays for arrays. Figures (same columns and meanings as the other engines):

- a true window is the batch answer: fixed and sliding windows as assigned; sessions merged by
  Beam's rule (``[ts, ts + gap)`` windows merge when they overlap: one at exactly the previous
  session's end starts a new session, where Flink's touching windows merge);
- ``firings``: panes (an empty discarding ON_TIME pane included); ``late_firings``: LATE panes;
  ``at_end_firings``: panes the end of input fired; ``retractions``: 0 (no retracting mode);
- a window's *first result* is its first pane: ``completeness_first`` = records in it over the
  true pairs, ``completeness_final`` = distinct records in any of its panes, ``exact_windows``
  = first pane held every true record; latency = the first pane's emission time minus the window
  end (negative for EARLY panes; windows first fired by the end of input are left out);
- fates as above (``on_time``: in an EARLY or ON_TIME pane);
- state: windows holding elements and the elements they hold, after every record, watermark
  change and processing-time firing (the Python SDK never garbage-collects a window: an
  accumulating window keeps its elements to the end).

**Sharding by key.** Keys share one thing in Beam's GroupByKey: the step's *output* watermark,
``min(input watermark, every key's earliest hold - 1 tick)``, which decides whether an
element-fired pane is EARLY and which elements set holds. With fixed or sliding windows,
``timestamp_combiner=end_of_window`` and a trigger that fires every window at the watermark
(``default`` or ``after_watermark(...)`` without processing-time parts) no hold is ever below
the input watermark (a window's hold is its end - 1 µs, released by its watermark pane; late
data sets none), so the output watermark equals the input watermark and keys are independent
(:func:`shardable` says why sessions and processing-time triggers are not): :data:`SHARDABLE` configurations are evaluated in
key shards (:func:`drive` checks the rule on every step and raises if it ever fails). The others
are evaluated with every key in one step (``toolkit.sweeps.whole``: in-process, or for a
Spark-backed log in one Spark task holding the whole log).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from toolkit.engine.beam.driver import Windowing
from toolkit.engine.beam.pane import EARLY, ON_TIME
from toolkit.engine.beam.runner import GroupByKeyStep
from toolkit.engine.beam.scenario import US_PER_MS, window_fn_from_spec
from toolkit.engine.beam.timestamp_combiners import TimestampCombiner
from toolkit.engine.beam.triggers import trigger_from_spec
from toolkit.engine.flink.pipeline import watermark_timeline
from toolkit.engine.flink.watermarks import BoundedOutOfOrderness, WatermarkStrategy

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


def beam_windowing(window: dict, trigger: dict | None = None, *, allowed_lateness: int = 0,
                   accumulation: str = "accumulating",
                   timestamp_combiner: str = "end_of_window") -> Windowing:
    """``WindowInto``'s configuration from scenario-style specs (ms; see oracles/beam/README.md)."""
    if not isinstance(allowed_lateness, (int, np.integer)) or allowed_lateness < 0:
        raise ValueError(f"allowed_lateness must be a non-negative number of ms, got {allowed_lateness!r}")
    return Windowing(window_fn_from_spec(window), trigger_from_spec(trigger),
                     int(allowed_lateness) * US_PER_MS, accumulation, TimestampCombiner(timestamp_combiner))


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


# ----------------------------------------------------------------------------------------------
# Settings -> Beam, the driver over a key shard, figures
# ----------------------------------------------------------------------------------------------

def window_spec(setting) -> dict:
    """The Beam window spec (scenario format, ms) of a ``semantics="beam"`` setting's window."""
    from toolkit.settings import Session, Sliding, Tumbling

    w = setting.window
    if isinstance(w, Tumbling):
        return {"type": "fixed", "size": int(w.size), "offset": int(w.offset)}
    if isinstance(w, Sliding):
        return {"type": "sliding", "size": int(w.size), "period": int(w.slide), "offset": int(w.offset)}
    if isinstance(w, Session):
        return {"type": "sessions", "gap": int(w.gap)}
    raise ValueError(f"window {w} has no Beam form")


def setting_windowing(setting) -> Windowing:
    """``WindowInto``'s configuration of a ``semantics="beam"`` setting (µs ticks)."""
    return beam_windowing(window_spec(setting), setting.beam_trigger.to_spec(), allowed_lateness=int(setting.lateness),
                          accumulation=setting.accumulation, timestamp_combiner=setting.timestamp_combiner)


def shardable(setting) -> bool:
    """Keys are independent (see the module doc): fixed or sliding windows, end-of-window output
    timestamps and a trigger that fires every window at the watermark, with no processing-time
    part. (Sessions are not: a merged session keeps the holds of the windows it merged; nor is an
    ``after_processing_time`` part: its firing at a clock past the window end counts as the
    watermark's, and the next element sets a hold that no watermark pane releases.)"""
    from toolkit.settings import Session

    t = setting.beam_trigger
    return (setting.timestamp_combiner == "end_of_window" and t.watermark_rooted and not t.uses_processing_time
            and not isinstance(setting.window, Session))


_PANE_COLS = ("key", "window_start", "window_end", "timestamp", "index", "timing", "nonspeculative_index", "is_first",
              "is_last", "ids", "emit_time", "at_end", "pos", "cause")


@dataclass
class Drive:
    """What :func:`drive` saw: ``panes`` (tuples of ``_PANE_COLS``, emission order), ``drops``
    (the step's), ``samples`` (pos, arrival, row, time, d_windows, d_records) state deltas,
    ``stalled``, ``beam_watermarks`` ((time, Beam input watermark in ms) per change)."""

    panes: list
    drops: list
    samples: list
    stalled: bool
    beam_watermarks: list
    end_time: int


def _beam_wm_us(w: int) -> int:
    """Flink's "at or before W" -> Beam's "before W + 1 ms", in µs (capped below the end of time)."""
    from toolkit.engine.beam.runner import END_OF_TIME

    return min((int(w) + 1) * US_PER_MS, END_OF_TIME - 1)


def drive(keys, ts, arrival, rows, setting, timeline, *, check_independent: bool = False) -> Drive:
    """Run records (arrival order; ``keys`` objects, ``ts``/``arrival`` ms, ``rows`` the log rows)
    through one Beam GroupByKey step under ``setting``, with the watermark changes of the operator
    ``timeline`` (each change ``W`` becomes Beam's ``W + 1 ms``; the timeline's ordering rule
    places it among the records), processing time = arrival time, a processing-time timer fired
    at its own time, the end of input at ``timeline.end_time``. Payloads are record positions.
    ``check_independent``: raise if the step's output watermark ever lags its input watermark
    (keys would then not be independent: see the module doc)."""
    from toolkit.engine.beam.runner import GroupByKeyStep as Step

    step = Step(setting_windowing(setting))
    n = len(ts)
    arr_l = np.asarray(arrival, dtype=np.int64).tolist()
    ts_l = np.asarray(ts, dtype=np.int64).tolist()
    key_l = [str(k) for k in np.asarray(keys, dtype=object).tolist()]
    rows_np = np.asarray(rows, dtype=np.int64)
    c_time = timeline.shape.time.tolist()
    c_wm = timeline.watermark.tolist()
    n_changes = len(c_time)
    seg = timeline.ticks_before(np.asarray(arrival, dtype=np.int64), rows_np) if n else np.zeros(0, np.int64)
    c_pos = np.searchsorted(seg, np.arange(n_changes, dtype=np.int64), side="right").tolist()
    c_time_np = np.asarray(c_time, dtype=np.int64)
    panes: list = []
    samples: list = []
    held: dict[str, tuple[int, int]] = {}
    wms: list = []

    def sample(pos, a, r, t, touched) -> None:
        dw = dr = 0
        for k in touched:
            now = step.states[k].held() if k in step.states else (0, 0)
            old = held.get(k, (0, 0))
            if now != old:
                dw += now[0] - old[0]
                dr += now[1] - old[1]
                held[k] = now
        if dw or dr:
            samples.append((pos, a, r, t, dw, dr))

    def record(new, t, at_end, pos, cause) -> set:
        touched = set()
        for p in new:
            touched.add(p.key)
            panes.append((p.key, p.window_start // US_PER_MS, p.window_end // US_PER_MS, p.timestamp // US_PER_MS,
                          p.pane.index, p.pane.timing, p.pane.nonspeculative_index, p.pane.is_first, p.pane.is_last,
                          p.values, t, at_end, pos, cause))
        return touched

    def check() -> None:
        if check_independent and step.output_wm < step.input_wm:
            raise RuntimeError("internal: a Beam watermark hold lags the input watermark for a configuration "
                               f"evaluated in key shards ({setting}); keys are not independent")

    def clock_to(t: int) -> None:
        """Fire every processing-time timer due at or before ``t`` (ms), each at its own time."""
        target = t * US_PER_MS
        while True:
            nxt = step.next_processing_timer()
            if nxt is None or nxt > target:
                break
            new = step.advance_processing_time(max(0, nxt - step.processing_time))
            tm = -(-nxt // US_PER_MS)  # the timer's time, ms (whole ms: delays are whole seconds)
            k = int(np.searchsorted(c_time_np, tm, side="left"))
            sample(2 * k, tm, -1, tm, record(new, tm, False, 2 * k, "processing_time"))
            check()
        if target > step.processing_time:
            step.advance_processing_time(target - step.processing_time)  # no timer is due: no pane

    i = 0
    for k in range(n_changes + 1):
        p = c_pos[k] if k < n_changes else n
        while i < p:
            a = arr_l[i]
            clock_to(a)
            new = step.element(key_l[i], i, ts_l[i] * US_PER_MS)
            touched = record(new, a, False, 2 * k, "element")
            touched.add(key_l[i])
            sample(2 * k, a, int(rows_np[i]), a, touched)
            check()
            i += 1
        if k == n_changes:
            break
        t = c_time[k]
        clock_to(t)
        w = _beam_wm_us(c_wm[k])
        wms.append((t, w // US_PER_MS))
        new = step.advance_watermark(w)
        sample(2 * k + 1, 0, 0, t, record(new, t, False, 2 * k + 1, "watermark"))
        check()
    end = int(timeline.end_time)
    clock_to(end)
    new = step.finish()
    record(new, end, True, 2 * n_changes + 1, "end")
    return Drive(panes, step.drops, samples, step.stalled, wms, end)


def beam_sessions(key_code: np.ndarray, ts: np.ndarray, gap: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """True sessions by Beam's rule (windows ``[ts, ts + gap)`` merge when they overlap):
    (session id per record, session key code, start, end)."""
    order = np.lexsort((ts, key_code))
    c, t = key_code[order], ts[order]
    new = np.ones(len(t), dtype=bool)
    if len(t) > 1:
        new[1:] = (c[1:] != c[:-1]) | (t[1:] >= t[:-1] + np.int64(gap))
    sid_sorted = np.cumsum(new) - 1
    sid = np.empty(len(t), dtype=np.int64)
    sid[order] = sid_sorted
    firsts = np.flatnonzero(new)
    lasts = np.append(firsts[1:], len(t)) - 1 if len(t) else firsts  # no record: no session
    return sid, c[firsts], t[firsts], t[lasts] + np.int64(gap)


def figures(shard, setting, d: Drive) -> dict:
    """The mergeable partial (``toolkit.metrics.summary``) of a shard's :class:`Drive`, and the
    fate code of every shard record (0 on_time, 1 late_accepted, 2 dropped)."""
    from toolkit.fast.evaluate import FixedWindows as FW
    from toolkit.settings import Session

    n = shard.n
    in_eot = np.zeros(n, bool)
    in_any = np.zeros(n, bool)
    if isinstance(setting.window, Session):
        sid, _, s_start, s_end = beam_sessions(shard.key_code, shard.ts, setting.window.gap)
        true_end = s_end
        true_count = np.bincount(sid, minlength=len(s_start)).astype(np.int64)
        true_pairs = n

        def window_of(pane) -> int:
            return int(sid[pane[9][0]])
    else:
        pairs = shard.pairs(FW.of(setting.window))
        true_end = pairs.win_start + np.int64(setting.window.size)
        true_count = pairs.true_count
        true_pairs = pairs.n_pairs
        index = {(int(kc), int(st)): j for j, (kc, st) in enumerate(zip(pairs.win_key.tolist(), pairs.win_start.tolist()))}
        code_of = {str(k): c for c, k in enumerate(shard.keys.tolist())}

        def window_of(pane) -> int:
            return index[(code_of[pane[0]], int(pane[1]))]

    n_win = len(true_count)
    fired = np.zeros(n_win, bool)
    first_emit = np.zeros(n_win, np.int64)
    first_count = np.zeros(n_win, np.int64)
    first_at_end = np.zeros(n_win, bool)
    members: dict[int, set] = {}
    firings = late_firings = at_end_firings = 0
    for pane in d.panes:
        firings += 1
        late_firings += pane[5] == "LATE"
        at_end_firings += bool(pane[11])
        ids = pane[9]
        if not ids:
            continue
        ids_a = np.asarray(ids, dtype=np.int64)
        in_any[ids_a] = True
        if pane[5] != "LATE":
            in_eot[ids_a] = True
        w = window_of(pane)
        if not fired[w]:
            fired[w] = True
            first_emit[w] = pane[10]
            first_count[w] = len(ids)
            first_at_end[w] = pane[11]
        members.setdefault(w, set()).update(ids)
    fate = np.where(in_eot, 0, np.where(in_any, 1, 2)).astype(np.int8)
    counts = np.bincount(fate, minlength=3) if n else np.zeros(3, np.int64)
    ok = fired & ~first_at_end
    lat = first_emit[ok] - true_end[ok]
    values, vcounts = np.unique(lat, return_counts=True)
    t_end = np.int64(d.end_time)
    if d.samples:
        s = np.asarray(d.samples, dtype=np.int64)
        area_w = int(np.sum(s[:, 4] * (t_end - s[:, 3])))
        area_r = int(np.sum(s[:, 5] * (t_end - s[:, 3])))
        state = (s[:, 0], s[:, 4], s[:, 5], s[:, 1], s[:, 2])
    else:
        area_w = area_r = 0
        z = np.zeros(0, np.int64)
        state = (z, z, z, z, z)
    scalars = {
        "valid": n, "on_time": int(counts[0]), "late_accepted": int(counts[1]), "dropped": int(counts[2]),
        "windows": n_win, "exact_windows": int(np.sum(fired & (first_count == true_count))),
        "fired_windows": int(fired.sum()), "true_pairs": int(true_pairs), "first_pairs": int(first_count.sum()),
        "final_pairs": int(sum(len(m) for m in members.values())), "firings": firings, "late_firings": int(late_firings),
        "retractions": 0, "state_area_windows": area_w, "state_area_records": area_r, "at_end_firings": at_end_firings,
    }
    return {"scalars": scalars, "latency": (values.astype(np.int64), vcounts.astype(np.int64)), "state": state}, fate


def beam_partial(shard, setting, path: str, timeline) -> dict:
    """The sweep's partial of one key shard (``toolkit.sweeps.semantics`` registry entry)."""
    keys = shard.keys[shard.key_code] if shard.n else np.zeros(0, dtype=object)
    d = drive(keys, shard.ts, shard.arrival, shard.row, setting, timeline, check_independent=shardable(setting))
    return figures(shard, setting, d)[0]


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
