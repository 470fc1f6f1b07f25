"""Beam settings to and from an engine-neutral :class:`toolkit.replays.translate.Intent`
(``toolkit.replays.translate`` documents what maps and what does not), with notes for what has
no counterpart."""
from __future__ import annotations

from typing import Any

from toolkit.replays.translate import Intent
from toolkit.semantics.flink.translate import to_intent as flink_to_intent
from toolkit.settings import Setting

_BEAM_BOUNDARY = ("Beam drops an element only when its watermark is strictly past window end + allowed lateness: "
                  "a record arriving exactly when Flink's window is cleaned up is still taken by Beam (1 ms later)")


def to_intent(s: Setting) -> tuple[Intent, list[str]]:
    base, notes = flink_to_intent(s.replace(semantics="flink"))  # Beam's watermark is Flink's
    if str(s.beam_trigger) != "default":
        notes.append(f"Beam's trigger {s.beam_trigger} has no counterpart in the other engines; compared as one "
                     "result per window at the watermark")
    if s.accumulation == "discarding":
        notes.append("Beam's discarding mode is Beam's own; the other engines report accumulated results")
    if s.timestamp_combiner != "end_of_window":
        notes.append(f"Beam's timestamp_combiner {s.timestamp_combiner} only sets the output timestamps (and holds "
                     "Beam's output watermark); the other engines stamp results at the window end")
    return base, notes


def from_intent(i: Intent, lateness_as: str) -> tuple[Setting, list[str]]:
    kw: dict[str, Any] = {"window": i.window, "delay": i.delay, "lateness": i.lateness,
                          "partitions_as_sources": i.partitions_as_sources, "semantics": "beam"}
    if i.interval is not None:
        kw["interval"] = i.interval
    if i.idleness is not None:
        kw["idleness"] = i.idleness
    return Setting.parse(kw), [_BEAM_BOUNDARY]
