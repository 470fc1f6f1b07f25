"""Kafka Streams in words: why a record was dropped (``Semantics.why_dropped``) and a setting
(``Semantics.setting_words``)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.durations import readable
from toolkit.replays.why import instant, last_window_end
from toolkit.semantics.words import join_words, varying
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


def _size(n: int) -> str:
    """Bytes in words: 10 MB, 512 KB, 300 bytes (powers of 1024, as Kafka's sizes)."""
    for unit, size in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if n >= size and n % (size // 1024 if size > 1024 else 1) == 0:
            v = n / size
            return f"{v:g} {unit}"
    return f"{n} bytes"


_KAFKA_EMIT_WORDS = {"update": "results on every update", "final": "final results on window close (onWindowClose)",
                     "suppress": "final results through suppress(untilWindowCloses)"}


def kafka_words(row: Any, results: pd.DataFrame | None) -> str:
    """A Kafka Streams setting in words: ``Kafka Streams with a 2 s grace, final results through
    suppress(untilWindowCloses) and 4 tasks (tumbling:10s windows)``."""
    grace = row.get("grace_ms", 0)
    grace = 0 if grace is None or pd.isna(grace) else int(grace)
    parts = [f"a {readable(grace)} grace" if grace else "no grace"]
    emit = str(row.get("emit", "update"))
    limit = row.get("suppress_time_limit_ms", None)
    if emit == "suppress" and limit is not None and not pd.isna(limit):
        parts.append(f"updates held {readable(int(limit))} by suppress(untilTimeLimit)")
    else:
        parts.append(_KAFKA_EMIT_WORDS.get(emit, f"emit {emit}"))
    tasks = row.get("tasks", None)
    if tasks is not None and not pd.isna(tasks):
        parts.append(f"{int(tasks)} task{'s' if int(tasks) != 1 else ''}")
    if str(row.get("repartition", "true")) == "false":
        parts.append("co-partitioned input (task = partition)")
    if emit != "final" and (varying(results, "cache_max_bytes") or varying(results, "commit_interval_ms")):
        cache = row.get("cache_max_bytes", None)
        if cache is not None and not pd.isna(cache) and int(cache) == 0:
            parts.append("the record cache off")
        elif cache is not None and not pd.isna(cache):
            every = row.get("commit_interval_ms", None)
            commit = "" if every is None or pd.isna(every) else f" committed every {readable(int(every))}"
            parts.append(f"a {_size(int(cache))} record cache{commit}")
    retention = row.get("retention_ms", None)
    if retention is not None and not pd.isna(retention):
        parts.append(f"a {readable(int(retention))} window store retention")
    window = row.get("window", None)
    extra = f" ({window} windows)" if window is not None and (varying(results, "window") or str(window) != "tumbling:1s") else ""
    return "Kafka Streams with " + join_words(parts) + extra
