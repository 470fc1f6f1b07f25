"""The streaming DirectRunner's GroupByKey step, event by event (what Beam's Python
BundleBasedDirectRunner does with a TestStream, one event at a time):

- an element is windowed (WindowInto), grouped by key and handed to the key's trigger
  driver with the step's input watermark W_in and output watermark W_out;
- a watermark advance raises W_in (watermarks never go back);
- a processing-time advance moves the clock;
- after each event every due timer fires (event-time timers at or before W_in, processing
  time ones at or before the clock), in timestamp order, until none is due;
- W_out = min(W_in, every key's earliest watermark hold - 1 tick), refreshed after each
  key's work (an element, a bundle of timers);
- at the end of input W_in goes to the end of time; if a hold is left, W_out never gets
  there: the pipeline *stalls* (never finishes).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from .driver import HOLD_TAG, Firing, TriggerDriver, Windowing
from .failures import NO_WINDOW, PipelineFailure
from .pane import Pane
from .state import KeyedState

MIN_TIME = -(2 ** 62)
END_OF_TIME = 2 ** 62


@dataclass
class Drop:
    """An element (value) a window did not take: ``reason`` "expired" (the input watermark
    was past window end + allowed lateness: Beam's dropped-due-to-lateness) or "finished"
    (the window's trigger had finished; Beam ignores the element silently)."""

    key: str
    value: object
    window_start: int
    window_end: int
    reason: str


@dataclass
class GroupByKeyStep:
    """One GroupAlsoByWindow step fed event by event; ``panes`` in emission order."""

    windowing: Windowing
    input_wm: int = MIN_TIME
    output_wm: int = MIN_TIME
    processing_time: int = 0
    states: dict[str, KeyedState] = field(default_factory=dict)
    holds: dict[str, int] = field(default_factory=dict)
    panes: list[Pane] = field(default_factory=list)
    drops: list[Drop] = field(default_factory=list)
    #: per key, its earliest (event-time, processing-time) timer: only keys with a due timer
    #: are scanned (an index; the firing order is the one documented above)
    due_index: dict[str, tuple] = field(default_factory=dict)
    _heaps: tuple = field(default_factory=lambda: ([], []))  # (ts, key order, key), lazily invalidated
    _order: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.driver = TriggerDriver(self.windowing, lambda: self.processing_time)

    # -- events -------------------------------------------------------------------------------
    def element(self, key: str, value, ts: int) -> list[Pane]:
        """One element arrives (a bundle of one)."""
        return self.bundle(key, [(value, ts)])

    def bundle(self, key: str, elements: list[tuple[object, int]]) -> list[Pane]:
        """A bundle of (value, timestamp) for one key arrives: windowed, then handed to the
        key's driver in one piece (as one TestStream ``add_elements`` call is)."""
        start = len(self.panes)
        state = self.states.setdefault(key, KeyedState())
        batch = [(v, ts, self.windowing.window_fn.assign(ts)) for v, ts in elements]
        for v, ts, windows in batch:
            if not windows:  # a gap between SlidingWindows shorter than their period
                raise PipelineFailure(NO_WINDOW, f"element {v!r} of key {key!r} at {ts} is in no window "
                                      f"of {self.windowing.window_fn}")
        firings, dropped, ignored = self.driver.process_elements(state, batch, self.output_wm,
                                                                 self.input_wm)
        self._emit(key, firings)
        self.drops.extend(Drop(key, v, w.start, w.end, "expired") for v, w in dropped)
        self.drops.extend(Drop(key, v, w.start, w.end, "finished") for v, w in ignored)
        self._refresh_holds([key])
        self._fire_timers()
        return self.panes[start:]

    def advance_watermark(self, wm: int) -> list[Pane]:
        start = len(self.panes)
        self.input_wm = max(self.input_wm, wm)
        self._refresh()
        self._fire_timers()
        return self.panes[start:]

    def advance_processing_time(self, by: int) -> list[Pane]:
        start = len(self.panes)
        self.processing_time += by
        self._fire_timers()
        return self.panes[start:]

    def next_processing_timer(self) -> int | None:
        """The earliest pending processing-time timer of any key (None: none)."""
        heap = self._heaps[1]
        while heap:
            ts, _, key = heap[0]
            if self.due_index.get(key, (None, None))[1] == ts:
                return ts
            heapq.heappop(heap)
        return None

    def finish(self) -> list[Pane]:
        """End of input: the watermark goes to the end of time."""
        return self.advance_watermark(END_OF_TIME)

    @property
    def stalled(self) -> bool:
        """A watermark hold is left: the output watermark never reaches the end of time."""
        return self.input_wm >= END_OF_TIME and bool(self.holds)

    # -- internals ----------------------------------------------------------------------------
    def _emit(self, key: str, firings: list[Firing]) -> None:
        for f in firings:
            self.panes.append(Pane(key, f.window.start, f.window.end, f.timestamp, f.pane,
                                   tuple(sorted(f.values))))

    def _refresh_holds(self, keys) -> None:
        for key in keys:
            nxt = self.states[key].next_due()
            if nxt != self.due_index.get(key):
                self.due_index[key] = nxt
                order = self._order.setdefault(key, len(self._order))
                for heap, ts in zip(self._heaps, nxt):
                    if ts is not None:
                        heapq.heappush(heap, (ts, order, key))
            hold = self.states[key].earliest_hold(HOLD_TAG.name)
            if hold is None:
                self.holds.pop(key, None)
            else:
                self.holds[key] = hold
        self._refresh()

    def _refresh(self) -> None:
        self.output_wm = min([self.input_wm, *self.holds.values()])

    def _due_keys(self) -> list[str]:
        """Keys with a timer due, in key order (the heaps drop stale entries on the way)."""
        keys = {}
        for dim, (heap, bound) in enumerate(zip(self._heaps, (self.input_wm, self.processing_time))):
            while heap and heap[0][0] <= bound:
                ts, order, key = heapq.heappop(heap)
                if self.due_index.get(key, (None, None))[dim] == ts:
                    keys[key] = order
        for key, order in keys.items():  # still due until fired: keep them findable
            for heap, ts in zip(self._heaps, self.due_index[key]):
                if ts is not None:
                    heapq.heappush(heap, (ts, order, key))
        return sorted(keys, key=keys.get)

    def _fire_timers(self) -> None:
        while True:
            due = []
            for key in self._due_keys():
                state = self.states[key]
                for wid, name, domain, ts in state.expired_timers(self.input_wm, self.processing_time):
                    due.append((ts, key, wid, name, domain))
            if not due:
                return
            due.sort(key=lambda d: d[0])  # stable: keys, windows, timers in insertion order
            for ts, key, wid, name, domain in due:
                state = self.states[key]
                state.clear_timer_id(wid, name, domain)
                self._emit(key, self.driver.process_timer(state, wid, domain, ts))
            self._refresh_holds({d[1] for d in due})
