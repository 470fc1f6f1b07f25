"""Flink in words: why a record was dropped (``Semantics.why_dropped``) and a setting
(``Semantics.setting_words``)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.durations import readable
from toolkit.semantics.words import join_words, varying
from toolkit.settings import parse_window


def why_dropped(result: Any, rows: np.ndarray) -> tuple[list[str], list[Any]]:
    d = result.drops(fates=("dropped",)).set_index("row")
    texts: list[str] = []
    keep: list[Any] = []
    lateness = int(result.setting.lateness)
    for r in rows.tolist():
        x = d.loc[r]
        if not int(x["windows"]):
            texts.append("it is in no window (a gap between sliding windows)")
            keep.append(None)
            continue
        t = (f"the watermark was {x['watermark_at']} when it arrived, {x['missed_by']} past its window's "
             f"cleanup time (window end + {readable(lateness)} allowed lateness)")
        if x["held_by"]:
            t += f"; held by {x['held_by']}"
        texts.append(t)
        v = x["delay_to_keep_ms"]
        keep.append(None if pd.isna(v) else int(v))
    return texts, keep


# -------------------------------------------------------------------------------- settings in words
_STRATEGY_WORDS = {
    "bounded": "bounded out-of-orderness delay", "legacy": "out-of-orderness delay (legacy max - delay)",
    "time_lag": "processing-time lag", "punctuated": "punctuated watermark delay",
    "idle_advance": "idle-advance delay", "adaptive": "adaptive initial delay",
}


def flink_words(row: Any, results: pd.DataFrame | None = None) -> str:
    """A Flink setting in words: the watermark strategy and delay, the allowed lateness, the idle
    timeout and interval, then the window operator's settings off their default."""
    strategy = str(row.get("strategy", "bounded"))
    name = strategy.partition("(")[0]
    delay = row.get("delay_ms", 0)
    parts = []
    if name == "monotonous":
        head = "monotonous timestamps (no out-of-orderness delay)"
    elif name in _STRATEGY_WORDS:
        head = (f"a {readable(delay)} {_STRATEGY_WORDS[name]}" if delay else f"no {_STRATEGY_WORDS[name]}")
        if strategy != name:
            head += f" ({strategy})"
    else:
        head = f"the {strategy} watermark strategy"
    lateness = row.get("lateness_ms", 0)
    parts.append(f"a {readable(lateness)} allowed lateness" if lateness else "no allowed lateness")
    idle = row.get("idleness_ms", None)
    has_idle = idle is not None and not pd.isna(idle) and int(idle) > 0
    if has_idle:
        parts.append(f"a {readable(int(idle))} idle timeout")
    elif varying(results, "idleness_ms"):
        parts.append("no idle timeout")
    interval = row.get("interval_ms", 200)
    if (interval is not None and not pd.isna(interval) and int(interval) != 200) or varying(results, "interval_ms"):
        parts.append("watermarks after every record" if int(interval) == 0
                     else f"watermarks every {readable(int(interval))}")
    text = head + " with " + join_words(parts)
    extra = []
    window = row.get("window", None)
    try:
        window = str(parse_window(window)) if window is not None else None
    except ValueError:  # a hand-made table: show it as written
        pass
    if window is not None and (varying(results, "window") or str(window) != "tumbling:1s"):
        extra.append(f"{window} windows")
    for col, default in (("stagger", "aligned"), ("source_parallelism", 1), ("partitions_as_sources", True), ("trigger", "event_time"),
                         ("evictor", "none"), ("accumulation", "accumulating"), ("function", "count_sum"),
                         ("second_window", "none"), ("stages", "none"), ("split_discovery", "at_start"),
                         ("alignment", "none")):
        v = row.get(col, default)
        if (v is not None and not pd.isna(v) and str(v) != str(default)) or varying(results, col):
            extra.append(f"{col.replace('_', ' ')} {v}")
    return text + (f" ({', '.join(extra)})" if extra else "")
