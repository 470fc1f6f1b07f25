"""Session windows on the fast path: Flink's ``EventTimeSessionWindows`` (fixed gap) and
``DynamicEventTimeSessionWindows`` (a gap per record) with the ``EventTimeTrigger``, any
allowed lateness and any watermark timeline, without a per-record Python loop.

Sessions cannot be written in closed form as tumbling/sliding windows can: whether a record
joins a session depends on which earlier records joined and on whether that session was
already cleaned up (a late record may bridge two sessions; a session cleaned up before a
record arrives leaves it to start a new one). So the operator's per-key state machine runs
compiled (numba, ``toolkit.fast._session_kernel``) over the shard's columns: keys are
independent once the watermark timeline is known, records of a key are taken in arrival
order, and timers are evaluated lazily against the timeline. The result is the engine's
(``toolkit.engine.operator_fast.SessionEventTimeOperator`` and the general merging
``WindowOperator``): the same firings (window, count, sum, pane, timing, emission time and
watermark, per key in the same order), the same record fates and state, property-tested
against it and checked on every session conformance fixture of real Flink.

* :func:`simulate`: the raw run (:class:`SessionRun`), columns in the shard's arrival order;
* :func:`partial`: the sweep's exactly mergeable figures (``toolkit.metrics.summary``);
* :func:`window_frame` / :func:`record_fates`: one configuration in full detail.

True sessions (the batch answer a firing is compared with) are the key's records sessionized
with the gap (``toolkit.metrics.truth.sessionize``'s rule: a new session where the next
timestamp is more than ``gap`` after the previous one).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd

from toolkit.engine.timeline import INT64_MAX, INT64_MIN, WatermarkTimeline
from toolkit.fast.evaluate import Shard, _value_counts
from toolkit.settings import Session, Setting, TriggerSpec

TIMING_NAMES = np.array(["on_time", "late", "at_end"], dtype=object)


@dataclass(frozen=True)
class SessionWindows:
    """``EventTimeSessionWindows.withGap(gap)`` (``gap`` > 0 ms)."""

    gap: int

    def __post_init__(self):
        if self.gap <= 0:
            raise ValueError(f"session gap must be > 0, got {self.gap}")

    @classmethod
    def of(cls, window) -> "SessionWindows":
        """From a ``toolkit.settings.Session``."""
        return cls(int(window.gap))


class MergeIntoLateWindow(RuntimeError):
    """The engine's (and Flink's) error: a merge moved a window's end behind the watermark."""


@dataclass
class SessionRun:
    """Outputs of one run. Per record (shard arrival order): ``fate`` (0 on_time, 1
    late_accepted, 2 dropped, 3 accepted but never fired: no end of input, or contents that
    Flink's merging window set leaves behind with dynamic gaps), ``side`` (1: sent
    to the late side output), ``windows_delta`` (change of live sessions when it was
    processed). Per firing, in emission order within each key: ``key`` (code), ``rec`` (a
    record of the session), ``cause`` (the record that caused it, -1 for a timer), ``start``/``end``, ``count``, ``sum``, ``pane``, ``timing`` (0
    on_time, 1 late, 2 at_end), ``tick`` (change index; -1 caused by a record, ``len(wm)`` end
    of input), ``time`` (processing time), ``watermark``, ``retract`` (panes to retract first
    in retracting mode), ``members`` (record indices, when asked). Per cleanup inside the
    timeline: ``cleanup_tick``, ``cleanup_count`` (records dropped from state)."""

    fate: np.ndarray
    side: np.ndarray
    windows_delta: np.ndarray
    key: np.ndarray
    rec: np.ndarray
    cause: np.ndarray
    start: np.ndarray
    end: np.ndarray
    count: np.ndarray
    sum: np.ndarray
    pane: np.ndarray
    timing: np.ndarray
    tick: np.ndarray
    time: np.ndarray
    watermark: np.ndarray
    retract: np.ndarray
    member_offsets: np.ndarray | None
    members: np.ndarray | None
    cleanup_tick: np.ndarray
    cleanup_count: np.ndarray

    @property
    def n_firings(self) -> int:
        return len(self.rec)

    def firing_members(self, i: int) -> np.ndarray:
        """Record indices in firing ``i`` (needs ``members=True``)."""
        if self.members is None:
            raise ValueError("run simulate(..., members=True) to get the records of each firing")
        return self.members[self.member_offsets[i]:self.member_offsets[i + 1]]


def applies(config: Setting) -> bool:
    """Fast sessions serve this configuration: session windows, the event-time trigger, no
    evictor, accumulating or retracting, one stage (figures do not depend on the function)."""
    trig = config.trigger
    return (
        isinstance(config.window, Session)
        and isinstance(trig, TriggerSpec) and trig.kind in ("default", "event_time")
        and config.evictor is None
        and config.accumulation in ("accumulating", "retracting")
        and config.second_window is None
    )


