"""Flink's ``WindowOperator`` (and ``EvictingWindowOperator``), keyed or window-all: the
general path, for every configuration. (``operator_fast`` holds specialised subclasses for
common event-time configurations; ``config.build_operator`` picks the class.)

Per element (``process_element``): the assigner gives the windows; for merging assigners
each window goes through the key's ``MergingWindowSet``. A window is *late* when
``cleanup_time(window) <= watermark`` (event time only) and is skipped; otherwise the
element is added to the window state, the trigger's ``on_element`` runs, FIRE emits the
contents, PURGE clears them, and the cleanup timer is registered. An element that no
window accepted goes to the late side output (or is counted in
``num_late_records_dropped``) iff ``timestamp + allowed_lateness <= watermark``.

``cleanup_time = max_timestamp + allowed_lateness`` for event time (``MAX_TIMESTAMP`` on
overflow, and no timer is registered at ``MAX_TIMESTAMP``), ``max_timestamp`` for
processing time. These rules are module functions here (``cleanup_time``,
``is_element_late``, ``check_merge_not_late``, ``merge_panes``), used by every class. A timer runs the trigger (fire, then purge), then, at the cleanup time,
clears all window state.

Timers fire in timestamp order; ``process_watermark`` sets the watermark first, then fires
every event-time timer ``<=`` it, including timers registered while doing so. Equal-timestamp
timers fire in the order of Flink's timer heap (``timers.FlinkTimerHeap``), except with the
plain event-time trigger, where that order cannot change any key's output and a faster queue
is used. Merged sessions keep Flink's element order (Java ``HashSet`` order of the merged
windows), and ``GlobalWindows`` with the end-of-stream trigger sees its input in the order of
Flink's sort (``sorting.py``): the scenario runner's output equals real Flink's line for line.

Each firing emits a ``WindowResult``. Its ``timing`` follows one rule, with ``t`` the
current watermark (processing time for processing-time assigners):

- ``"at_end"``: caused by the end-of-input watermark (``end_input``);
- ``"early"``: ``window.max_timestamp() > t``;
- ``"on_time"``: the window's first firing with ``max_timestamp <= t``, if a timer caused it;
- ``"late"``: every other firing (later ones, or the first one when a record caused it).

``pane`` counts the window's emitted firings from 0 (a merged session continues after the
highest pane of the windows it absorbed). Accumulation modes: ``"accumulating"`` (Flink),
``"discarding"`` (contents purged after each firing; the window lives until cleanup) and
``"accumulating_and_retracting"`` (before a refinement, a ``kind="retract"`` result carrying
the previous pane's value is emitted for every pane it supersedes).
"""
from __future__ import annotations

import copy

from .assigners import GlobalWindows, WindowAssigner
from .evictors import Evictor, TimestampedValue, _AfterOnly, _OneSidedEvictor
from .functions import AggregateFunction, CountSum, ProcessContext, WindowFunction, fold, has_clear
from .merging import MergingWindowSet
from .results import LateRecord, SideOutput, WindowResult
from .sorting import flink_sort, key_sort_key
from .state import count_entries
from .timers import FlinkTimerHeap, HeapqTimers
from .triggers import EndOfStreamTrigger, EventTimeTrigger, Trigger
from .windows import MAX_TIMESTAMP, MIN_TIMESTAMP, wrap_long

__all__ = ["ACCUMULATION_MODES", "WindowOperator", "WindowResult", "LateRecord", "check_config",
           "cleanup_time", "is_element_late"]

ACCUMULATION_MODES = ("accumulating", "discarding", "accumulating_and_retracting")

_ABSENT = object()


# ---------------------------------------------------------------------- rules written once


def cleanup_time(max_timestamp: int, allowed_lateness: int) -> int:
    """Flink's ``cleanupTime`` for event time: ``max_timestamp + allowed_lateness``, or
    ``MAX_TIMESTAMP`` when the sum overflows (no cleanup timer is registered then)."""
    c = max_timestamp + allowed_lateness
    return c if c <= MAX_TIMESTAMP else MAX_TIMESTAMP


