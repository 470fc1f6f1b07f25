"""A replay's results as DataFrames: emissions, late records, fates, watermarks."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.engine.flink.pipeline import PipelineResult, WatermarkTimeline
from toolkit.engine.flink.watermarks import MAX_WATERMARK
from toolkit.metrics.fates import FATE_NAMES

_EM_COLS = ["key", "window_start", "window_end", "max_timestamp", "pane", "timing", "kind", "count", "sum", "value",
            "watermark", "emit_time", "at_end"]


def emissions_frame(res: PipelineResult, stage: int, has_arr: bool, a: dict) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    rows = []
    late_rows = []
    fire_ids: list[tuple[int, list]] = []  # (pane, record ids) of fire results
    joins: list[tuple[int, int, int]] = []  # a join's (left, right, pairs) per emission
    for seq, (st, at_end, it) in enumerate(res.outputs):
        if st != stage:
            continue
        if getattr(it, "kind", None) == "late":
            late_rows.append((it.record_id, it.key, it.timestamp, it.value, it.watermark, it.processing_time, seq))
            continue
        w = it.window
        start = getattr(w, "start", None)
        end = getattr(w, "end", None)
        v = it.value
        cnt = sm = None
        if "count" in getattr(v, "_fields", ()):
            cnt, sm = v.count, v.sum
        elif isinstance(v, (list, tuple)):
            cnt = len(v)
            sm = sum(v) if all(isinstance(x, (int, float, np.number)) for x in v) else None
        elif isinstance(v, (int, float, np.number)):
            sm = v
        if "pairs" in getattr(v, "_fields", ()):
            joins.append((v.left, v.right, v.pairs))
        rows.append((it.key, start, end, it.timestamp, it.pane, it.timing, it.kind, cnt, sm, v, it.watermark,
                     it.processing_time, bool(at_end or it.timing == "at_end"), seq))
        if it.kind == "fire" and it.record_ids is not None:
            fire_ids.append((it.pane, it.record_ids))
    em = pd.DataFrame(rows, columns=_EM_COLS + ["seq"])
    for c in ("window_start", "window_end", "count"):
        em[c] = pd.array(em[c].tolist(), dtype="Int64")
    em["max_timestamp"] = em["max_timestamp"].astype("int64")
    em["pane"] = em["pane"].astype("int64")
    em["watermark"] = em["watermark"].astype("int64")
    em["emit_time"] = pd.array(em["emit_time"].tolist() if has_arr else [pd.NA] * len(em), dtype="Int64")
    em["at_end"] = em["at_end"].astype(bool)
    if not len(em):
        em["sum"] = em["sum"].astype("float64")
    if joins and len(joins) == len(em):
        for i, c in enumerate(("left", "right", "pairs")):
            em.insert(em.columns.get_loc("value"), c, np.asarray([j[i] for j in joins], dtype=np.int64))
    # a later stage's late elements are the previous stage's firings: no log row, no arrival
    # of their own (their ``row`` is the element number, ``arrival_time`` the operator's time)
    late = late_frame(late_rows, a if stage == 1 else None, has_arr)
    return em, late, fire_ids


def late_frame(late_rows: list, a: dict, has_arr: bool) -> pd.DataFrame:
    df = pd.DataFrame(late_rows, columns=["row", "key", "event_time", "value", "watermark", "arrival_time", "seq"])
    df["row"] = pd.array(df["row"].tolist(), dtype="Int64")
    df["event_time"] = df["event_time"].astype("int64")
    df["watermark"] = df["watermark"].astype("int64")
    if has_arr and a is not None and len(df) and df["row"].notna().all():
        # arrival time of the record itself (the operator's processing time equals it)
        pos = pd.Series(np.asarray(a["arr"]), index=a["rows"])
        df["arrival_time"] = pos.loc[df["row"].astype("int64").to_numpy()].to_numpy()
    df["arrival_time"] = pd.array(df["arrival_time"].tolist() if has_arr else [pd.NA] * len(df), dtype="Int64")
    return df


def fates_frame(log: Any, rows: np.ndarray, codes_by_position: np.ndarray) -> pd.DataFrame:
    """A fate per row of the log's table (``rows[i]`` has code ``codes_by_position[i]``)."""
    table_rows = log.table["row"].to_numpy(dtype=np.int64)
    by_row = pd.Series(codes_by_position, index=rows)
    fate = FATE_NAMES[by_row.loc[table_rows].to_numpy()]
    return pd.DataFrame({"row": table_rows, "fate": fate}, index=log.table.index)


def fill_late_ids(res: PipelineResult, late_rows: np.ndarray) -> None:
    """The engine's specialised loops emit late records without ids: they come in arrival order."""
    items = [it for st, _, it in res.outputs if st == 1 and getattr(it, "kind", None) == "late"]
    if len(items) != len(late_rows):
        raise RuntimeError(f"internal: {len(items)} late records emitted, {len(late_rows)} expected")
    for it, r in zip(items, late_rows.tolist()):
        if it.record_id is None:
            it.record_id = r


def watermarks_frame(tl: WatermarkTimeline, res: PipelineResult, has_arr: bool) -> pd.DataFrame:
    rank = {"partition": 0, "subtask": 1, "operator": 2}
    rows = sorted(tl.log, key=lambda r: (r[2], rank[r[0]], r[1]))
    rows.append(("operator", 0, res.end_time, MAX_WATERMARK, "active"))
    cols = list(zip(*rows))
    return pd.DataFrame({
        "level": pd.array(cols[0], dtype=object),
        "id": np.asarray(cols[1], dtype=np.int64),
        "time": pd.array(list(cols[2]) if has_arr else [pd.NA] * len(rows), dtype="Int64"),
        "watermark": pd.array([pd.NA if w is None else int(w) for w in cols[3]], dtype="Int64"),
        "status": pd.array(cols[4], dtype=object),
    })


