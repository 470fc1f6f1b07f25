"""One Spark setting run over a log's columns, and its figures: the columns a replay and a sweep
row are both made of (:class:`SettingRun`) and the sweep's figures (:func:`microbatch_summary`,
same definitions as Flink's), so ``replay(...).summary()`` and the sweep row come from the same
code. The replay's tables are :mod:`toolkit.semantics.structured_streaming.replay`'s; many
settings on one prepared log, and key shards, are :mod:`toolkit.semantics.structured_streaming.sweep`'s."""
from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np
import pandas as pd

from toolkit.engine.microbatch import MicroBatchConfigError
from toolkit.engine.microbatch.prepared import MicroBatchLog
from toolkit.engine.microbatch.run import (
    DROPPED,
    LATE_ACCEPTED,
    NO_SESSION,
    ON_TIME,
    run_prepared,
)
from toolkit.metrics.summary import nearest_rank
from toolkit.metrics.truth import sessionize
from toolkit.semantics.structured_streaming.inputs import (
    microbatch_config,
    sessions_of_batch,
)
from toolkit.settings import Setting, SettingError


class PreparedLog(Protocol):
    """A log prepared once for many settings (``sweep.SparkSweepLog``): its engine log and the
    session batch answers kept across settings."""

    engine: MicroBatchLog
    truths: dict


def microbatch_summary(s: Setting, a: dict, *, invalid: int = 0, sources: Sequence[int] | None = None,
                       gap: np.ndarray | None = None, prepared: PreparedLog | None = None) -> dict:
    """``microbatch_parts(...)["_summary"]`` without the replay's tables (a sweep's row): the same
    run, emission and state columns, and the same :func:`_summary`."""
    run = SettingRun(s, a, sources, gap, prepared)
    return run.summary(invalid, run.emission_columns(), run.state_columns())


