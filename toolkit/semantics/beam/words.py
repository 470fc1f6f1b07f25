"""How Beam explains a record it dropped, in words (``Semantics.why_dropped``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from toolkit.durations import readable
from toolkit.replays.why import instant, last_window_end
from toolkit.settings import Sliding, Tumbling


def why_dropped(result: Any, rows: np.ndarray) -> tuple[list[str], list[Any]]:
    """Beam drops an element from a window whose end + allowed lateness its watermark had passed
    (``expired``), ignores it in a window whose trigger had finished (``finished``), or keeps it
    in a window that never fires again (``never_fired``)."""
    s = result.setting
    late = result.late.assign(row=result.late["row"].astype("int64")).set_index("row")
    x = late.loc[rows.tolist()]
    ts = x["event_time"].to_numpy(np.int64)
    fixed = isinstance(s.window, (Tumbling, Sliding))
    end = last_window_end(s, ts)
    lateness = int(s.lateness)
    texts, keep = [], []
    for a, e, w, reason in zip(x["arrival_time"].tolist(), end.tolist(), x["watermark"].tolist(), x["reason"].tolist()):
        if reason == "expired":
            what = "its window ended" if fixed else "its own session window [event time, + gap) ended"
            texts.append(f"it arrived at {instant(a)}, when Beam's watermark was {instant(w)}: {what} at "
                         f"{instant(e)}, and with {readable(lateness)} allowed lateness it had expired at "
                         f"{instant(e + lateness)}, so the element was dropped")
            keep.append(int(s.delay) + (w - (e + lateness)) if fixed else None)
        elif reason == "finished":
            texts.append(f"it arrived at {instant(a)} in a window whose trigger ({s.beam_trigger}) had finished: Beam "
                         "ignores elements of a finished window")
            keep.append(None)
        else:
            texts.append(f"it was taken but its window never fired again (trigger {s.beam_trigger}): in Beam the "
                         "pipeline would stall")
            keep.append(None)
    return texts, keep
