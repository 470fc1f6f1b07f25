"""Closed-form evaluation of tumbling/sliding event-time windows under a watermark timeline.

The rules (Flink's ``WindowOperator`` + ``EventTimeTrigger``, accumulating, allowed
lateness ``L``), with ``W(r)`` the operator watermark current when record ``r`` is processed:

* window ``w`` of record ``r`` is late iff ``w.max_ts + L <= W(r)`` (``cleanupTime``);
  ``r`` is dropped iff all its windows are late (or it has none);
* with ``k_f(w)`` the first tick whose watermark ``>= w.max_ts`` and ``k_c(w)`` the first
  tick whose watermark ``>= w.max_ts + L``: a pair is accepted iff fewer than ``k_c + 1``
  ticks precede it, i.e. ``seg(r) <= k_c`` where ``seg(r)`` counts the ticks before ``r``;
* first firing: at tick ``k_f`` (or at end of input when no tick reaches ``max_ts``) with
  every pair accepted before it; but when the window's first accepted record already sees
  ``W >= max_ts`` the window fires at that record (pane 0, caused by a record);
* every accepted pair after the first firing re-fires the window at its arrival;
* state is dropped at tick ``k_c`` (cleanup timer), or at end of input.

Within each window the pairs are sorted by arrival, ``seg`` is nondecreasing, so the
accepted pairs of a window are a prefix and every figure is a few ``searchsorted`` over
(window, segment) runs: no per-record Python loop, and per configuration the cost is
O(windows + runs), with the window assignment and runs shared by every delay and lateness.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from toolkit.engine.flink.timeline import INT64_MAX, TickShape, WatermarkTimeline, ticks_before

# -- configuration ---------------------------------------------------------------------


@dataclass(frozen=True)
class FixedWindows:
    """Tumbling (``slide == size``) or sliding event-time windows, Flink's assignment rule:
    last start ``ts - floorMod(ts - offset, slide)``, then every ``slide`` back while
    ``start > ts - size``."""

    size: int
    slide: int
    offset: int = 0

    def __post_init__(self):
        if self.size <= 0 or self.slide <= 0:
            raise ValueError(f"window size and slide must be positive, got size={self.size}, slide={self.slide}")
        if abs(self.offset) >= self.slide:
            raise ValueError(f"window offset must satisfy |offset| < slide, got offset={self.offset}, slide={self.slide}")

    @classmethod
    def of(cls, window) -> "FixedWindows":
        """From a ``toolkit.settings`` window (``Tumbling`` or ``Sliding``)."""
        return cls(window.size, getattr(window, "slide", window.size), window.offset)

    @property
    def per_record(self) -> int:
        return -(-self.size // self.slide)

    @property
    def tumbling(self) -> bool:
        return self.size == self.slide


# -- per shard data ----------------------------------------------------------------------


class Shard:
    """The records of one key shard in arrival order (``(arrival_time, row)`` ascending)."""

    def __init__(self, key, event_time, arrival_time, row, values=None, gaps=None, partition=None):
        arrival_time = np.asarray(arrival_time, dtype=np.int64)
        row = np.asarray(row, dtype=np.int64)
        order = np.lexsort((row, arrival_time))
        self.order = order
        self.ts = np.asarray(event_time, dtype=np.int64)[order]
        self.arrival = arrival_time[order]
        self.row = row[order]
        codes, uniques = pd.factorize(np.asarray(key, dtype=object)[order], sort=True)
        self.key_code = codes.astype(np.int64)
        self.keys = np.asarray(uniques, dtype=object)
        self.n = len(self.ts)
        # record values (the engine path's window functions see them; figures do not)
        self.values = np.ones(self.n, dtype=np.int64) if values is None else np.asarray(values)[order]
        # dynamic session gaps (int64 ms) per log column, for ``dynamic_session:COLUMN`` windows
        self.gaps = {c: np.asarray(g, dtype=np.int64)[order] for c, g in (gaps or {}).items()}
        # the log's partition (Kafka Streams' tasks with repartition=False); 0 when not given
        self.partition = (np.zeros(self.n, dtype=np.int64) if partition is None
                          else np.asarray(partition, dtype=np.int64)[order])
        self._pairs: dict = {}
        self._runs: dict = {}
        self._segs: dict = {}

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> "Shard":
        return cls(frame["key"].to_numpy(), frame["event_time"].to_numpy(), frame["arrival_time"].to_numpy(), frame["row"].to_numpy(),
                   frame["value"].to_numpy() if "value" in frame else None)

    def pairs(self, spec: FixedWindows) -> "Pairs":
        if spec not in self._pairs:
            self._pairs[spec] = Pairs(self, spec)
        return self._pairs[spec]

    def segs(self, shape: TickShape) -> np.ndarray:
        k = id(shape)
        if k not in self._segs:
            self._segs[k] = (shape, ticks_before(shape, self.arrival, self.row))
        return self._segs[k][1]

    def runs(self, spec: FixedWindows, shape: TickShape) -> "Runs":
        k = (spec, id(shape))
        if k not in self._runs:
            self._runs[k] = (shape, Runs(self.pairs(spec), self.segs(shape), len(shape), self.arrival))
        return self._runs[k][1]


class Pairs:
    """Record-window pairs sorted by (key, window start, arrival index): one group per window."""

    def __init__(self, shard: Shard, spec: FixedWindows):
        n = shard.n
        ts = shard.ts
        self.spec = spec
        last_start = ts - np.mod(ts - np.int64(spec.offset), np.int64(spec.slide))
        m = spec.per_record
        if m == 1:
            rec = np.arange(n, dtype=np.int64)
            start = last_start
            ok = start > ts - np.int64(spec.size)
            rec, start = rec[ok], start[ok]
        else:
            back = np.arange(m, dtype=np.int64) * np.int64(spec.slide)
            start = (last_start[:, None] - back[None, :]).ravel()
            rec = np.repeat(np.arange(n, dtype=np.int64), m)
            ok = start > ts[rec] - np.int64(spec.size)
            rec, start = rec[ok], start[ok]
        kc = shard.key_code[rec]
        order = np.lexsort((rec, start, kc))
        self.rec = rec[order]
        start = start[order]
        kc = kc[order]
        p = len(self.rec)
        new = np.ones(p, dtype=bool)
        if p > 1:
            new[1:] = (kc[1:] != kc[:-1]) | (start[1:] != start[:-1])
        self.win_first_pair = np.nonzero(new)[0].astype(np.int64)
        self.pair_win = np.cumsum(new, dtype=np.int64) - 1
        self.n_windows = len(self.win_first_pair)
        self.true_count = np.diff(np.append(self.win_first_pair, p)).astype(np.int64)
        self.win_key = kc[self.win_first_pair]
        self.win_start = start[self.win_first_pair]
        self.max_ts = self.win_start + np.int64(spec.size - 1)
        self.n_pairs = p
        # the latest window of each record (largest start = largest max_ts), -1 if none
        latest = np.full(n, -1, dtype=np.int64)
        is_last = start == last_start[self.rec]
        latest[self.rec[is_last]] = self.pair_win[is_last]
        self.latest_window = latest
        self.first_rec = self.rec[self.win_first_pair]
        self._distinct: tuple[np.ndarray, np.ndarray] | None = None

    def distinct_max_ts(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct ``max_ts`` of the windows and each window's index among them (computed
        once: every configuration then searches the timeline for these few values only)."""
        if self._distinct is None:
            u, inv = np.unique(self.max_ts, return_inverse=True)
            self._distinct = (u.astype(np.int64), inv.astype(np.int64).ravel())
        return self._distinct

    def first_tick(self, watermark: np.ndarray, target: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Per window, the first tick whose watermark is ``>= target(max_ts)`` (elementwise ``target``)."""
        u, inv = self.distinct_max_ts()
        return np.searchsorted(watermark, target(u.copy()), side="left").astype(np.int64)[inv]


class Runs:
    """Maximal runs of pairs with the same (window, segment); sorted by window then segment.

    Totals over all runs are precomputed once, so a configuration only touches the runs it
    rejects (``seg > k_c``: the dropped pairs), never every run."""

    def __init__(self, pairs: Pairs, seg_rec: np.ndarray, n_ticks: int, arrival: np.ndarray):
        seg = seg_rec[pairs.rec]
        p = pairs.n_pairs
        new = np.ones(p, dtype=bool)
        if p > 1:
            new[1:] = (pairs.pair_win[1:] != pairs.pair_win[:-1]) | (seg[1:] != seg[:-1])
        starts = np.nonzero(new)[0]
        self.win = pairs.pair_win[starts]
        self.seg = seg[starts]
        self.count = np.diff(np.append(starts, p)).astype(np.int64)
        self.base = int(arrival[0]) if len(arrival) else 0
        rel = arrival[pairs.rec] - np.int64(self.base)
        csum = np.concatenate([[0], np.cumsum(rel, dtype=np.int64)])
        self.tsum = csum[np.append(starts[1:], p)] - csum[starts]
        self.stride = np.int64(n_ticks + 2)
        self.comp = self.win * self.stride + self.seg
        self.cum = np.concatenate([[0], np.cumsum(self.count, dtype=np.int64)])
        self.win_first_run = np.searchsorted(self.win, np.arange(pairs.n_windows, dtype=np.int64), side="left")
        self.win_end_run = np.append(self.win_first_run[1:], len(self.win)).astype(np.int64)
        self.s0 = self.seg[self.win_first_run] if pairs.n_windows else np.zeros(0, dtype=np.int64)
        self.seg_rec = seg_rec
        self.n_ticks = n_ticks
        self.inc_all = np.bincount(self.seg, weights=self.count, minlength=n_ticks + 1).astype(np.int64)
        self.tsum_all = int(self.tsum.sum())
        self.wids = np.arange(pairs.n_windows, dtype=np.int64) * self.stride

    def index_le(self, limit: np.ndarray) -> np.ndarray:
        """Per window, the index of its first run whose segment is > ``limit[w]`` (a window's runs
        are sorted by segment: its first run plus how many of them are ``<= limit[w]``; every
        window has a run)."""
        if not len(self.win):
            return self.win_first_run.copy()
        below = (self.seg <= np.asarray(limit, dtype=np.int64)[self.win]).astype(np.int64)
        return self.win_first_run + np.add.reduceat(below, self.win_first_run)

    def count_le(self, limit: np.ndarray) -> np.ndarray:
        """Pairs of each window whose segment is <= ``limit[w]``."""
        return self.cum[self.index_le(limit)] - self.cum[self.win_first_run]


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(starts[i], ends[i])`` without a Python loop."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    keep = lengths > 0
    st, ln = starts[keep], lengths[keep]
    offs = np.cumsum(ln) - ln
    return np.repeat(st - offs, ln) + np.arange(total, dtype=np.int64)


# -- evaluation -----------------------------------------------------------------------------


@dataclass
class WindowFigures:
    """Per-window outcome of one configuration (arrays indexed by window)."""

    accepted: np.ndarray  # accepted pairs (= final count)
    first: np.ndarray  # pairs in the first firing
    record_caused: np.ndarray  # bool: first firing caused by a (late) record
    at_end: np.ndarray  # bool: first firing by the end-of-input watermark
    first_emit: np.ndarray  # processing time of the first firing
    last_emit: np.ndarray  # processing time of the last firing
    kf: np.ndarray
    kc: np.ndarray
    idx_c: np.ndarray | None = None  # the run index of each window's close, set by the evaluator
    idx_f: np.ndarray | None = None  # the run index of each window's first run after k_f, likewise


def cleanup_time(max_ts: np.ndarray, lateness: int) -> np.ndarray:
    """``max_ts + L``, saturated at Long.MAX_VALUE (Flink guards the overflow)."""
    lat = np.int64(lateness)
    out = max_ts + lat
    over = max_ts > INT64_MAX - lat
    out[over] = INT64_MAX
    return out


def evaluate_windows(
    shard: Shard, spec: FixedWindows, timeline: WatermarkTimeline, lateness: int, *, with_last: bool = True
) -> tuple[Pairs, Runs, WindowFigures]:
    pairs = shard.pairs(spec)
    runs = shard.runs(spec, timeline.shape)
    wm = timeline.watermark
    k = len(wm)
    kf = pairs.first_tick(wm, lambda t: t)
    kc = pairs.first_tick(wm, lambda t: cleanup_time(t, lateness))
    s0 = runs.s0
    any_acc = s0 <= kc
    record_caused = any_acc & (s0 > kf)
    idx_c = runs.index_le(kc)
    accepted = runs.cum[idx_c] - runs.cum[runs.win_first_run]
    idx_f = runs.index_le(kf)
    first = np.where(record_caused, 1, runs.cum[idx_f] - runs.cum[runs.win_first_run])
    at_end = any_acc & ~record_caused & (kf >= k)
    first_emit = np.full(pairs.n_windows, np.int64(timeline.end_time), dtype=np.int64)
    ticked = kf < k
    first_emit[ticked] = timeline.shape.time[kf[ticked]]
    first_emit[record_caused] = shard.arrival[pairs.first_rec[record_caused]]
    if with_last:
        last_pair = pairs.win_first_pair + np.maximum(accepted, 1) - 1
        last_emit = first_emit.copy()
        later = accepted > first
        last_emit[later] = shard.arrival[pairs.rec[last_pair[later]]]
    else:
        last_emit = first_emit
    fig = WindowFigures(accepted, first, record_caused, at_end, first_emit, last_emit, kf, kc)
    fig.idx_c = idx_c
    fig.idx_f = idx_f
    return pairs, runs, fig


SCALARS = (
    "valid",
    "on_time",
    "late_accepted",
    "dropped",
    "windows",
    "exact_windows",
    "fired_windows",
    "true_pairs",
    "first_pairs",
    "final_pairs",
    "firings",
    "late_firings",
    "retractions",
    "state_area_windows",
    "state_area_records",
    "at_end_firings",
    "no_session",  # Spark's per-record session gaps: rows with a null/zero/negative gap (invalid)
)


def record_fates(shard: Shard, pairs: Pairs, fig: WindowFigures, seg_rec: np.ndarray) -> np.ndarray:
    """Fate code per record in shard arrival order: 0 on_time, 1 late_accepted, 2 dropped.

    A record is accepted iff its latest window (largest max_ts) accepts it; it is on time iff
    that window's watermark firing includes it (``seg <= k_f``) or it created a window whose
    first firing it caused (pane 0 of a record-caused firing)."""
    wl = pairs.latest_window
    has = wl >= 0
    wl0 = np.where(has, wl, 0)
    if pairs.n_windows == 0:
        return np.full(shard.n, 2, dtype=np.int8)
    acc = has & (seg_rec <= fig.kc[wl0])
    on = has & (seg_rec <= fig.kf[wl0])
    creator = np.zeros(shard.n, dtype=bool)
    creator[pairs.first_rec[fig.record_caused]] = True
    on |= creator
    return np.where(on, 0, np.where(acc, 1, 2)).astype(np.int8)


def partial(
    shard: Shard,
    spec: FixedWindows,
    timeline: WatermarkTimeline,
    lateness: int,
    *,
    retracting: bool = False,
) -> dict:
    """Exactly mergeable figures of one shard under one configuration (see ``toolkit.metrics.summary``)."""
    pairs, runs, fig = evaluate_windows(shard, spec, timeline, lateness, with_last=False)
    k = len(timeline)
    t_end = np.int64(timeline.end_time)
    fired = fig.accepted > 0
    refires = fig.accepted - fig.first
    if spec.tumbling:
        on_time = int(fig.first.sum())
        late_acc = int(refires.sum())
        dropped = shard.n - int(fig.accepted.sum())
    else:
        fates = record_fates(shard, pairs, fig, runs.seg_rec)
        counts = np.bincount(fates, minlength=3)
        on_time, late_acc, dropped = int(counts[0]), int(counts[1]), int(counts[2])
    # state: windows open from their first accepted pair to cleanup tick kc (or end);
    # accepted runs are a prefix of each window's runs: totals minus the rejected suffixes
    open_seg = runs.s0[fired]
    open_time = shard.arrival[pairs.first_rec[fired]]
    closes = fired & (fig.kc < k)
    close_tick = fig.kc[closes]
    close_time = timeline.shape.time[close_tick] if k else np.zeros(0, dtype=np.int64)
    rejected = _ranges(fig.idx_c, runs.win_end_run)
    final_pairs = int(fig.accepted.sum())
    area_w = int(np.sum(t_end - open_time, dtype=np.int64)) - int(np.sum(t_end - close_time, dtype=np.int64))
    area_r = (
        final_pairs * int(t_end - np.int64(runs.base))
        - (runs.tsum_all - int(np.sum(runs.tsum[rejected], dtype=np.int64)))
        - int(np.sum((t_end - close_time) * fig.accepted[closes], dtype=np.int64))
    )
    inc_w = np.bincount(open_seg, minlength=k + 1).astype(np.int64)
    inc_r = runs.inc_all - np.bincount(runs.seg[rejected], weights=runs.count[rejected], minlength=k + 1).astype(np.int64)
    dec_w = np.bincount(close_tick, minlength=k + 1).astype(np.int64)
    dec_r = np.bincount(close_tick, weights=fig.accepted[closes], minlength=k + 1).astype(np.int64)
    # latency is defined for windows fired before the end of input; those fired only by it are counted apart
    at_end = fired & fig.at_end
    lat = (fig.first_emit - (pairs.max_ts + 1))[fired & ~at_end]
    values, counts = _value_counts(lat)
    scalars = {
        "valid": shard.n,
        "on_time": on_time,
        "late_accepted": late_acc,
        "dropped": dropped,
        "windows": pairs.n_windows,
        "exact_windows": int(np.sum(fig.first == pairs.true_count)),
        "fired_windows": int(fired.sum()),
        "true_pairs": pairs.n_pairs,
        "first_pairs": int(fig.first.sum()),
        "final_pairs": final_pairs,
        "firings": int(fired.sum() + refires.sum()),
        "late_firings": int(refires.sum() + fig.record_caused.sum()),
        "retractions": int(refires.sum()) if retracting else 0,
        "state_area_windows": area_w,
        "state_area_records": area_r,
        "at_end_firings": int(at_end.sum()),
    }
    # state deltas at global positions: 2k = records of segment k (before tick k), 2k+1 = tick k
    pos = np.arange(k + 1, dtype=np.int64)
    inc = (inc_w != 0) | (inc_r != 0)
    dec = (dec_w != 0) | (dec_r != 0)
    state = (
        np.concatenate([2 * pos[inc], 2 * pos[dec] + 1]),
        np.concatenate([inc_w[inc], -dec_w[dec]]),
        np.concatenate([inc_r[inc], -dec_r[dec]]),
    )
    return {"scalars": scalars, "latency": (values.astype(np.int64), counts.astype(np.int64)), "state": state}


def _value_counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and their counts (bincount when the range is small)."""
    if len(values) == 0:
        return values.astype(np.int64), np.zeros(0, dtype=np.int64)
    lo, hi = int(values.min()), int(values.max())
    if hi - lo <= 4 * len(values) + 1024:
        c = np.bincount(values - lo)
        nz = np.flatnonzero(c)
        return (nz + lo).astype(np.int64), c[nz].astype(np.int64)
    v, c = np.unique(values, return_counts=True)
    return v.astype(np.int64), c.astype(np.int64)


def window_frame(shard: Shard, spec: FixedWindows, timeline: WatermarkTimeline, lateness: int) -> pd.DataFrame:
    """Per-window figures of one configuration (one row per true window)."""
    pairs, runs, fig = evaluate_windows(shard, spec, timeline, lateness)
    end = pairs.win_start + np.int64(spec.size)
    fired = fig.accepted > 0
    timing = np.where(fig.record_caused, "late", np.where(fig.at_end, "at_end", "on_time"))
    frame = pd.DataFrame(
        {
            "key": shard.keys[pairs.win_key] if pairs.n_windows else np.zeros(0, dtype=object),
            "window_start": pairs.win_start,
            "window_end": end,
            "true_count": pairs.true_count,
            "first_count": fig.first,
            "final_count": fig.accepted,
            "firings": np.where(fired, 1 + fig.accepted - fig.first, 0),
            "first_timing": np.where(fired, timing, None),
            "first_emit_time": pd.array(np.where(fired, fig.first_emit, 0), dtype="Int64"),
            "first_latency_ms": pd.array(np.where(fired, fig.first_emit - end, 0), dtype="Int64"),
            "settle_latency_ms": pd.array(np.where(fired, fig.last_emit - end, 0), dtype="Int64"),
            "exact": fig.first == pairs.true_count,
        }
    )
    for col in ("first_emit_time", "first_latency_ms", "settle_latency_ms"):
        frame.loc[~fired, col] = pd.NA
    return frame