class SettingRun:
    """One Spark setting run over ``a`` (see :func:`microbatch_parts` for the arguments), and the
    columns a replay and a sweep row are both made of."""

    def __init__(self, s: Setting, a: dict, sources, gap, prepared: PreparedLog | None) -> None:
        if not a["has_arr"]:
            raise SettingError("semantics", "semantics='spark' replays micro-batches cut from arrival times, "
                               "but the log has no arrival times; load it with an arrival-time column")
        cfg = microbatch_config(s, sources)
        if gap is None and s.gap_column is not None:
            gap = a.get("gap")
            if gap is None:
                raise SettingError("window", f"window {s.window}: the per-record gaps of column {s.gap_column!r} were not given")
        ts = a["ts"]
        # a session setting's batch answer, kept across a sweep's settings: per gap, or per gap column
        self.truth_key = (("gap", cfg.gap) if gap is None else
                          ("column", s.gap_column) if s.gap_column is not None and gap is a.get("gap") else None)
        try:
            if not len(ts):
                raise MicroBatchConfigError("log: there are no records to replay")
            self.engine_log = (prepared.engine if prepared is not None
                               else MicroBatchLog(ts, a["arr"], a["keys"], a["vals"], a["part"]))
            self.res = run_prepared(cfg, self.engine_log, gap=gap)
        except MicroBatchConfigError as exc:  # e.g. complete mode's output too large: name the option
            raise SettingError(str(exc).partition(":")[0].strip(), str(exc)) from None
        self.cfg, self.a, self.gap = cfg, a, gap
        self.truths = prepared.truths if prepared is not None else {}

    def emission_columns(self) -> dict:
        """Every emitted result, then (append mode) the windows still in state at the end, flushed
        at the last tick (``at_end``); arrays: key (code), start, end, count, sum, at_end, batch
        (-1 at the end), emit_time, watermark, final, late (a complete-mode re-emission after the
        window's ``on_time`` one), pane."""
        res, cfg = self.res, self.cfg
        b = res.batches
        n_exec = len(b)
        em = res.emissions
        tab = res.windows
        pending = (tab["emit_batch"] >= n_exec if cfg.output_mode == "append"
                   else np.zeros(len(tab["start"]), dtype=bool))
        n_em, n_pend = len(em.key), int(pending.sum())
        late = np.zeros(n_em + n_pend, dtype=bool)
        if cfg.output_mode == "complete" and n_em:  # re-emissions after the on_time one are late
            o = np.lexsort((em.batch, em.start, em.key))
            fin = em.final[o]
            grp = np.ones(len(o), dtype=bool)
            grp[1:] = (em.key[o][1:] != em.key[o][:-1]) | (em.start[o][1:] != em.start[o][:-1]) | (em.end[o][1:] != em.end[o][:-1])
            # final emissions of a window before this one, counted within the window
            cf = np.cumsum(fin)
            base = np.maximum.accumulate(np.where(grp, cf - fin, 0))
            late[o] = fin & (cf - fin - base > 0)
        return {
            "key": np.concatenate([em.key, tab["key"][pending]]),
            "start": np.concatenate([em.start, tab["start"][pending]]),
            "end": np.concatenate([em.end, tab["end"][pending]]),
            "count": np.concatenate([em.count, tab["count"][pending]]),
            "sum": np.concatenate([em.sum, tab["sum"][pending]]),
            "at_end": np.concatenate([np.zeros(n_em, bool), np.ones(n_pend, bool)]),
            "batch": np.concatenate([em.batch, np.full(n_pend, -1, np.int64)]),
            "emit_time": np.concatenate([b.tick[em.batch], np.full(n_pend, int(b.tick[-1]), np.int64)]),
            "watermark": np.concatenate([b.watermark[em.batch], np.full(n_pend, b.watermark[-1], np.int64)]),
            "final": np.concatenate([em.final, np.ones(n_pend, bool)]),
            "late": late,
            "pane": np.concatenate([em.pane, np.zeros(n_pend, np.int64)]),
        }

    def state_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """(windows, rows) in the state store after every executed batch."""
        res = self.res
        tab = res.windows
        n_exec = len(res.batches)
        first, last = tab["first_batch"], np.minimum(tab["emit_batch"], n_exec)
        dw = np.zeros(n_exec + 1, np.int64)
        dr = np.zeros(n_exec + 1, np.int64)
        np.add.at(dw, first, 1)
        np.add.at(dw, last, -1)
        rows_in = _rows_per_window_batch(res, tab, n_exec)
        np.add.at(dr, rows_in[0], rows_in[1])
        np.add.at(dr, last, -tab["count"])
        return np.cumsum(dw)[:n_exec], np.cumsum(dr)[:n_exec]

    def summary(self, invalid: int, e: dict, state: tuple[np.ndarray, np.ndarray]) -> dict:
        return _summary(invalid, self.res, self.a, e, state, self.gap, self.engine_log, self.truths, self.truth_key)


def _rows_per_window_batch(res, tab: dict, n_exec: int) -> tuple[np.ndarray, np.ndarray]:
    """(batch, rows) increments: the rows each window accepted, at the batch that accepted them."""
    if "pair_batch" in tab:  # fixed windows: every accepted (record, window) pair at its batch
        return tab["pair_batch"], np.ones(len(tab["pair_batch"]), np.int64)
    # sessions: a session's rows counted from its first batch (its parts merge inside the store)
    return tab["first_batch"], tab["count"]