def _kernel():
    from toolkit.fast import _session_kernel  # numba: heavy to import, compiled on first use

    return _session_kernel


def key_groups(key_code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(perm, group_start)``: record indices grouped by key, arrival order kept inside a key."""
    key_code = np.asarray(key_code, dtype=np.int64)
    perm = np.argsort(key_code, kind="stable").astype(np.int64)
    kc = key_code[perm]
    if len(kc):
        starts = np.flatnonzero(np.r_[True, kc[1:] != kc[:-1]])
    else:
        starts = np.zeros(0, dtype=np.int64)
    return perm, np.append(starts, len(kc)).astype(np.int64)


def simulate(
    key_code: np.ndarray,
    ts: np.ndarray,
    gap: "int | np.ndarray",
    values: np.ndarray,
    seg: np.ndarray,
    arrival: np.ndarray,
    timeline_watermark: np.ndarray,
    tick_time: np.ndarray,
    end_time: int,
    lateness: int,
    *,
    with_end: bool = True,
    members: bool = False,
    groups: tuple[np.ndarray, np.ndarray] | None = None,
) -> SessionRun:
    """The session operator over records in arrival order (arrays aligned): ``seg[i]`` =
    watermark changes before record ``i``; the changes are ``timeline_watermark`` (strictly
    increasing) at ``tick_time``; ``with_end``: the MAX watermark at ``end_time`` follows.
    ``gap``: one gap for every record, or one per record (dynamic sessions)."""
    if lateness < 0:
        raise ValueError(f"allowed lateness must be >= 0, got {lateness}")
    ts = np.ascontiguousarray(ts, dtype=np.int64)
    n = len(ts)
    gaps = np.full(n, int(gap), dtype=np.int64) if np.isscalar(gap) else np.ascontiguousarray(gap, dtype=np.int64)
    vals = np.asarray(values)
    vals = np.ascontiguousarray(vals, dtype=np.float64 if vals.dtype.kind == "f" else np.int64)
    perm, group_start = groups if groups is not None else key_groups(key_code)
    wm = np.ascontiguousarray(timeline_watermark, dtype=np.int64)
    tt = np.ascontiguousarray(tick_time, dtype=np.int64)
    seg = np.ascontiguousarray(seg, dtype=np.int64)
    arrival = np.ascontiguousarray(arrival, dtype=np.int64)
    k = _kernel()
    args = (group_start, perm, ts, gaps, vals, seg, arrival, wm, tt, np.int64(end_time), bool(with_end), np.int64(lateness))
    fate, side, dw, F, fsum, CL, mem, err = k.simulate(*args, 0)
    _raise(err, ts, k)
    offsets = None
    if members:
        cap = int(F[:, k.F_CNT].sum())
        fate, side, dw, F, fsum, CL, mem, err = k.simulate(*args, cap)
        offsets = np.append(F[:, k.F_MEMOFF], len(mem)).astype(np.int64)
    return SessionRun(
        fate=fate, side=side, windows_delta=dw, key=np.asarray(key_code, dtype=np.int64)[F[:, k.F_REC]] if len(F) else F[:, 0],
        rec=F[:, k.F_REC], cause=F[:, k.F_CAUSE], start=F[:, k.F_START], end=F[:, k.F_END], count=F[:, k.F_CNT], sum=fsum,
        pane=F[:, k.F_PANE], timing=F[:, k.F_TIMING], tick=F[:, k.F_TICK], time=F[:, k.F_TIME],
        watermark=F[:, k.F_WM], retract=F[:, k.F_RETRACT], member_offsets=offsets, members=mem if members else None,
        cleanup_tick=CL[:, 0], cleanup_count=CL[:, 1],
    )


def _raise(err: np.ndarray, ts: np.ndarray, k) -> None:
    code = int(err[0])
    if code == k.E_NONE:
        return
    if code == k.E_MERGE_LATE:
        raise MergeIntoLateWindow(
            "The end timestamp of an event-time window cannot become earlier than the current watermark by merging. "
            f"Current watermark: {int(err[4])} window: TimeWindow{{start={int(err[2])}, end={int(err[3])}}}")
    if code == k.E_GAP:
        raise ValueError(f"Dynamic session time gap must satisfy 0 < gap, got {int(err[2])} (record {int(err[1])})")
    raise RuntimeError(f"session fast path: a merged window was late at record {int(err[1])} (not reachable in Flink)")


# -- per shard ------------------------------------------------------------------------------

_CACHE: "weakref.WeakKeyDictionary[Shard, dict]" = weakref.WeakKeyDictionary()


def _cached(shard: Shard) -> dict:
    c = _CACHE.get(shard)
    if c is None:
        c = _CACHE[shard] = {}
    return c


def _groups(shard: Shard) -> tuple[np.ndarray, np.ndarray]:
    c = _cached(shard)
    if "groups" not in c:
        c["groups"] = key_groups(shard.key_code)
    return c["groups"]


def true_sessions(shard: Shard, gap: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The batch answer: ``(session id per record, key code, start, end, count)`` per true session,
    sessions ordered by key code then start."""
    c = _cached(shard)
    k = ("truth", int(gap))
    if k not in c:
        order = np.lexsort((shard.ts, shard.key_code))
        kc, t = shard.key_code[order], shard.ts[order]
        new = np.ones(len(t), dtype=bool)
        if len(t) > 1:
            new[1:] = (kc[1:] != kc[:-1]) | (t[1:] > t[:-1] + np.int64(gap))
        sid = np.empty(len(t), dtype=np.int64)
        sid[order] = np.cumsum(new) - 1
        firsts = np.flatnonzero(new)
        lasts = (np.append(firsts[1:], len(t)) - 1).astype(np.int64) if len(firsts) else firsts
        c[k] = (sid, kc[firsts], t[firsts], t[lasts] + np.int64(gap), (lasts - firsts + 1).astype(np.int64))
    return c[k]


def run_shard(shard: Shard, spec: SessionWindows, timeline: WatermarkTimeline, lateness: int, *, members: bool = False) -> SessionRun:
    """:func:`simulate` on a shard (records in its arrival order) under a timeline."""
    return simulate(shard.key_code, shard.ts, spec.gap, shard.values, shard.segs(timeline.shape), shard.arrival,
                    timeline.watermark, timeline.shape.time, timeline.end_time, lateness, members=members,
                    groups=_groups(shard))


@dataclass
class SessionFigures:
    """Per true session: fired, first/last emission, first count, final count, firings, first timing."""

    sid: np.ndarray
    key: np.ndarray
    start: np.ndarray
    end: np.ndarray
    true_count: np.ndarray
    fired: np.ndarray
    first_emit: np.ndarray
    last_emit: np.ndarray
    first_count: np.ndarray
    final_count: np.ndarray
    firings: np.ndarray
    first_timing: np.ndarray


def session_figures(shard: Shard, spec: SessionWindows, run: SessionRun) -> SessionFigures:
    """Maps every firing to the true session of its records (an engine session lies inside one
    true session) and reads the engine path's per-window figures off the firings."""
    sid, key, start, end, true_count = true_sessions(shard, spec.gap)
    nw = len(start)
    fsid = sid[run.rec] if run.n_firings else np.zeros(0, dtype=np.int64)
    fired = np.zeros(nw, dtype=bool)
    first_emit = np.zeros(nw, dtype=np.int64)
    last_emit = np.zeros(nw, dtype=np.int64)
    first_count = np.zeros(nw, dtype=np.int64)
    first_timing = np.full(nw, -1, dtype=np.int64)
    if run.n_firings:
        u, first_idx = np.unique(fsid, return_index=True)
        fired[u] = True
        first_emit[u] = run.time[first_idx]
        first_count[u] = run.count[first_idx]
        first_timing[u] = run.timing[first_idx]
        ur, last_rev = np.unique(fsid[::-1], return_index=True)
        last_emit[ur] = run.time[run.n_firings - 1 - last_rev]
    firings = np.bincount(fsid, minlength=nw).astype(np.int64)
    accepted = (run.fate == 0) | (run.fate == 1)
    final_count = np.bincount(sid[accepted], minlength=nw).astype(np.int64)
    return SessionFigures(sid, key, start, end, true_count, fired, first_emit, last_emit, first_count, final_count,
                          firings, first_timing)


def partial(shard: Shard, spec: SessionWindows, timeline: WatermarkTimeline, lateness: int, *, retracting: bool = False) -> dict:
    """Exactly mergeable figures of one shard under one configuration (see ``toolkit.metrics.summary``),
    equal to the engine path's (``toolkit.sweeps.engine_path.engine_partial``)."""
    run = run_shard(shard, spec, timeline, lateness)
    fig = session_figures(shard, spec, run)
    n = shard.n
    counts = np.bincount(run.fate, minlength=4) if n else np.zeros(4, dtype=np.int64)
    t_end = np.int64(timeline.end_time)
    accepted = (run.fate == 0) | (run.fate == 1) | (run.fate == 3)
    seg = shard.segs(timeline.shape)
    # state: sessions open/merge at their records, records added per segment (only growing
    # between changes, so one delta per segment keeps every running sum's peak), cleanups at ticks
    dwm = run.windows_delta != 0
    k = len(timeline)
    rec_seg = np.bincount(seg[accepted], minlength=k + 1).astype(np.int64)
    segs_with = np.flatnonzero(rec_seg)
    ct, cc = run.cleanup_tick, run.cleanup_count
    cl_w = np.bincount(ct, minlength=k + 1).astype(np.int64)
    cl_r = np.bincount(ct, weights=cc, minlength=k + 1).astype(np.int64)
    ticks_with = np.flatnonzero(cl_w)
    zeros = np.zeros
    pos = np.concatenate([2 * seg[dwm], 2 * segs_with, 2 * ticks_with + 1]).astype(np.int64)
    b = np.concatenate([shard.arrival[dwm], np.full(len(segs_with), INT64_MIN, np.int64), zeros(len(ticks_with), np.int64)])
    c = np.concatenate([shard.row[dwm], zeros(len(segs_with), np.int64), zeros(len(ticks_with), np.int64)])
    d_w = np.concatenate([run.windows_delta[dwm], zeros(len(segs_with), np.int64), -cl_w[ticks_with]])
    d_r = np.concatenate([zeros(int(dwm.sum()), np.int64), rec_seg[segs_with], -cl_r[ticks_with]])
    tick_t = timeline.shape.time[ct] if len(ct) else np.zeros(0, dtype=np.int64)
    area_w = int(np.sum(run.windows_delta[dwm] * (t_end - shard.arrival[dwm]), dtype=np.int64)) - int(
        np.sum(t_end - tick_t, dtype=np.int64))
    area_r = int(np.sum(t_end - shard.arrival[accepted], dtype=np.int64)) - int(np.sum(cc * (t_end - tick_t), dtype=np.int64))
    lat = (fig.first_emit - fig.end)[fig.fired]
    values, vcounts = _value_counts(lat)
    scalars = {
        "valid": n,
        "on_time": int(counts[0]),
        "late_accepted": int(counts[1]),
        "dropped": int(counts[2] + counts[3]),
        "windows": len(fig.start),
        "exact_windows": int(np.sum(fig.fired & (fig.first_count == fig.true_count))),
        "fired_windows": int(fig.fired.sum()),
        "true_pairs": n,
        "first_pairs": int(fig.first_count.sum()),
        "final_pairs": int(fig.final_count.sum()),
        "firings": run.n_firings,
        "late_firings": int(np.sum(run.timing == 1)),
        "retractions": int(run.retract.sum()) if retracting else 0,
        "state_area_windows": area_w,
        "state_area_records": area_r,
    }
    return {"scalars": scalars, "latency": (values, vcounts), "state": (pos, d_w, d_r, b, c)}


def window_frame(shard: Shard, spec: SessionWindows, timeline: WatermarkTimeline, lateness: int) -> tuple[pd.DataFrame, np.ndarray]:
    """``(per true session figures, fate code per record)`` of one configuration, in the
    columns of ``toolkit.sweeps.single.window_figures``."""
    run = run_shard(shard, spec, timeline, lateness)
    fig = session_figures(shard, spec, run)
    fired = fig.fired
    timing = np.where(fired, TIMING_NAMES[np.maximum(fig.first_timing, 0)], None)
    frame = pd.DataFrame(
        {
            "key": shard.keys[fig.key] if len(fig.key) else np.zeros(0, dtype=object),
            "window_start": fig.start,
            "window_end": fig.end,
            "true_count": fig.true_count,
            "first_count": fig.first_count,
            "final_count": fig.final_count,
            "firings": fig.firings,
            "first_timing": timing,
            "first_emit_time": pd.array(fig.first_emit, dtype="Int64"),
            "first_latency_ms": pd.array(fig.first_emit - fig.end, dtype="Int64"),
            "settle_latency_ms": pd.array(fig.last_emit - fig.end, dtype="Int64"),
            "exact": fig.first_count == fig.true_count,
        }
    )
    for col in ("first_emit_time", "first_latency_ms", "settle_latency_ms"):
        frame.loc[~fired, col] = pd.NA
    fates = np.where(run.fate == 3, 2, run.fate).astype(np.int8)
    return frame, fates


def record_fates(shard: Shard, spec: SessionWindows, timeline: WatermarkTimeline, lateness: int) -> np.ndarray:
    """Fate code per record of ``shard`` (its arrival order): 0 on_time, 1 late_accepted, 2 dropped."""
    run = run_shard(shard, spec, timeline, lateness)
    return np.where(run.fate == 3, 2, run.fate).astype(np.int8)


__all__ = ["applies", "SessionWindows", "SessionRun", "MergeIntoLateWindow", "simulate", "run_shard", "partial", "window_frame",
           "record_fates", "true_sessions", "key_groups", "INT64_MAX"]
