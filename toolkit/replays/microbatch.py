"""A replay with ``semantics="spark"``: the log through Spark Structured Streaming's rules.

``toolkit.replay`` calls :func:`microbatch_parts` for a Spark setting and wraps what it returns
in the same ``ReplayResult`` a Flink replay gives, with the same columns and meanings:

* ``emissions``: one row per emitted result (key, window_start, window_end, count, sum, ...);
  ``emit_time`` is the trigger tick of the micro-batch that emits it, ``batch`` its batch id,
  ``pane`` counts a window's emissions (update mode emits a window again in every batch that
  adds rows to it; complete mode emits every window in state in every batch), ``timing`` is
  ``on_time`` when the batch's watermark closes the window (append mode always), ``early`` for
  an update- or complete-mode result of a window still open, ``late`` for a complete-mode
  re-emission after its ``on_time`` one (complete mode never evicts), and ``at_end`` for a
  window still in state when the log ends in append mode (Spark would emit it later; like a
  bounded Flink source, the replay flushes it, at the last tick).
* ``fates``: ``dropped`` (the late filter removed the record from every window it belongs to),
  ``late_accepted`` (kept although its event time was already behind the watermark its batch
  filtered with: Spark accepts such a row while its window is open), ``on_time`` otherwise.
* ``watermarks``: ``level`` ``operator`` is Spark's global watermark of every executed batch
  (``time`` = its tick, ``batch``, ``no_data``), ``partition`` the inputs' own watermarks
  (``max event time - delay``) when each partition is an input.
* ``late``: the dropped records (Spark has no late side output; these are what its late
  filter discarded), ``state``: windows (and the rows they aggregate) in the state store after
  every batch (complete mode: everything, for good).
* ``summary()``: the sweep's figures (same definitions) plus ``batches``, ``no_data_batches``
  and ``rows_dropped_by_watermark`` (Spark's ``numRowsDroppedByWatermark`` summed: distinct
  groups, not records, so it differs from ``dropped``).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from toolkit.engine.microbatch import MicroBatchConfig, MicroBatchConfigError
from toolkit.engine.microbatch.prepared import MicroBatchLog
from toolkit.engine.microbatch.run import DROPPED, LATE_ACCEPTED, NO_SESSION, ON_TIME, run_prepared
from toolkit.metrics.fates import FATE_NAMES
from toolkit.metrics.summary import nearest_rank
from toolkit.metrics.truth import sessionize
from toolkit.settings import DynamicSession, Session, Setting, SettingError, Sliding, Tumbling, describe_setting


#: fate names by engine code; a row without a session (null/zero/negative per-record gap) is invalid
_FATES = np.append(FATE_NAMES, "invalid").astype(object)


def sessions_of_batch(keys: np.ndarray, ts: np.ndarray, gap) -> tuple[pd.DataFrame, int]:
    """The batch answer with per-record gaps: (sessions of every row that has one, merged as one
    batch would merge them; number of such rows)."""
    from toolkit.engine.microbatch.batches import Batches
    from toolkit.engine.microbatch.run import _codes
    from toolkit.engine.microbatch.sessions import aggregate_sessions

    n = len(ts)
    uniq, kc = _codes(np.asarray(keys))
    one = Batches(np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1, bool),
                  np.zeros(1, np.int64))
    _, _, _, table, _, has = aggregate_sessions(kc, ts, gap, np.ones(n, np.int64), np.zeros(n, np.int64), one)
    truth = pd.DataFrame({"key": uniq[table["key"]], "window_start": table["start"], "window_end": table["end"],
                          "true_count": table["count"]})
    return truth, int(has.sum())


def spark_gap_array(values, column: str, rows=None, *, option: str = "window") -> np.ndarray:
    """A ``dynamic_session:COLUMN`` gap column as Spark's ``session_window(ts, gap_column)`` reads
    it, as int64 ms: null (None/NaN) becomes 0, and 0 or a negative gap stays as it is; all three
    put the row in no session (rule 11 of docs/spark_semantics.md: Spark filters such a row out,
    it is not late). A gap that is not a whole number of milliseconds (text, a fraction, a bool,
    beyond int64) is a ``SettingError`` naming ``option``, the column, how many rows and the
    first one (``rows``: the log's row numbers)."""
    v = pd.Series(values)
    n = len(v)
    null = v.isna().to_numpy()
    if pd.api.types.is_bool_dtype(v.dtype):
        num = pd.Series(np.full(n, np.nan))
    elif pd.api.types.is_numeric_dtype(v.dtype):
        num = v
    else:
        num = pd.to_numeric(v, errors="coerce")
    if pd.api.types.is_integer_dtype(num.dtype):
        ints = num.to_numpy(dtype=np.int64, na_value=0)
        bad = np.zeros(n, dtype=bool)
    else:
        f = num.to_numpy(dtype=np.float64, na_value=np.nan)
        with np.errstate(invalid="ignore"):
            bad = ~null & (~np.isfinite(f) | (np.floor(f) != f) | (np.abs(f) >= 2.0**63))
        ints = np.where(null | bad, 0, np.nan_to_num(f)).astype(np.int64)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = int(rows[i]) if rows is not None else i
        raw = v.iat[i]
        raw = raw.item() if isinstance(raw, np.generic) else raw
        raise SettingError(option, f"{option} dynamic_session:{column}: {int(bad.sum()):,} of {n:,} records have a gap "
                           f"that is not a whole number of milliseconds (first: row {row}, {column} = {raw!r}); "
                           "semantics='spark' reads it as session_window(ts, concat(gap, ' milliseconds')): give "
                           "integers (null, 0 or a negative gap puts the row in no session, as in Spark)")
    return ints


def spark_gap_column(table: pd.DataFrame, column: str, *, option: str = "window") -> np.ndarray:
    """``table[column]`` as :func:`spark_gap_array` reads it; a missing column is a
    ``SettingError`` that says how to keep it at loading."""
    if column not in table.columns:
        raise SettingError(option, f"{option} dynamic_session:{column}: the log has no column {column!r}; load it with "
                           f"toolkit.load_log(..., keep=[{column!r}]) (the command line keeps it by itself)")
    return spark_gap_array(table[column].to_numpy(), column, table["row"].to_numpy() if "row" in table else None,
                           option=option)


def microbatch_config(s: Setting, sources: Sequence[int] | None = None) -> MicroBatchConfig:
    """The engine's ``MicroBatchConfig`` of a ``semantics="spark"`` setting.

    ``sources``: with ``partitions_as_sources``, the partitions that are Spark inputs, including
    any that never deliver a valid row (Spark: such an input proposes 0, so the ``min`` policy
    holds the watermark at 1970 for the whole run; ``corner_never_speaks_*`` fixtures); ``None``:
    the partitions that have valid rows."""
    w = s.window
    kind = "tumbling" if isinstance(w, Tumbling) else "sliding" if isinstance(w, Sliding) else "session"
    try:
        return MicroBatchConfig(
            window_kind=kind, size=getattr(w, "size", 0), slide=getattr(w, "slide", getattr(w, "size", 0)),
            gap=w.gap if isinstance(w, Session) else 0,  # dynamic_session: run_microbatch(gap=per record)
            offset=getattr(w, "offset", 0), delay=s.delay, trigger_interval=s.trigger_interval,
            output_mode=s.output_mode, partitions_as_sources=s.partitions_as_sources,
            multiple_watermark_policy=s.multiple_watermark_policy,
            sources=tuple(int(p) for p in sources) if (sources is not None and s.partitions_as_sources) else None)
    except MicroBatchConfigError as exc:
        name, _, msg = str(exc).partition(":")
        raise SettingError(name.strip(), str(exc)) from None


def table_arrays(table: pd.DataFrame, s: Setting) -> dict:
    """A log table's columns in arrival order (ties: row order), as ``microbatch_parts`` takes them."""
    return SparkSweepLog(table).arrays(s)


class SparkSweepLog:
    """A log table prepared once for many Spark settings (a sweep's ``semantics="spark"`` rows).

    What does not depend on the setting is done once and kept: the columns in arrival order
    (ties: row order), the engine's ``MicroBatchLog`` (key codes, data batches per trigger
    interval, window groups: ``toolkit.engine.microbatch.prepared``), the gap columns read
    Spark's way and the batch answer of each session gap. :meth:`figures` gives exactly
    ``replay(log, s).summary()``'s figures (the same code computes both)."""

    def __init__(self, table: pd.DataFrame) -> None:
        self._table = table
        order = np.lexsort((table["row"].to_numpy(np.int64), table["arrival_time"].to_numpy(np.int64)))
        t = table.iloc[order]
        self._ordered = t
        self._base = {"ts": t["event_time"].to_numpy(np.int64), "arr": t["arrival_time"].to_numpy(np.int64),
                      "part": t["partition"].to_numpy(np.int64) if "partition" in t else np.zeros(len(t), np.int64),
                      "keys": t["key"].to_numpy(dtype=object),
                      "vals": t["value"].to_numpy() if "value" in t else np.ones(len(t), np.int64),
                      "rows": t["row"].to_numpy(np.int64), "has_arr": True}
        self._gaps: dict[str, np.ndarray] = {}
        self._engine: MicroBatchLog | None = None
        self.truths: dict = {}  # session batch answers by gap (see _summary)

    def arrays(self, s: Setting) -> dict:
        """The columns as ``microbatch_parts`` takes them for ``s`` (one input unless
        ``partitions_as_sources``; ``gap``: the setting's gap column, Spark's way)."""
        a = dict(self._base)
        if not s.partitions_as_sources:
            a["part"] = np.zeros_like(a["part"])
        a["gap"] = None
        if s.gap_column is not None:
            if s.gap_column not in self._gaps:
                self._gaps[s.gap_column] = spark_gap_column(self._ordered, s.gap_column)
            a["gap"] = self._gaps[s.gap_column]
        return a

    @property
    def engine(self) -> MicroBatchLog:
        """The engine's prepared log (made on first use)."""
        if self._engine is None:
            b = self._base
            self._engine = MicroBatchLog(b["ts"], b["arr"], b["keys"], b["vals"], b["part"])
        return self._engine

    def figures(self, s: Setting, invalid: int = 0, sources: Sequence[int] | None = None) -> dict:
        """The sweep row's figures (``SUMMARY_COLUMNS``) of the Spark setting ``s``."""
        from toolkit.metrics.summary import SUMMARY_COLUMNS

        parts = microbatch_parts(None, s, self.arrays(s), invalid=invalid, fates=False, sources=sources, prepared=self)
        return {k: parts["_summary"][k] for k in SUMMARY_COLUMNS}


def sweep_figures(table: pd.DataFrame, s: Setting, invalid: int = 0, sources: Sequence[int] | None = None,
                  prepared: SparkSweepLog | None = None) -> dict:
    """The sweep row's figures (``SUMMARY_COLUMNS``) of the Spark setting ``s`` on a log table:
    exactly ``replay(log, s).summary()``'s (the same code computes both); ``sources``: the
    declared partitions (``EventLog.declared_partitions``); ``prepared``: ``table`` prepared
    once for all the sweep's Spark settings (:class:`SparkSweepLog`; made here when None)."""
    return (prepared or SparkSweepLog(table)).figures(s, invalid, sources)


def sweep_rows(table: pd.DataFrame, settings: Sequence[Setting], invalid: int = 0,
               sources: Sequence[int] | None = None) -> list[dict]:
    """:func:`sweep_figures` of every Spark setting in ``settings``, the table prepared once;
    evaluated grouped by window and trigger interval (the prepared log keeps a few of each)."""
    for s in settings:  # a setting Spark would refuse is named before any work, in the sweep's order
        microbatch_config(s, sources)
    if not settings:
        return []
    prepared = SparkSweepLog(table)
    rank = sorted(range(len(settings)), key=lambda i: (str(settings[i].window), int(settings[i].trigger_interval), i))
    out: dict[int, dict] = {}
    for i in rank:
        out[i] = prepared.figures(settings[i], invalid, sources)
    return [out[i] for i in range(len(settings))]


def microbatch_parts(log: Any, s: Setting, a: dict, *, invalid: int | None = None, fates: bool = True,
                     sources: Sequence[int] | None = None, gap: np.ndarray | None = None,
                     prepared: SparkSweepLog | None = None) -> dict:
    """The fields of a ``ReplayResult`` for ``log`` under the Spark setting ``s``.

    ``a``: the log's columns in arrival order (``ts, arr, part, keys, vals, rows, has_arr``);
    ``sources``: see :func:`microbatch_config` (declared inputs, silent ones included);
    ``gap``: a per-record session gap in ms, in the order of ``a`` (Spark's
    ``session_window(ts, gap_column)``; session settings only; default: ``a["gap"]``, which a
    ``dynamic_session:COLUMN`` setting needs): a row whose gap is null (NaN or
    None), zero or negative is in no session, its fate is ``invalid`` and ``summary()`` counts
    it under ``invalid``. ``prepared``: the same columns prepared for many settings
    (:class:`SparkSweepLog`; a sweep), whose engine log and batch answers are reused."""
    if not a["has_arr"]:
        raise SettingError("semantics", "semantics='spark' replays micro-batches cut from arrival times, "
                           "but the log has no arrival times; load it with an arrival-time column")
    cfg = microbatch_config(s, sources)
    if gap is None and s.gap_column is not None:
        gap = a.get("gap")
        if gap is None:
            raise SettingError("window", f"window {s.window}: the per-record gaps of column {s.gap_column!r} were not given")
    ts, arr, keys, vals, rows = a["ts"], a["arr"], a["keys"], a["vals"], a["rows"]
    # a session setting's batch answer, kept across a sweep's settings: per gap, or per gap column
    truth_key = (("gap", cfg.gap) if gap is None else
                 ("column", s.gap_column) if s.gap_column is not None and gap is a.get("gap") else None)
    n = len(ts)
    try:
        if not n:
            raise MicroBatchConfigError("log: there are no records to replay")
        engine_log = prepared.engine if prepared is not None else MicroBatchLog(ts, arr, keys, vals, a["part"])
        res = run_prepared(cfg, engine_log, gap=gap)
    except MicroBatchConfigError as exc:  # e.g. complete mode's output too large: name the option
        raise SettingError(str(exc).partition(":")[0].strip(), str(exc)) from None
    b = res.batches
    n_exec = len(b)
    em = res.emissions
    last_tick = int(b.tick[-1])
    append = cfg.output_mode == "append"
    # --- emissions, plus the windows still in state at the end (append mode) flushed at_end
    tab = res.windows
    pending = tab["emit_batch"] >= n_exec if append else np.zeros(len(tab["start"]), dtype=bool)
    k_all = np.concatenate([em.key, tab["key"][pending]])
    start = np.concatenate([em.start, tab["start"][pending]])
    end = np.concatenate([em.end, tab["end"][pending]])
    count = np.concatenate([em.count, tab["count"][pending]])
    total = np.concatenate([em.sum, tab["sum"][pending]])
    n_em, n_pend = len(em.key), int(pending.sum())
    at_end = np.concatenate([np.zeros(n_em, bool), np.ones(n_pend, bool)])
    batch = np.concatenate([em.batch, np.full(n_pend, -1, np.int64)])
    emit_time = np.concatenate([b.tick[em.batch], np.full(n_pend, last_tick, np.int64)])
    wm = np.concatenate([b.watermark[em.batch], np.full(n_pend, b.watermark[-1], np.int64)])
    final = np.concatenate([em.final, np.ones(n_pend, bool)])
    timing = np.where(at_end, "at_end", np.where(final, "on_time", "early")).astype(object)
    if cfg.output_mode == "complete" and len(em.key):  # re-emissions after the on_time one are late
        seen = np.zeros(len(final), dtype=bool)
        o = np.lexsort((em.batch, em.start, em.key))
        fin = em.final[o]
        grp = np.ones(len(o), dtype=bool)
        grp[1:] = (em.key[o][1:] != em.key[o][:-1]) | (em.start[o][1:] != em.start[o][:-1]) | (em.end[o][1:] != em.end[o][:-1])
        # final emissions of a window before this one, counted within the window
        cf = np.cumsum(fin)
        base = np.maximum.accumulate(np.where(grp, cf - fin, 0))
        seen[o] = fin & (cf - fin - base > 0)
        timing[seen] = "late"
    pane = np.concatenate([em.pane, np.zeros(n_pend, np.int64)])
    order = np.lexsort((start, emit_time, at_end))
    emissions = pd.DataFrame({
        "key": res.keys[k_all[order]] if len(order) else np.zeros(0, dtype=object),
        "window_start": pd.array(start[order], dtype="Int64"), "window_end": pd.array(end[order], dtype="Int64"),
        "max_timestamp": (end[order] - 1).astype(np.int64), "pane": pane[order].astype(np.int64),
        "timing": timing[order].astype(object), "kind": np.full(len(order), "fire", dtype=object),
        "count": pd.array(count[order], dtype="Int64"), "sum": total[order], "value": total[order],
        "watermark": wm[order].astype(np.int64), "emit_time": pd.array(emit_time[order], dtype="Int64"),
        "at_end": at_end[order], "seq": np.arange(len(order), dtype=np.int64),
        "batch": pd.array(np.where(batch[order] < 0, None, batch[order]).tolist(), dtype="Int64"),
    })
    # --- fates, dropped records ("late")
    if fates:
        table_rows = log.table["row"].to_numpy(dtype=np.int64)
        fate_by_row = pd.Series(res.fate, index=rows)
        fates = pd.DataFrame({"row": table_rows, "fate": _FATES[fate_by_row.loc[table_rows].to_numpy()]},
                             index=log.table.index)
    else:
        fates = None
    late_wm = b.late_watermark[res.record_batch]
    d = res.fate == DROPPED
    late = pd.DataFrame({"row": pd.array(rows[d], dtype="Int64"), "key": keys[d], "event_time": ts[d].astype(np.int64),
                         "value": vals[d], "watermark": late_wm[d].astype(np.int64),
                         "arrival_time": pd.array(arr[d], dtype="Int64"), "seq": np.arange(int(d.sum()), dtype=np.int64)})
    # --- watermarks: the global one per executed batch; each input's own with several inputs
    wms = [pd.DataFrame({"level": "operator", "id": np.zeros(n_exec, np.int64), "time": pd.array(b.tick, dtype="Int64"),
                         "watermark": pd.array(b.watermark, dtype="Int64"), "status": "active",
                         "batch": np.arange(n_exec, dtype=np.int64), "no_data": ~b.is_data})]
    if cfg.partitions_as_sources:
        wms.append(_input_watermarks(res, ts, a["part"], cfg.delay))
    watermarks = pd.concat(wms, ignore_index=True)
    # --- state after every batch: windows in the store and the rows they aggregate
    first, last = tab["first_batch"], np.minimum(tab["emit_batch"], n_exec)
    dw = np.zeros(n_exec + 1, np.int64)
    dr = np.zeros(n_exec + 1, np.int64)
    np.add.at(dw, first, 1)
    np.add.at(dw, last, -1)
    rows_in = _rows_per_window_batch(res, tab, n_exec)
    np.add.at(dr, rows_in[0], rows_in[1])
    np.add.at(dr, last, -tab["count"])
    open_w, open_r = np.cumsum(dw)[:n_exec], np.cumsum(dr)[:n_exec]
    state = pd.DataFrame({"time": b.tick.astype(np.int64), "open_windows": open_w, "buffered_records": open_r})
    settings_d = describe_setting(s)
    settings_d["has_arrival_time"] = True
    summary = _summary(int(getattr(log, "n_invalid", 0)) if invalid is None else invalid, res, a, emissions, state,
                       gap, engine_log, k_all[order], prepared.truths if prepared is not None else {}, truth_key)
    summary["settings"] = settings_d
    return {"emissions": emissions, "fates": fates, "late": late, "watermarks": watermarks, "state": state,
            "settings": settings_d, "setting": s, "_summary": summary}


def _rows_per_window_batch(res, tab: dict, n_exec: int) -> tuple[np.ndarray, np.ndarray]:
    """(batch, rows) increments: the rows each window accepted, at the batch that accepted them."""
    if "pair_batch" in tab:  # fixed windows: every accepted (record, window) pair at its batch
        return tab["pair_batch"], np.ones(len(tab["pair_batch"]), np.int64)
    # sessions: a session's rows counted from its first batch (its parts merge inside the store)
    return tab["first_batch"], tab["count"]


def _input_watermarks(res, ts: np.ndarray, part: np.ndarray, delay: int) -> pd.DataFrame:
    """Each input's own watermark (its max event time so far - delay) after every batch it read."""
    b = res.batches
    df = pd.DataFrame({"id": part, "batch": res.record_batch, "t": ts}).groupby(["id", "batch"], sort=True)["t"].max()
    df = df.reset_index()
    df["watermark"] = df.groupby("id")["t"].cummax() - np.int64(delay)
    return pd.DataFrame({"level": "partition", "id": df["id"].to_numpy(np.int64),
                         "time": pd.array(b.tick[df["batch"].to_numpy()], dtype="Int64"),
                         "watermark": pd.array(df["watermark"].to_numpy(np.int64), dtype="Int64"), "status": "active",
                         "batch": df["batch"].to_numpy(np.int64), "no_data": False})


def _summary(invalid: int, res, a: dict, emissions: pd.DataFrame, state: pd.DataFrame, gap, engine_log: MicroBatchLog,
             em_codes: np.ndarray, truths: dict, truth_key=None) -> dict:
    """The sweep's figures for this Spark setting (same definitions as for Flink), then Spark's own.

    Ground truth is the batch answer (every record in every window it belongs to; sessions:
    sessionized with the gap). A window's first result is its first emission (append: the only
    one; the end-of-input flush counts, as for Flink); its latency is that emission's tick minus
    the window end (flushed windows have none). In append and update mode Spark never emits after
    a window's end has passed the watermark, so ``late_firings`` is 0; complete mode re-emits
    every window in every batch, and its re-emissions after the ``on_time`` one are
    ``late_firings``. ``retractions`` are always 0.

    ``engine_log``: the run's prepared log (its window groups are the batch answer of fixed
    windows); ``em_codes``: the key code of every row of ``emissions``; ``truths``: session
    batch answers kept across the settings of a sweep, under ``truth_key`` (None: not kept).
    """
    cfg = res.config
    ts, keys = a["ts"], a["keys"]
    n = len(ts)
    fate = res.fate
    tab = res.windows
    em = emissions
    first_em = em[em["pane"] == 0]
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
        got = pd.DataFrame({"key": first_em["key"].to_numpy(), "window_start": first_em["window_start"].astype("int64").to_numpy(),
                            "window_end": first_em["window_end"].astype("int64").to_numpy(),
                            "true_count": first_em["count"].astype("int64").to_numpy()})
        exact = len(truth.merge(got, on=["key", "window_start", "window_end", "true_count"], how="inner"))
    else:
        # the batch answer: every (key, window) group of the window's pairs (keys as codes)
        w = engine_log.windows(cfg.size, cfg.slide, cfg.offset)
        true_pairs = len(w.record)
        tk = pd.DataFrame({"key": w.group_key, "window_start": w.group_start, "t": w.true_count})
        n_true = len(tk)
        got = pd.DataFrame({"key": em_codes[(em["pane"] == 0).to_numpy()],
                            "window_start": first_em["window_start"].astype("int64").to_numpy(),
                            "g": first_em["count"].astype("int64").to_numpy()})
        joined = tk.merge(got, on=["key", "window_start"], how="inner")
        exact = int((joined["t"] == joined["g"]).sum())
    timed = first_em[~first_em["at_end"].to_numpy()]
    lat = (timed["emit_time"].astype("int64") - timed["window_end"].astype("int64")).to_numpy(np.int64)
    lv, lc = np.unique(lat, return_counts=True)
    span = int(state["time"].iloc[-1] - state["time"].iloc[0]) if len(state) else 0
    if span > 0:
        dt = np.diff(state["time"].to_numpy(np.int64))
        mean_w = float((state["open_windows"].to_numpy()[:-1] * dt).sum() / span)
        mean_r = float((state["buffered_records"].to_numpy()[:-1] * dt).sum() / span)
    else:
        mean_w = float(state["open_windows"].iloc[-1]) if len(state) else 0.0
        mean_r = float(state["buffered_records"].iloc[-1]) if len(state) else 0.0
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
        "firings": int(len(em)),
        "late_firings": int((em["timing"] == "late").sum()),
        "retractions": 0,
        "peak_state_windows": int(state["open_windows"].max()) if len(state) else 0,
        "peak_state_records": int(state["buffered_records"].max()) if len(state) else 0,
        "mean_state_records": mean_r,
        "mean_state_windows": mean_w,
        "windows": int(n_true),
        "at_end_firings": int(em["at_end"].sum()),
        "late_side_output": 0,
        "batches": int(len(res.batches)),
        "no_data_batches": int((~res.batches.is_data).sum()),
        "rows_dropped_by_watermark": int(res.rows_dropped_by_watermark.sum()),
    }
    return out