def _summary(invalid: int, res, a: dict, e: dict, state: tuple[np.ndarray, np.ndarray], gap, engine_log: MicroBatchLog,
             truths: dict, truth_key=None) -> dict:
    """The sweep's figures for this Spark setting (same definitions as for Flink), then Spark's own.

    Ground truth is the batch answer (every record in every window it belongs to; sessions:
    sessionized with the gap). A window's first result is its first emission (append: the only
    one; the end-of-input flush counts, as for Flink); its latency is that emission's tick minus
    the window end (flushed windows have none). In append and update mode Spark never emits after
    a window's end has passed the watermark, so ``late_firings`` is 0; complete mode re-emits
    every window in every batch, and its re-emissions after the ``on_time`` one are
    ``late_firings``. ``retractions`` are always 0.

    ``e``: the emission columns (``SettingRun.emission_columns``), ``state``: (windows, rows) in state
    after every batch; ``engine_log``: the run's prepared log (its window groups are the batch
    answer of fixed windows); ``truths``: session batch answers kept across the settings of a
    sweep, under ``truth_key`` (None: not kept).
    """
    cfg = res.config
    ts, keys = a["ts"], a["keys"]
    n = len(ts)
    fate = res.fate
    first = e["pane"] == 0
    f_key, f_start, f_end, f_count = e["key"][first], e["start"][first], e["end"][first], e["count"][first]
    if cfg.window_kind == "session":
        if truth_key is not None and truth_key in truths:
            truth, true_pairs = truths[truth_key]
        elif gap is None:
            truth, _ = sessionize(keys, ts, cfg.gap)
            true_pairs = n
        else:
            truth, true_pairs = sessions_of_batch(keys, ts, gap)
        if truth_key is not None:
            truths[truth_key] = (truth, true_pairs)
        n_true = len(truth)
        got = pd.DataFrame({"key": res.keys[f_key] if len(f_key) else np.zeros(0, dtype=object),
                            "window_start": f_start.astype(np.int64), "window_end": f_end.astype(np.int64),
                            "true_count": f_count.astype(np.int64)})
        exact = len(truth.merge(got, on=["key", "window_start", "window_end", "true_count"], how="inner"))
    else:
        # the batch answer: every (key, window) group of the window's pairs (keys as codes)
        w = engine_log.windows(cfg.size, cfg.slide, cfg.offset)
        true_pairs = len(w.record)
        tk = pd.DataFrame({"key": w.group_key, "window_start": w.group_start, "t": w.true_count})
        n_true = len(tk)
        got = pd.DataFrame({"key": f_key.astype(np.int64), "window_start": f_start.astype(np.int64),
                            "g": f_count.astype(np.int64)})
        joined = tk.merge(got, on=["key", "window_start"], how="inner")
        exact = int((joined["t"] == joined["g"]).sum())
    timed = ~e["at_end"][first]
    lat = (e["emit_time"][first][timed] - f_end[timed]).astype(np.int64)
    lv, lc = np.unique(lat, return_counts=True)
    tick = res.batches.tick.astype(np.int64)
    open_w, open_r = state
    span = int(tick[-1] - tick[0]) if len(tick) else 0
    if span > 0:
        dt = np.diff(tick)
        mean_w = float((open_w[:-1] * dt).sum() / span)
        mean_r = float((open_r[:-1] * dt).sum() / span)
    else:
        mean_w = float(open_w[-1]) if len(open_w) else 0.0
        mean_r = float(open_r[-1]) if len(open_r) else 0.0
    out = {
        "records": n + invalid,  # no_session rows are among the n and counted as invalid
        "on_time": int((fate == ON_TIME).sum()),
        "late_accepted": int((fate == LATE_ACCEPTED).sum()),
        "dropped": int((fate == DROPPED).sum()),
        "invalid": invalid + int((fate == NO_SESSION).sum()),
        "completeness_first": res.first_pairs / true_pairs if true_pairs else 1.0,
        "completeness_final": res.accepted_pairs / true_pairs if true_pairs else 1.0,
        "exact_windows": exact / n_true if n_true else 1.0,
        "latency_p50_ms": nearest_rank(lv, lc, 0.50),
        "latency_p95_ms": nearest_rank(lv, lc, 0.95),
        "latency_p99_ms": nearest_rank(lv, lc, 0.99),
        "latency_max_ms": float(lv[-1]) if len(lv) else float("nan"),
        "firings": int(len(e["key"])),
        "late_firings": int(e["late"].sum()),
        "retractions": 0,
        "peak_state_windows": int(open_w.max()) if len(open_w) else 0,
        "peak_state_records": int(open_r.max()) if len(open_r) else 0,
        "mean_state_records": mean_r,
        "mean_state_windows": mean_w,
        "windows": int(n_true),
        "at_end_firings": int(e["at_end"].sum()),
        "late_side_output": 0,
        "batches": int(len(res.batches)),
        "no_data_batches": int((~res.batches.is_data).sum()),
        "rows_dropped_by_watermark": int(res.rows_dropped_by_watermark.sum()),
    }
    return out
