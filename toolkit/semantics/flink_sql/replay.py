"""A replay with ``semantics="flink_sql"``: the log through a Flink SQL windowed aggregation.

The log becomes the job of docs/flink_sql_semantics.md (``toolkit.engine.flink_sql``, checked
against real Flink SQL 2.3)::

    CREATE TABLE events (..., WATERMARK FOR ts AS ts - INTERVAL '<delay>')   -- a split per partition
    SELECT key, window_start, window_end, COUNT(*), SUM(value)
    FROM TABLE(TUMBLE | HOP | CUMULATE | SESSION(...)) GROUP BY key, window_start, window_end

Result (the same columns and meanings as a Flink replay):

- ``emissions``: every row in emission order: ``key, window_start, window_end`` (end
  exclusive), ``max_timestamp``, ``pane`` (0 for a window's first row), ``timing``
  (``on_time``: the watermark fired it; ``early`` / ``late``: a record fired it, the legacy
  window's ``table.exec.emit.early-fire`` / ``late-fire``; ``at_end``: the final watermark of
  the bounded source), ``kind`` (``fire``; ``retract`` for a ``-U`` row), ``count, sum, value``,
  ``watermark`` (the window operator's watermark at the row), ``emit_time``, ``at_end``, ``seq``,
  and Flink SQL's own ``op`` (``+I``, ``-U``, ``+U``) and ``cause`` (``watermark``, ``record``,
  ``end_of_input``).
- ``fates``: ``on_time`` (in a row that is not a late firing), ``late_accepted`` (only in the
  legacy window's late firings), ``dropped`` with the reason ``late`` (every window it belongs to
  had fired: Flink SQL drops it, no allowed lateness on a window TVF) or ``never_fired`` (taken
  into a window that never fired: every partition idle at the end, no final watermark).
- ``late``: the records dropped for lateness, with the window operator's watermark that
  dropped them (``watermark``), their ``partition`` and the end of their last window.
- ``watermarks``: the source's watermark (``level`` ``source``: the min over its active
  partitions, with ``status`` active / idle) and the window operator's (``operator``: after
  mini-batch), each when it moved.
- ``state``: open windows and held records over processing time (:mod:`.figures`).

``summary()`` is the sweep row (:mod:`toolkit.semantics.flink_sql.figures`) plus
``late_side_output`` (0: a SQL window aggregation has no late side output; the late records
are ``late``) and ``late_records_counter`` (Flink's ``numLateRecordsDropped``).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.metrics.fates import FATE_NAMES
from toolkit.semantics.flink_sql.figures import figures, record_windows
from toolkit.semantics.flink_sql.run import SqlRun, run_setting, window_head
from toolkit.settings import Setting, describe_setting, result_notes


def _emissions(run: SqlRun, vals: np.ndarray, keys_by_text: dict) -> pd.DataFrame:
    offs = run.r_offsets
    sums = np.add.reduceat(vals[run.r_members], offs[:-1]) if len(run.r_members) else np.zeros(len(run.r_op))
    sums = np.where(np.diff(offs) > 0, sums, 0)
    fire = run.r_op != "-U"
    em = pd.DataFrame({
        "key": np.array([keys_by_text[k] for k in run.r_key], dtype=object),
        "window_start": pd.array(run.r_start, dtype="Int64"), "window_end": pd.array(run.r_end, dtype="Int64"),
        "max_timestamp": run.r_end - 1, "pane": run.r_pane, "timing": run.r_timing,
        "kind": np.where(fire, "fire", "retract").astype(object), "count": pd.array(run.r_count, dtype="Int64"),
        "sum": sums, "value": sums, "watermark": run.r_wm, "emit_time": pd.array(run.r_time, dtype="Int64"),
        "at_end": run.r_timing == "at_end",
    })
    em["seq"] = np.arange(len(em), dtype=np.int64)
    em["op"] = run.r_op
    em["cause"] = run.r_cause
    return em


def _last_window_end(s: Setting, ts: np.ndarray) -> np.ndarray:
    """The end of the last window each event time belongs to (sessions: its own ``ts + gap``)."""
    if window_head(s)["kind"].endswith("session"):
        return ts + s.window.gap
    rec, _, end = record_windows(s, ts)
    out = np.full(len(ts), np.iinfo(np.int64).min, np.int64)
    np.maximum.at(out, rec, end)
    return out


def _watermarks(run: SqlRun) -> pd.DataFrame:
    st_t, st_v = run.status
    src_t, src_v = run.source
    # the source's status after each of its watermarks (a status line and a watermark share a step)
    events = sorted([(t, 0, "wm", v) for t, v in zip(src_t.tolist(), src_v.tolist())]
                    + [(t, 1, "status", v) for t, v in zip(st_t.tolist(), st_v.tolist())])
    status, last, rows = "active", None, []
    for t, _, what, v in events:
        if what == "status":
            status = str(v).lower()
        else:
            last = v
        rows.append(("source", 0, t, last, status))
    op_t, op_v = run.operator
    rows += [("operator", 0, t, v, "active") for t, v in zip(op_t.tolist(), op_v.tolist())]
    return pd.DataFrame(rows, columns=["level", "id", "time", "watermark", "status"]).astype(
        {"id": "int64", "time": "Int64", "watermark": "Int64"})


def flink_sql_parts(log: Any, s: Setting, a: dict, sources: Any) -> dict:
    """The fields of a ``ReplayResult`` for ``log`` under ``s`` (``a``: the log's columns in
    arrival order; ``sources``: the declared partitions)."""
    run = run_setting(s, a, sources)
    vals = np.asarray(a["vals"], dtype=np.float64)
    keys = np.asarray(a["keys"], dtype=object)
    keys_by_text = {str(k): k for k in pd.unique(keys)}
    emissions = _emissions(run, vals, keys_by_text)
    table_rows = log.table["row"].to_numpy(dtype=np.int64)
    by_row = pd.Series(np.arange(run.n), index=a["rows"]).loc[table_rows].to_numpy()
    fates = pd.DataFrame({"row": table_rows, "fate": FATE_NAMES[run.codes[by_row]],
                          "reason": run.reason[by_row]}, index=log.table.index)
    d = run.reason == "late"
    ts = np.asarray(a["ts"], np.int64)
    late = pd.DataFrame({"row": pd.array(a["rows"][d], dtype="Int64"), "key": keys[d], "event_time": ts[d],
                         "value": np.asarray(a["vals"])[d], "watermark": run.met[d],
                         "arrival_time": pd.array(np.asarray(a["arr"])[d], dtype="Int64"),
                         "seq": np.arange(int(d.sum()), dtype=np.int64),
                         "partition": np.asarray(a["part"], np.int64)[d], "last_window_end": _last_window_end(s, ts[d])})
    summary = figures(run, s, a, int(getattr(log, "n_invalid", 0)))
    t, w, r = summary.pop("_state")
    state = pd.DataFrame({"time": t, "open_windows": w, "buffered_records": r}).astype("int64")
    settings_d = describe_setting(s)
    settings_d["has_arrival_time"] = True
    summary["late_side_output"] = 0  # a SQL window aggregation has no late side output (the late records: ``late``)
    summary["settings"] = settings_d
    summary["notes"] = result_notes(s)
    return {"emissions": emissions, "fates": fates, "late": late, "watermarks": _watermarks(run), "state": state,
            "settings": settings_d, "setting": s, "_summary": summary}
