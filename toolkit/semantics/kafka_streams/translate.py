"""Kafka Streams settings to and from an engine-neutral :class:`toolkit.replays.translate.Intent`
(``toolkit.replays.translate`` documents what maps and what does not), with notes for what has
no counterpart."""
from __future__ import annotations

from toolkit.durations import readable
from toolkit.replays.translate import Intent
from toolkit.settings import Setting


def to_intent(s: Setting) -> tuple[Intent, list[str]]:
    notes = ["Kafka Streams has no watermark: each task's stream time (the largest timestamp it has seen) closes "
             "windows at end + grace; compared as one watermark over the whole stream, the grace as its delay"]
    if getattr(s, "emit", None) == "update":
        notes.append("Kafka Streams' emit on every update has no counterpart here; compared as one result per window")
    return Intent(s.window, int(getattr(s, "grace", 0) or 0), 0, None, False, None), notes


def from_intent(i: Intent, lateness_as: str) -> tuple[Setting, list[str]]:
    """Kafka's grace is the whole time a window takes records after its end: a delay (and, with
    ``lateness_as="delay"``, the allowed lateness too); results once, when the window closes."""
    notes = ["Kafka Streams has no watermark: each task's stream time (its largest timestamp) closes windows at "
             "end + grace, so a silent partition holds nothing back and tasks do not wait for each other"]
    grace = i.delay
    if i.lateness:
        if lateness_as == "delay":
            grace += i.lateness
            notes.append(f"the {readable(i.lateness)} allowed lateness is folded into the grace "
                         f"({readable(grace)}): the final result comes that much later")
        else:
            notes.append(f"Kafka Streams' grace is its only lateness: records a {readable(i.lateness)} allowed "
                         "lateness would accept late are dropped")
    if i.idleness is not None:
        notes.append("an idle timeout has no Kafka Streams counterpart (no watermark to hold back)")
    s = Setting.parse(window=i.window, semantics="kafka_streams", grace=grace, emit="final")
    return s, notes
