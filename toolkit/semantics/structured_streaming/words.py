"""How Spark Structured Streaming explains a record it dropped, in words (``Semantics.why_dropped``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from toolkit.durations import readable
from toolkit.replays.why import instant, last_window_end
from toolkit.settings import Session


def why_dropped(result: Any, rows: np.ndarray) -> tuple[list[str], list[Any]]:
    s = result.setting
    late = result.late.assign(row=result.late["row"].astype("int64")).set_index("row")
    interval = int(s.trigger_interval)
    texts, keep = [], []
    x = late.loc[rows.tolist()]
    ts = x["event_time"].to_numpy(np.int64)
    arr = x["arrival_time"].to_numpy(np.int64)
    wm = x["watermark"].to_numpy(np.int64)
    end = last_window_end(s, ts)
    tick = -(-arr // interval) * interval  # trigger ticks are multiples of the interval
    what = "its session (event time + gap)" if isinstance(s.window, Session) else "its window"
    for e, a, w, k in zip(end.tolist(), arr.tolist(), wm.tolist(), tick.tolist()):
        texts.append(f"it arrived at {instant(a)}, in the micro-batch of the trigger at {instant(k)}, whose "
                     f"late filter used the previous batch's watermark {instant(w)}; {what} ended at "
                     f"{instant(e)}, {readable(w - e)} before it, so the aggregation skipped the row")
        keep.append(int(s.delay) + (w - e) + 1)
    return texts, keep
