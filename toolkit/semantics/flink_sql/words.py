"""Flink SQL in words: why a record was dropped (``drops()``, ``explain()``, ``drop_causes()``,
``Semantics.why_dropped``) and a setting (``Semantics.setting_words``).

Flink SQL drops a record when **every window it belongs to had already fired**: its last window
``[start, end)`` had ``end - 1 <= W``, ``W`` the window operator's watermark when it judged the
record (docs/flink_sql_semantics.md, rule 4; the legacy window with late firing keeps it until
``end - 1 + allow_lateness``). A window TVF has no allowed lateness. The smallest delay that
keeps it is ``delay + W - (end - 1 + lateness) + 1`` where the watermark moves by exactly the
change of delay when the record is judged at its arrival: the one-phase plan (the legacy
window) without mini-batch. The two-phase plan (TUMBLE, HOP, CUMULATE) judges a record when
the local aggregate sends it on, sessions merge, and mini-batch holds watermarks: there the
words say so and give no number (replay with a larger delay to see).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit.durations import readable
from toolkit.replays.explain import Explanation
from toolkit.replays.why import instant
from toolkit.semantics.words import engine_setting_words

#: the columns of ``drops()`` with Flink SQL
DROP_COLUMNS = ["row", "key", "event_time", "arrival_time", "partition", "fate", "reason", "watermark",
                "last_window_end", "fired_at", "missed_by_ms", "delay_to_keep_ms", "why"]


def _lateness(s: Any) -> int:
    return int(s.allow_lateness or 0) if (s.late_fire and s.window_syntax == "legacy") else 0


def _exact_keep(s: Any) -> bool:
    """Whether a record is judged at its arrival by a watermark that moves with the delay."""
    return s.window_syntax == "legacy" and s.mini_batch is None and not str(s.window).startswith("session")


def drops(result: Any, fates: tuple[str, ...] = ("dropped", "late_accepted")) -> pd.DataFrame:
    """Every record of ``fates`` with why (see the module doc)."""
    s = result.setting
    f = result.fates[result.fates["fate"].isin(list(fates))]
    late = result.late.assign(row=result.late["row"].astype("int64")).set_index("row")
    out = []
    lateness = _lateness(s)
    for row, fate, reason in zip(f["row"].tolist(), f["fate"].tolist(), f["reason"].tolist()):
        x = late.loc[row] if row in late.index else None
        d: dict[str, Any] = {"row": row, "fate": fate, "reason": reason}
        if x is not None:
            w, end = int(x["watermark"]), int(x["last_window_end"])
            fired_at = end - 1 + lateness
            keep = int(s.delay) + w - fired_at + 1 if _exact_keep(s) else None
            d.update(key=x["key"], event_time=int(x["event_time"]), arrival_time=int(x["arrival_time"]),
                     partition=int(x["partition"]), watermark=w, last_window_end=end, fired_at=fired_at,
                     missed_by_ms=w - fired_at, delay_to_keep_ms=keep)
        d["why"] = _why(s, d)
        out.append(d)
    return pd.DataFrame(out, columns=DROP_COLUMNS).astype({"delay_to_keep_ms": "Int64"})


def _why(s: Any, d: dict) -> str:
    if d["reason"] == "never_fired":
        return ("it was taken into a window that never fired: every partition was idle at the end of the input, and "
                "Flink drops the final watermark while the source is idle (docs/flink_sql_semantics.md, rule 6)")
    if d["fate"] == "late_accepted":
        return ("it arrived after its window fired and was added by a late firing (table.exec.emit.late-fire with "
                f"{readable(_lateness(s))} allow-lateness)")
    which = "session" if str(s.window).startswith("session") else "window"
    text = (f"it arrived at {instant(d['arrival_time'])}; when Flink SQL's window operator took it, its watermark was "
            f"{instant(d['watermark'])}: every {which} it belongs to had fired (the last, ending at "
            f"{instant(d['last_window_end'])}, fired when the watermark reached {instant(d['fired_at'])}), and a "
            + ("window TVF has no allowed lateness, so Flink SQL dropped it" if s.window_syntax != "legacy"
               else "legacy window keeps a fired window only for its late firing's allow-lateness, so it was dropped"))
    if d["delay_to_keep_ms"] is not None:
        text += f"; a delay of {readable(d['delay_to_keep_ms'])} keeps it"
    elif s.window_syntax != "legacy" and not str(s.window).startswith("session"):
        text += ("; the two-phase plan judged it when the local aggregate sent it on, so no delay follows by "
                 "arithmetic: replay with a larger delay")
    return text


def explain(result: Any, row: int) -> Explanation:
    """Why log row ``row`` was dropped, late or on time, in words."""
    try:
        r = int(row)
    except (TypeError, ValueError):
        raise ValueError(f"row: expected a row number of the log, got {row!r}") from None
    hit = result.fates[result.fates["row"] == r]
    if not len(hit):
        raise ValueError(f"row {r} was not replayed (quarantined rows are not replayed, see log.quarantine)")
    fate = str(hit["fate"].iloc[0])
    if fate == "on_time":
        return Explanation(r, fate, f"row {r} was on time: it is in a row Flink SQL emitted when its window fired",
                           {"row": r, "fate": fate})
    d = drops(result, fates=(fate,)).set_index("row").loc[r].to_dict()
    d["row"] = r
    return Explanation(r, fate, f"row {r} was {fate.replace('_', ' ')}: {d['why']}", d)


def drop_causes(result: Any, top: int = 3) -> list[str]:
    """The main causes of the drops, by record partition, biggest first, and what keeps them."""
    df = drops(result, fates=("dropped",))
    if not len(df):
        return ["No record was dropped."]
    out = []
    never = df[df["reason"] == "never_fired"]
    if len(never):
        out.append(f"{len(never):,} of {len(df):,} drops: taken into windows that never fired (every partition idle "
                   "at the end of input); a longer idle timeout, or none, keeps them")
    late = df[df["reason"] == "late"]
    for p, g in sorted(late.groupby("partition"), key=lambda x: -len(x[1]))[:top]:
        text = (f"{len(g):,} of {len(df):,} drops: records of partition {result.partition_label(p)} arrived up to "
                f"{readable(int(g['missed_by_ms'].max()))} after their last window fired")
        keep = g["delay_to_keep_ms"]
        if keep.notna().all():
            text += f"; a delay of {readable(int(keep.max()))} keeps them all"
        out.append(text)
    return out


def why_dropped(result: Any, rows: np.ndarray) -> tuple[list[str], list[Any]]:
    """One sentence per dropped log row and the smallest delay that keeps it (or None)."""
    d = drops(result, fates=("dropped",)).set_index("row")
    texts, keep = [], []
    for r in rows.tolist():
        x = d.loc[r]
        texts.append(x["why"])
        keep.append(None if pd.isna(x["delay_to_keep_ms"]) else int(x["delay_to_keep_ms"]))
    return texts, keep


def flink_sql_words(row: Any, results: pd.DataFrame | None = None) -> str:
    """A Flink SQL setting in words."""
    words = [("idleness_ms", "a {} idle timeout"),
             ("mini_batch_ms", "mini-batch every {}")]
    extra = ["the legacy group window"] if str(row.get("window_syntax", "tvf")) == "legacy" else []
    extra += [f"{w} firing" for w in ("early", "late") if str(row.get(f"{w}_fire", False)) == "True"]
    if row.get("allow_lateness_ms", 0):
        extra.append(f"{readable(int(row['allow_lateness_ms']))} allow-lateness")
    return "Flink SQL: " + engine_setting_words(row, results, words, extra)
