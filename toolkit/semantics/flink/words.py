"""How Flink explains a record it dropped, in words (``Semantics.why_dropped``)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.durations import readable


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
