"""Beam figures of one setting: the driver of a GroupByKey step over whole keys and the sweep's
figures of what it emitted, shared by the replay and the sweep.

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

"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from toolkit.engine.beam.scenario import US_PER_MS
from toolkit.semantics.beam.windowing import setting_windowing

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
