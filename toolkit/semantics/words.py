"""Word helpers an engine's ``setting_words`` shares: whether a sweep varied a column, a list
joined as ``a, b and c``, and the words of an engine with a watermark delay and settings of its own."""
from __future__ import annotations

from typing import Any

import pandas as pd

from toolkit.durations import readable


def varying(results: pd.DataFrame | None, col: str) -> bool:
    """Whether ``results`` swept column ``col`` (it holds more than one value): then words name it."""
    return results is not None and col in results and results[col].astype(str).nunique() > 1


def engine_setting_words(row: Any, results: pd.DataFrame | None, words: list[tuple[str, str]],
                         extra: list[str] | tuple = ()) -> str:
    """A setting of an engine with a watermark delay and settings of its own: the delay, then
    each of ``words`` (column, template) that the row has, then ``extra`` phrases."""
    delay = row.get("delay_ms", 0)
    head = f"a {readable(delay)} watermark delay" if delay else "no watermark delay"
    parts = []
    for col, template in words:
        v = row.get(col, None)
        if v is None or (not isinstance(v, str) and pd.isna(v)) or str(v) == "none":
            continue
        if col == "lateness_ms" and int(v) == 0:
            parts.append("no allowed lateness")
            continue
        parts.append(template.format(readable(int(v)) if col.endswith("_ms") else v))
    parts.extend(extra)
    text = head + (" with " + join_words(parts) if parts else "")
    window = row.get("window", None)
    if window is not None and (varying(results, "window") or str(window) != "tumbling:1s"):
        text += f" ({window} windows)"
    return text


def join_words(parts: list[str]) -> str:
    """``a, b and c``."""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]
