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
from toolkit.settings import Session, Setting, SettingError, Sliding, Tumbling, describe_setting

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
        self._order = order
        t = table.iloc[order]
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
                cols = [c for c in (s.gap_column, "row") if c in self._table.columns]
                self._gaps[s.gap_column] = spark_gap_column(self._table[cols].iloc[self._order], s.gap_column)
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

        summary = microbatch_summary(s, self.arrays(s), invalid=invalid, sources=sources, prepared=self)
        return {k: summary[k] for k in SUMMARY_COLUMNS}


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
    run = _Run(s, a, sources, gap, prepared)
    res, cfg = run.res, run.cfg
    ts, arr, keys, vals, rows = a["ts"], a["arr"], a["keys"], a["vals"], a["rows"]
    b = res.batches
    n_exec = len(b)
    e = run.emission_columns()
    at_end = e["at_end"]
    timing = np.where(at_end, "at_end", np.where(e["final"], "on_time", "early")).astype(object)
    timing[e["late"]] = "late"
    order = np.lexsort((e["start"], e["emit_time"], at_end))
    end, batch, total = e["end"][order], e["batch"][order], e["sum"][order]
    emissions = pd.DataFrame({
        "key": res.keys[e["key"][order]] if len(order) else np.zeros(0, dtype=object),
        "window_start": pd.array(e["start"][order], dtype="Int64"), "window_end": pd.array(end, dtype="Int64"),
        "max_timestamp": (end - 1).astype(np.int64), "pane": e["pane"][order].astype(np.int64),
        "timing": timing[order].astype(object), "kind": np.full(len(order), "fire", dtype=object),
        "count": pd.array(e["count"][order], dtype="Int64"), "sum": total, "value": total,
        "watermark": e["watermark"][order].astype(np.int64), "emit_time": pd.array(e["emit_time"][order], dtype="Int64"),
        "at_end": at_end[order], "seq": np.arange(len(order), dtype=np.int64),
        "batch": pd.array(np.where(batch < 0, None, batch).tolist(), dtype="Int64"),
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
    open_w, open_r = run.state_columns()
    state = pd.DataFrame({"time": b.tick.astype(np.int64), "open_windows": open_w, "buffered_records": open_r})
    settings_d = describe_setting(s)
    settings_d["has_arrival_time"] = True
    summary = run.summary(int(getattr(log, "n_invalid", 0)) if invalid is None else invalid, e, (open_w, open_r))
    summary["settings"] = settings_d
    return {"emissions": emissions, "fates": fates, "late": late, "watermarks": watermarks, "state": state,
            "settings": settings_d, "setting": s, "_summary": summary}


def microbatch_summary(s: Setting, a: dict, *, invalid: int = 0, sources: Sequence[int] | None = None,
                       gap: np.ndarray | None = None, prepared: SparkSweepLog | None = None) -> dict:
    """``microbatch_parts(...)["_summary"]`` without the replay's tables (a sweep's row): the same
    run, emission and state columns, and the same :func:`_summary`."""
    run = _Run(s, a, sources, gap, prepared)
    return run.summary(invalid, run.emission_columns(), run.state_columns())


class _Run:
    """One Spark setting run over ``a`` (see :func:`microbatch_parts` for the arguments), and the
    columns a replay and a sweep row are both made of."""

    def __init__(self, s: Setting, a: dict, sources, gap, prepared: SparkSweepLog | None) -> None:
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

    ``e``: the emission columns (``_Run.emission_columns``), ``state``: (windows, rows) in state
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
