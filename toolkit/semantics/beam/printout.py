"""What the ``replay`` command prints of a Beam replay beyond every engine's figures: panes by
PaneInfo timing, the end-of-input panes, drops by Beam's reason, the trigger, accumulation,
timestamp combiner and allowed lateness in words, and a stall. ``fmt`` is the command's number
formatting (``number``, ``duration``, ``share``), handed in by the command line."""
from __future__ import annotations

from typing import Any

_BEAM_DROPS = (("expired", "expired", "past the allowed lateness"),
               ("finished", "finished", "their window's trigger had finished"),
               ("never_fired", "never fired", "taken, but no pane came after them"))


def dropped_words(summary: dict, result: Any, fmt: Any) -> str:
    """Beam's dropped records by reason (from the fates), or the never-fired count alone."""
    number = fmt.number
    if result is not None and "reason" in getattr(result, "fates", {}):
        counts = result.fates.loc[result.fates["fate"] == "dropped", "reason"].value_counts()
        parts = [f"{name} {number(int(counts[r]))}: {why}" for r, name, why in _BEAM_DROPS if counts.get(r, 0)]
        return f"  ({'; '.join(parts)})" if parts else ""
    n = int(summary.get("never_fired", 0) or 0)
    return f"  (never fired: {n:,})" if n else ""


def summary_lines(summary: dict, setting: Any, result: Any, fmt: Any) -> list[str]:
    """What is Beam's own in a replay: panes by timing (EARLY / ON_TIME / LATE, PaneInfo's),
    those the end of input fired (``at_end``), the trigger, accumulation mode, timestamp
    combiner and allowed lateness in words, and a stall."""
    from toolkit.semantics.beam.trigger_words import accumulation_words, combiner_words, trigger_words

    duration, number = fmt.duration, fmt.number

    early, on_time, late = (int(summary.get(k, 0) or 0) for k in ("early_panes", "on_time_panes", "late_panes"))
    lines = [f"  Beam panes: {number(early + on_time + late)} = {number(early)} early + {number(on_time)} on time + "
             f"{number(late)} late (PaneInfo timing; {number(int(summary.get('empty_panes', 0) or 0))} empty)"]
    at_end = int(summary.get("at_end_firings", 0) or 0)
    em = getattr(result, "emissions", None)
    if at_end and em is not None and "beam_timing" in em:
        by = em.loc[em["at_end"].astype(bool), "beam_timing"].value_counts()
        names = (("EARLY", "early"), ("ON_TIME", "on time"), ("LATE", "late"))
        how = ", ".join(f"{number(int(by[t]))} {w}" for t, w in names if by.get(t, 0))
        lines.append(f"  at the end of input (at_end): {number(at_end)} pane{'s' * (at_end != 1)} ({how}), fired when the end of the log took "
                     "the watermark to the end of time; in a live stream they come later")
    elif at_end:
        lines.append(f"  at the end of input (at_end): {number(at_end)} pane{'s' * (at_end != 1)}, fired when the end of the log took the "
                     "watermark to the end of time; in a live stream they come later")
    else:
        lines.append("  at the end of input (at_end): no pane" + (" (every pane came while the log was read)"
                                                                 if early + on_time + late else ""))
    trigger = setting.beam_trigger
    lines.append(f"  trigger {trigger}: {trigger_words(trigger)}")
    lines.append(f"  accumulation {accumulation_words(setting.accumulation)}")
    lines.append(f"  timestamp combiner {combiner_words(setting.timestamp_combiner)}")
    lateness = int(setting.lateness or 0)
    lines.append(f"  allowed lateness {duration(lateness)}: an element is dropped (expired) when the watermark is more than "
                 f"{duration(lateness)} past the end of each of its windows" if lateness else
                 "  no allowed lateness: an element is dropped (expired) when the watermark is past the end of each of its windows")
    if summary.get("stalled"):
        lines.append("  stalled: a window kept a watermark hold no pane released, so the output watermark never reached "
                     "the end of time (Beam's DirectRunner reports a pipeline stall)")
    return lines
