"""Per-key state of a GroupAlsoByWindow step: state cells and timers per window id, and the
merging view over them (a merged window owns the ids of every window merged into it).

State tags are typed the way Beam types them: a *list* (elements), a *set*, a *combining*
value (count, any, max) and a *watermark hold*. Reading a tag of a merged window combines
the cells of all its ids. Timers are keyed by (window id, name, time domain); setting one
again moves it.
"""
from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass, field
from typing import Any, Callable

WATERMARK, REAL_TIME = "WATERMARK", "REAL_TIME"

LIST, SET, COMBINING, HOLD = "list", "set", "combining", "hold"


@dataclass(frozen=True)
class StateTag:
    """A named state cell; ``combine`` folds the added values of a COMBINING tag."""

    name: str
    kind: str
    combine: Callable[[list], Any] | None = None

    def prefixed(self, prefix: str) -> "StateTag":
        return StateTag(prefix + self.name, self.kind, self.combine)


def count_of(values: list) -> int:
    return len(values)


def any_of(values: list) -> bool:
    return any(values)


def max_or_zero(values: list) -> int:
    return max(values) if values else 0


@dataclass
class KeyedState:
    """Raw cells and timers per window id, plus the window -> ids map (merging)."""

    cells: dict[int, dict[str, list]] = field(default_factory=dict)
    timers: dict[int, dict[tuple[str, str], int]] = field(default_factory=dict)
    window_ids: dict = field(default_factory=dict)
    counter: int = 0
    owner: dict = field(default_factory=dict)  # window id -> the window that owns it now
    live: dict = field(default_factory=dict)  # window id -> elements its "elements" cell holds (state size)
    # kept as the cells change, so the per-event questions cost no scan of every window
    # (the Python SDK never garbage-collects a window: a key's windows pile up to the end):
    live_total: int = 0  # sum(live.values())
    live_windows: dict = field(default_factory=dict)  # window -> its ids in live (windows holding elements)
    hold_mins: dict = field(default_factory=dict)  # HOLD tag name -> {window id: min of that id's cell}
    in_order: list = field(default_factory=list)  # the known windows (window_ids), sorted by (start, end)

    # -- window ids ---------------------------------------------------------------------------
    def id_of(self, window) -> int:
        """The window's first id, allocating one for a window never seen."""
        ids = self.window_ids.get(window)
        if ids:
            return ids[0]
        self.counter += 1
        if window not in self.window_ids:
            insort(self.in_order, window)
        self.window_ids[window] = [self.counter]
        self.owner[self.counter] = window
        return self.counter

    def ids_of(self, window) -> list[int]:
        return self.window_ids.get(window, [])

    def known_windows(self) -> list:
        return list(self.window_ids)

    def known_overlapping(self, windows) -> list:
        """The known windows that overlap the span of ``windows`` (or, through them, one
        another), in (start, end) order. Known windows of a merging WindowFn never overlap
        (every merge pass merges each overlapping group), so these are all that can merge
        with ``windows``."""
        order = self.in_order
        lo, hi = min(w.start for w in windows), max(w.end for w in windows)
        while True:
            i = max(0, bisect_left(order, type(order[0])(lo, lo)) - 1) if order else 0
            out = []
            while i < len(order) and order[i].start < hi:
                if order[i].end > lo:
                    out.append(order[i])
                i += 1
            if not out:
                return out
            lo2, hi2 = min(lo, out[0].start), max(hi, max(w.end for w in out))
            if (lo2, hi2) == (lo, hi):
                return out
            lo, hi = lo2, hi2

    def window_of(self, window_id: int):
        return self.owner[window_id]

    def merge(self, to_be_merged: list, result) -> None:
        """The result window takes over the ids of every window merged into it."""
        for w in to_be_merged:
            if w != result and w in self.window_ids:
                moved = self.window_ids.pop(w)
                del self.in_order[bisect_left(self.in_order, w)]
                if result not in self.window_ids:
                    insort(self.in_order, result)
                self.window_ids.setdefault(result, []).extend(moved)
                for i in moved:
                    self.owner[i] = result
                    if i in self.live:
                        self._unlive(w)
                        self.live_windows[result] = self.live_windows.get(result, 0) + 1

    def _unlive(self, window) -> None:
        n = self.live_windows[window] - 1
        if n:
            self.live_windows[window] = n
        else:
            del self.live_windows[window]

    # -- cells --------------------------------------------------------------------------------
    def add(self, window, tag: StateTag, value) -> None:
        i = self.id_of(window)
        self.cells.setdefault(i, {}).setdefault(tag.name, []).append(value)
        if tag.name == "elements":
            n = self.live.get(i, 0)
            if not n:
                w = self.owner[i]
                self.live_windows[w] = self.live_windows.get(w, 0) + 1
            self.live[i] = n + 1
            self.live_total += 1
        elif tag.kind == HOLD:
            mins = self.hold_mins.setdefault(tag.name, {})
            old = mins.get(i)
            if old is None or value < old:
                mins[i] = value

    def get(self, window, tag: StateTag, hold_combine: Callable | None = None):
        parts = [self.cells.get(i, {}).get(tag.name, []) for i in self.ids_of(window)]
        if tag.kind == LIST:
            return [v for p in parts for v in p]
        if tag.kind == SET:
            return {v for p in parts for v in p}
        if tag.kind == COMBINING:
            return tag.combine([v for p in parts for v in p])
        # HOLD: combine within each id, then across ids
        return hold_combine([hold_combine(p) for p in parts])

    def clear(self, window, tag: StateTag) -> None:
        mins = self.hold_mins.get(tag.name) if tag.kind == HOLD else None
        for i in self.ids_of(window):
            cell = self.cells.get(i)
            if cell is not None:
                cell.pop(tag.name, None)
                if tag.name == "elements":
                    n = self.live.pop(i, None)
                    if n:
                        self.live_total -= n
                        self._unlive(self.owner[i])
                if mins:
                    mins.pop(i, None)
                if not cell:
                    del self.cells[i]

    def held(self) -> tuple[int, int]:
        """(windows holding elements, elements held): the key's state size."""
        return len(self.live_windows), self.live_total

    def earliest_hold(self, hold_tag: str, granularity: int = 1) -> int | None:
        """What this key holds the step's output watermark to: the earliest raw hold of any
        window minus one tick (None: no hold)."""
        mins = self.hold_mins.get(hold_tag)
        return min(mins.values()) - granularity if mins else None

    # -- timers -------------------------------------------------------------------------------
    def set_timer(self, window, name: str, domain: str, ts: int) -> None:
        self.timers.setdefault(self.id_of(window), {})[(name, domain)] = ts

    def clear_timer(self, window, name: str, domain: str) -> None:
        for i in self.ids_of(window):
            self.clear_timer_id(i, name, domain)

    def clear_timer_id(self, window_id: int, name: str, domain: str) -> None:
        t = self.timers.get(window_id)
        if t is not None:
            t.pop((name, domain), None)
            if not t:
                del self.timers[window_id]

    def next_due(self) -> tuple[int | None, int | None]:
        """The earliest event-time and processing-time timer (None: no such timer)."""
        wm = pt = None
        for timers in self.timers.values():
            for (_, domain), ts in timers.items():
                if domain == REAL_TIME:
                    pt = ts if pt is None or ts < pt else pt
                else:
                    wm = ts if wm is None or ts < wm else wm
        return wm, pt

    def expired_timers(self, watermark: int, processing_time: int) -> list[tuple[int, str, str, int]]:
        """(window id, name, domain, timestamp) of every timer due: event-time timers at or
        before the input watermark, processing-time ones at or before the clock."""
        out = []
        for wid, timers in self.timers.items():
            for (name, domain), ts in timers.items():
                if ts <= (processing_time if domain == REAL_TIME else watermark):
                    out.append((wid, name, domain, ts))
        return out


class TriggerContext:
    """What a trigger sees of its window: namespaced state and timers, and the clock."""

    def __init__(self, state: KeyedState, window, clock: Callable[[], int], prefix: str = "trigger"):
        self.state, self.window, self.clock, self.prefix = state, window, clock, prefix

    def nested(self, prefix: str) -> "TriggerContext":
        return TriggerContext(self.state, self.window, self.clock, self.prefix + prefix)

    def current_time(self) -> int:
        return self.clock()

    def set_timer(self, name: str, domain: str, ts: int) -> None:
        self.state.set_timer(self.window, self.prefix + name, domain, ts)

    def clear_timer(self, name: str, domain: str) -> None:
        self.state.clear_timer(self.window, self.prefix + name, domain)

    def add(self, tag: StateTag, value) -> None:
        self.state.add(self.window, tag.prefixed(self.prefix), value)

    def get(self, tag: StateTag):
        return self.state.get(self.window, tag.prefixed(self.prefix))

    def clear(self, tag: StateTag) -> None:
        self.state.clear(self.window, tag.prefixed(self.prefix))
