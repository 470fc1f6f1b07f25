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
(``toolkit.engine.flink.operator_fast.SessionEventTimeOperator`` and the general merging
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

import contextlib
import os
import tempfile
import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd

from toolkit.engine.flink.timeline import INT64_MIN, WatermarkTimeline
from toolkit.fast.evaluate import Shard, _value_counts

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


@dataclass(frozen=True)
class DynamicSessionWindows:
    """``EventTimeSessionWindows.withDynamicGap(extractor)``: each record's gap (ms, > 0) comes
    from the log column ``column`` (the shard's ``gap`` array)."""

    column: str

    @classmethod
    def of(cls, window) -> "DynamicSessionWindows":
        """From a ``toolkit.settings.DynamicSession``."""
        return cls(str(window.column))


def session_spec(window) -> "SessionWindows | DynamicSessionWindows":
    """The fast path's spec of a ``toolkit.settings`` session window (fixed or dynamic gap)."""
    if hasattr(window, "column"):
        return DynamicSessionWindows.of(window)
    return SessionWindows.of(window)


class BadGapError(ValueError):
    """A dynamic session's gap column holds a value that is not a positive integer of ms.

    Flink's ``DynamicEventTimeSessionWindows`` throws at the first such record and fails the
    job, so a replay refuses the log rather than dropping (or quarantining) those records."""


def dynamic_truth(key_code: np.ndarray, ts: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """Where a true dynamic session starts, over records sorted by (key, ts): windows
    ``[ts, ts + gap)`` merge when they intersect or touch (``TimeWindow.intersects``), so a
    record opens a session iff its ``ts`` is after every earlier window end of its key (the
    earlier sessions of a key all end before the current one starts)."""
    n = len(ts)
    new = np.ones(n, dtype=bool)
    if n > 1:
        end = pd.Series(np.asarray(ts, dtype=np.int64) + np.asarray(gaps, dtype=np.int64))
        reach = end.groupby(np.asarray(key_code)).cummax().to_numpy(dtype=np.int64)
        new[1:] = (key_code[1:] != key_code[:-1]) | (ts[1:] > reach[:-1])
    return new


def gap_column(table: pd.DataFrame, column: str, *, option: str = "window") -> np.ndarray:
    """``table[column]`` as checked gaps (:func:`gap_array`); a missing column is a
    ``SettingError`` that says how to keep it at loading."""
    from toolkit.settings import SettingError  # settings is layer 1; the fast path imports it only here

    if column not in table.columns:
        raise SettingError(option, f"{option} dynamic_session:{column}: the log has no column {column!r}; load it with "
                           f"toolkit.load_log(..., keep=[{column!r}]) (the command line keeps it by itself)")
    try:
        return gap_array(table[column].to_numpy(), column, table["row"].to_numpy() if "row" in table else None,
                         option=option)
    except BadGapError as exc:
        raise SettingError(option, str(exc)) from None


def gap_array(values, column: str, rows=None, *, option: str = "window") -> np.ndarray:
    """A dynamic session's gap column as int64 ms, checked: every gap an integer > 0 (Flink's
    ``0 < gap`` rule), else :class:`BadGapError` naming the option, the column, how many rows
    and the first one (``rows``: the log's row numbers, for the message)."""
    v = pd.Series(values)
    n = len(v)
    where = f"{option} dynamic_session:{column}"
    num = pd.to_numeric(v, errors="coerce") if v.dtype == object or not pd.api.types.is_numeric_dtype(v.dtype) else v
    if pd.api.types.is_bool_dtype(v.dtype):
        num = pd.Series(np.full(n, np.nan))
    f = num.to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(f) | (np.floor(f) != f) | (f <= 0) | (np.abs(f) >= 2.0**63)
    if pd.api.types.is_integer_dtype(num.dtype):
        ints = num.to_numpy(dtype=np.int64, na_value=0)
        bad = v.isna().to_numpy() | (ints <= 0)
    else:
        ints = np.where(bad, 0, np.nan_to_num(f)).astype(np.int64)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = int(rows[i]) if rows is not None else i
        nb = int(bad.sum())
        raw = v.iat[i]
        raw = raw.item() if isinstance(raw, np.generic) else raw
        raise BadGapError(
            f"{where}: {nb:,} of {n:,} records have a gap that is not a positive integer number of milliseconds "
            f"(first: row {row}, {column} = {raw!r}); Flink's DynamicEventTimeSessionWindows fails the job on "
            "such a record (gap must satisfy 0 < gap), so the log is refused, not quarantined: fix or filter those rows")
    return ints.astype(np.int64)


class GapInt(int):
    """A record value (an int) that carries its session gap (``.gap``): the element a dynamic
    session's gap extractor reads on the engine path."""

    def __new__(cls, value, gap):
        o = super().__new__(cls, value)
        o.gap = int(gap)
        return o

    def __repr__(self) -> str:
        return int.__repr__(self)


class GapFloat(float):
    """:class:`GapInt` for float values."""

    def __new__(cls, value, gap):
        o = super().__new__(cls, value)
        o.gap = int(gap)
        return o

    def __repr__(self) -> str:
        return float.__repr__(self)


def elements_with_gaps(values, gaps) -> np.ndarray:
    """Record values as elements whose ``.gap`` is the record's gap (object array): what the
    engine's ``DynamicEventTimeSessionWindows`` reads (``toolkit.engine.flink.config``'s extractor)."""
    vals = np.asarray(values)
    cls = GapFloat if vals.dtype.kind == "f" else GapInt
    out = np.empty(len(vals), dtype=object)
    out[:] = [cls(v, g) for v, g in zip(vals.tolist(), np.asarray(gaps, dtype=np.int64).tolist())]
    return out


class MergeIntoLateWindow(RuntimeError):
    """The engine's (and Flink's) error: a merge moved a window's end behind the watermark."""


@dataclass
class SessionRun:
    """Outputs of one run. Record indices and per-record arrays are in the input order of
    :func:`simulate` (in the shard's :class:`KeyOrder` for :func:`run_shard`).

    Per record: ``fate`` (0 on_time, 1 late_accepted, 2 dropped, 3 accepted but never fired:
    no end of input, or contents that Flink's merging window set leaves behind with dynamic
    gaps), ``side`` (1: sent to the late side output), ``windows_delta`` (change of the
    windows held in state when it was processed). Per firing, in emission order within each
    key: ``key`` (code), ``rec`` (a record of the session), ``cause`` (the record that caused
    it, -1 for a timer), ``start``/``end``, ``count``, ``sum``, ``pane``, ``timing`` (0
    on_time, 1 late, 2 at_end), ``tick`` (change index; -1 caused by a record, ``len(wm)``
    the end of input), ``time`` (processing time), ``watermark``, ``retract`` (panes to
    retract first in retracting mode), ``members`` (record indices, when asked). Per cleanup
    inside the timeline: ``cleanup_tick``, ``cleanup_count`` (records dropped from state)."""

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
    # with true sessions given (``sid``): per true session first/last firing index, firings,
    # records fired; records whose windows delta is not 0; records held per segment; on time
    # and late-accepted counts and the time integrals of held records and open windows
    true_first: np.ndarray | None = None
    true_last: np.ndarray | None = None
    true_firings: np.ndarray | None = None
    true_final: np.ndarray | None = None
    delta_records: np.ndarray | None = None
    held_per_segment: np.ndarray | None = None
    scalars: np.ndarray | None = None

    @property
    def n_firings(self) -> int:
        return len(self.rec)

    def firing_members(self, i: int) -> np.ndarray:
        """Record indices in firing ``i`` (needs ``members=True``)."""
        if self.members is None:
            raise ValueError("run simulate(..., members=True) to get the records of each firing")
        return self.members[self.member_offsets[i]:self.member_offsets[i + 1]]


_WARM: list[bool] = []


def _kernel():
    """The compiled kernel, its int64 signature compiled or loaded from numba's cache on first
    use (:func:`warm_up`)."""
    from toolkit.fast import _session_kernel  # numba: heavy to import, compiled on first use

    if not _WARM:
        warm_up()
    return _session_kernel


def warm_up() -> None:
    """Compile the kernel for the sweep's int64 columns (about 20 CPU-seconds), or load it from
    numba's cache (under half a second). The first compile is serialised per machine by a file
    lock, so the Python workers of a Spark executor that start together compile once: the first
    one compiles and caches, the others wait and load."""
    _WARM.append(True)
    one = np.zeros(1, dtype=np.int64)
    with _compile_lock():
        _simulate_grouped(np.array([0, 1], dtype=np.int64), one, one, one + 1, one, one, one, one, one, 1, 0)


@contextlib.contextmanager
def _compile_lock():
    """An exclusive lock on a file in the temporary folder (POSIX ``flock``; none elsewhere)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, each process compiles or loads on its own
        yield
        return
    path = os.path.join(tempfile.gettempdir(), "watermark-lab-numba.lock")
    try:
        f = open(path, "a")
    except OSError:
        yield
        return
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


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
) -> SessionRun:
    """The session operator over records in arrival order (arrays aligned): ``seg[i]`` =
    watermark changes before record ``i``; the changes are ``timeline_watermark`` (strictly
    increasing) at ``tick_time``; ``with_end``: the MAX watermark at ``end_time`` follows.
    ``gap``: one gap for every record, or one per record (dynamic sessions). Record indices
    in the result (``rec``, ``cause``, ``members``, the per-record arrays) are the inputs'."""
    key_code = np.asarray(key_code, dtype=np.int64)
    n = len(key_code)
    check_range(ts, gap, lateness)
    perm, group_start = key_groups(key_code)
    gaps = np.full(n, int(gap), dtype=np.int64) if np.isscalar(gap) else np.asarray(gap, dtype=np.int64)[perm]
    run = _simulate_grouped(group_start, key_code[perm], np.asarray(ts, dtype=np.int64)[perm], gaps,
                            np.asarray(values)[perm], np.asarray(seg, dtype=np.int64)[perm],
                            np.asarray(arrival, dtype=np.int64)[perm], timeline_watermark, tick_time, end_time, lateness,
                            with_end=with_end, members=members)
    for name in ("fate", "side", "windows_delta"):
        setattr(run, name, _ungroup(getattr(run, name), perm))
    run.rec = perm[run.rec]
    run.cause = np.where(run.cause >= 0, perm[np.maximum(run.cause, 0)], -1) if n else run.cause
    if run.members is not None:
        run.members = perm[run.members]
    return run


INT64_MAX = 2**63 - 1


class OutsideFastRange(ValueError):
    """Timestamps so close to the int64 edges that Flink's ``long`` arithmetic wraps there
    (session ``ts + gap``, cleanup ``end - 1 + lateness``): the engine models the wrap, the
    fast path does not, so such logs go to the engine."""


def in_range(ts_min: int, ts_max: int, gap_max: int, lateness: int) -> bool:
    """No ``ts + gap + lateness`` (and no session bound) can wrap past Java's long range."""
    return int(ts_max) + int(gap_max) + max(int(lateness), 0) + 1 <= INT64_MAX and int(ts_min) > INT64_MIN + 1


def check_range(ts: np.ndarray, gap: "int | np.ndarray", lateness: int) -> None:
    """Raise :class:`OutsideFastRange` unless :func:`in_range` holds for these records."""
    ts = np.asarray(ts, dtype=np.int64)
    if not len(ts):
        return
    g = np.asarray(gap, dtype=np.int64)
    gap_max = int(g.max()) if g.ndim and len(g) else int(g)
    if not in_range(int(ts.min()), int(ts.max()), max(gap_max, 0), lateness):
        raise OutsideFastRange(
            "timestamps within a session gap plus the allowed lateness of the int64 edges: "
            "Flink's long arithmetic wraps there; the engine path models it, the fast path does not")


def _ungroup(grouped: np.ndarray, perm: np.ndarray) -> np.ndarray:
    back = np.empty_like(grouped)
    back[perm] = grouped
    return back


def _simulate_grouped(group_start, key_code, ts, gaps, values, seg, arrival, timeline_watermark, tick_time, end_time,
                      lateness, *, with_end: bool = True, members: bool = False, sid: np.ndarray | None = None,
                      n_true: int = 1) -> SessionRun:
    """:func:`simulate` on arrays already grouped by key (arrival order inside a key); record
    indices in the result are positions in that order. ``sid``: true session per record
    (``n_true`` of them), for the per-true-session accounting."""
    if lateness < 0:
        raise ValueError(f"allowed lateness must be >= 0, got {lateness}")
    vals = _numeric(values)
    c = np.ascontiguousarray
    k = _kernel()
    args = (c(group_start, dtype=np.int64), c(ts, dtype=np.int64), c(gaps, dtype=np.int64), vals, c(seg, dtype=np.int64),
            c(arrival, dtype=np.int64), c(timeline_watermark, dtype=np.int64), c(tick_time, dtype=np.int64),
            np.int64(end_time), bool(with_end), np.int64(lateness))
    if sid is None:
        sid, n_true = np.zeros(len(ts), dtype=np.int64), 1
    extra = (c(sid, dtype=np.int64), int(max(n_true, 1)))
    fate, side, dw, F, fsum, CL, mem, err, DW, rec_seg, WA, scal = k.simulate(*args, 0, *extra)
    _raise(err, k)
    offsets = None
    if members:
        cap = int(F[:, k.F_CNT].sum())
        fate, side, dw, F, fsum, CL, mem, err, DW, rec_seg, WA, scal = k.simulate(*args, cap, *extra)
        offsets = np.append(F[:, k.F_MEMOFF], len(mem)).astype(np.int64)
    return SessionRun(
        fate=fate, side=side, windows_delta=dw, key=np.asarray(key_code, dtype=np.int64)[F[:, k.F_REC]],
        rec=F[:, k.F_REC], cause=F[:, k.F_CAUSE], start=F[:, k.F_START], end=F[:, k.F_END], count=F[:, k.F_CNT], sum=fsum,
        pane=F[:, k.F_PANE], timing=F[:, k.F_TIMING], tick=F[:, k.F_TICK], time=F[:, k.F_TIME],
        watermark=F[:, k.F_WM], retract=F[:, k.F_RETRACT], member_offsets=offsets, members=mem if members else None,
        cleanup_tick=CL[:, 0], cleanup_count=CL[:, 1],
        true_first=WA[:n_true, k.WA_FIRST], true_last=WA[:n_true, k.WA_LAST], true_firings=WA[:n_true, k.WA_FIRINGS],
        true_final=WA[:n_true, k.WA_FINAL], delta_records=DW, held_per_segment=rec_seg, scalars=scal,
    )


def _numeric(values) -> np.ndarray:
    """Record values as the kernel sums them: float64 for floats, int64 otherwise; values
    that are not numbers are not summed (zeros: no figure depends on them)."""
    v = np.asarray(values)
    try:
        return np.ascontiguousarray(v, dtype=np.float64 if v.dtype.kind == "f" else np.int64)
    except (TypeError, ValueError, OverflowError):
        return np.zeros(len(v), dtype=np.int64)


def _raise(err: np.ndarray, k) -> None:
    code = int(err[0])
    if code == k.E_NONE:
        return
    if code == k.E_MERGE_LATE:
        raise MergeIntoLateWindow(
            "The end timestamp of an event-time window cannot become earlier than the current watermark by merging. "
            f"Current watermark: {int(err[4])} window: TimeWindow{{start={int(err[2])}, end={int(err[3])}}}")
    if code == k.E_GAP:
        raise ValueError(f"Dynamic session time gap must satisfy 0 < gap, got {int(err[2])}")
    raise RuntimeError("session fast path: a merged window was late (not reachable in Flink)")


# -- per shard ------------------------------------------------------------------------------

_CACHE: "weakref.WeakKeyDictionary[Shard, KeyOrder]" = weakref.WeakKeyDictionary()


class KeyOrder:
    """A shard's columns grouped by key, arrival order inside a key (the order the kernel reads
    sequentially and every per-record result of :func:`run_shard` is in). Built once per shard;
    per timeline shape only the segments are gathered, per gap the true sessions computed."""

    def __init__(self, shard: Shard) -> None:
        self.shard = weakref.proxy(shard)
        self.perm, self.group_start = key_groups(shard.key_code)
        p = self.perm
        self.key_code = shard.key_code[p]
        self.ts = shard.ts[p]
        self.arrival = shard.arrival[p]
        self.row = shard.row[p]
        self.values = _numeric(np.asarray(shard.values)[p])
        self._gaps: dict = {}
        self._segs: dict = {}
        self._truth: dict = {}

    @classmethod
    def of(cls, shard: Shard) -> "KeyOrder":
        v = _CACHE.get(shard)
        if v is None:
            v = _CACHE[shard] = cls(shard)
        return v

    def gaps(self, gap: "int | DynamicSessionWindows") -> np.ndarray:
        """Per-record gaps in this order: one gap for all, or a dynamic session's column."""
        if isinstance(gap, DynamicSessionWindows):
            gap = gap.column
            if gap not in self._gaps:
                if gap not in self.shard.gaps:
                    raise ValueError(f"dynamic_session:{gap}: the shard has no gaps of column {gap!r}")
                self._gaps[gap] = np.ascontiguousarray(self.shard.gaps[gap][self.perm])
        elif gap not in self._gaps:
            self._gaps[gap] = np.full(len(self.ts), gap, dtype=np.int64)
        return self._gaps[gap]

    def segs(self, shape) -> np.ndarray:
        k = id(shape)
        if k not in self._segs:
            self._segs[k] = (shape, self.shard.segs(shape)[self.perm])
        return self._segs[k][1]

    def true_sessions(self, gap: "int | DynamicSessionWindows") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The batch answer: ``(session id per record, key code, start, end, count)`` per true
        session, ordered by key code then start (``toolkit.metrics.truth.sessionize``'s rule;
        dynamic gaps: :func:`dynamic_truth`, a session ends at its largest ``ts + gap``)."""
        tag = ("dynamic", gap.column) if isinstance(gap, DynamicSessionWindows) else gap
        if tag not in self._truth:
            order = np.lexsort((self.ts, self.key_code))
            kc, t = self.key_code[order], self.ts[order]
            if isinstance(gap, DynamicSessionWindows):
                g = self.gaps(gap)[order]
                new = dynamic_truth(kc, t, g)
            else:
                g = None
                new = np.ones(len(t), dtype=bool)
                if len(t) > 1:
                    new[1:] = (kc[1:] != kc[:-1]) | (t[1:] > t[:-1] + np.int64(gap))
            sid_sorted = np.cumsum(new) - 1
            sid = np.empty(len(t), dtype=np.int64)
            sid[order] = sid_sorted
            firsts = np.flatnonzero(new)
            lasts = (np.append(firsts[1:], len(t)) - 1).astype(np.int64) if len(firsts) else firsts
            if g is None:
                ends = t[lasts] + np.int64(gap)
            else:
                ends = np.maximum.reduceat(t + g, firsts) if len(firsts) else firsts
            self._truth[tag] = (sid, kc[firsts], t[firsts], ends.astype(np.int64), (lasts - firsts + 1).astype(np.int64))
        return self._truth[tag]


def _gap_of(spec) -> "int | DynamicSessionWindows":
    return spec if isinstance(spec, DynamicSessionWindows) else spec.gap


def run_shard(shard: Shard, spec: "SessionWindows | DynamicSessionWindows", timeline: WatermarkTimeline, lateness: int, *,
              members: bool = False) -> SessionRun:
    """The session operator over a shard under a timeline; record indices and per-record arrays
    of the result are in the shard's :class:`KeyOrder`."""
    v = KeyOrder.of(shard)
    g = _gap_of(spec)
    truth = v.true_sessions(g)
    return _simulate_grouped(v.group_start, v.key_code, v.ts, v.gaps(g), v.values, v.segs(timeline.shape),
                             v.arrival, timeline.watermark, timeline.shape.time, timeline.end_time, lateness, members=members,
                             sid=truth[0], n_true=len(truth[2]))


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


def session_figures(view: KeyOrder, spec: SessionWindows, run: SessionRun) -> SessionFigures:
    """The engine path's per-window figures, per true session, from the run's per-true-session
    accounting (every firing counted for the true session of its records: an engine session
    lies inside one true session; the first firing is the earliest in emission order)."""
    sid, key, start, end, true_count = view.true_sessions(_gap_of(spec))
    first, last = run.true_first, run.true_last
    fired = first >= 0
    f0, l0 = np.maximum(first, 0), np.maximum(last, 0)
    if run.n_firings:
        first_emit = np.where(fired, run.time[f0], 0)
        last_emit = np.where(fired, run.time[l0], 0)
        first_count = np.where(fired, run.count[f0], 0)
        first_timing = np.where(fired, run.timing[f0], -1)
    else:
        first_emit = last_emit = first_count = np.zeros(len(start), dtype=np.int64)
        first_timing = np.full(len(start), -1, dtype=np.int64)
    return SessionFigures(sid, key, start, end, true_count, fired, first_emit, last_emit, first_count, run.true_final,
                          run.true_firings, first_timing)


def partial(shard: Shard, spec: SessionWindows, timeline: WatermarkTimeline, lateness: int, *, retracting: bool = False) -> dict:
    """Exactly mergeable figures of one shard under one configuration (see ``toolkit.metrics.summary``),
    equal to the engine path's (``toolkit.semantics.flink.engine_path.engine_partial``)."""
    v = KeyOrder.of(shard)
    run = run_shard(shard, spec, timeline, lateness)
    fig = session_figures(v, spec, run)
    n = shard.n
    on_time, late_acc = int(run.scalars[0]), int(run.scalars[1])
    t_end = np.int64(timeline.end_time)
    # state: sessions open/merge at their records; records are added per segment (state only
    # grows between two changes, so one delta per segment keeps the peak and the running sum);
    # cleanups at their ticks
    k = len(timeline)
    dr_ = run.delta_records
    seg = v.segs(timeline.shape)
    rec_seg = run.held_per_segment
    segs_with = np.flatnonzero(rec_seg)
    ct, cc = run.cleanup_tick, run.cleanup_count
    cl_w = np.bincount(ct, minlength=k + 1).astype(np.int64)
    cl_r = np.bincount(ct, weights=cc, minlength=k + 1).astype(np.int64)
    ticks_with = np.flatnonzero(cl_w)
    z = np.zeros
    nd, ns, nt = len(dr_), len(segs_with), len(ticks_with)
    pos = np.concatenate([2 * seg[dr_], 2 * segs_with, 2 * ticks_with + 1]).astype(np.int64)
    b = np.concatenate([v.arrival[dr_], np.full(ns, INT64_MIN, np.int64), z(nt, np.int64)])
    c = np.concatenate([v.row[dr_], z(ns, np.int64), z(nt, np.int64)])
    d_w = np.concatenate([run.windows_delta[dr_], z(ns, np.int64), -cl_w[ticks_with]])
    d_r = np.concatenate([z(nd, np.int64), rec_seg[segs_with], -cl_r[ticks_with]])
    tick_t = timeline.shape.time[ct] if len(ct) else z(0, dtype=np.int64)
    area_w = int(run.scalars[3]) - int(np.sum(t_end - tick_t, dtype=np.int64))
    area_r = int(run.scalars[2]) - int(np.sum(cc * (t_end - tick_t), dtype=np.int64))
    # latency is defined for sessions first fired before the end of input; those fired by it are counted apart
    lat = (fig.first_emit - fig.end)[fig.fired & (fig.first_timing != 2)]
    values, vcounts = _value_counts(lat)
    scalars = {
        "valid": n,
        "on_time": on_time,
        "late_accepted": late_acc,
        "dropped": n - on_time - late_acc,
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
        "at_end_firings": int(np.sum(run.timing[:run.n_firings] == 2)),
    }
    return {"scalars": scalars, "latency": (values, vcounts), "state": (pos, d_w, d_r, b, c)}


def window_frame(shard: Shard, spec: SessionWindows, timeline: WatermarkTimeline, lateness: int) -> tuple[pd.DataFrame, np.ndarray]:
    """``(per true session figures, fate code per record in the shard's arrival order)`` of one
    configuration, in the columns of ``toolkit.sweeps.single.window_figures``."""
    v = KeyOrder.of(shard)
    run = run_shard(shard, spec, timeline, lateness)
    fig = session_figures(v, spec, run)
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
    return frame, _fate_codes(run, v)


def record_fates(shard: Shard, spec: SessionWindows, timeline: WatermarkTimeline, lateness: int) -> np.ndarray:
    """Fate code per record of ``shard`` (its arrival order): 0 on_time, 1 late_accepted, 2 dropped."""
    return _fate_codes(run_shard(shard, spec, timeline, lateness), KeyOrder.of(shard))


def _fate_codes(run: SessionRun, view: KeyOrder) -> np.ndarray:
    """Fates in the shard's arrival order; never fired (left behind) counts as dropped."""
    return _ungroup(np.where(run.fate == 3, 2, run.fate).astype(np.int8), view.perm)


__all__ = ["SessionWindows", "SessionRun", "MergeIntoLateWindow", "KeyOrder", "simulate", "run_shard",
           "partial", "window_frame", "record_fates", "key_groups"]