def is_element_late(timestamp: int, allowed_lateness: int, watermark: int) -> bool:
    """Flink's ``isElementLate`` in Java ``long`` arithmetic: the sum may wrap (fixture edge10)."""
    x = timestamp + allowed_lateness
    return (x if MIN_TIMESTAMP <= x <= MAX_TIMESTAMP else wrap_long(x)) <= watermark


def check_merge_not_late(merge_result, allowed_lateness: int, watermark: int) -> None:
    """Flink's merge check for event time: a merge may not move a window's end behind the
    watermark (in Java ``long`` arithmetic: with a huge lateness the sum wraps negative and
    Flink throws; checked with the oracle, fixture edge09)."""
    if wrap_long(merge_result.max_timestamp() + allowed_lateness) <= watermark:
        raise RuntimeError(
            "The end timestamp of an event-time window cannot become earlier than the current "
            f"watermark by merging. Current watermark: {watermark} window: {merge_result}")


class _Pane:
    """Per (key, window) firing bookkeeping (ours, not Flink's state)."""

    __slots__ = ("next", "passed", "emitted")

    def __init__(self):
        self.next = 0          # index of the next pane
        self.passed = False    # a firing happened with max_timestamp <= time
        self.emitted = None    # [(window, value, pane)] to retract before the next pane

    def absorb(self, other: "_Pane") -> None:
        """Take over a merged window's panes: numbering continues after the highest one."""
        if other.next > self.next:
            self.next = other.next
        self.passed = self.passed or other.passed
        if other.emitted:
            self.emitted = (self.emitted or []) + other.emitted


def merge_panes(panes: dict, key, merged_windows, merge_result) -> None:
    """Move the panes of ``merged_windows`` (of ``key``) onto ``merge_result``."""
    taken = [panes.pop((key, m)) for m in merged_windows if (key, m) in panes]
    if taken:
        p = panes.get((key, merge_result))
        if p is None:
            p = panes[(key, merge_result)] = _Pane()
        for q in taken:
            p.absorb(q)


class _TriggerContext:
    """The one context object handed to trigger callbacks (key and window set per call)."""

    __slots__ = ("_op", "key", "window", "current_watermark", "current_processing_time", "_merged")

    def __init__(self, op):
        self._op = op
        self.key = None
        self.window = None
        self.current_watermark = MIN_TIMESTAMP
        self.current_processing_time = MIN_TIMESTAMP
        self._merged = None

    # Flink-style accessors
    def get_current_watermark(self) -> int:
        return self.current_watermark

    def get_current_processing_time(self) -> int:
        return self.current_processing_time

    def register_event_time_timer(self, t: int) -> None:
        self._op._et.add(t, self.key, self.window)

    def delete_event_time_timer(self, t: int) -> None:
        self._op._et.remove(t, self.key, self.window)

    def register_processing_time_timer(self, t: int) -> None:
        self._op._ptq.add(t, self.key, self.window)

    def delete_processing_time_timer(self, t: int) -> None:
        self._op._ptq.remove(t, self.key, self.window)

    def get_state(self, name: str, default=None):
        return self._op._tstate.get((self.key, self.window, name), default)

    def set_state(self, name: str, value) -> None:
        self._op._tstate[(self.key, self.window, name)] = value

    def clear_state(self, name: str) -> None:
        self._op._tstate.pop((self.key, self.window, name), None)

    def merge_state(self, name: str, fn) -> None:
        """Fold the state ``name`` of the windows being merged into the current window."""
        if self._merged is None:
            raise RuntimeError("merge_state is only available in on_merge")
        ts = self._op._tstate
        merged = _ABSENT
        for w in self._merged:
            v = ts.pop((self.key, w, name), _ABSENT)
            if v is _ABSENT:
                continue
            merged = v if merged is _ABSENT else fn(merged, v)
        if merged is _ABSENT:
            return
        k = (self.key, self.window, name)
        cur = ts.get(k, _ABSENT)
        ts[k] = merged if cur is _ABSENT else fn(cur, merged)


