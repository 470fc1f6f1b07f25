"""Per-configuration summary, merged exactly from per-shard partial figures.

A *partial* is what one key shard contributes to one configuration:

* additive counts (``SCALARS``), including the time integrals of the state step functions
  (sum of ``delta * (end_time - time)``);
* the first-emission latencies of its windows as exact value counts;
* state deltas at global positions: ``(pos, time, row, d_windows, d_records)``. Positions are
  ordered as processing is (``2k`` = records before tick ``k``, ``2k+1`` = tick ``k``; the
  engine path also orders by arrival time and row inside a segment), so summing the deltas of
  every shard and taking the running sum gives the global state after each step.

Counts add, value counts add, deltas add: the merge is exact, so a sweep gives the same
figures whatever the sharding (in-process = one shard, Spark = any number).

State deltas may also arrive pre-folded per range of positions (``KIND_STATE_RANGE``, what a
Spark sweep sends so that no task holds a configuration's every delta): a range's total and
the maximum of its running sum. Ranges fold in position order: the peak is the largest
``carry + range maximum``, exactly the peak of the whole running sum.

Percentiles are nearest-rank (the smallest latency ``v`` with at least ``ceil(q * n)``
windows at or below it), so they are always an observed window's latency in ms.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from toolkit.fast.evaluate import SCALARS

SUMMARY_COLUMNS = [
    "records",
    "on_time",
    "late_accepted",
    "dropped",
    "invalid",
    "completeness_first",
    "completeness_final",
    "exact_windows",
    "latency_p50_ms",
    "latency_p95_ms",
    "latency_p99_ms",
    "latency_max_ms",
    "at_end_firings",
    "firings",
    "late_firings",
    "retractions",
    "peak_state_windows",
    "peak_state_records",
    "mean_state_records",
    "mean_state_windows",
    "windows",
]

KIND_SCALAR, KIND_LATENCY, KIND_STATE, KIND_STATE_RANGE = 0, 1, 2, 3
ROW_COLUMNS = ["config", "kind", "a", "b", "c", "d", "e"]


def partial_rows(config: int, part: dict) -> pd.DataFrame:
    """A partial as long rows (the schema Spark shuffles): config, kind, keys a, b, c and
    additive values d, e (int64). Scalars: a = index in SCALARS, d = value; latencies:
    a = latency, d = windows; state: (a, b, c) = (pos, arrival, row), d/e = window/record
    deltas. Rows with equal (config, kind, a, b, c) may be summed in any order (Spark
    pre-aggregates them in the JVM before the merge)."""
    return pd.DataFrame(partial_arrays(config, part))


def partial_arrays(config: int, part: dict) -> dict[str, np.ndarray]:
    """The columns of :func:`partial_rows` as numpy arrays (cheap to concatenate)."""
    sc = part["scalars"]
    n_s = len(SCALARS)
    values, counts = part["latency"]
    pos, dw, dr = part["state"][:3]
    t = part["state"][3] if len(part["state"]) > 3 else np.zeros(len(pos), dtype=np.int64)
    r = part["state"][4] if len(part["state"]) > 4 else np.zeros(len(pos), dtype=np.int64)
    n_l, n_st = len(values), len(pos)
    z = np.zeros
    return (
        {
            "config": np.full(n_s + n_l + n_st, config, dtype=np.int64),
            "kind": np.concatenate([z(n_s, np.int64), np.full(n_l, 1, np.int64), np.full(n_st, 2, np.int64)]),
            "a": np.concatenate([np.arange(n_s, dtype=np.int64), values, pos]).astype(np.int64),
            "b": np.concatenate([z(n_s, np.int64), z(n_l, np.int64), t]).astype(np.int64),
            "c": np.concatenate([z(n_s, np.int64), z(n_l, np.int64), r]).astype(np.int64),
            "d": np.concatenate([np.array([sc.get(s, 0) for s in SCALARS], dtype=np.int64), counts, dw]).astype(np.int64),
            "e": np.concatenate([z(n_s, np.int64), z(n_l, np.int64), dr]).astype(np.int64),
        }
    )


def nearest_rank(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """Nearest-rank percentile of a distribution given as sorted values with counts."""
    n = int(counts.sum())
    if n == 0:
        return float("nan")
    rank = max(1, math.ceil(q * n))
    cum = np.cumsum(counts)
    return float(values[int(np.searchsorted(cum, rank, side="left"))])


def _group_sum(keys: list[np.ndarray], values: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Sort rows by ``keys`` (lexicographic, first key most significant) and sum ``values``
    over equal keys (exact int64)."""
    order = np.lexsort(tuple(reversed(keys)))
    ks = [k[order] for k in keys]
    n = len(order)
    if n == 0:
        return ks, [v[order] for v in values]
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for k in ks:
        new[1:] |= k[1:] != k[:-1]
    starts = np.flatnonzero(new)
    return [k[starts] for k in ks], [np.add.reduceat(v[order], starts) for v in values]


def state_range_row(rows: pd.DataFrame, index: int) -> dict:
    """The state rows (``KIND_STATE``) of one range of positions folded into one
    ``KIND_STATE_RANGE`` row: ``a`` = the range's ``index`` (ranges fold in increasing
    index, so indices must grow with positions), ``b``/``c`` = the maximum running sum of
    window/record deltas inside the range (from 0 at its start), ``d``/``e`` = their totals."""
    a, b, c, d, e = (rows[x].to_numpy(dtype=np.int64) for x in ("a", "b", "c", "d", "e"))
    _, (dw, dr) = _group_sum([a, b, c], [d, e])
    cw, cr = np.cumsum(dw), np.cumsum(dr)
    top_w, top_r = (int(cw.max()), int(cr.max())) if len(cw) else (0, 0)
    return {"kind": KIND_STATE_RANGE, "a": int(index), "b": top_w, "c": top_r, "d": int(dw.sum()), "e": int(dr.sum())}


