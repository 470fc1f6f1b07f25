"""Spark Structured Streaming settings to and from an engine-neutral :class:`toolkit.replays.translate.Intent`
(``toolkit.replays.translate`` documents what maps and what does not), with notes for what has
no counterpart."""
from __future__ import annotations

from toolkit.durations import readable
from toolkit.replays.translate import Intent
from toolkit.semantics.structured_streaming import TRIGGER_INTERVAL_DEFAULT
from toolkit.settings import Setting, SettingError


def to_intent(s: Setting) -> tuple[Intent, list[str]]:
    notes = []
    if s.output_mode == "update":
        notes.append("Spark's update mode (a result at every micro-batch that changes a window) has no Flink "
                     "counterpart with the event-time trigger; compared as Flink's one result per window")
    if s.multiple_watermark_policy == "max" and s.partitions_as_sources:
        notes.append("Spark's max watermark policy has no Flink counterpart (Flink takes the minimum over inputs)")
    return Intent(s.window, s.delay, 0, s.trigger_interval, s.partitions_as_sources, None), notes


def from_intent(i: Intent, lateness_as: str) -> tuple[Setting, list[str]]:
    notes: list[str] = []
    if getattr(i.window, "offset", 0):
        raise SettingError("window", f"window {i.window}: Spark's window() has no offset; drop the offset")
    delay = i.delay
    if i.lateness:
        if lateness_as == "delay":
            delay += i.lateness
            notes.append(f"Spark has no allowed lateness: the {readable(i.lateness)} lateness is folded into the "
                         f"delay (withWatermark {readable(delay)}), so every window is emitted that much later")
        else:
            notes.append(f"Spark has no allowed lateness: records a {readable(i.lateness)} lateness would accept "
                         "late are dropped by Spark")
    interval = i.interval
    if interval is None or interval <= 0:
        if interval == 0:
            notes.append("a watermark after every record has no Spark counterpart; Spark's default trigger "
                         f"interval of {readable(TRIGGER_INTERVAL_DEFAULT)} is used")
        interval = TRIGGER_INTERVAL_DEFAULT
    if i.idleness is not None:
        notes.append(f"Spark has no idle timeout: the {readable(i.idleness)} idleness is left out (a silent "
                     "partition holds Spark's min watermark back)")
    s = Setting.parse(window=i.window, delay=delay, semantics="spark", trigger_interval=interval,
                      partitions_as_sources=i.partitions_as_sources, output_mode="append",
                      multiple_watermark_policy="min")
    return s, notes
