"""Flink SQL settings to and from an engine-neutral :class:`toolkit.replays.translate.Intent`, with
notes for what has no counterpart.

- ``delay``: the intent's window ``[s, e)`` closes once a record with event time ``>= e + D`` has
  been seen. Flink SQL's watermark is ``max - d`` (no ``- 1 ms``) and fires ``[s, e)`` at
  ``e - 1``, so it closes at ``max >= e + d - 1``: the intent's ``D`` is Flink SQL's ``D + 1 ms``
  (exact), and a Flink SQL delay of 0 closes windows 1 ms of event time earlier than any other
  engine can (noted).
- ``lateness``: a window TVF has none. ``lateness_as="drop"`` leaves it out (Flink SQL drops what
  the others accept late); ``"delay"`` folds it into the delay. The legacy window's late firing
  (``late_fire`` with ``allow_lateness``) is read as allowed lateness.
- ``interval``: the same ``pipeline.auto-watermark-interval``; the intent's 0 (a watermark after
  every record) is ``scan.watermark.emit.strategy = on-event``; Flink SQL's own ``interval=0`` (no
  periodic watermark at all) has no counterpart (noted).
- ``idleness``, ``partitions_as_sources``: the same.
- a ``cumulate:SIZE/STEP`` window has no counterpart (refused); early firing and mini-batch are noted.
"""
from __future__ import annotations

from typing import Any

from toolkit.replays.translate import Intent
from toolkit.settings import Cumulate, Setting, SettingError


def to_intent(s: Setting) -> tuple[Intent, list[str]]:
    notes: list[str] = []
    if isinstance(s.window, Cumulate):
        raise SettingError("window", f"window {s.window}: CUMULATE windows have no counterpart in the other engines")
    delay = max(int(s.delay) - 1, 0)
    if s.delay == 0:
        notes.append("Flink SQL's delay 0 (WATERMARK FOR ts AS ts) closes a window at max >= end - 1 ms, 1 ms of event "
                     "time before any other engine can; translated as delay 0")
    lateness = int(s.allow_lateness) if (s.window_syntax == "legacy" and s.late_fire) else 0
    interval: int | None = 0 if s.watermark_emit == "on-event" else int(s.interval)
    if s.watermark_emit != "on-event" and s.interval == 0:
        notes.append("Flink SQL's pipeline.auto-watermark-interval 0 sends no watermark before the end of input; the "
                     "other engines' interval 0 means a watermark after every record")
        interval = None
    if s.early_fire:
        notes.append("the legacy window's early firing (a row per record) has no counterpart; compared as one result "
                     "per window at the watermark")
    if s.mini_batch is not None:
        notes.append(f"mini-batch ({s.mini_batch} ms) holds Flink SQL's watermarks back; the other engines have none")
    return Intent(s.window, delay, lateness, interval, s.partitions_as_sources, s.idleness), notes


def from_intent(i: Intent, lateness_as: str) -> tuple[Setting, list[str]]:
    notes: list[str] = []
    delay = int(i.delay) + 1  # max - (D + 1 ms) reaches end - 1 when max = end + D
    if i.lateness and lateness_as == "delay":
        delay += int(i.lateness)
        notes.append(f"Flink SQL's window TVFs have no allowed lateness: the {i.lateness} ms are added to the delay "
                     "(every window emits that much later)")
    elif i.lateness:
        notes.append(f"Flink SQL's window TVFs have no allowed lateness: records the others accept within {i.lateness} "
                     "ms are dropped (the legacy group window's late firing keeps them: window_syntax=legacy "
                     "late_fire=true allow_lateness=...)")
    kw: dict[str, Any] = {"window": i.window, "delay": delay, "partitions_as_sources": i.partitions_as_sources,
                          "semantics": "flink_sql"}
    if i.interval == 0:
        kw["watermark_emit"] = "on-event"  # a watermark after every record that raises it
    elif i.interval is not None:
        kw["interval"] = i.interval
    if i.idleness is not None:
        kw["idleness"] = i.idleness
    return Setting.parse(kw), notes
