"""Flink settings to and from an engine-neutral :class:`toolkit.replays.translate.Intent`
(``toolkit.replays.translate`` documents what maps and what does not), with notes for what has
no counterpart."""
from __future__ import annotations

from typing import Any

from toolkit.replays.translate import Intent
from toolkit.settings import Session, Setting, SettingError, Sliding, Tumbling


def to_intent(s: Setting) -> tuple[Intent, list[str]]:
    notes: list[str] = []
    if not isinstance(s.window, (Tumbling, Sliding, Session)):
        raise SettingError("window", f"window {s.window}: only tumbling, sliding and session windows have a "
                           "counterpart in the other engines")
    delay = s.delay
    if s.strategy == "legacy":
        notes.append("the legacy watermark (max - delay) is 1 ms ahead of forBoundedOutOfOrderness; translated as "
                     "the same delay")
    elif s.strategy not in ("bounded", "monotonous"):
        raise SettingError("strategy", f"strategy {s.strategy_name}: only the bounded out-of-orderness strategy "
                           "(and monotonous, its delay 0) has a counterpart in the other engines")
    for name, default in (("trigger", "event_time"), ("evictor", None), ("function", "count_sum"),
                          ("accumulation", "accumulating"), ("second_window", None)):
        v = getattr(s, name)
        if (v is not None and str(v) != str(default)) if default is not None else v is not None:
            notes.append(f"{name} {v} is Flink's own; the other engines use their default emission")
    if s.source_parallelism != 1:
        notes.append(f"source_parallelism {s.source_parallelism} is Flink's own (inputs are the partitions)")
    return Intent(s.window, delay, s.lateness, s.interval, s.partitions_as_sources, s.idleness), notes


def from_intent(i: Intent, lateness_as: str) -> tuple[Setting, list[str]]:
    kw: dict[str, Any] = {"window": i.window, "delay": i.delay, "lateness": i.lateness,
                          "partitions_as_sources": i.partitions_as_sources, "semantics": "flink"}
    if i.interval is not None:
        kw["interval"] = i.interval
    if i.idleness is not None:
        kw["idleness"] = i.idleness
    return Setting.parse(kw), []