def _state_peaks(kind, a, b, c, d, e) -> tuple[int, int, int, int]:
    """``(peak windows, peak records, last windows, last records)`` of the global state, from
    per-position deltas (``KIND_STATE``) or per-range folds (``KIND_STATE_RANGE``)."""
    m = kind == KIND_STATE
    r = kind == KIND_STATE_RANGE
    if m.any() and r.any():
        raise ValueError("state rows both per position and per range for one configuration")
    if m.any():
        _, (dw, dr) = _group_sum([a[m], b[m], c[m]], [d[m], e[m]])
        cw = np.cumsum(dw)
        cr = np.cumsum(dr)
        return max(0, int(cw.max())), max(0, int(cr.max())), int(cw[-1]), int(cr[-1])
    if r.any():
        order = np.argsort(a[r], kind="stable")
        top_w, top_r, tot_w, tot_r = b[r][order], c[r][order], d[r][order], e[r][order]
        carry_w = np.concatenate([[0], np.cumsum(tot_w)[:-1]])
        carry_r = np.concatenate([[0], np.cumsum(tot_r)[:-1]])
        return (max(0, int((carry_w + top_w).max())), max(0, int((carry_r + top_r).max())),
                int(tot_w.sum()), int(tot_r.sum()))
    return 0, 0, 0, 0


def merge_config(rows: pd.DataFrame, *, start_time: int, end_time: int, invalid: int = 0) -> dict:
    """Summary figures of one configuration from the partial rows of all its shards."""
    kind = rows["kind"].to_numpy(dtype=np.int64)
    a, b, c, d, e = (rows[x].to_numpy(dtype=np.int64) for x in ("a", "b", "c", "d", "e"))
    m = kind == KIND_SCALAR
    sums = np.zeros(len(SCALARS), dtype=np.int64)
    np.add.at(sums, a[m], d[m])
    sc = {name: int(sums[i]) for i, name in enumerate(SCALARS)}
    m = kind == KIND_LATENCY
    (lv,), (lc,) = _group_sum([a[m]], [d[m]])
    peak_w, peak_r, last_w, last_r = _state_peaks(kind, a, b, c, d, e)
    span = int(end_time) - int(start_time)
    if span > 0:
        mean_w = sc["state_area_windows"] / span
        mean_r = sc["state_area_records"] / span
    else:  # every event at one instant: the state just before the end of input
        mean_w, mean_r = float(last_w), float(last_r)
    true_pairs = sc["true_pairs"]
    out = {
        "records": sc["valid"] + int(invalid),  # valid counts rows in no session (no_session) too
        "on_time": sc["on_time"],
        "late_accepted": sc["late_accepted"],
        "dropped": sc["dropped"],
        "invalid": int(invalid) + sc["no_session"],
        "completeness_first": sc["first_pairs"] / true_pairs if true_pairs else 1.0,
        "completeness_final": sc["final_pairs"] / true_pairs if true_pairs else 1.0,
        "exact_windows": sc["exact_windows"] / sc["windows"] if sc["windows"] else 1.0,
        "latency_p50_ms": nearest_rank(lv, lc, 0.50),
        "latency_p95_ms": nearest_rank(lv, lc, 0.95),
        "latency_p99_ms": nearest_rank(lv, lc, 0.99),
        "latency_max_ms": float(lv[-1]) if len(lv) else float("nan"),
        "at_end_firings": sc["at_end_firings"],
        "firings": sc["firings"],
        "late_firings": sc["late_firings"],
        "retractions": sc["retractions"],
        "peak_state_windows": peak_w,
        "peak_state_records": peak_r,
        "mean_state_records": float(mean_r),
        "mean_state_windows": float(mean_w),
        "windows": sc["windows"],
    }
    return out


def check_summary(frame: pd.DataFrame) -> None:
    """Raise AssertionError unless conservation and ranges hold on every row."""
    total = frame["on_time"] + frame["late_accepted"] + frame["dropped"] + frame["invalid"]
    assert (total == frame["records"]).all(), "fates do not add up to the records"
    for col in ("completeness_first", "completeness_final", "exact_windows"):
        assert frame[col].between(0.0, 1.0).all(), f"{col} outside [0, 1]"
    assert (frame["completeness_first"] <= frame["completeness_final"] + 1e-12).all()
    lat = frame[["latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms"]]
    has = lat.notna().all(axis=1)
    assert (lat.isna().all(axis=1) | has).all(), "latency percentiles partly missing"
    l = lat[has]
    assert (l["latency_p50_ms"] <= l["latency_p95_ms"]).all()
    assert (l["latency_p95_ms"] <= l["latency_p99_ms"]).all()
    assert (l["latency_p99_ms"] <= l["latency_max_ms"]).all()
    assert (frame["peak_state_records"] >= frame["mean_state_records"] - 1e-9).all()
    assert (frame["peak_state_windows"] >= frame["mean_state_windows"] - 1e-9).all()
    assert (frame["late_firings"] <= frame["firings"]).all()
