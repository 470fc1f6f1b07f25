"""Why was a record dropped (or late)? Per record: its windows, the watermark that passed them,
who held that watermark, and the smallest setting that would have kept it.

The rules are Flink's (``WindowOperator``): a window is late when
``cleanupTime = maxTimestamp + allowedLateness <= currentWatermark``; a record is dropped when
every window it belongs to is late; it is late (not in its window's first result) when the
watermark had already passed its window's ``maxTimestamp = end - 1``. For tumbling and
sliding windows the window that decides is the record's latest one.

What would have kept it, exactly:

- **allowed lateness**: the watermark does not depend on it, so the smallest lateness that
  keeps the record is ``watermark - maxTimestamp + 1``.
- **delay** (bounded out-of-orderness, legacy, monotonous, time lag, punctuated): every
  generator's watermark is ``f(what it saw) - delay``, so the operator watermark of delay
  ``d + x`` is the one of delay ``d`` lowered by ``x`` at every tick (the valve's min, idleness
  and "never backwards" all commute with that shift; the sweep's closed form rests on the
  same fact). The smallest delay that keeps the record is ``d + watermark - cleanupTime + 1``;
  the smallest that puts it in its window's first result is ``d + watermark - maxTimestamp + 1``.
- **idle timeout** (only when the setting has one): idleness only ever *raises* the
  watermark (an idle input leaves the valve's minimum). A record dropped while a partition
  was idle may be kept with a longer timeout, with which that partition is still active when
  the record arrives (Flink's ``IdlenessTimer``: idle once ``now - start > timeout``, ``start``
  being the first periodic call without records). Each candidate timeout is checked by
  recomputing the watermark timeline (cheap: no window operator runs); the suggestion is the
  smallest candidate that keeps the record, or "no idleness" when none does.

Session windows merge: the record's own window ``[ts, ts + gap)`` is used (a dynamic
session: the record's own gap), which gives *sufficient* suggestions (a merged session only
ends later); ``exact`` says so per record. A staggered tumbling window is explained with the
offset its stagger resolved to at the first record (``toolkit.settings.staggered_offset``).

Everything is computed with numpy from the replay's arrays (its watermark timeline and the
per-partition watermark log); only the idle-timeout check loops, over distinct candidates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from toolkit.durations import readable, readable_up
from toolkit.engine.flink.pipeline import watermark_timeline
from toolkit.engine.flink.timeline import INT64_MIN, TimerTargets
from toolkit.fast.evaluate import FixedWindows, cleanup_time
from toolkit.settings import Custom, DynamicSession, Session, Setting, SettingError, Sliding, Tumbling, staggered_offset

#: strategies whose watermark shifts by exactly the delay (see the module doc)
SHIFT_STRATEGIES = ("bounded", "legacy", "monotonous", "time_lag", "punctuated")
#: at most this many distinct idle timeouts are checked (each recomputes the watermark timeline)
MAX_IDLE_CANDIDATES = 48
#: a partition that sent nothing for longer than this many periodic intervals is called silent
SILENT_INTERVALS = 5

_EPOCH_MS = 10**11  # below this, times read as plain ms (worked examples), above as UTC instants

COLUMNS = [
    "row", "key", "partition", "subtask", "fate", "reason", "event_time", "arrival_time",
    "window_start", "window_end", "windows", "max_timestamp", "cleanup_time", "watermark",
    "behind_end_ms", "behind_cleanup_ms",
    "holder_partition", "holder_subtask", "holder_watermark", "holder_behind_ms", "holder_silent_ms",
    "idle_partitions", "idle_silent_ms", "dropped_by_idleness",
    "delay_to_keep_ms", "lateness_to_keep_ms", "idleness_to_keep_ms", "delay_on_time_ms", "exact",
    # readable
    "event", "arrival", "window", "watermark_at", "late_by", "missed_by", "held_by",
    "delay_to_keep", "lateness_to_keep", "idleness_to_keep", "delay_on_time",
]


# ------------------------------------------------------------------------------------ readable
def duration_text(ms: Any) -> str:
    """A duration in ms as a person reads it (``toolkit.durations.readable``: ``250 ms``,
    ``1.2 s``, ``39.27 s``, ``5 min 3 s``); empty for a missing value."""
    if ms is None or (isinstance(ms, float) and math.isnan(ms)) or ms is pd.NA:
        return ""
    return readable(int(ms))


def instant_text(ms: Any, epoch: bool) -> str:
    """An instant: a UTC timestamp for epoch times (``2023-11-14 22:13:20.024``), else ``t=5 s``."""
    if ms is None or ms is pd.NA or (isinstance(ms, float) and math.isnan(ms)):
        return ""
    ms = int(ms)
    if ms <= INT64_MIN + 2**40:
        return "no watermark yet"
    if ms >= 2**62:
        return "end of input"
    if epoch:
        return str(np.datetime64(ms, "ms")).replace("T", " ")
    return f"t={duration_text(ms)}" if ms else "t=0"


def _instants(values: np.ndarray, epoch: bool) -> list[str]:
    if not epoch or not len(values):
        return [instant_text(v, False) for v in values.tolist()]
    ok = (values > INT64_MIN + 2**40) & (values < 2**62)
    text = np.datetime_as_string(np.where(ok, values, 0).astype("datetime64[ms]"), unit="ms")
    text = np.char.replace(text.astype(str), "T", " ")
    return [t if o else instant_text(int(v), True) for t, o, v in zip(text.tolist(), ok.tolist(), values.tolist())]


def _durations(values: np.ndarray, valid: np.ndarray | None = None, up: bool = False) -> list[str]:
    """Readable durations (empty where not ``valid``); ``up``: rounded up (a setting that keeps a record)."""
    text = keep_text if up else duration_text
    if valid is None:
        return [text(v) for v in values.tolist()]
    return [text(v) if ok else "" for v, ok in zip(values.tolist(), valid.tolist())]


def keep_text(ms: Any) -> str:
    """A duration that keeps a record, rounded up to what it shows (``readable_up``): the value
    printed keeps it too; empty for a missing value."""
    if ms is None or (isinstance(ms, float) and math.isnan(ms)) or ms is pd.NA:
        return ""
    return readable_up(int(ms))


# ------------------------------------------------------------------------------------- windows
def _latest_window(setting: Setting, ts: np.ndarray, a: dict | None = None, pos: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(start, end, number of windows) of each record's latest window, and whether exact
    (``a``/``pos``: the replay's arrays and the records' positions, for a dynamic session's
    gaps and a stagger's first arrival)."""
    w = setting.window
    if isinstance(w, Tumbling) and setting.stagger != "aligned":
        first = int(a["arr"][0]) if a is not None and len(a["arr"]) else 0
        w = Tumbling(w.size, staggered_offset(w, setting.stagger, first))
    if isinstance(w, DynamicSession):
        g = a["gap"][pos] if a is not None and pos is not None else None
        if g is None:
            raise SettingError("window", f"explain needs the gaps of window {w}")
        return ts.copy(), ts + g, np.ones(len(ts), np.int64), False
    if isinstance(w, (Tumbling, Sliding)):
        fw = FixedWindows.of(w)
        last = ts - np.mod(ts - fw.offset, fw.slide)
        count = np.maximum(0, -(-(last - ts + fw.size) // fw.slide))  # starts > ts - size, stepping back
        return last, last + fw.size, count.astype(np.int64), True
    if isinstance(w, Session):
        return ts.copy(), ts + w.gap, np.ones(len(ts), np.int64), False
    what = "a window object" if isinstance(w, Custom) else f"window={w}"
    raise SettingError("window", f"explain needs tumbling, sliding or session windows, not {what} "
                       "(global windows never drop records)")


# ------------------------------------------------------------------------------ watermark log
@dataclass
class _Levels:
    """Per-partition watermark and idle status in effect just before each selected record."""

    parts: np.ndarray  # partition ids
    wm: np.ndarray  # m x P int64 (INT64_MIN: none yet)
    idle: np.ndarray  # m x P bool
    last_arrival: np.ndarray  # m x P int64: last arrival of that partition before the record (MIN: none)


def _partition_state(result: Any, a: dict, sel: np.ndarray, parts: np.ndarray) -> _Levels:
    tl = result.timeline
    at = a["arr"][sel]
    m, P = len(sel), len(parts)
    wm = np.full((m, P), INT64_MIN, np.int64)
    idle = np.zeros((m, P), bool)
    last = np.full((m, P), INT64_MIN, np.int64)
    log = [r for r in tl.log if r[0] == "partition"]
    by_part: dict[int, list] = {}
    for r in log:
        by_part.setdefault(int(r[1]), []).append(r)
    pos_sel = sel  # arrival-order positions
    for j, p in enumerate(parts.tolist()):
        rows = by_part.get(p, [])
        if rows:
            t = np.fromiter((r[2] for r in rows), np.int64, len(rows))
            w = np.fromiter((INT64_MIN if r[3] is None else r[3] for r in rows), np.int64, len(rows))
            st = np.fromiter((r[4] == "idle" for r in rows), bool, len(rows))
            order = np.argsort(t, kind="stable")
            t, w, st = t[order], w[order], st[order]
            k = np.searchsorted(t, at, side="left") - 1  # changes strictly before the record's arrival
            ok = k >= 0
            wm[ok, j] = w[k[ok]]
            idle[ok, j] = st[k[ok]]
        mine = np.flatnonzero(a["part"] == p)  # arrival-order positions of p's records
        k = np.searchsorted(mine, pos_sel, side="left") - 1
        ok = k >= 0
        last[ok, j] = a["arr"][mine[k[ok]]]
    return _Levels(parts, wm, idle, last)


# ----------------------------------------------------------------------------- idle timeouts
class _CallGrid:
    """The periodic calls ``first + k * interval`` (k = 1..count) of a replay's sparse ticks
    (``toolkit.engine.flink.timeline.PeriodicTicks``), indexed arithmetically: never materialized, so a
    log spanning months at a 1 ms interval costs nothing here."""

    def __init__(self, ticks: Any) -> None:
        self.dense = None if ticks.interval > 0 else np.asarray(ticks.time, dtype=np.int64)
        self.first, self.interval, self.n = int(ticks.first), int(ticks.interval), len(ticks)

    def count_before(self, x: np.ndarray) -> np.ndarray:
        """How many calls lie strictly before each of ``x``."""
        x = np.asarray(x, dtype=np.int64)
        if self.dense is not None:
            return np.searchsorted(self.dense, x, side="left")
        k = -((self.first - x) // self.interval) - 1  # largest k with first + k * interval < x
        return np.clip(k, 0, self.n)

    def at(self, i: np.ndarray) -> np.ndarray:
        """Time of call ``i`` (0-based), ``i`` clipped into the grid."""
        i = np.clip(np.asarray(i, dtype=np.int64), 0, self.n - 1)
        return self.dense[i] if self.dense is not None else self.first + (i + 1) * self.interval


def _idle_candidates(lv: _Levels, at: np.ndarray, tl: Any, interval: int, cleanup: np.ndarray) -> np.ndarray:
    """Per record: the smallest idle timeout with which every partition that was idle at its
    arrival, and whose watermark was below its cleanup time, is still active (-1: none)."""
    out = np.full(len(at), -1, np.int64)
    if interval <= 0 or not len(tl.ticks):
        return out
    grid = _CallGrid(tl.ticks)
    t_last = grid.at(grid.count_before(at) - 1)
    for j in range(len(lv.parts)):
        e = lv.last_arrival[:, j]
        use = lv.idle[:, j] & (lv.wm[:, j] < cleanup) & (e > INT64_MIN)
        if not use.any():
            continue
        t1 = grid.at(grid.count_before(e[use]))  # first call that saw it
        start = t1 + interval  # the countdown starts at the next call without records
        need = np.maximum(t_last[use] - start, 0)
        out[use] = np.maximum(out[use], need)
    return out


def _records_only(s: Setting) -> TimerTargets | None:
    """Only the watermark at each record is read here: a processing-time watermark then needs
    no timer targets to be replayed sparsely (the call before each record is always run)."""
    return TimerTargets() if s.sparse_targets([]) is not None else None


def _watermark_with(a: dict, s: Setting, pos: np.ndarray) -> np.ndarray:
    """Operator watermark at the records ``pos`` (arrival order) under setting ``s`` (only the
    records up to the last of them are needed: a watermark depends on the past only)."""
    k = int(pos.max()) + 1 if len(pos) else 0
    if k == 0:
        return np.zeros(0, np.int64)
    mk = a["marker"][:k] if a["marker"] is not None else None
    tl = watermark_timeline(a["ts"][:k], a["arr"][:k], a["part"][:k], s.watermark_strategy(), interval=s.interval,
                            parallelism=s.source_parallelism, marker=mk, rows=a["rows"][:k], with_log=False,
                            targets=_records_only(s), split_discovery=s.split_discovery)
    return tl.record_watermark(k)[pos]


def _idle_suggestions(a: dict, setting: Setting, pos: np.ndarray, cleanup: np.ndarray,
                      cand: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(smallest checked idle timeout that keeps each record or -1, kept without idleness,
    whether the candidates were capped). Candidates are checked in ascending order."""
    best = np.full(len(pos), -1, np.int64)
    use = cand >= 0
    without = np.zeros(len(pos), bool)
    if not use.any():
        return best, without, False
    without[use] = cleanup[use] > _watermark_with(a, setting.replace(idleness=None), pos[use])
    values = np.unique(cand[use])
    capped = len(values) > MAX_IDLE_CANDIDATES
    if capped:  # keep the smallest, then a spread of the others
        values = np.unique(np.r_[values[: MAX_IDLE_CANDIDATES // 2],
                                 values[np.linspace(0, len(values) - 1, MAX_IDLE_CANDIDATES // 2).astype(int)]])
    open_ = use & without  # no timeout keeps what turning idleness off does not
    for v in values.tolist():
        sel = open_ & (cand <= v)
        if not sel.any():
            continue
        kept = cleanup[sel] > _watermark_with(a, setting.replace(idleness=max(int(v), 1)), pos[sel])
        idx = np.flatnonzero(sel)[kept]
        best[idx] = max(int(v), 1)
        open_[idx] = False
    return best, without, capped


# ------------------------------------------------------------------------------------ the table
def _arrays(result: Any) -> dict:
    a = getattr(result, "_records", None)
    if a is None or result.timeline is None or result.setting is None:
        raise ValueError("explain needs a result of toolkit.replay (its record arrays and watermark timeline)")
    return a


def _codes(result: Any, a: dict) -> np.ndarray:
    """Fate name of each record in arrival order."""
    f = result.fates
    idx = pd.Index(f["row"].to_numpy()).get_indexer(a["rows"])
    return f["fate"].to_numpy()[idx].astype(str)


def _reasons_of(result: Any, a: dict) -> np.ndarray:
    """Drop reason of each record in arrival order (``result.fates["reason"]``; "" when not dropped)."""
    f = result.fates
    if "reason" not in f.columns:
        return np.full(len(a["rows"]), "", dtype=object)
    idx = pd.Index(f["row"].to_numpy()).get_indexer(a["rows"])
    return f["reason"].to_numpy(dtype=object)[idx]


def drops(result: Any, *, fates: tuple[str, ...] = ("dropped", "late_accepted")) -> pd.DataFrame:
    """One row per dropped or late record (arrival order): why, and what would have kept it.

    Raw columns (ms; instants as the log's epoch ms): ``row, key, partition, subtask, fate,
    reason`` (a dropped record's: ``late``, ``no_window``, ``never_fired``...,
    ``toolkit.metrics.fates.DROP_REASONS``), ``event_time, arrival_time``, the deciding (latest) window ``window_start, window_end,
    max_timestamp, cleanup_time`` and how many windows the record belongs to (``windows``;
    0 for a record in a gap between sliding windows), the operator ``watermark`` when it was
    processed, ``behind_end_ms = watermark - max_timestamp`` (how late: >= 0 means its window
    had fired), ``behind_cleanup_ms = watermark - cleanup_time`` (>= 0 means dropped), the input
    that held the operator watermark then (``holder_partition``/``holder_subtask``, its
    ``holder_watermark``, ``holder_behind_ms`` = how far below the next-lowest partition it
    was, ``holder_silent_ms`` = how long it had sent nothing), ``idle_partitions`` (marked
    idle then, left out of the watermark; ``idle_silent_ms`` the longest silence among them),
    ``dropped_by_idleness`` (turning idleness off keeps it), and the
    smallest ``delay_to_keep_ms``, ``lateness_to_keep_ms``, ``idleness_to_keep_ms`` that keep
    a dropped record and ``delay_on_time_ms`` that puts it in its window's first result (NA
    where no such value exists; the monotonous strategy's is the bounded strategy's delay, as
    monotonous is bounded with delay 0); ``exact`` is False where they are sufficient but maybe not
    the smallest (session windows, a capped idle-timeout search).

    Readable columns (text): ``event, arrival, window, watermark_at, late_by, missed_by,
    held_by, delay_to_keep, lateness_to_keep, idleness_to_keep`` ("no idleness" when only
    turning idleness off keeps it), ``delay_on_time``; the four settings are rounded up to what
    they show (``readable_up``: "1 h 5 min" for 1 h 4 min 27 s), so the value read keeps the record.
    """
    a = _arrays(result)
    names = _codes(result, a)
    bad = sorted(set(fates) - {"dropped", "late_accepted", "on_time"})
    if bad:
        raise ValueError(f"fates: {bad[0]!r} is not a fate; choose among 'dropped', 'late_accepted', 'on_time'")
    cache = a.setdefault("_drops", {})
    key = ("dropped", "late_accepted") if set(fates) <= {"dropped", "late_accepted"} else tuple(sorted(fates))
    if key not in cache:
        cache[key] = _table(result, a, names, np.flatnonzero(np.isin(names, list(key))))
    table = cache[key]
    return table[table["fate"].isin(fates)].reset_index(drop=True)


def _table(result: Any, a: dict, names: np.ndarray, pos: np.ndarray) -> pd.DataFrame:
    """The :func:`drops` table of the records at arrival-order positions ``pos``."""
    s: Setting = result.setting
    tl = result.timeline
    m = len(pos)
    ts = a["ts"][pos]
    at = a["arr"][pos]
    part = a.get("log_partition", a["part"])[pos]
    start, end, nwin, exact = _latest_window(s, ts, a, pos)
    max_ts = end - 1
    L = int(s.lateness)
    cleanup = cleanup_time(max_ts.copy(), L)
    W = tl.record_watermark(len(a["ts"]))[pos]
    has_wm = W > INT64_MIN
    in_window = nwin > 0
    fate = names[pos]
    dropped = fate == "dropped"

    # who held the operator watermark: the lowest active partition at or above it
    parts = np.unique(a["part"])
    lv = _partition_state(result, a, pos, parts)
    valid = ~lv.idle & (lv.wm > INT64_MIN) & (lv.wm >= W[:, None])
    big = np.iinfo(np.int64).max
    wv = np.where(valid, lv.wm, big)
    order = np.argsort(wv, axis=1, kind="stable")
    lo = np.take_along_axis(wv, order[:, :1], axis=1)[:, 0]
    nxt = np.take_along_axis(wv, order[:, 1:2], axis=1)[:, 0] if len(parts) > 1 else np.full(m, big)
    has_holder = (lo < big) & bool(s.partitions_as_sources) & (len(parts) > 1)
    holder = np.where(has_holder, parts[order[:, 0]] if m else np.zeros(0, np.int64), -1)
    h_last = lv.last_arrival[np.arange(m), order[:, 0]] if m else np.zeros(0, np.int64)
    silent = np.where(has_holder & (h_last > INT64_MIN), at - h_last, -1)
    behind = np.where(has_holder & (nxt < big), nxt - lo, -1)
    idle_silent = np.where(lv.idle & (lv.last_arrival > INT64_MIN), at[:, None] - lv.last_arrival, -1).max(axis=1, initial=-1)
    name = _namer(result)
    idle_names = [",".join(name(p) for p in parts[row].tolist()) for row in lv.idle] if m else []

    # what would have kept it
    shift = isinstance(s.strategy, str) and s.strategy in SHIFT_STRATEGIES
    d = int(s.delay)
    late = has_wm & in_window & (W >= cleanup)  # Flink's isWindowLate for the deciding window
    can = dropped & late
    delay_keep = np.where(can & shift, d + (W - cleanup) + 1, -1)
    late_keep = np.where(can, np.maximum(W - max_ts + 1, 0), -1)
    on_time = np.where(has_wm & in_window & shift & (W >= max_ts), d + (W - max_ts) + 1, -1)
    idle_keep = np.full(m, -1, np.int64)
    by_idleness = np.zeros(m, bool)
    capped = False
    if s.idleness is not None and m and can.any():
        cand = np.where(can, _idle_candidates(lv, at, tl, int(s.interval), cleanup), -1)
        idle_keep, by_idleness, capped = _idle_suggestions(a, s, pos, cleanup, cand)
    idle_off = by_idleness & (idle_keep < 0)
    epoch = bool(len(a["ts"]) and np.abs(a["ts"]).max() >= _EPOCH_MS)
    sub = a["part"][pos] % max(1, int(s.source_parallelism))  # the generator's partition picks the subtask

    df = pd.DataFrame({
        "row": a["rows"][pos], "key": a["keys"][pos], "partition": part,
        "subtask": sub, "fate": fate, "reason": _reasons_of(result, a)[pos], "event_time": ts,
        "arrival_time": at if a["has_arr"] else pd.array([pd.NA] * m, dtype="Int64"),
        "window_start": _opt(start, in_window), "window_end": _opt(end, in_window),
        "windows": nwin, "max_timestamp": max_ts, "cleanup_time": cleanup, "watermark": W,
        "behind_end_ms": _opt(W - max_ts, has_wm), "behind_cleanup_ms": _opt(W - cleanup, has_wm),
        "holder_partition": _opt(holder), "holder_subtask": _opt(np.where(holder >= 0, holder % max(1, int(s.source_parallelism)), -1)),
        "holder_watermark": _opt(lo, has_holder),
        "holder_behind_ms": _opt(behind), "holder_silent_ms": _opt(silent),
        "idle_partitions": idle_names, "dropped_by_idleness": by_idleness,
        "idle_silent_ms": _opt(idle_silent),
        "delay_to_keep_ms": _opt(delay_keep), "lateness_to_keep_ms": _opt(late_keep),
        "idleness_to_keep_ms": _opt(idle_keep), "delay_on_time_ms": _opt(on_time),
        "exact": np.full(m, exact and not capped, bool),
    })
    df["event"] = _instants(ts, epoch)
    df["arrival"] = _instants(at, epoch) if a["has_arr"] else [f"record #{p:,}" for p in pos.tolist()]
    df["window"] = [f"[{x}, {y})" if ok else "no window (gap between sliding windows)"
                    for x, y, ok in zip(_instants(start, epoch), _instants(end, epoch), in_window.tolist())]
    df["watermark_at"] = _instants(W, epoch)
    df["late_by"] = _durations(W - max_ts, has_wm & in_window)
    df["missed_by"] = _durations(W - cleanup, has_wm & in_window & dropped)
    df["held_by"] = [_held_text(h, b, sl, s.interval, name) for h, b, sl in zip(holder.tolist(), behind.tolist(),
                                                                                silent.tolist())]
    df["delay_to_keep"] = _durations(delay_keep, delay_keep >= 0, up=True)
    df["lateness_to_keep"] = _durations(late_keep, late_keep >= 0, up=True)
    df["idleness_to_keep"] = ["no idleness" if off else (keep_text(v) if v >= 0 else "")
                              for v, off in zip(idle_keep.tolist(), idle_off.tolist())]
    df["delay_on_time"] = _durations(on_time, on_time >= 0, up=True)
    return df[COLUMNS]


def _opt(x: np.ndarray, valid: np.ndarray | None = None) -> Any:
    """An Int64 column of ``x``, NA where not ``valid`` (default: where ``x < 0``)."""
    out = pd.array(np.asarray(x, dtype=np.int64), dtype="Int64")
    out[~(np.asarray(x) >= 0 if valid is None else np.asarray(valid, bool))] = pd.NA
    return out


def _namer(result: Any) -> Callable[[Any], str]:
    """What a partition code is called in words: the log's name of it when its partitions have names."""
    label = getattr(result, "partition_label", None)
    return label if callable(label) else str


def _held_text(holder: int, behind: int, silent: int, interval: int, name: Callable[[Any], str] = str) -> str:
    if holder < 0:
        return ""
    text = f"partition {name(holder)}"
    if behind >= 0:
        text += f" ({duration_text(behind)} below the next-lowest partition)"
    if silent >= 0 and silent > SILENT_INTERVALS * max(interval, 1):
        text += f", silent for {duration_text(silent)}"
    return text


# ---------------------------------------------------------------------------------- in words
@dataclass(frozen=True)
class Explanation:
    """Why one record was dropped, late or on time: ``text`` in words, ``data`` the :func:`drops` row."""

    row: int
    fate: str
    text: str
    data: dict = field(repr=False)

    def __str__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        return self.text


def explain(result: Any, row: int) -> Explanation:
    """Explain the record of log row ``row`` (the ``row`` column of ``result.fates``)."""
    a = _arrays(result)
    try:
        r = int(row)
    except (TypeError, ValueError):
        raise ValueError(f"row: expected a row number of the log, got {row!r}") from None
    hit = np.flatnonzero(a["rows"] == r)
    if not len(hit):
        lo, hi = (int(a["rows"].min()), int(a["rows"].max())) if len(a["rows"]) else (0, -1)
        raise ValueError(f"row {r} was not replayed (rows {lo:,}..{hi:,}; quarantined rows are not replayed, "
                         "see log.quarantine)")
    names = _codes(result, a)
    d = _table(result, a, names, hit[:1]).iloc[0].to_dict()
    return Explanation(r, str(d["fate"]), _words(result.setting, d, _namer(result)), d)


def _na(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def _words(s: Setting, d: dict, name: Callable[[Any], str] = str) -> str:
    L = int(s.lateness)
    head = f"Row {d['row']:,} (key {d['key']}, partition {name(d['partition'])}, event time {d['event']})"
    fate = d["fate"]
    if not d["windows"]:
        return (f"{head} belongs to no window: its event time falls in a gap between the sliding windows of "
                f"{s.window}, so it is dropped whatever the watermark.")
    win = f"its window {d['window']}" if d["windows"] == 1 else f"the last of its {d['windows']} windows, {d['window']},"
    if _na(d["behind_end_ms"]):
        where = f"It arrived at {d['arrival']}, before any watermark"
    else:
        where = f"It arrived at {d['arrival']}, when the operator watermark was {d['watermark_at']}"
    lateness = f"plus {duration_text(L)} allowed lateness" if L else "no allowed lateness"
    held = f" The watermark was held by {d['held_by']}." if d["held_by"] else ""
    if d["idle_partitions"]:
        ps = d["idle_partitions"].split(",")
        held += (f" Partition {ps[0]} was" if len(ps) == 1 else f" Partitions {', '.join(ps)} were") + \
            " marked idle then (left out of the watermark)."
    if fate == "on_time":
        return f"{head} was on time: {where}, and it is in the first result of {win}."
    behind = duration_text(d["behind_end_ms"])
    if fate == "late_accepted":
        text = (f"{head} was late but accepted. {where}, {behind} past the end of {win}, which had fired already; "
                f"with {lateness.removeprefix('plus ')} the window was still kept (cleanup at {instant_text(d['cleanup_time'], _epoch(d))}), "
                f"so the record was added in a late firing.{held}")
        if not _na(d["delay_on_time_ms"]):
            text += f" A delay of at least {d['delay_on_time']} (now {duration_text(s.delay)}) puts it in the first result."
        return text
    if not _na(d["behind_cleanup_ms"]) and d["behind_cleanup_ms"] < 0 or _na(d["behind_end_ms"]):
        cause = (f"the trigger ({s.trigger}) never fired after it came" if s.evictor is None else
                 f"the trigger ({s.trigger}) or the evictor ({s.evictor}) left it out of every result")
        return (f"{head} was never emitted (reason {'never_fired' if s.evictor is None else 'evicted_or_never_fired'}"
                f"), but it was not late. {where}, before its window's cleanup time "
                f"{instant_text(d['cleanup_time'], _epoch(d))}, and it was taken into the window's state: {cause}. "
                "Flink does not drop it for lateness: it stays in window state until the window's cleanup or the end "
                "of the bounded job, never emitted (counted in dropped, reason in result.fates); no watermark setting "
                "changes that.")
    text = (f"{head} was dropped. {where}, {behind} past the end of {win} and {d['missed_by']} past its cleanup "
            f"time {instant_text(d['cleanup_time'], _epoch(d))} (its last timestamp, {lateness}), so every "
            f"window it belongs to was already purged.{held}")
    keep = []
    if not _na(d["delay_to_keep_ms"]):
        kind = "a bounded out-of-orderness delay" if s.strategy == "monotonous" else "a delay"
        keep.append(f"{kind} of at least {d['delay_to_keep']} (now {duration_text(s.delay)})")
    elif isinstance(s.strategy, str):
        keep.append(f"no delay of the {s.strategy} strategy is computed exactly here")
    if not _na(d["lateness_to_keep_ms"]):
        keep.append(f"an allowed lateness of at least {d['lateness_to_keep']} (now {duration_text(L)})")
    if not _na(d["idleness_to_keep_ms"]):
        keep.append(f"an idle timeout of {d['idleness_to_keep']} (now {duration_text(s.idleness)})")
    elif d["idleness_to_keep"] == "no idleness":
        keep.append("turning idleness off")
    if keep:
        text += " It would have been kept with " + ", or ".join(keep) + "."
        if not d["exact"]:
            text += " (Sufficient values: a session may merge, so smaller ones can work too.)"
    return text


def _epoch(d: dict) -> bool:
    return abs(int(d["event_time"])) >= _EPOCH_MS


def drop_causes(result: Any, top: int = 3) -> list[str]:
    """The main causes of the dropped records in words, biggest first, then what keeps them all:
    e.g. ``"231 of 297 drops: records of partition 1 arrived up to 4.1 s after their window's
    cleanup; a delay of 4.6 s or an allowed lateness of 5.1 s keeps them all"``.

    Records dropped while some partition was idle (and that a longer idle timeout, or no
    idleness, keeps) form one cause per set of idle partitions; the others one per record
    partition. Every "keeps" is exact: the delay and lateness ones follow from the per-record
    minima (a larger value keeps a record a smaller one keeps), an idle timeout is checked by
    recomputing the watermark timeline.
    """
    df = drops(result, fates=("dropped",))
    s: Setting = result.setting
    n = len(df)
    if n == 0:
        return ["No record was dropped."]
    idle_cause = df["dropped_by_idleness"].to_numpy() & df["idle_partitions"].ne("").to_numpy()
    not_late = ~(df["behind_cleanup_ms"].fillna(-1) >= 0).to_numpy()
    group = np.where(idle_cause, "idle:" + df["idle_partitions"], "late:" + df["partition"].astype(str))
    group = np.where(not_late, "fired:", group)
    lines: list[tuple[int, str, bool]] = []  # (records, words, is an idle cause)
    for g, sub in df.groupby(group, sort=False):
        k = len(sub)
        kind, what = g.split(":", 1)
        them = "it" if k == 1 else "them all"
        if kind == "fired":
            them_, they = ("it", "it") if k == 1 else ("them", "they")
            if s.evictor is None:
                t = (f"{k:,} of {n:,} drops were not late but never emitted: the trigger ({s.trigger}) never fired "
                     f"after {them_}, so {they} stayed in window state (reason never_fired); no watermark "
                     "setting changes that")
            else:
                t = (f"{k:,} of {n:,} drops were not late: the trigger ({s.trigger}) or the evictor "
                     f"({s.evictor}) left {them_} out of every result (reason evicted_or_never_fired)")
        elif kind == "idle":
            ps = what.replace(",", ", ")
            plural = "s" if "," in what else ""
            silent = sub["idle_silent_ms"].max()
            t = (f"{k:,} of {n:,} drops came while partition{plural} {ps} {'were' if plural else 'was'} silent "
                 f"(up to {duration_text(int(silent))}) and marked idle by the {duration_text(s.idleness)} idle timeout, "
                 "so the watermark moved on without it")
            need = sub["idleness_to_keep_ms"].dropna()
            if len(need) == k and _idle_keeps_all(result, sub, int(need.max())):
                t += f"; an idle timeout of {keep_text(int(need.max()))} (or none) keeps {them}"
            else:
                t += f"; turning idleness off keeps {them}"
            t += _keeps(sub, "it" if k == 1 else "them", also=True)
        else:
            t = (f"{k:,} of {n:,} drops: records of partition {_namer(result)(what)} arrived up to "
                 f"{duration_text(int(sub['behind_cleanup_ms'].max()))} after their window's cleanup")
            t += _keeps(sub, them)
            holders = sub["holder_partition"].dropna()
            if len(holders):
                hp, hc = holders.value_counts().index[0], int(holders.value_counts().iloc[0])
                silent = sub.loc[sub["holder_partition"] == hp, "holder_silent_ms"].dropna()
                if hc == k and len(silent) and silent.max() > SILENT_INTERVALS * max(1, s.interval):
                    t += (f" (the watermark was held by partition {_namer(result)(hp)}, silent for up to "
                          f"{duration_text(int(silent.max()))})")
        lines.append((k, t, kind == "idle"))
    lines.sort(key=lambda x: (-x[0], x[1]))
    shown = lines[:top] + [x for x in lines[top:] if x[2]]  # idle causes are always named
    out = [t for _, t, _ in shown]
    if len(lines) > len(shown):
        rest = sum(k for k, _, _ in lines) - sum(k for k, _, _ in shown)
        out.append(f"{rest:,} more drops in {len(lines) - len(shown)} other group(s).")
    if not_late.all():
        return out
    late_df = df[~not_late]
    what = ((f"All {n:,}" if n > 1 else "The drop") if not not_late.any()
            else (f"The {len(late_df):,} late ones" if len(late_df) > 1 else "The late one"))
    out.append(f"{what}:" + _keeps(late_df, "every one" if len(late_df) > 1 else "it", now=s)[1:] + ".")
    return out


def _keeps(sub: pd.DataFrame, what: str, now: Setting | None = None, also: bool = False) -> str:
    parts = []
    dk, lk = sub["delay_to_keep_ms"], sub["lateness_to_keep_ms"]
    if dk.notna().all() and len(dk):
        parts.append(f"a delay of {keep_text(int(dk.max()))}" + (f" (now {duration_text(now.delay)})" if now else ""))
    if lk.notna().all() and len(lk):
        parts.append(f"an allowed lateness of {keep_text(int(lk.max()))}"
                     + (f" (now {duration_text(now.lateness)})" if now else ""))
    if not parts:
        return "" if also else "; no single delay or lateness keeps them (see the table)"
    return "; " + " or ".join(parts) + f" keeps {what}" + (" too" if also else "")


def _idle_keeps_all(result: Any, sub: pd.DataFrame, timeout: int) -> bool:
    a = _arrays(result)
    s = result.setting.replace(idleness=timeout)
    tl = watermark_timeline(a["ts"], a["arr"], a["part"], s.watermark_strategy(), interval=s.interval,
                            parallelism=s.source_parallelism, marker=a["marker"], rows=a["rows"], with_log=False,
                            targets=_records_only(s), split_discovery=s.split_discovery)
    pos = pd.Index(a["rows"]).get_indexer(sub["row"].to_numpy())
    return bool((sub["cleanup_time"].to_numpy() > tl.record_watermark(len(a["ts"]))[pos]).all())
