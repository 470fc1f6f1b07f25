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

from toolkit.engine.microbatch.run import DROPPED
from toolkit.metrics.fates import FATE_NAMES
from toolkit.semantics.structured_streaming.figures import PreparedLog, SettingRun
from toolkit.settings import Setting, describe_setting

#: fate names by engine code; a row without a session (null/zero/negative per-record gap) is invalid
_FATES = np.append(FATE_NAMES, "invalid").astype(object)


def microbatch_parts(log: Any, s: Setting, a: dict, *, invalid: int | None = None, fates: bool = True,
                     sources: Sequence[int] | None = None, gap: np.ndarray | None = None,
                     prepared: PreparedLog | None = None) -> dict:
    """The fields of a ``ReplayResult`` for ``log`` under the Spark setting ``s``.

    ``a``: the log's columns in arrival order (``ts, arr, part, keys, vals, rows, has_arr``);
    ``sources``: see :func:`microbatch_config` (declared inputs, silent ones included);
    ``gap``: a per-record session gap in ms, in the order of ``a`` (Spark's
    ``session_window(ts, gap_column)``; session settings only; default: ``a["gap"]``, which a
    ``dynamic_session:COLUMN`` setting needs): a row whose gap is null (NaN or
    None), zero or negative is in no session, its fate is ``invalid`` and ``summary()`` counts
    it under ``invalid``. ``prepared``: the same columns prepared for many settings
    (:class:`SparkSweepLog`; a sweep), whose engine log and batch answers are reused."""
    run = SettingRun(s, a, sources, gap, prepared)
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


