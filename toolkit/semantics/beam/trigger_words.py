"""Beam's windowing settings in words: what a trigger, an accumulation mode and a timestamp
combiner do to the panes of a window (the rules of ``docs/beam_semantics.md``), for the printouts.

- ``AfterWatermark(early, late)`` repeats its early and late parts and finishes at the
  watermark unless ``late`` is given; the default trigger is ``AfterWatermark`` refiring on
  every late element;
- ``AfterCount``, ``AfterProcessingTime``, ``AfterAny``/``AfterAll``/``AfterEach`` fire and then
  finish: a finished trigger's window ignores later elements (dropped, reason ``finished``);
  ``Repeatedly`` resets its child after each pane; ``OrFinally(main, final)`` = ``AfterAny``.
"""
from __future__ import annotations

from toolkit.semantics.beam.trigger import BeamTrigger
from toolkit.settings import format_duration


def _when(t: BeamTrigger) -> str:
    """The condition under which ``t`` fires, as a clause (``"3 new elements have arrived"``: new = since
    the window's last pane, a child trigger restarting after each)."""
    if t.kind == "after_count":
        return "a new element arrives" if t.n == 1 else f"{t.n:,} new elements have arrived"
    if t.kind == "after_processing_time":
        return f"{format_duration(t.delay)} of processing time has passed since the first new element"
    if t.kind in ("after_watermark", "default"):
        return "the watermark passes the end of the window"
    if t.kind == "repeatedly":
        return f"{_when(t.children[0])} (again and again)"
    if t.kind == "after_any" or t.kind == "orfinally":
        return " or ".join(_when(c) for c in t.children)
    if t.kind == "after_all":
        return " and ".join(_when(c) for c in t.children)
    if t.kind == "after_each":
        return ", then ".join(_when(c) for c in t.children)
    return str(t)


def trigger_words(t: BeamTrigger) -> str:
    """What the trigger ``t`` makes a window emit, in one sentence."""
    if t.kind == "default":
        return ("Beam's default trigger: an ON_TIME pane when the watermark passes the end of the window, "
                "then a LATE pane for every late element within the allowed lateness")
    if t.kind == "after_watermark":
        parts = []
        if t.early is not None:
            parts.append(f"EARLY panes before the window end, each time {_when(t.early)}")
        parts.append("an ON_TIME pane when the watermark passes the end of the window")
        if t.late is not None:
            parts.append(f"then LATE panes within the allowed lateness, each time {_when(t.late)}")
        else:
            parts.append("then the trigger finishes: later elements of the window are dropped (no late panes)")
        return "; ".join(parts)
    if t.kind == "repeatedly":
        return f"a pane each time {_when(t.children[0])}; it never finishes"
    if t.kind == "orfinally" and not _once(t.children[0]):
        main, final = t.children
        return f"a pane each time {_when(main)}, until {_when(final)}: that pane is the last, the trigger finishes"
    if t.kind == "after_each":
        return f"a pane per part in turn: when {_when(t)}; then the trigger finishes: later elements of the window are dropped"
    if _once(t):
        return f"one pane when {_when(t)}, then the trigger finishes: later elements of the window are dropped"
    return f"a pane each time {_when(t)}; it finishes when a part that fired finishes"


def _once(t: BeamTrigger) -> bool:
    """``t`` finishes with its first pane (every part that can fire it finishes when it fires)."""
    if t.kind in ("after_count", "after_processing_time"):
        return True
    if t.kind == "after_watermark":
        return t.late is None
    if t.kind in ("after_any", "orfinally", "after_all"):
        return all(_once(c) for c in t.children)
    return False  # default, repeatedly


def accumulation_words(mode: str) -> str:
    """``accumulating`` / ``discarding`` in words."""
    if mode == "discarding":
        return "discarding: each pane holds only the elements that arrived since the window's previous pane"
    return "accumulating: each pane holds every element of the window so far (a refinement of the previous one)"


def combiner_words(combiner: str) -> str:
    """A timestamp combiner in words: the output timestamp of a pane and the watermark hold it sets."""
    if combiner == "earliest":
        return ("earliest: a pane's timestamp is its earliest element's, and that element holds the output watermark "
                "back until the pane fires")
    if combiner == "latest":
        return ("latest: a pane's timestamp is its latest element's, which holds the output watermark back until the "
                "pane fires")
    return "end_of_window: a pane's timestamp is the window's last millisecond"