def check_config(assigner, trigger, evictor, allowed_lateness, function, accumulation) -> None:
    """Validate a window operator's configuration (``ValueError`` naming the problem); the
    checks Flink makes when the job is built."""
    if not isinstance(assigner, WindowAssigner):
        raise ValueError(f"WindowOperator: assigner must be a WindowAssigner, got {assigner!r}")
    if not isinstance(trigger, Trigger):
        raise ValueError(f"WindowOperator: trigger must be a Trigger, got {trigger!r}")
    if assigner.is_merging and not trigger.can_merge:
        raise ValueError(
            f"A merging window assigner ({type(assigner).__name__}) cannot be used with a trigger that "
            f"does not support merging ({type(trigger).__name__})")
    wtype = "global" if isinstance(assigner, GlobalWindows) else "time"
    if trigger.window_type is not None and trigger.window_type != wtype:
        raise ValueError(
            f"{type(trigger).__name__} works only with "
            f"{'GlobalWindows' if trigger.window_type == 'global' else 'time windows (tumbling, sliding, session)'}, "
            f"not with {type(assigner).__name__} ({trigger.window_type_reason})")
    if evictor is not None and not isinstance(evictor, Evictor):
        raise ValueError(f"WindowOperator: evictor must be an Evictor, got {evictor!r}")
    if isinstance(allowed_lateness, bool) or not isinstance(allowed_lateness, int):
        raise ValueError(f"WindowOperator: allowed_lateness must be an integer number of ms, got {allowed_lateness!r}")
    if allowed_lateness < 0:
        raise ValueError(f"The allowed lateness cannot be negative, got {allowed_lateness}")
    if not isinstance(function, WindowFunction):
        raise ValueError(
            f"WindowOperator: function must be a ReduceFunction, AggregateFunction or ProcessWindowFunction, got {function!r}")
    if accumulation not in ACCUMULATION_MODES:
        raise ValueError(f"WindowOperator: accumulation must be one of {ACCUMULATION_MODES}, got {accumulation!r}")


