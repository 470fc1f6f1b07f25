"""Beam's closed form: the sweep figures of fixed and sliding windows under the watermark
triggers, without running the GroupByKey step (``path="fast"``; the replay is ``path="beam"``).

It applies (:func:`fast_applies`) to ``tumbling``/``sliding`` windows, ``end_of_window`` output
timestamps, accumulating or discarding panes, and the ``default`` trigger,
``after_watermark`` (no early or late firings) or ``after_watermark(late=T)`` with a late
trigger ``T`` that fires on every late element (:func:`fires_every_element`). These keep the
step's output watermark on its input watermark (no hold lags: keys are independent), so each
window is decided by the operator watermark timeline alone. With ``W(r)`` the Flink-side operator
watermark current at record ``r`` (Beam sees ``W + 1 ms``), window ``[s, e)``, ``max_ts = e - 1``,
allowed lateness ``L`` (the engine: ``toolkit.engine.beam.driver`` and ``triggers``):

* a pair is *dropped* (expired) when ``W(r) > max_ts + L`` (Beam's ``input watermark > end +
  L``: one ms more than Flink's ``W >= max_ts + L``), so ``k_c`` is Flink's cleanup tick for a
  lateness of ``L + 1`` and the accepted pairs of a window are those before it;
* ``k_f``, the first tick with ``W >= max_ts``, fires the ON_TIME pane (the end-of-window timer)
  with every pair accepted before it, or the end of input does (``at_end``);
* a pair accepted after ``k_f`` is late: it fires a LATE pane at its arrival (the default trigger,
  or the late trigger); a window whose first pair is late has a LATE pane 0 (on time it is not,
  unlike Flink's record-caused firing); ``after_watermark`` without ``late`` finishes with its
  first pane, and the window ignores every later element;
* fates: ``on_time`` when in an ON_TIME pane of one of its windows (its latest window's
  ``seg <= k_f``), ``late_accepted`` when only in LATE panes, else ``dropped``;
* state (the Python SDK never garbage-collects): a window holds its elements from its first
  accepted pair; accumulating panes keep them to the end; discarding panes, and a trigger that
  finished, clear them at each pane (so a late element is added and emitted at once: no state).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from toolkit.engine.beam.scenario import US_PER_MS
from toolkit.engine.flink.timeline import WatermarkTimeline
from toolkit.fast.evaluate import FixedWindows, Shard, _ranges, evaluate_windows
from toolkit.settings import Sliding, Tumbling

#: the largest window end + allowed lateness (ms) the closed form takes: beyond it the replay's
#: microsecond watermark saturates below Beam's end of time (``toolkit.engine.beam.runner``)
EVENT_TIME_BOUND = (2 ** 62 - 1) // US_PER_MS - 1


def fires_every_element(trigger: Any) -> bool:
    """A late trigger that fires a pane for every late element and never finishes:
    ``after_count:1``, ``default``, or ``repeatedly`` of one of them."""
    if trigger.kind == "repeatedly":
        return fires_every_element(trigger.children[0])
    return trigger.kind == "default" or (trigger.kind == "after_count" and trigger.n == 1)


def finishes_on_time(trigger: Any) -> bool:
    """``after_watermark`` without late firings: its first pane finishes the window."""
    return trigger.kind == "after_watermark" and trigger.late is None


def fast_trigger(trigger: Any) -> bool:
    """The triggers of the closed form (see the module doc)."""
    if trigger.kind == "default":
        return True
    return (trigger.kind == "after_watermark" and trigger.early is None
            and (trigger.late is None or fires_every_element(trigger.late)))


def fast_applies(setting: Any, event_range: tuple[int, int] | None = None) -> bool:
    """Whether the closed form gives ``setting``'s figures (``event_range``: the log's event
    times, when known; the closed form needs them inside :data:`EVENT_TIME_BOUND`)."""
    w = setting.window
    if not isinstance(w, (Tumbling, Sliding)) or setting.timestamp_combiner != "end_of_window":
        return False
    if setting.accumulation not in ("accumulating", "discarding") or not fast_trigger(setting.beam_trigger):
        return False
    if event_range is None:
        return True
    reach = int(w.size) + int(setting.lateness)
    return -EVENT_TIME_BOUND + reach < event_range[0] and event_range[1] + reach < EVENT_TIME_BOUND


def _fates(shard: Shard, pairs: Any, fig: Any, seg_rec: np.ndarray, accepted: np.ndarray,
           finishing: bool, tumbling: bool) -> tuple[int, int, int]:
    """(on_time, late_accepted, dropped) of the shard's records (module doc)."""
    if tumbling:  # one window a record: its pairs are its records
        on_time = int(np.sum(np.where(fig.record_caused, 0, fig.first)))
        taken = int(accepted.sum())
        return on_time, taken - on_time, shard.n - taken
    wl = pairs.latest_window
    has = wl >= 0
    wl0 = np.where(has, wl, 0)
    if pairs.n_windows == 0:
        return 0, 0, shard.n
    on = has & (seg_rec <= fig.kf[wl0])
    if finishing:  # only the first element of a window fired late is taken late
        taken = on.copy()
        taken[pairs.first_rec[fig.record_caused]] = True
    else:
        taken = has & (seg_rec <= fig.kc[wl0])
    n_on, n_taken = int(on.sum()), int(taken.sum())
    return n_on, n_taken - n_on, shard.n - n_taken


