"""The figures of one Flink SQL run (``summary()`` = a sweep row; docs/figures.md), from the
columns of :class:`toolkit.semantics.flink_sql.run.SqlRun`, so a replay and a sweep row come from
the same code.

- **Batch answer**: every valid record in every window it belongs to: the window TVF's windows
  (TUMBLE one, HOP ``size / slide``, CUMULATE every step window up to the size), sessions by key
  (``toolkit.metrics.truth.sessionize``; sessions that touch merge, as Flink SQL's do).
- **Completeness**: ``completeness_first`` = the counts of each window's first row (``+I``) over
  the true record-window pairs; ``completeness_final`` the counts of each window's last row;
  ``exact_windows`` = windows whose first row is the true window with every record.
- **Latency**: per window, the processing time of its first row minus the window end, rows of the
  end of input left out (``at_end_firings``).
- **Firings**: rows ``+I`` and ``+U``; ``late_firings``: the legacy window's late firings;
  ``retractions``: ``-U`` rows.
- **State**: a window is open from the arrival of the first record of its last row until the
  operator watermark reaches ``end - 1`` (plus ``allow_lateness`` with late firing: Flink SQL
  keeps the legacy window until then), or the end of input; a record is held from its arrival
  until the last of its windows closes. Records taken into a window that never fired (every
  partition idle at the end: no final watermark) are held, with their windows, until the end.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.engine.flink_sql.windows import window_start
from toolkit.metrics.summary import nearest_rank
from toolkit.metrics.truth import sessionize
from toolkit.semantics.flink_sql.run import SqlRun, window_head
from toolkit.settings import Setting


def record_windows(s: Setting, ts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (record position, window start, window end) of the window TVF (not sessions)."""
    w = window_head(s)
    kind, off = w["kind"].replace("legacy_", ""), int(w.get("offset", 0))
    idx = np.arange(len(ts), dtype=np.int64)
    if kind == "tumble":
        start = window_start(ts, off, w["size"])
        return idx, start, start + w["size"]
    if kind == "hop":
        slide, size = w["slide"], w["size"]
        k = size // slide
        e0 = window_start(ts, off, slide) + slide
        rec = np.repeat(idx, k)
        end = np.repeat(e0, k) + np.tile(np.arange(k, dtype=np.int64) * slide, len(ts))
        return rec, end - size, end
    step, size = w["step"], w["size"]  # cumulate
    first = np.asarray(window_start(ts, off, size), dtype=np.int64)  # the cumulating window's start
    first_end = np.asarray(window_start(ts, off, step), dtype=np.int64) + step
    k = (first + size - first_end) // step + 1
    rec = np.repeat(idx, k)
    within = np.arange(len(rec), dtype=np.int64) - np.repeat(np.cumsum(k) - k, k)
    return rec, first[rec], first_end[rec] + within * step


def truth_windows(s: Setting, keys: np.ndarray, ts: np.ndarray) -> pd.DataFrame:
    """The batch answer: ``key, start, end, true_count`` per window."""
    if window_head(s)["kind"].endswith("session"):
        frame, _ = sessionize(keys, ts, s.window.gap)
        return frame.rename(columns={"window_start": "start", "window_end": "end"})
    rec, start, end = record_windows(s, ts)
    df = pd.DataFrame({"key": keys[rec], "start": start, "end": end})
    return df.groupby(["key", "start", "end"], sort=False).size().rename("true_count").reset_index()


def _row_frame(run: SqlRun) -> pd.DataFrame:
    return pd.DataFrame({"key": run.r_key, "start": run.r_start, "end": run.r_end, "op": run.r_op,
                         "count": run.r_count, "time": run.r_time, "timing": run.r_timing, "j": np.arange(len(run.r_op))})


def _cleanup_times(run: SqlRun, ends: np.ndarray, lateness: int) -> np.ndarray:
    """When the operator watermark first reaches ``end - 1 + lateness`` (else the end time)."""
    t, wm = run.operator
    reach = np.maximum.accumulate(wm) if len(wm) else wm
    k = np.searchsorted(reach, ends - 1 + lateness, side="left")
    return np.where(k < len(t), t[np.minimum(k, max(len(t) - 1, 0))] if len(t) else run.end_time, run.end_time)


