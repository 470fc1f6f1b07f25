"""The trigger driver of a GroupAlsoByWindow step (Beam's ReduceFn rules, as the Python
SDK's ``GeneralTriggerDriver`` applies them), for one key.

On elements (with the step's input watermark W_in and output watermark W_out):
- a window is *expired* and its elements dropped when W_in > window.end + allowed lateness;
- new windows are merged (Sessions) with every window the key has known; pane indices of
  windows merged into a different window restart; their holds are dropped;
- a window whose trigger finished (tombstone) ignores its elements;
- each window gets a watermark hold: the combiner's output time of its elements, counting
  only those at or after W_out (end_of_window: always the window's max timestamp);
- the trigger sees each element, then is asked to fire at W_in.
On a timer (event or processing time), the trigger is asked to fire at the timer's time.
A firing emits a pane: EARLY if the time it fired at (W_out for an element, the timer's
time for a timer) is <= the window's max timestamp, otherwise ON_TIME for the first
non-speculative pane caused by an event-time timer, LATE for the others. Its output
timestamp is the hold (none: the window's max timestamp); the hold is kept while an
on-time pane is still to come, else released. Accumulating mode keeps the elements,
discarding clears them; a finished trigger clears them and tombstones the window. There is
no garbage-collection timer: a window's hold that is never released holds the watermark
forever (the DirectRunner reports a stall).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from .pane import EARLY, LATE, ON_TIME, PaneInfo
from .state import COMBINING, HOLD, LIST, WATERMARK, KeyedState, StateTag, TriggerContext, count_of
from .timestamp_combiners import TimestampCombiner
from .triggers import Trigger
from .windows import IntervalWindow, WindowFn

ELEMENTS = StateTag("elements", LIST)
TOMBSTONE = StateTag("tombstone", COMBINING, count_of)
INDEX = StateTag("index", COMBINING, count_of)
NONSPECULATIVE_INDEX = StateTag("nonspeculative_index", COMBINING, count_of)
HOLD_TAG = StateTag("watermark", HOLD)

DISCARDING, ACCUMULATING = "discarding", "accumulating"


@dataclass(frozen=True)
class Windowing:
    """What ``WindowInto`` configures (times in ticks)."""

    window_fn: WindowFn
    trigger: Trigger
    allowed_lateness: int = 0
    accumulation: str = ACCUMULATING
    timestamp_combiner: TimestampCombiner = TimestampCombiner("end_of_window")

    def __post_init__(self) -> None:
        if self.accumulation not in (DISCARDING, ACCUMULATING):
            raise ValueError(f"accumulation must be 'accumulating' or 'discarding', got {self.accumulation!r}")
        if self.allowed_lateness < 0:
            raise ValueError(f"allowed_lateness must be >= 0, got {self.allowed_lateness}")


@dataclass(frozen=True)
class Firing:
    """A pane produced by the driver (values as the elements' payloads)."""

    window: IntervalWindow
    timestamp: int
    pane: PaneInfo
    values: list


class TriggerDriver:
    """Fires panes for one key's windows under a :class:`Windowing`."""

    def __init__(self, windowing: Windowing, clock: Callable[[], int]) -> None:
        self.w = windowing
        self.clock = clock
        self.combiner = windowing.timestamp_combiner

    def _ctx(self, state: KeyedState, window) -> TriggerContext:
        return TriggerContext(state, window, self.clock)

    def _hold(self, state: KeyedState, window):
        return state.get(window, HOLD_TAG, self.combiner.combine_all)

    def process_elements(self, state: KeyedState, elements: list[tuple[object, int, list]],
                         output_wm: int, input_wm: int) -> tuple[list[Firing], list, list]:
        """``elements``: (value, timestamp, windows). Returns the firings, the (value, window)
        pairs dropped because the window had expired, and those ignored because the window's
        trigger had finished (tombstone)."""
        per_window: dict = {}
        dropped = []
        for value, ts, windows in elements:
            for window in windows:
                if input_wm > window.end + self.w.allowed_lateness:
                    dropped.append((value, window))
                    continue
                per_window.setdefault(window, []).append((value, ts))
        if self.w.window_fn.is_merging():
            per_window = self._merge(state, per_window)
        ignored: list = []
        firings = list(self._add(state, per_window, output_wm, input_wm, ignored))
        return firings, dropped, ignored

    def _merge(self, state: KeyedState, per_window: dict) -> dict:
        known = state.window_ids
        new = [w for w in per_window if w not in known]
        if not new:
            return per_window
        # the known windows never overlap one another (each pass merged every overlapping group):
        # only those overlapping the new windows can merge; the others are groups of one
        all_windows = state.known_overlapping(new) + new
        merged_away: dict = {}

        def on_merge(to_be_merged, result):
            for w in to_be_merged:
                if w != result:
                    merged_away[w] = result
                    state.clear(w, INDEX)                 # pane info does not survive a merge
                    state.clear(w, NONSPECULATIVE_INDEX)
            state.merge(to_be_merged, result)
            self.w.trigger.on_merge(to_be_merged, result, self._ctx(state, result))

        self.w.window_fn.merge(all_windows, on_merge)
        out: dict = {}
        for window, values in per_window.items():
            while window in merged_away:
                window = merged_away[window]
            out.setdefault(window, []).extend(values)
        for window in merged_away:
            state.clear(window, HOLD_TAG)
        return out

    def _add(self, state, per_window, output_wm, input_wm, ignored: list) -> Iterator[Firing]:
        for window, values in per_window.items():
            if state.get(window, TOMBSTONE):
                ignored.extend((v, window) for v, _ in values)
                continue
            times = [t for t in (self.combiner.assign_output_time(window, ts) for _, ts in values)
                     if t >= output_wm]
            hold = self.combiner.merge(window, times)
            if hold is not None:
                state.add(window, HOLD_TAG, hold)
            ctx = self._ctx(state, window)
            for value, _ in values:
                state.add(window, ELEMENTS, value)
                self.w.trigger.on_element(window, ctx)
            if self.w.trigger.should_fire(WATERMARK, input_wm, window, ctx):
                finished = self.w.trigger.on_fire(input_wm, window, ctx)
                yield self._output(state, window, finished, output_wm, False)

    def process_timer(self, state: KeyedState, window_id: int, domain: str, ts: int) -> Iterator[Firing]:
        window = state.window_of(window_id)
        if state.get(window, TOMBSTONE):
            return
        ctx = self._ctx(state, window)
        if self.w.trigger.should_fire(domain, ts, window, ctx):
            finished = self.w.trigger.on_fire(ts, window, ctx)
            yield self._output(state, window, finished, ts, domain == WATERMARK)

    def _output(self, state: KeyedState, window, finished: bool, wm: int, maybe_ontime: bool) -> Firing:
        index = state.get(window, INDEX)
        state.add(window, INDEX, 1)
        if wm <= window.max_timestamp():
            timing, nonspec = EARLY, -1
            if state.get(window, NONSPECULATIVE_INDEX):
                # watermark went back, or late data moved a session's end forward
                nonspec = state.get(window, NONSPECULATIVE_INDEX)
                state.add(window, NONSPECULATIVE_INDEX, 1)
        else:
            nonspec = state.get(window, NONSPECULATIVE_INDEX)
            state.add(window, NONSPECULATIVE_INDEX, 1)
            timing = ON_TIME if maybe_ontime and nonspec == 0 else LATE
        info = PaneInfo(index == 0, finished, timing, index, nonspec)
        values = state.get(window, ELEMENTS)
        if finished:
            state.clear(window, ELEMENTS)
            state.add(window, TOMBSTONE, 1)
        elif self.w.accumulation == DISCARDING:
            state.clear(window, ELEMENTS)
        ts = self._hold(state, window)
        if ts is None:
            ts = window.max_timestamp()
        elif wm < window.end and self.w.trigger.has_ontime_pane():
            pass  # keep holding for the on-time pane still to come
        else:
            state.clear(window, HOLD_TAG)
        return Firing(window, ts, info, list(values))
