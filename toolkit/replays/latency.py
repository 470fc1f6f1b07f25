"""What dominates a replay's latency tail, when it is a structural cause, in words and with the
chart that shows it (docs/figures.md, "What the latency tail comes from").

The rule, from the replay's own figures:

- **the tail**: the windows whose first firing came at least the p99 result latency after their
  end (latency = first firing - window end, nearest rank, as the summary's ``latency_p99_ms``;
  windows fired only at the end of input have no latency and are not in it): M windows;
- **each tail window's cause**, the first of these that holds:

  1. *silence*: the log's arrivals, every partition together, paused for at least the log's
     silence threshold (``describe``'s, :func:`toolkit.log.describe.resolve_silence`) inside the
     window's wait ``[window end, first firing]``, the pauses covering at least half of it;
  2. *held by one input* (engines whose watermark is the minimum over inputs,
     ``Semantics.holding_level``): one input's watermark reached the window's end last, at least
     half the wait and two of its watermark updates (the median time between them) after every
     other input's; *idle* when that input received nothing for at least half that hold (an
     idle partition holds the watermark back, until an idle timeout when there is one), else
     *late* (its records' event times lag the others');
  3. none: the wait is the watermark delay, the transport delays, the trigger: nothing structural;

- **end of input**: when the windows fired only at the end of input outnumber M (counted as
  infinitely slow, they would fill the p99 tail), they are the cause;
- **what is said**: the most frequent cause of the tail windows when it covers at least half of
  them (N of M), a late input counted per input (one input lags: N windows waited for it) and
  idle ones together (each named with its count: they take turns); otherwise nothing (a cause
  is never invented).

Everything is numpy over the first firings, the arrival times and the watermark series.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from toolkit.durations import readable

#: the tail: windows at or above this latency percentile (the summary's p99)
TAIL_QUANTILE = 0.99
#: a cause is said when it explains at least this share of the tail windows
DOMINANT_SHARE = 0.5
#: a silence or a holding input explains a window when it covers at least this share of its wait
COVER_SHARE = 0.5

#: a hold shorter than this many watermark updates of the input is the watermark's own resolution
HOLD_UPDATES = 2

#: where each cause shows: the report's section title (and its viz function)
FIGURES = {
    "silence": "Window firings",
    "idle": "Watermark lag",
    "late": "Watermark lag",
    "end_of_input": "Window firings",
}
_VIZ = {"Window firings": "toolkit.viz.firing_timeline", "Watermark lag": "toolkit.viz.watermark_lag"}


@dataclass
class LatencyTail:
    """What dominates the latency tail (``str()``: the sentence, empty when nothing structural):
    ``cause`` (``silence``, ``idle``, ``late``, ``end_of_input`` or None), ``explained`` of
    ``windows`` tail windows, ``threshold_ms`` (the p99 latency), ``silence_ms`` (the silence
    threshold), ``holder`` (the input that held the watermark, by name), ``figure`` (the chart's
    title) and ``data`` (each tail window: key, window end, latency, cause, holder)."""

    cause: str | None
    windows: int
    explained: int
    threshold_ms: float | None
    silence_ms: int | None
    holder: str | None
    figure: str | None
    words: str
    data: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)

    def __str__(self) -> str:
        return self.words

    def beside_chart(self) -> str:
        """The sentence as the section of the chart it names says it ("...: this chart shows it in
        partition 2's line.")."""
        if not self.words or not self.figure:
            return self.words
        see = f"see the report's {self.figure} chart"
        text = self.words.replace(f" ({self.chart})", "")
        return text.replace(f"{see}, ", "this chart shows it in ").replace(see, "this chart shows it")

    @property
    def chart(self) -> str | None:
        """The viz function that draws the figure (``toolkit.viz.watermark_lag``)."""
        return _VIZ.get(self.figure or "")


def first_firings(emissions: pd.DataFrame) -> pd.DataFrame:
    """One row per fired window: key, window end, its first firing's time and whether that was
    only at the end of input (the windows of the summary's latency and ``at_end_firings``)."""
    em = emissions[emissions["kind"] == "fire"] if len(emissions) else emissions
    cols = ["key", "window_start", "window_end"]
    if not len(em) or em["window_end"].isna().all():
        return pd.DataFrame({"key": [], "window_end": np.zeros(0, np.int64), "emit_time": np.zeros(0, np.int64),
                             "at_end": np.zeros(0, bool)})
    em = em[em["window_end"].notna()]
    first = em.sort_values("emit_time", kind="mergesort").drop_duplicates(cols, keep="first")
    at_end = first["at_end"].to_numpy().astype(bool) if "at_end" in first else np.zeros(len(first), bool)
    return pd.DataFrame({"key": first["key"].astype(str).to_numpy(),
                         "window_end": first["window_end"].to_numpy(dtype=np.int64),
                         "emit_time": first["emit_time"].to_numpy(dtype=np.int64), "at_end": at_end})


def _silent_before(arrival: np.ndarray, silence: int) -> tuple[np.ndarray, np.ndarray]:
    """Breakpoints of S(t) = the silent time before t (gaps of at least ``silence`` between
    consecutive arrivals of the whole log), for ``np.interp``."""
    a = np.sort(arrival)
    gaps = np.diff(a)
    long = np.flatnonzero(gaps >= silence)
    if not len(long):
        return np.array([0.0, 1.0]), np.array([0.0, 0.0])
    starts, ends = a[long].astype("float64"), a[long + 1].astype("float64")
    xs = np.empty(2 * len(long))
    xs[0::2], xs[1::2] = starts, ends
    cum = np.cumsum(ends - starts)
    ys = np.empty(2 * len(long))
    ys[0::2] = np.concatenate([[0.0], cum[:-1]])
    ys[1::2] = cum
    return xs, ys


def daily_band(starts: np.ndarray) -> int | None:
    """The UTC hour at which a 3-hour band of the day holds at least 80 % of these silence starts
    (epoch ms, at least 7 of them): silences that come every night; None otherwise."""
    if len(starts) < 7 or starts.min() < 10**11:
        return None
    hours = np.bincount((starts // 3_600_000) % 24, minlength=24)
    band = hours + np.roll(hours, -1) + np.roll(hours, -2)
    best = int(np.argmax(band))
    return best if band[best] >= 0.8 * len(starts) else None


def silence_threshold(arrival: np.ndarray, partition: np.ndarray) -> int:
    """``describe``'s default silence threshold for these arrivals (per-partition gaps)."""
    from toolkit.log.describe import resolve_silence

    order = np.lexsort((arrival, partition))
    a, p = arrival[order], partition[order]
    gaps = np.diff(a)[p[1:] == p[:-1]]
    median = int(np.quantile(gaps, 0.5, method="inverted_cdf")) if len(gaps) else None
    return resolve_silence("auto", median, len(gaps))


def _reached(watermarks: pd.DataFrame, level: str, max_ts: np.ndarray, since: np.ndarray) -> tuple[list, np.ndarray]:
    """Per input of ``level``: when its watermark first reached each window's ``max_ts`` (or the
    input went idle), not before ``since``. Returns (input ids, times: inputs x windows)."""
    wm = watermarks[watermarks["level"] == level]
    ids = sorted(wm["id"].unique().tolist())
    out = np.full((len(ids), len(max_ts)), np.iinfo(np.int64).max, dtype=np.int64)
    for i, one in enumerate(ids):
        w = wm[wm["id"] == one].sort_values("time", kind="mergesort")
        t = w["time"].to_numpy(dtype=np.int64)
        idle = w["status"].astype(str).to_numpy() == "idle" if "status" in w else np.zeros(len(w), bool)
        low = np.iinfo(np.int64).min  # an idle row carries no watermark
        level_wm = np.maximum.accumulate(np.where(idle, low, w["watermark"].to_numpy(np.int64, na_value=low)))
        k = np.searchsorted(level_wm, max_ts, side="left")
        active = np.where(k < len(t), t[np.minimum(k, len(t) - 1)], np.iinfo(np.int64).max)
        ti = t[idle]
        j = np.searchsorted(ti, since, side="left")
        went_idle = np.where(j < len(ti), ti[np.minimum(j, max(len(ti) - 1, 0))] if len(ti) else 0,
                             np.iinfo(np.int64).max)
        out[i] = np.maximum(np.minimum(active, went_idle), since)
    return ids, out


def _holders(result: Any, level: str, tail: pd.DataFrame, arrivals: tuple | None) -> tuple[np.ndarray, np.ndarray]:
    """Per tail window: ``idle`` / ``late`` when one input of ``level`` alone held it for at least
    half its wait (else ""), and that input's id (-1 when none)."""
    causes = np.full(len(tail), "", dtype=object)
    who = np.full(len(tail), -1, dtype=np.int64)
    end, emit = tail["window_end"].to_numpy(np.int64), tail["emit_time"].to_numpy(np.int64)
    ids, reached = _reached(result.watermarks, level, end - 1, end)
    if len(ids) < 2 or arrivals is None:  # one input holds nothing back
        return causes, who
    reached = np.minimum(reached, emit)
    second = np.sort(reached, axis=0)[-2]
    holds = (emit - second) >= np.maximum(COVER_SHARE * (emit - end), HOLD_UPDATES * _update_spacing(result, level))
    arr, part = arrivals
    order = np.lexsort((arr, part))  # each input's arrivals, sorted once
    by_part, by_time = part[order], arr[order]
    for i in np.flatnonzero(holds & (emit > end)):
        h = ids[int(np.argmax(reached[:, i]))]
        lo, hi = np.searchsorted(by_part, h, "left"), np.searchsorted(by_part, h, "right")
        own = by_time[lo:hi]
        inside = own[np.searchsorted(own, second[i], "left"):np.searchsorted(own, emit[i], "right")]
        points = np.concatenate([[second[i]], inside, [emit[i]]])
        quiet = np.diff(points).max() >= COVER_SHARE * (emit[i] - second[i])
        causes[i], who[i] = ("idle" if quiet else "late"), int(h)
    return causes, who


def _update_spacing(result: Any, level: str) -> float:
    """The median time between two updates of one input's watermark at ``level`` (its resolution)."""
    wm = result.watermarks[result.watermarks["level"] == level].sort_values(["id", "time"], kind="mergesort")
    same = wm["id"].to_numpy()[1:] == wm["id"].to_numpy()[:-1]
    steps = np.diff(wm["time"].to_numpy(np.int64))[same]
    return float(np.median(steps)) if len(steps) else 0.0


def _tail(fired: pd.DataFrame) -> tuple[pd.DataFrame, float]:
    """The windows at or above the p99 latency (nearest rank) and that latency."""
    lat = fired["emit_time"].to_numpy(np.int64) - fired["window_end"].to_numpy(np.int64)
    values = np.sort(lat)
    p99 = float(values[max(1, int(np.ceil(TAIL_QUANTILE * len(values)))) - 1])
    return fired[lat >= p99].assign(latency_ms=lat[lat >= p99]), p99


def latency_tail(result: Any) -> LatencyTail:
    """What dominates ``result``'s latency tail (the module doc's rule), said when structural."""
    engine = result.engine
    if isinstance(result.settings, dict) and result.settings.get("has_arrival_time") is False:
        return LatencyTail(None, 0, 0, None, None, None, None, "")  # no processing time, no latency
    ff = first_firings(result.emissions)
    fired, at_end = ff[~ff["at_end"]], int(ff["at_end"].sum())
    arrivals = getattr(result, "arrivals", None)
    silence = silence_threshold(*arrivals) if arrivals is not None and len(arrivals[0]) > 1 else None
    nothing = LatencyTail(None, 0, 0, None, silence, None, None, "")
    if not len(fired) and not at_end:
        return nothing
    tail, p99 = _tail(fired) if len(fired) else (fired.assign(latency_ms=[]), float("nan"))
    m = len(tail)
    if at_end > m:
        return LatencyTail("end_of_input", m, at_end, p99 if m else None, silence, None, FIGURES["end_of_input"],
                           _end_words(at_end, m, len(ff)), tail.assign(cause="", holder=""))
    cause, holder, starts = _causes(result, tail, arrivals, silence)
    names = np.array([result.partition_label(h) if h >= 0 else "" for h in holder.tolist()], dtype=object)
    data = tail.assign(cause=cause, holder=names).reset_index(drop=True)
    # a late input is one input (N of M waited for partition 3, behind the others); idle ones take turns
    said = np.where(cause == "late", cause + ":" + names.astype(str), cause)
    kinds, counts = np.unique(said[cause != ""], return_counts=True)
    if not len(kinds) or counts.max() < DOMINANT_SHARE * m:
        return LatencyTail(None, m, 0, p99, silence, None, None, "", data)
    top, _, who_name = str(kinds[int(np.argmax(counts))]).partition(":")
    n = int(counts.max())
    if top == "idle":  # by name, most windows first: "EWR" or "EWR for 28 of them, LGA for 26"
        held = pd.Series(names[cause == "idle"]).value_counts()
        who_name = str(held.index[0]) if len(held) == 1 else ", ".join(
            f"{k} for {v:,}" + (" of them" if i == 0 else "") for i, (k, v) in enumerate(held.items()))
    level = engine.holding_level(result.settings) if top in ("idle", "late") else None
    words = _words(top, n, m, p99, silence, who_name, level, result, daily_band(starts) if top == "silence" else None)
    return LatencyTail(top, m, n, p99, silence, who_name or None, FIGURES[top], words, data)


def _causes(result: Any, tail: pd.DataFrame, arrivals: tuple | None,
            silence: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each tail window's cause (``silence``, ``idle``, ``late`` or "") and holding input (-1: none),
    and the start times of the log's silences."""
    m = len(tail)
    cause = np.full(m, "", dtype=object)
    end, emit = tail["window_end"].to_numpy(np.int64), tail["emit_time"].to_numpy(np.int64)
    starts = np.zeros(0, np.int64)
    if silence is not None and arrivals is not None:
        xs, ys = _silent_before(arrivals[0], silence)
        starts = xs[0::2].astype(np.int64) if ys[-1] > 0 else starts
        covered = np.interp(emit, xs, ys) - np.interp(end, xs, ys)
        cause[(emit > end) & (covered >= COVER_SHARE * (emit - end))] = "silence"
    holder = np.full(m, -1, dtype=np.int64)
    engine = result.engine
    level = engine.holding_level(result.settings) if engine is not None and isinstance(result.settings, dict) else None
    if level is not None:
        open_ = cause == ""
        held, who = _holders(result, level, tail[open_], arrivals)
        cause[open_], holder[open_] = held, who
    return cause, holder, starts


def _see(cause: str, where: str = "") -> str:
    """Where the cause shows: the report's chart (``where`` in it) and the function that draws it."""
    return f"see the report's {FIGURES[cause]} chart{', ' + where if where else ''} ({_VIZ[FIGURES[cause]]})"


def _lead(n: int, m: int, p99: float) -> str:
    return (f"The latency tail: {n:,} of the {m:,} slowest windows (first fired {readable(p99)} or more after "
            "their end, the p99)")


def _words(cause: str, n: int, m: int, p99: float, silence: int | None, holder: str | None, level: str | None,
           result: Any, band: int | None = None) -> str:
    """The sentence of a dominant cause, naming the chart that shows it."""
    word = getattr(result.engine, "watermark_word", "watermark")
    head = _lead(n, m, p99)
    if cause == "silence":
        daily = (f"; most silences start every night between {band:02d}:00 and {(band + 3) % 24:02d}:00 UTC"
                 if band is not None else "")
        return (f"{head} ended in an arrival silence (no record from any partition for "
                f"{readable(silence or 0)} or more, the log's silence threshold{daily}) and were first fired only "
                f"when records came again to move the {word}: {_see(cause)}.")
    line, lines = f"{level} {holder}'s line", f"those {level}s' lines"
    timeout = (result.settings or {}).get("idleness") if isinstance(result.settings, dict) else None
    if cause == "idle":
        until = (f" until its idle timeout ({readable(int(timeout))}) let the {word} move without it" if timeout
                 else f" (no idle timeout: the {word} waits for its next record)")
        if " for " in str(holder):  # several inputs, each silent in turn
            return (f"{head} waited for one {level} that sent nothing meanwhile ({holder}) and held the {word} "
                    f"back{until}: {_see(cause, lines)}.")
        return (f"{head} waited for {level} {holder}, which sent nothing meanwhile and held the "
                f"{word} back{until}: {_see(cause, line)}.")
    return (f"{head} waited for {level} {holder}, whose {word} lagged the other {level}s' "
            f"(its records' event times behind theirs) and held the {word} back: "
            f"{_see(cause, line)}.")


def _end_words(at_end: int, m: int, windows: int) -> str:
    than = f", more than the {m:,} windows of the p99 tail" if m else ""
    return (f"The latency tail: {at_end:,} of the {windows:,} windows were first fired only at the end of input, "
            f"nothing before it fired them (they have no latency{than}): {_see('end_of_input', 'its grey points at end of input')}.")
