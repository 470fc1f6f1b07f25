"""Record fates: every valid record is ``on_time``, ``late_accepted`` or ``dropped``.

The one closed-form rule (tumbling/sliding event-time windows, the event-time trigger, no
evictor; any accumulation mode), used by ``toolkit.replay`` and by the sweep's per-record
detail: with ``W(r)`` the operator watermark when record ``r`` is processed, a record is
accepted iff its latest window has ``max_ts + lateness > W(r)`` (Flink's ``isWindowLate``);
it is on time iff that window's first firing includes it (the watermark reaching ``max_ts``
after the record) or it created a window whose first firing it caused. The vectorised
derivation lives in ``toolkit.fast.evaluate`` (``record_fates``); everything else (the engine
path) reads fates off the firings' record ids.

A ``dropped`` record has a ``reason`` (:data:`DROP_REASONS`): ``late`` (behind the watermark),
``no_window`` (a sliding-window gap) or ``never_fired``: taken into a window whose trigger
never fired after it came (a count trigger that never reaches its count, ``never``): Flink
does not drop it, it sits in window state until the window's cleanup or the end of the
bounded job, never emitted (Beam's replay names it the same way).
"""
from __future__ import annotations

import numpy as np

from toolkit.engine.flink.timeline import WatermarkTimeline
from toolkit.fast.evaluate import FixedWindows, Shard, evaluate_windows, record_fates

FATE_NAMES = np.array(["on_time", "late_accepted", "dropped"], dtype=object)
ON_TIME, LATE_ACCEPTED, DROPPED = 0, 1, 2


def closed_form_fates(shard: Shard, window: FixedWindows, timeline: WatermarkTimeline, lateness: int) -> np.ndarray:
    """Fate code per record of ``shard`` (its arrival order): 0 on_time, 1 late_accepted, 2 dropped.

    A dropped record goes to the late side output only if it is late itself (``ts + lateness
    <= W(r)``): a record in none of the windows (gaps between sliding windows) may be dropped
    without being late."""
    pairs, runs, fig = evaluate_windows(shard, window, timeline, lateness, with_last=False)
    return record_fates(shard, pairs, fig, runs.seg_rec)


def fates_from_firings(n: int, firings: list[tuple[int, list[int]]]) -> np.ndarray:
    """Fate codes of records ``0..n-1`` from ``(pane, record ids)`` of every firing: on time
    in a pane-0 firing, late accepted in later ones only, dropped in none."""
    codes = np.full(n, DROPPED, dtype=np.int8)
    later = [ids for pane, ids in firings if pane != 0 and ids]
    first = [ids for pane, ids in firings if pane == 0 and ids]
    if later:
        codes[np.fromiter((i for ids in later for i in ids), np.int64)] = LATE_ACCEPTED
    if first:
        codes[np.fromiter((i for ids in first for i in ids), np.int64)] = ON_TIME
    return codes


#: why a record of fate ``dropped`` is in no result (the ``reason`` column of a replay's fates)
DROP_REASONS = {
    "late": "behind the watermark: every window it belongs to was past its cleanup time "
            "(Flink's isWindowLate; the record goes to the late side output)",
    "no_window": "its event time falls in a gap between sliding windows: the assigner gives it no window",
    "never_fired": "accepted into window state, but the trigger never fired after it came: Flink keeps it in "
                   "state until the window's cleanup or the end of the bounded job and never emits it "
                   "(not a drop for lateness)",
    "evicted_or_never_fired": "accepted into window state, then left out of every result: an evictor removed it "
                              "before each firing, or the trigger never fired after it came",
}


def drop_reasons(codes: np.ndarray, late: np.ndarray, in_window: np.ndarray, evictor: bool) -> np.ndarray:
    """Reason per record (``""`` unless dropped): ``late`` when it went to the late side output,
    ``no_window`` when the assigner gave it no window, otherwise it was taken into a window
    and never emitted: ``never_fired`` (``evicted_or_never_fired`` with an evictor)."""
    out = np.full(len(codes), "", dtype=object)
    d = np.asarray(codes) == DROPPED
    late = np.asarray(late, bool)
    in_window = np.asarray(in_window, bool)
    out[d & late] = "late"
    out[d & ~late & ~in_window] = "no_window"
    out[d & ~late & in_window] = "evicted_or_never_fired" if evictor else "never_fired"
    return out


def never_emitted(reasons: np.ndarray) -> int:
    """How many dropped records were taken into a window and never emitted (not late)."""
    r = np.asarray(reasons, dtype=object)
    return int(((r == "never_fired") | (r == "evicted_or_never_fired")).sum())