def _state(shard: Shard, pairs: Any, runs: Any, fig: Any, timeline: WatermarkTimeline,
           clears: bool) -> tuple[int, int, tuple]:
    """(window area, record area, state deltas at global positions) of the windows' elements.

    Kept (accumulating, not finished): a window holds from its first accepted pair to the end,
    every accepted pair to the end. Cleared at each pane (discarding, or finished): only the
    pairs before ``k_f`` are held, from their arrival to the ON_TIME pane at tick ``k_f``."""
    k = len(timeline)
    t_end = np.int64(timeline.end_time)
    if clears:
        held = np.where(fig.record_caused, 0, fig.first)  # pairs in the ON_TIME pane
        gone = _ranges(fig.idx_f, runs.win_end_run)  # runs after k_f: never held
    else:
        held = fig.accepted
        gone = _ranges(fig.idx_c, runs.win_end_run)  # rejected runs
    opens = held > 0
    open_time = shard.arrival[pairs.first_rec[opens]]
    closes = opens & (fig.kf < k) if clears else np.zeros(pairs.n_windows, dtype=bool)
    close_tick = fig.kf[closes]
    close_time = timeline.shape.time[close_tick] if k else np.zeros(0, dtype=np.int64)
    total = int(held.sum())
    area_w = int(np.sum(t_end - open_time, dtype=np.int64)) - int(np.sum(t_end - close_time, dtype=np.int64))
    area_r = (total * int(t_end - np.int64(runs.base)) - (runs.tsum_all - int(np.sum(runs.tsum[gone], dtype=np.int64)))
              - int(np.sum((t_end - close_time) * held[closes], dtype=np.int64)))
    inc_w = np.bincount(runs.s0[opens], minlength=k + 1).astype(np.int64)
    inc_r = runs.inc_all - np.bincount(runs.seg[gone], weights=runs.count[gone], minlength=k + 1).astype(np.int64)
    dec_w = np.bincount(close_tick, minlength=k + 1).astype(np.int64)
    dec_r = np.bincount(close_tick, weights=held[closes], minlength=k + 1).astype(np.int64)
    # positions: 2k = the records of segment k (before tick k), 2k+1 = tick k
    pos = np.arange(k + 1, dtype=np.int64)
    inc = (inc_w != 0) | (inc_r != 0)
    dec = (dec_w != 0) | (dec_r != 0)
    state = (np.concatenate([2 * pos[inc], 2 * pos[dec] + 1]), np.concatenate([inc_w[inc], -dec_w[dec]]),
             np.concatenate([inc_r[inc], -dec_r[dec]]))
    return area_w, area_r, state


def _latency(pairs: Any, fig: Any, timeline: WatermarkTimeline, counted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first pane's emission time minus the window end over the ``counted`` windows, as
    sorted values and counts. A window fired by a watermark change has the latency of every
    window with its end, so those are counted per distinct end; late-fired ones one by one."""
    u, inv = pairs.distinct_max_ts()
    per_end = np.bincount(inv[counted & ~fig.record_caused], minlength=len(u))
    has = per_end > 0
    tick = np.searchsorted(timeline.watermark, u[has], side="left")  # k_f: a change fired them
    late = fig.record_caused & counted
    values = np.concatenate([timeline.shape.time[tick] - (u[has] + 1), fig.first_emit[late] - (pairs.max_ts[late] + 1)])
    counts = np.concatenate([per_end[has], np.ones(int(late.sum()), dtype=np.int64)])
    distinct, at = np.unique(values, return_inverse=True)
    return distinct.astype(np.int64), np.bincount(at.ravel(), weights=counts, minlength=len(distinct)).astype(np.int64)


def partial(shard: Shard, setting: Any, timeline: WatermarkTimeline) -> dict:
    """The mergeable partial (``toolkit.metrics.summary``) of one key shard under ``setting``
    (:func:`fast_applies`), equal to the replay's (``toolkit.semantics.beam.sweep.beam_partial``)."""
    spec = FixedWindows.of(setting.window)
    finishing = finishes_on_time(setting.beam_trigger)
    pairs, runs, fig = evaluate_windows(shard, spec, timeline, int(setting.lateness) + 1, with_last=False)
    if finishing:  # the first pane is the only one: the ON_TIME pane's pairs, or the late creator
        fig.accepted = np.where(fig.record_caused, 1, fig.first)
    fired = fig.accepted > 0
    late_panes = fig.accepted - fig.first  # every late pair after the first pane fires a LATE pane
    on_time, late_acc, dropped = _fates(shard, pairs, fig, runs.seg_rec, fig.accepted, finishing, spec.tumbling)
    area_w, area_r, state = _state(shard, pairs, runs, fig, timeline,
                                   finishing or setting.accumulation == "discarding")
    at_end = fired & fig.at_end
    values, counts = _latency(pairs, fig, timeline, fired & ~at_end)
    scalars = {
        "valid": shard.n, "on_time": on_time, "late_accepted": late_acc, "dropped": dropped,
        "windows": pairs.n_windows, "exact_windows": int(np.sum(fig.first == pairs.true_count)),
        "fired_windows": int(fired.sum()), "true_pairs": pairs.n_pairs, "first_pairs": int(fig.first.sum()),
        "final_pairs": int(fig.accepted.sum()), "firings": int(fired.sum() + late_panes.sum()),
        "late_firings": int(late_panes.sum() + fig.record_caused.sum()), "retractions": 0,
        "state_area_windows": area_w, "state_area_records": area_r, "at_end_firings": int(at_end.sum()),
    }
    return {"scalars": scalars, "latency": (values.astype(np.int64), counts.astype(np.int64)), "state": state}
