"""The reference path: one shard's records through the engine's ``WindowOperator``.

Records go through the replay's own driver (``toolkit.engine.flink.pipeline.run_pipeline``): in
arrival order, every watermark change of the timeline that precedes a record applied before
it at its processing time, the end of input the MAX watermark at ``timeline.end_time``. The
operator's state size is sampled after every record and every change, so peaks are exact. Figures come out in the same exactly
mergeable partial form as the fast path (``toolkit.metrics.summary``).

Per true window (fixed windows: the same key and start; sessions: the true session that
holds the fired records): first firing = its earliest fire emission; first count = records in
that firing; final count = distinct records in any of its firings; latency = processing time
of the first firing - true window end. Record fates: ``on_time`` if in a pane-0 firing,
``late_accepted`` if only in later ones, ``dropped`` otherwise.
"""
from __future__ import annotations

import numpy as np

from toolkit.engine.flink.config import build_operator
from toolkit.engine.flink.pipeline import run_pipeline
from toolkit.fast.evaluate import FixedWindows, Shard
from toolkit.fast.sessions import elements_with_gaps
from toolkit.engine.flink.timeline import WatermarkTimeline
from toolkit.metrics.truth import sessionize
from toolkit.settings import Custom, DynamicSession, Session, Setting, SettingError, Sliding, Tumbling


def make_operator(config: Setting):
    """The first stage's window operator of a configuration, tracking record ids (the figures
    need to know which records each firing held)."""
    check_window(config)
    return build_operator(**config.operator_kwargs(), track_records=True)


def check_window(config: Setting) -> None:
    """Figures compare firings with the batch answer, which needs event-time windows."""
    if not isinstance(config.window, (Tumbling, Sliding, Session, DynamicSession)):
        what = "a global window" if not isinstance(config.window, Custom) else "a custom window assigner"
        raise SettingError("window", f"a sweep compares every firing with the batch answer, which needs tumbling, sliding or "
                           f"session windows; {config.window} is {what}: replay it with toolkit.replay instead")


def drive(shard: Shard, config: Setting, timeline: WatermarkTimeline) -> tuple[list, list]:
    """Run the shard through a fresh first-stage operator (``toolkit.engine.flink.pipeline``, the
    replay's own driver): (emitted items in order, state samples after every record and
    every change, see ``run_pipeline``'s ``state="exact"``). Record ids are shard positions."""
    keys = shard.keys[shard.key_code] if shard.n else np.zeros(0, dtype=object)
    values = shard.values
    if config.gap_column is not None:  # dynamic sessions: each element carries its gap
        values = elements_with_gaps(values, shard.gaps[config.gap_column])
    res = run_pipeline(timeline, keys, shard.ts, shard.arrival, values, np.arange(shard.n, dtype=np.int64),
                       [lambda: make_operator(config)], rows=shard.row, state="exact")
    return [it for _, _, it in res.outputs], res.state


def engine_partial(shard: Shard, config: Setting, timeline: WatermarkTimeline) -> dict:
    """Partial figures of one shard from the reference engine."""
    out, samples = drive(shard, config, timeline)
    return _figures(shard, config, timeline, out, samples)


def window_arrays(shard: Shard, config: Setting, out: list) -> dict:
    """Per true window and per record figures from the emitted results (see module doc)."""
    from toolkit.engine.flink import WindowResult

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

        def true_window(res) -> int:
            return int(sid[res.record_ids[0]])

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

        def true_window(res) -> int:
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
        w = true_window(res)
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
        ids_a = np.asarray(ids, dtype=np.int64)
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


def _figures(shard: Shard, config: Setting, timeline: WatermarkTimeline, out: list, samples: list) -> dict:
    w = window_arrays(shard, config, out)
    n = shard.n
    fired, first_count, true_count = w["fired"], w["first_count"], w["true_count"]
    counts = np.bincount(w["fate"], minlength=3) if n else np.zeros(3, dtype=np.int64)
    # latency is defined for windows first fired before the end of input (those fired by it are counted apart)
    lat = (w["first_emit"] - w["window_end"])[fired & (w["first_timing"] != "at_end")]
    values, vcounts = np.unique(lat, return_counts=True)
    firings, late_firings, retractions = w["total_firings"], w["late_firings"], w["retractions"]
    n_win = len(true_count)
    true_pairs = w["true_pairs"]
    final_count = w["final_count"]
    # state: deltas between consecutive samples, and the time integral up to the end
    t_end = np.int64(timeline.end_time)
    if samples:
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
        "windows": n_win,
        "exact_windows": int(np.sum(fired & (first_count == true_count))),
        "fired_windows": int(fired.sum()),
        "true_pairs": int(true_pairs),
        "first_pairs": int(first_count.sum()),
        "final_pairs": int(final_count.sum()),
        "firings": firings,
        "late_firings": late_firings,
        "retractions": retractions,
        "state_area_windows": area_w,
        "state_area_records": area_r,
        "at_end_firings": w["at_end_firings"],
    }
    return {"scalars": scalars, "latency": (values.astype(np.int64), vcounts.astype(np.int64)), "state": state}
