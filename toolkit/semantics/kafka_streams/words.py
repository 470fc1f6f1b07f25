"""How Kafka Streams explains a record it dropped, in words (``Semantics.why_dropped``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from toolkit.durations import readable
from toolkit.replays.why import instant, last_window_end
from toolkit.settings import Sliding, Tumbling


def why_dropped(result: Any, rows: np.ndarray) -> tuple[list[str], list[Any]]:
    """Kafka Streams skips a record whose window closed: its task's stream time (the largest
    timestamp the task had seen, ``late.watermark``) reached window end + grace."""
    s = result.setting
    late = result.late.assign(row=result.late["row"].astype("int64")).set_index("row")
    x = late.loc[rows.tolist()]
    ts = x["event_time"].to_numpy(np.int64)
    st = x["watermark"].to_numpy(np.int64)
    fixed = isinstance(s.window, (Tumbling, Sliding))
    end = last_window_end(s, ts) if fixed else ts
    grace = int(getattr(s, "grace", 0) or 0)
    texts, keep = [], []
    tasks = x["task"].tolist() if "task" in x else [None] * len(x)
    for a, e, t, task in zip(x["arrival_time"].tolist(), end.tolist(), st.tolist(), tasks):
        who = f"task {task}'s" if task is not None else "its task's"
        if fixed:
            texts.append(f"it arrived at {instant(a)}, when {who} stream time (the largest timestamp it had seen) "
                         f"was {instant(t)}: its window ended at {instant(e)}, and with a {readable(grace)} grace it "
                         f"had closed at {instant(e + grace)}, so the record was skipped")
            keep.append(t - e + 1)
        else:
            texts.append(f"it arrived at {instant(a)}, when {who} stream time was {instant(t)}, past its "
                         f"session's close (last event + {readable(grace)} grace), so the record was skipped")
            keep.append(None)
    return texts, keep