def _state(run: SqlRun, s: Setting, keys: np.ndarray, ts: np.ndarray, arr: np.ndarray, fires: pd.DataFrame) -> dict:
    """Peak and mean open windows and held records (see the module doc)."""
    lateness = int(s.allow_lateness or 0) if (s.late_fire and s.window_syntax == "legacy") else 0
    last = fires.drop_duplicates(["key", "start", "end"], keep="last")
    offs = run.r_offsets
    j = last["j"].to_numpy(np.int64)
    opened = np.array([arr[run.r_members[offs[x]:offs[x + 1]]].min() for x in j], np.int64)
    closed = _cleanup_times(run, last["end"].to_numpy(np.int64), lateness)
    held_until = np.full(run.n, -1, np.int64)
    for x, c in zip(j.tolist(), closed.tolist()):
        m = run.r_members[offs[x]:offs[x + 1]]
        held_until[m] = np.maximum(held_until[m], c)
    never = run.reason == "never_fired"
    held_until[never] = run.end_time
    w_open, w_close = [opened], [closed]
    if never.any():  # the windows of records never emitted stay open to the end
        idx = np.flatnonzero(never)
        nt = truth_windows(s, keys[idx], ts[idx])
        first = pd.Series(arr[idx]).groupby(keys[idx]).min()
        w_open.append(first.reindex(nt["key"]).to_numpy(np.int64))
        w_close.append(np.full(len(nt), run.end_time, np.int64))
    held = held_until >= 0
    times = np.concatenate([*w_open, *w_close, arr[held], held_until[held]])
    dw = np.concatenate([np.ones(sum(len(x) for x in w_open), np.int64), -np.ones(sum(len(x) for x in w_close), np.int64),
                         np.zeros(2 * int(held.sum()), np.int64)])
    dr = np.concatenate([np.zeros(len(dw) - 2 * int(held.sum()), np.int64), np.ones(int(held.sum()), np.int64),
                         -np.ones(int(held.sum()), np.int64)])
    order = np.lexsort(((dw + dr) < 0, times))  # at one instant what opens counts before what closes
    peak_w = np.cumsum(dw[order]).max() if len(order) else 0
    peak_r = np.cumsum(dr[order]).max() if len(order) else 0
    d = pd.DataFrame({"t": times, "dw": dw, "dr": dr}).groupby("t", sort=True).sum()
    t = d.index.to_numpy(np.int64)
    w, r = np.cumsum(d["dw"].to_numpy()), np.cumsum(d["dr"].to_numpy())
    lo, hi = run.start_time, run.end_time
    if hi > lo and len(t):
        dt = np.diff(np.r_[np.clip(t, lo, hi), hi])
        mean_w, mean_r = float((w * dt).sum() / (hi - lo)), float((r * dt).sum() / (hi - lo))
    else:
        mean_w = mean_r = 0.0
    return {"peak_state_windows": int(max(peak_w, 0)), "peak_state_records": int(max(peak_r, 0)),
            "mean_state_records": mean_r, "mean_state_windows": mean_w,
            "_state": (t, w, r)}


def figures(run: SqlRun, s: Setting, a: dict, invalid: int = 0) -> dict:
    """``SUMMARY_COLUMNS`` of the run, then Flink SQL's own (``late_records_counter``: Flink's
    ``numLateRecordsDropped``, which counts combined rows of the two-phase plan, not records),
    and ``_state``: the state step function for a replay's ``state`` table."""
    keys = np.asarray(a["keys"], dtype=object).astype(str)  # the simulator's keys are text
    ts, arr = np.asarray(a["ts"], np.int64), np.asarray(a["arr"], np.int64)
    truth = truth_windows(s, keys, ts)
    rows = _row_frame(run)
    fires = rows[rows["op"] != "-U"]
    first = fires.drop_duplicates(["key", "start", "end"], keep="first")
    last = fires.drop_duplicates(["key", "start", "end"], keep="last")
    true_pairs = int(truth["true_count"].sum())
    matched = first.merge(truth, on=["key", "start", "end"], how="inner")
    timed = first[first["timing"] != "at_end"]
    lat = timed["time"].to_numpy(np.int64) - timed["end"].to_numpy(np.int64)
    lv, lc = np.unique(lat, return_counts=True)
    nt = len(truth)
    codes = run.codes
    out = {
        "records": run.n + invalid,
        "on_time": int((codes == 0).sum()), "late_accepted": int((codes == 1).sum()), "dropped": int((codes == 2).sum()),
        "invalid": invalid,
        "completeness_first": float(first["count"].sum()) / true_pairs if true_pairs else 1.0,
        "completeness_final": float(last["count"].sum()) / true_pairs if true_pairs else 1.0,
        "exact_windows": int((matched["count"] == matched["true_count"]).sum()) / nt if nt else 1.0,
        "latency_p50_ms": nearest_rank(lv, lc, 0.50), "latency_p95_ms": nearest_rank(lv, lc, 0.95),
        "latency_p99_ms": nearest_rank(lv, lc, 0.99), "latency_max_ms": float(lv[-1]) if len(lv) else float("nan"),
        "at_end_firings": int((fires["timing"] == "at_end").sum()), "firings": int(len(fires)),
        "late_firings": int((fires["timing"] == "late").sum()), "retractions": int((rows["op"] == "-U").sum()),
    }
    out.update(_state(run, s, keys, ts, arr, fires))
    out["windows"] = nt
    out["late_records_counter"] = run.late_counter
    return out


def whole_figures(table: pd.DataFrame, s: Setting, invalid: int, sources: Any) -> dict:
    """The figures of ``s`` over a log table (a sweep row in one piece)."""
    from toolkit.semantics.flink_sql.run import run_setting

    a = table_arrays(table)
    f = figures(run_setting(s, a, sources), s, a, invalid)
    f.pop("_state")
    return f


def table_arrays(table: pd.DataFrame) -> dict:
    """A log table's columns in arrival order (ties: row order), as the replay reads them."""
    arr = table["arrival_time"].to_numpy(np.int64)
    order = np.lexsort((table["row"].to_numpy(np.int64), arr))
    t = table.iloc[order]
    part = t["partition"].to_numpy(np.int64) if "partition" in t else np.zeros(len(t), np.int64)
    vals = t["value"].to_numpy() if "value" in t else np.ones(len(t), np.int64)
    return {"ts": t["event_time"].to_numpy(np.int64), "arr": arr[order], "part": part,
            "keys": t["key"].to_numpy(dtype=object), "vals": vals, "rows": t["row"].to_numpy(np.int64), "has_arr": True}
