"""Ground truth: the batch answer, every valid record in every window it belongs to.

Fixed windows use Flink's assignment (``toolkit.fast.evaluate.FixedWindows``); sessions
sessionize all valid records of a key at once: sorted by event time, a record opens a new
session iff its time is greater than the current session's last time plus the gap
(windows ``[ts, ts + gap)`` that merely touch merge, as ``TimeWindow.intersects`` does).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit.fast.evaluate import FixedWindows, Shard
from toolkit.fast.sessions import dynamic_truth, gap_column
from toolkit.settings import DynamicSession, Session, Sliding, Tumbling, parse_window


def sessionize(key: np.ndarray, event_time: np.ndarray, gap: "int | np.ndarray") -> tuple[pd.DataFrame, np.ndarray]:
    """Sessions per key: (frame key, window_start, window_end, true_count; session id per record).

    ``gap``: one gap, or one per record (a dynamic session: windows ``[ts, ts + gap)`` merge
    when they intersect or touch; a session ends at its largest ``ts + gap``)."""
    key = np.asarray(key, dtype=object)
    ts = np.asarray(event_time, dtype=np.int64)
    codes, uniques = pd.factorize(key, sort=True)
    order = np.lexsort((ts, codes))
    c, t = codes[order], ts[order]
    dynamic = np.ndim(gap) > 0
    if dynamic:
        g = np.asarray(gap, dtype=np.int64)[order]
        new = dynamic_truth(c, t, g)
    else:
        new = np.ones(len(t), dtype=bool)
        if len(t) > 1:
            new[1:] = (c[1:] != c[:-1]) | (t[1:] > t[:-1] + np.int64(gap))
    sid_sorted = np.cumsum(new) - 1
    sid = np.empty(len(t), dtype=np.int64)
    sid[order] = sid_sorted
    firsts = np.nonzero(new)[0]
    lasts = np.append(firsts[1:], len(t)) - 1
    frame = pd.DataFrame(
        {
            "key": np.asarray(uniques, dtype=object)[c[firsts]] if len(t) else np.zeros(0, dtype=object),
            "window_start": t[firsts],
            "window_end": (np.maximum.reduceat(t + g, firsts) if len(t) else t[:0]) if dynamic
            else (t[lasts] if len(t) else t[:0]) + np.int64(gap),
            "true_count": (lasts - firsts + 1).astype(np.int64),
        }
    )
    return frame, sid


def ground_truth(table, window) -> pd.DataFrame:
    """Per true window: key, window_start, window_end, true_count (valid records only).

    ``table``: an EventLog or its table; ``window``: a spelling such as ``"tumbling:1s"`` or a
    ``toolkit.settings`` window (``FixedWindows`` is accepted too)."""
    if hasattr(table, "table") and hasattr(table, "quarantine"):
        table = table.table
    if not isinstance(window, FixedWindows):
        window = parse_window(window)
    if isinstance(window, (Tumbling, Sliding)):
        window = FixedWindows.of(window)
    if isinstance(window, Session):
        return sessionize(table["key"].to_numpy(), table["event_time"].to_numpy(), window.gap)[0]
    if isinstance(window, DynamicSession):
        return sessionize(table["key"].to_numpy(), table["event_time"].to_numpy(), gap_column(table, window.column))[0]
    if not isinstance(window, FixedWindows):
        raise ValueError(f"ground truth needs fixed or session windows, got {window!r}")
    arrival = table["arrival_time"].to_numpy() if "arrival_time" in table else table["row"].to_numpy()
    shard = Shard(table["key"].to_numpy(), table["event_time"].to_numpy(), arrival, table["row"].to_numpy())
    pairs = shard.pairs(window)
    return pd.DataFrame(
        {
            "key": shard.keys[pairs.win_key] if pairs.n_windows else np.zeros(0, dtype=object),
            "window_start": pairs.win_start,
            "window_end": pairs.win_start + np.int64(window.size),
            "true_count": pairs.true_count,
        }
    )