class WindowOperator:
    """Keyed (or, with ``keyed=False``, window-all) window operator; rules in the module docstring.

    Configuration (validated here, ``ValueError`` otherwise): ``assigner``; ``trigger``
    (default: the assigner's); ``evictor`` (Flink's evicting operator: all elements are kept
    and the function runs over what the evictor leaves; ``evict_after=True`` runs a built-in
    evictor after the function instead of before); ``allowed_lateness`` (ms, >= 0);
    ``function`` (default ``CountSum()``); ``side_output_late`` (else late records are only
    counted in ``num_late_records_dropped``); ``accumulation``; ``keyed``; ``track_records``
    (results carry ``record_ids``); ``exact_timer_order`` (see ``timers.py``).

    Runtime: ``process_element(key, timestamp, value, record_id=None)``,
    ``process_watermark(wm)``, ``set_processing_time(t)``, ``end_input()``, ``drain()``,
    ``state_size()``, ``current_watermark``, ``current_processing_time``; for tests, as
    Flink's harness: ``num_event_time_timers()``, ``num_processing_time_timers()``,
    ``num_keyed_state_entries()``.

    This class is the general path, for every configuration. ``operator_fast`` holds
    subclasses with specialised loops for the common event-time configurations;
    ``config.build_operator`` picks the fastest class that applies.
    """

    def __init__(
        self,
        assigner: WindowAssigner,
        *,
        trigger: Trigger | None = None,
        evictor: Evictor | None = None,
        evict_after: bool = False,
        allowed_lateness: int = 0,
        function: WindowFunction | None = None,
        side_output_late: bool = True,
        accumulation: str = "accumulating",
        keyed: bool = True,
        track_records: bool = False,
        exact_timer_order: bool | None = None,
    ):
        if trigger is None and isinstance(assigner, WindowAssigner):
            trigger = assigner.default_trigger()
        if function is None:
            function = CountSum()
        if hasattr(allowed_lateness, "__index__") and not isinstance(allowed_lateness, (int, bool)):
            allowed_lateness = int(allowed_lateness)
        check_config(assigner, trigger, evictor, allowed_lateness, function, accumulation)
        if getattr(assigner, "_stagger_offset", 0) is None:
            # a staggered tumbling assigner resolves its offset at its first element: every
            # operator instance gets its own copy, as Flink deserialises one per subtask
            assigner = copy.copy(assigner)
        if evict_after and evictor is not None:
            if not isinstance(evictor, _OneSidedEvictor):
                raise ValueError("evict_after=True needs a built-in evictor (Count/Time/DeltaEvictor); "
                                 "a custom Evictor implements evict_before/evict_after itself")
            evictor = _AfterOnly(evictor)
        self.assigner = assigner
        self.trigger = trigger
        self.evictor = evictor
        self.allowed_lateness = allowed_lateness
        self.function = function
        self.side_output_late = bool(side_output_late)
        self.accumulation = accumulation
        self.keyed = bool(keyed)
        self.track_records = bool(track_records)

        # Flink 2.x runs GlobalWindows + EndOfStreamTrigger as "output only after end of
        # stream": its whole input is sorted by (key, timestamp) with Flink's QuickSort (not
        # stable) before the window sees it. The operator keeps every element and applies
        # that order when the window fires (see sorting.py).
        self._sorted_input = isinstance(assigner, GlobalWindows) and type(trigger) is EndOfStreamTrigger
        self._arrivals: list = []      # sorted-input mode: (key, timestamp, index in the key's list)
        self._flink_order: dict | None = None
        self._event_time = assigner.is_event_time
        self._merging = assigner.is_merging
        self._full = evictor is not None or not function.incremental or self._sorted_input
        self._discarding = accumulation == "discarding"
        self._retracting = accumulation == "accumulating_and_retracting"

        self._wm = MIN_TIMESTAMP
        self._pt = MIN_TIMESTAMP
        self._at_end = False
        self._ctx = _TriggerContext(self)
        self._contents: dict = {}      # (key, state window) -> list[TimestampedValue] | accumulator
        self._nrec: dict = {}          # incremental: (key, state window) -> records folded in
        self._ids: dict = {}           # incremental + track_records: (key, state window) -> [record ids]
        self._tstate: dict = {}        # (key, window, name) -> trigger state
        self._fstate: dict = {}        # process function's keyed state: namespace -> {name: value}
        pwf = function if not function.incremental else function.process
        self._pwf_clear = pwf if has_clear(function) else None
        self._panes: dict = {}         # (key, window) -> _Pane
        self._msets: dict = {}         # key -> MergingWindowSet
        # Timers: Flink's exact heap (equal-timestamp timers fire in Flink's order, across keys
        # too) unless the trigger is the event-time trigger, whose output per key does not
        # depend on that order; then the faster heapq queue (ties across keys in
        # registration order). ``exact_timer_order=True`` forces the exact heap.
        exact = type(trigger) is not EventTimeTrigger if exact_timer_order is None else bool(exact_timer_order)
        self._exact_timers = exact
        self._et = FlinkTimerHeap() if exact else HeapqTimers()
        self._ptq = FlinkTimerHeap() if exact else HeapqTimers()
        self._next_id = 0
        self._buffered = 0             # records held in window state (kept up to date: state_size is O(1))
        self._out: list = []
        self.num_late_records_dropped = 0


    # ------------------------------------------------------------------ public API

    @property
    def current_watermark(self) -> int:
        return self._wm

    @property
    def current_processing_time(self) -> int:
        return self._pt

    def set_processing_time(self, t: int) -> None:
        """Advance processing time to ``t`` (never backwards) and fire processing-time timers ``<= t``."""
        if t <= self._pt:
            return
        self._pt = t
        self._ctx.current_processing_time = t
        q = self._ptq
        while True:
            ts = q.peek_timestamp()
            if ts is None or ts > t:
                break
            ts, key, window = q.poll()
            self._on_timer(ts, key, window, False)

    def advance_processing_time(self, t: int) -> None:
        """Advance processing time to ``t`` as a running job's clock does: it passes every due
        timer's time, so each processing-time timer ``<= t`` fires at its own time (Flink's
        ``SystemProcessingTimeService`` calls back at the timer's timestamp; a timer registered
        in the past fires at once). A replay uses this, so what fires, and when, does not depend
        on where it samples the clock; Flink's test harness jumps instead
        (:meth:`set_processing_time`: every due timer sees ``t``)."""
        q = self._ptq
        while True:
            ts = q.peek_timestamp()
            if ts is None or ts > t:
                break
            if ts > self._pt:
                self._pt = ts
                self._ctx.current_processing_time = ts
            ts, key, window = q.poll()
            self._on_timer(ts, key, window, False)
        if t > self._pt:
            self._pt = t
            self._ctx.current_processing_time = t

    def process_watermark(self, watermark: int) -> None:
        """Advance the watermark (a watermark not above the current one is ignored, as Flink's
        sources never forward it) and fire every event-time timer ``<= watermark``."""
        if watermark <= self._wm:
            return
        self._wm = watermark
        self._ctx.current_watermark = watermark
        q = self._et
        if self._sorted_input:
            # In sorted-input mode Flink registers the timers while it reads the sorted input,
            # i.e. in the sort's key order, and fires them from its timer heap: replay that.
            due = []
            while True:
                ts = q.peek_timestamp()
                if ts is None or ts > watermark:
                    break
                due.append(q.poll())
            due.sort(key=lambda t: key_sort_key(t[1]))
            heap = FlinkTimerHeap()
            for t in due:
                heap.add(*t)
            while len(heap):
                ts, key, window = heap.poll()
                self._on_timer(ts, key, window, True)
            return
        while True:
            ts = q.peek_timestamp()
            if ts is None or ts > watermark:
                break
            ts, key, window = q.poll()
            self._on_timer(ts, key, window, True)

    def end_input(self) -> None:
        """End of a bounded input: the ``MAX_TIMESTAMP`` watermark; its firings are ``at_end``.
        Pending processing-time timers do not fire (as in Flink)."""
        self._at_end = True
        self.process_watermark(MAX_TIMESTAMP)

    def drain(self) -> list:
        """Return and clear the emitted ``WindowResult``s and ``LateRecord``s, in emission order."""
        out = self._out
        self._out = []
        return out

    @property
    def output(self) -> list:
        """Everything emitted and not yet drained (read-only view)."""
        return list(self._out)

    def state_size(self) -> tuple[int, int]:
        """``(open_windows, buffered_records)``: windows holding contents, and records held in
        them (list elements; for incremental functions, records folded into live accumulators)."""
        return len(self._contents), self._buffered

    def _recount_state(self) -> tuple[int, int]:
        """``state_size()`` recomputed from scratch (for tests; ``state_size`` is O(1))."""
        if self._full:
            return len(self._contents), sum(map(len, self._contents.values()))
        return len(self._contents), sum(self._nrec.values())

    def num_event_time_timers(self) -> int:
        """Registered event-time timers (trigger and cleanup timers), as Flink's harness counts them."""
        return len(self._et)

    def num_processing_time_timers(self) -> int:
        """Registered processing-time timers."""
        return len(self._ptq)

    def num_keyed_state_entries(self) -> int:
        """Entries in keyed state, as Flink's harness counts them: one per (key, state window)
        holding window contents, one per (key, window, name) of trigger state, one per key
        holding a merging-window set, and one per state the process function set in
        ``window_state()`` / ``global_state()`` (the pane bookkeeping is ours, not Flink state)."""
        return len(self._contents) + len(self._tstate) + len(self._msets) + count_entries(self._fstate)

    def _internal_state(self) -> dict:
        """Every piece of internal state in comparable form (for tests that check that two
        operator classes evolve identically)."""
        et = self._et
        return {
            "contents": dict(self._contents), "nrec": dict(self._nrec), "ids": dict(self._ids),
            "trigger_state": dict(self._tstate), "function_state": {k: dict(v) for k, v in self._fstate.items()},
            "windows": {k: dict(m.mapping) for k, m in self._msets.items()},
            "event_time_timers": set(et.live) if isinstance(et, HeapqTimers) else set(et._index),
            "panes": {k: (p.next, p.passed) for k, p in self._panes.items()},
            "buffered": self._buffered, "late_dropped": self.num_late_records_dropped,
        }

    # ------------------------------------------------------------------ helpers

    def _cleanup_time(self, window) -> int:
        if self._event_time:
            return cleanup_time(window.max_timestamp(), self.allowed_lateness)
        return window.max_timestamp()

    def _is_window_late(self, window) -> bool:
        return self._event_time and self._cleanup_time(window) <= self._wm

    def _register_cleanup_timer(self, key, window):
        c = self._cleanup_time(window)
        if c == MAX_TIMESTAMP:
            return
        (self._et if self._event_time else self._ptq).add(c, key, window)

    def _delete_cleanup_timer(self, key, window):
        c = self._cleanup_time(window)
        if c == MAX_TIMESTAMP:
            return
        (self._et if self._event_time else self._ptq).remove(c, key, window)

    def _add(self, sk, value, timestamp, record_id, has_timestamp=True):
        if self._full:
            lst = self._contents.get(sk)
            if lst is None:
                lst = self._contents[sk] = [TimestampedValue(value, timestamp, record_id, has_timestamp)]
            else:
                lst.append(TimestampedValue(value, timestamp, record_id, has_timestamp))
            if self._sorted_input:
                self._arrivals.append((sk, timestamp, len(lst) - 1))
                self._flink_order = None
            self._buffered += 1
        else:
            fn = self.function
            cur = self._contents.get(sk, _ABSENT)
            if isinstance(fn, AggregateFunction):
                if cur is _ABSENT:
                    cur = fn.create_accumulator()
                self._contents[sk] = fn.add(value, cur)
            else:
                self._contents[sk] = value if cur is _ABSENT else fn.reduce(cur, value)
            self._nrec[sk] = self._nrec.get(sk, 0) + 1
            self._buffered += 1
            if self.track_records:
                ids = self._ids.get(sk)
                if ids is None:
                    self._ids[sk] = [record_id]
                else:
                    ids.append(record_id)

    def _apply_flink_sort_order(self, sk, elements: list) -> None:
        """Reorder a window's elements as Flink's sorted input would deliver them."""
        if self._flink_order is None:
            arr = [(key_sort_key(k[0]), ts, k, i) for k, ts, i in self._arrivals]
            flink_sort(arr, lambda x, y: (x[:2] > y[:2]) - (x[:2] < y[:2]))
            order: dict = {}
            for _, _, k, i in arr:
                order.setdefault(k, []).append(i)
            self._flink_order = order
        perm = self._flink_order.get(sk)
        if perm is not None and len(perm) == len(elements):
            elements[:] = [elements[i] for i in perm]
        else:   # elements changed since arrival (not a Flink situation): timestamp order
            elements.sort(key=lambda e: e.timestamp)

    def _clear_contents(self, sk):
        c = self._contents.pop(sk, _ABSENT)
        if c is _ABSENT:
            return
        if self._full:
            self._buffered -= len(c)
        else:
            self._buffered -= self._nrec.pop(sk, 0)
            self._ids.pop(sk, None)

    # ------------------------------------------------------------------ elements

    def process_element(self, key, timestamp: int | None, value, record_id=None) -> None:
        """Process one record (Flink's ``WindowOperator.processElement``). ``timestamp=None`` is
        a record without a timestamp: assigner, trigger and lateness see Long.MIN_VALUE (what
        Flink's ``StreamRecord.getTimestamp`` returns for it) and its window element has
        ``has_timestamp=False`` (what a ``TimeEvictor`` checks)."""
        has_timestamp = timestamp is not None
        if not has_timestamp:
            timestamp = MIN_TIMESTAMP
        if not self.keyed:
            key = None
        if record_id is None and self.track_records:
            record_id = self._next_id
            self._next_id += 1
        windows = self.assigner.assign_windows(value, timestamp, self._pt)
        skipped = True
        ctx = self._ctx
        trigger = self.trigger
        if self._merging:
            mset = self._msets.get(key)
            if mset is None:
                mset = self._msets[key] = MergingWindowSet(self.assigner)
            merge = self._merge

            def merge_fn(merge_result, merged_windows, state_window_result, merged_state_windows):
                # Flink's anonymous MergeFunction: it captures the key
                merge(key, merge_result, merged_windows, state_window_result, merged_state_windows)

            for window in windows:
                actual = mset.add_window(window, merge_fn)
                if self._is_window_late(actual):
                    mset.retire_window(actual)
                    continue
                skipped = False
                sw = mset.get_state_window(actual)
                if sw is None:
                    raise RuntimeError(f"Window {actual} is not in in-flight window set.")
                sk = (key, sw)
                self._add(sk, value, timestamp, record_id, has_timestamp)
                ctx.key = key
                ctx.window = actual
                r = trigger.on_element(value, timestamp, actual, ctx)
                if r & 1:
                    contents = self._contents.get(sk, _ABSENT)
                    if contents is _ABSENT:
                        continue
                    self._emit(key, actual, sk, contents, False)
                    if self._discarding:
                        r |= 2
                if r & 2:
                    self._clear_contents(sk)
                self._register_cleanup_timer(key, actual)
            if not mset.mapping:
                del self._msets[key]
        else:
            for window in windows:
                if self._event_time and self._is_window_late(window):
                    continue
                skipped = False
                sk = (key, window)
                self._add(sk, value, timestamp, record_id, has_timestamp)
                ctx.key = key
                ctx.window = window
                r = trigger.on_element(value, timestamp, window, ctx)
                if r & 1:
                    contents = self._contents.get(sk, _ABSENT)
                    if contents is _ABSENT:
                        continue
                    self._emit(key, window, sk, contents, False)
                    if self._discarding:
                        r |= 2
                if r & 2:
                    self._clear_contents(sk)
                self._register_cleanup_timer(key, window)
        if skipped and self._event_time and is_element_late(timestamp, self.allowed_lateness, self._wm):
            self._late(key, timestamp, value, record_id)

    def _late(self, key, timestamp, value, record_id):
        if self.side_output_late:
            self._out.append(LateRecord(key, timestamp, value, record_id, self._wm, self._pt))
        else:
            self.num_late_records_dropped += 1

    # ------------------------------------------------------------------ merging

    def _merge(self, key, merge_result, merged_windows, state_window_result, merged_state_windows):
        if self._event_time:
            check_merge_not_late(merge_result, self.allowed_lateness, self._wm)
        elif merge_result.max_timestamp() <= self._pt:
            raise RuntimeError(
                "The end timestamp of a processing-time window cannot become earlier than the current "
                f"processing time by merging. Current processing time: {self._pt} window: {merge_result}")
        ctx = self._ctx
        ctx.key = key
        ctx.window = merge_result
        ctx._merged = merged_windows
        try:
            self.trigger.on_merge(merge_result, ctx)
        finally:
            ctx._merged = None
        for m in merged_windows:
            ctx.window = m
            self.trigger.clear(m, ctx)
            self._delete_cleanup_timer(key, m)
        self._merge_state_windows(key, state_window_result, merged_state_windows)
        merge_panes(self._panes, key, merged_windows, merge_result)

    def _merge_state_windows(self, key, state_window_result, merged_state_windows) -> None:
        """Fold the merged state windows' contents into the kept one (target first, then the
        sources in order), with their record counts and ids."""
        target = (key, state_window_result)
        for sw in merged_state_windows:
            sk = (key, sw)
            src = self._contents.pop(sk, _ABSENT)
            if src is _ABSENT:
                continue
            cur = self._contents.get(target, _ABSENT)
            if self._full:
                if cur is _ABSENT:
                    self._contents[target] = src
                else:
                    cur.extend(src)
            else:
                n = self._nrec.pop(sk, 0)
                ids = self._ids.pop(sk, None)
                if cur is _ABSENT:
                    self._contents[target] = src
                else:
                    fn = self.function
                    self._contents[target] = fn.merge(cur, src) if isinstance(fn, AggregateFunction) else fn.reduce(cur, src)
                self._nrec[target] = self._nrec.get(target, 0) + n
                if ids is not None:
                    self._ids.setdefault(target, []).extend(ids)

    # ------------------------------------------------------------------ timers

    def _on_timer(self, ts, key, window, event_time: bool):
        ctx = self._ctx
        ctx.key = key
        ctx.window = window
        mset = None
        if self._merging:
            mset = self._msets.get(key)
            sw = mset.get_state_window(window) if mset is not None else None
            if sw is None:
                return
        else:
            sw = window
        sk = (key, sw)
        if event_time:
            r = self.trigger.on_event_time(ts, window, ctx)
        else:
            r = self.trigger.on_processing_time(ts, window, ctx)
        if r & 1:
            contents = self._contents.get(sk, _ABSENT)
            if contents is not _ABSENT:
                self._emit(key, window, sk, contents, True)
                if self._discarding:
                    r |= 2
        if r & 2:
            self._clear_contents(sk)
        if event_time == self._event_time and ts == self._cleanup_time(window):
            self._clear_all_state(key, window, sk, mset)

    def _clear_all_state(self, key, window, sk, mset):
        self._clear_contents(sk)
        ctx = self._ctx
        ctx.key = key
        ctx.window = window
        self.trigger.clear(window, ctx)
        if self._pwf_clear is not None:
            # Flink's clearAllState: processContext.clear() -> the function's clear(context)
            self._pwf_clear.clear(ProcessContext(key, window, self._wm, self._pt, None, None, self))
        self._panes.pop((key, window), None)
        if mset is not None:
            mset.retire_window(window)
            if not mset.mapping:
                del self._msets[key]

    # ------------------------------------------------------------------ emission

    def _side_output(self, tag: str, key, window, value) -> None:
        """``context.output(tag, value)`` of a process function (emitted at once)."""
        self._out.append(SideOutput(tag, key, window, window.max_timestamp(), value, self._wm, self._pt))

    def _emit(self, key, window, sk, contents, by_timer: bool):
        pk = (key, window)
        pane = self._panes.get(pk)
        if pane is None:
            pane = self._panes[pk] = _Pane()
        if self._at_end:
            timing = "at_end"
            pane.passed = True
        else:
            t = self._wm if self._event_time else self._pt
            if window.max_timestamp() > t:
                timing = "early"
            elif not pane.passed:
                pane.passed = True
                timing = "on_time" if by_timer else "late"
            else:
                timing = "late"
        fn = self.function
        ids = None
        pctx = None
        if self._full:
            elements = contents
            if self._sorted_input:
                self._apply_flink_sort_order(sk, elements)
            ev = self.evictor
            n_before = len(elements)
            if ev is not None:
                ev.evict_before(elements, window, self._ctx)
            values = [e.value for e in elements]
            if self.track_records:
                ids = [e.record_id for e in elements]
            if fn.incremental:
                value = fold(fn, values)
                if fn.process is not None:
                    pctx = ProcessContext(key, window, self._wm, self._pt, pane.next, timing, self)
                    value = fn.process.process(key, pctx, [value])
            else:
                pctx = ProcessContext(key, window, self._wm, self._pt, pane.next, timing, self)
                value = fn.process(key, pctx, values)
            if ev is not None:
                ev.evict_after(elements, window, self._ctx)
                # the state now holds exactly what is left (Flink rewrites the list state)
                self._buffered -= n_before - len(elements)
                if not elements:
                    self._contents.pop(sk, None)
        else:
            value = fn.get_result(contents) if isinstance(fn, AggregateFunction) else contents
            if fn.process is not None:
                pctx = ProcessContext(key, window, self._wm, self._pt, pane.next, timing, self)
                value = fn.process.process(key, pctx, [value])
            if self.track_records:
                ids = list(self._ids.get(sk, ()))
        out = self._out
        wm, pt = self._wm, self._pt
        if self._retracting:
            if pane.emitted:
                for w, v, p in pane.emitted:
                    out.append(WindowResult("retract", key, w, w.max_timestamp(), v, p, timing, wm, pt, None))
            pane.emitted = [(window, value, pane.next)]
        out.append(WindowResult("fire", key, window, window.max_timestamp(), value, pane.next, timing, wm, pt, ids))
        pane.next += 1

