"""The sweep's figures read off one run of Flink's first window operator: the one figure code of
the sweep's engine path (``toolkit.semantics.flink.engine_path``) and of ``replay(...).summary()``
(``toolkit.semantics.flink.replay``), so both give the same row from the same run.

The run is ``toolkit.engine.flink.pipeline.run_pipeline`` with the first stage tracking record
ids and the state sampled exactly (``state="exact"`` or ``"both"``): every emitted item of the
first stage, in order, and the samples ``(pos, arrival, row, time, open_windows, buffered)``.

Per true window (fixed windows: the same key and start; sessions: the true session that
holds the fired records): first firing = its earliest fire emission; first count = records in
that firing; final count = distinct records in any of its firings; latency = processing time
of the first firing - true window end. Record fates: ``on_time`` if in a pane-0 firing,
``late_accepted`` if only in later ones, ``dropped`` otherwise. Figures come out in the
exactly mergeable partial form of ``toolkit.metrics.summary``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from toolkit.engine.flink import WindowResult
from toolkit.engine.flink.timeline import WatermarkTimeline
from toolkit.fast.evaluate import FixedWindows, Shard
from toolkit.metrics.truth import sessionize
from toolkit.settings import Custom, DynamicSession, Session, Setting, SettingError, Sliding, Tumbling


def check_window(config: Setting) -> None:
    """Figures compare firings with the batch answer, which needs event-time windows."""
    if not isinstance(config.window, (Tumbling, Sliding, Session, DynamicSession)):
        what = "a global window" if not isinstance(config.window, Custom) else "a custom window assigner"
        raise SettingError("window", f"a sweep compares every firing with the batch answer, which needs tumbling, sliding or "
                           f"session windows; {config.window} is {what}: replay it with toolkit.replay instead")


def has_figures(config: Setting) -> bool:
    """Whether ``config`` has sweep figures: its windows are event-time windows (:func:`check_window`)."""
    return isinstance(config.window, (Tumbling, Sliding, Session, DynamicSession))


def positions_of(shard: Shard, ids: np.ndarray) -> np.ndarray:
    """A lookup from record ids to shard positions: ``lookup[ids[i]]`` is the shard position of
    the record whose id is ``ids[i]`` (``ids`` in the order the records were given to the
    shard; non-negative, e.g. log rows)."""
    ids = np.asarray(ids, dtype=np.int64)
    lookup = np.full(int(ids.max()) + 1 if len(ids) else 0, -1, dtype=np.int64)
    lookup[ids[shard.order]] = np.arange(shard.n, dtype=np.int64)
    return lookup


def window_arrays(shard: Shard, config: Setting, out: list, position: np.ndarray | None = None) -> dict:
    """Per true window and per record figures from the emitted results (see module doc).
    ``position``: a lookup from the run's record ids to shard positions (:func:`positions_of`);
    ``None`` when the ids are shard positions."""
    check_window(config)
    window = config.window
    n = shard.n
    # true windows of this shard and a way to map a fired window to one
    if isinstance(window, (Session, DynamicSession)):
        gap = shard.gaps[window.column] if isinstance(window, DynamicSession) else window.gap
        truth, sid = sessionize(shard.keys[shard.key_code], shard.ts, gap)
        true_start = truth["window_start"].to_numpy(dtype=np.int64)
        true_end = truth["window_end"].to_numpy(dtype=np.int64)
        true_count = truth["true_count"].to_numpy(dtype=np.int64)
        true_key = truth["key"].to_numpy(dtype=object)
        true_pairs = n

        def true_window(res: Any, first_id: int) -> int:
            return int(sid[first_id])

    else:
        window = FixedWindows.of(window)
        pairs = shard.pairs(window)
        true_start = pairs.win_start
        true_end = pairs.win_start + np.int64(window.size)
        true_count = pairs.true_count
        true_key = shard.keys[pairs.win_key] if pairs.n_windows else np.zeros(0, dtype=object)
        true_pairs = pairs.n_pairs
        index = {
            (int(kc), int(s)): w for w, (kc, s) in enumerate(zip(pairs.win_key.tolist(), pairs.win_start.tolist()))
        }
        code_of = {k: c for c, k in enumerate(shard.keys.tolist())}

        def true_window(res: Any, first_id: int) -> int:
            return index[(code_of[res.key], int(res.window.start))]

    n_win = len(true_count)
    first_emit = np.zeros(n_win, dtype=np.int64)
    last_emit = np.zeros(n_win, dtype=np.int64)
    first_count = np.zeros(n_win, dtype=np.int64)
    firings_w = np.zeros(n_win, dtype=np.int64)
    first_timing = np.full(n_win, None, dtype=object)
    fired = np.zeros(n_win, dtype=bool)
    members: list[set] = [set() for _ in range(n_win)]
    firings = late_firings = retractions = at_end_firings = 0
    fate = np.full(n, 2, dtype=np.int8)
    for res in out:
        if not isinstance(res, WindowResult):
            continue  # late side output
        if res.kind == "retract":
            retractions += 1
            continue
        ids = res.record_ids or []
        if not ids:
            continue
        ids_a = np.asarray(ids, dtype=np.int64)
        if position is not None:
            ids_a = position[ids_a]
            ids = ids_a.tolist()
        w = true_window(res, ids[0])
        firings += 1
        firings_w[w] += 1
        if res.timing == "late":
            late_firings += 1
        elif res.timing == "at_end":
            at_end_firings += 1
        if not fired[w]:
            fired[w] = True
            first_emit[w] = res.processing_time
            first_count[w] = len(ids)
            first_timing[w] = res.timing
        last_emit[w] = res.processing_time
        members[w].update(ids)
        if res.pane == 0:
            fate[ids_a] = 0
        else:
            fate[ids_a] = np.minimum(fate[ids_a], 1)
    final_count = np.array([len(m) for m in members], dtype=np.int64)
    return {
        "key": true_key, "window_start": true_start, "window_end": true_end, "true_count": true_count,
        "first_count": first_count, "final_count": final_count, "firings": firings_w, "first_timing": first_timing,
        "first_emit": first_emit, "last_emit": last_emit, "fired": fired, "fate": fate, "true_pairs": true_pairs,
        "total_firings": firings, "late_firings": late_firings, "retractions": retractions,
        "at_end_firings": at_end_firings,
    }


def run_partial(shard: Shard, config: Setting, timeline: WatermarkTimeline, out: list, samples: Any,
                position: np.ndarray | None = None) -> dict:
    """The partial figures (``toolkit.metrics.summary``) of a run: ``out`` the first stage's
    emitted items in order, ``samples`` its exact state samples (a list of tuples or an
    ``(m, 6)`` int64 array, ``run_pipeline``'s ``state="exact"``), ``position`` as in
    :func:`window_arrays`. State figures: deltas between consecutive samples, and the time
    integral of each step up to ``timeline.end_time``."""
    w = window_arrays(shard, config, out, position)
    n = shard.n
    fired, first_count, true_count = w["fired"], w["first_count"], w["true_count"]
    counts = np.bincount(w["fate"], minlength=3) if n else np.zeros(3, dtype=np.int64)
    # latency is defined for windows first fired before the end of input (those fired by it are counted apart)
    lat = (w["first_emit"] - w["window_end"])[fired & (w["first_timing"] != "at_end")]
    values, vcounts = np.unique(lat, return_counts=True)
    final_count = w["final_count"]
    t_end = np.int64(timeline.end_time)
    if len(samples):
        s = np.asarray(samples, dtype=np.int64)
        ow = np.diff(np.concatenate([[0], s[:, 4]]))
        br = np.diff(np.concatenate([[0], s[:, 5]]))
        keep = (ow != 0) | (br != 0)
        area_w = int(np.sum(ow * (t_end - s[:, 3])))
        area_r = int(np.sum(br * (t_end - s[:, 3])))
        state = (s[keep, 0], ow[keep], br[keep], s[keep, 1], s[keep, 2])
    else:
        area_w = area_r = 0
        z = np.zeros(0, dtype=np.int64)
        state = (z, z, z, z, z)
    scalars = {
        "valid": n,
        "on_time": int(counts[0]),
        "late_accepted": int(counts[1]),
        "dropped": int(counts[2]),
        "windows": len(true_count),
        "exact_windows": int(np.sum(fired & (first_count == true_count))),
        "fired_windows": int(fired.sum()),
        "true_pairs": int(w["true_pairs"]),
        "first_pairs": int(first_count.sum()),
        "final_pairs": int(final_count.sum()),
        "firings": w["total_firings"],
        "late_firings": w["late_firings"],
        "retractions": w["retractions"],
        "state_area_windows": area_w,
        "state_area_records": area_r,
        "at_end_firings": w["at_end_firings"],
    }
    return {"scalars": scalars, "latency": (values.astype(np.int64), vcounts.astype(np.int64)), "state": state}
