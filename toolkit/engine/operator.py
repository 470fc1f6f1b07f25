"""Flink's ``WindowOperator`` (and ``EvictingWindowOperator``), keyed or window-all.

Per element (``process_element``): the assigner gives the windows; for merging assigners
each window goes through the key's ``MergingWindowSet``. A window is *late* when
``cleanup_time(window) <= watermark`` (event time only) and is skipped; otherwise the
element is added to the window state, the trigger's ``on_element`` runs, FIRE emits the
contents, PURGE clears them, and the cleanup timer is registered. An element that no
window accepted goes to the late side output (or is counted in
``num_late_records_dropped``) iff ``timestamp + allowed_lateness <= watermark``.

``cleanup_time = max_timestamp + allowed_lateness`` for event time (``MAX_TIMESTAMP`` on
overflow, and no timer is registered at ``MAX_TIMESTAMP``), ``max_timestamp`` for
processing time. A timer runs the trigger (fire, then purge), then, at the cleanup time,
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

from heapq import heappop, heappush

from .assigners import (
    EventTimeSessionWindows,
    GlobalWindows,
    MergingWindowAssigner,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
    WindowAssigner,
)
from .evictors import Evictor, TimestampedValue, _AfterOnly, _OneSidedEvictor
from .functions import (
    AggregateFunction,
    Count,
    CountSum,
    ProcessContext,
    ReduceFunction,
    WindowFunction,
    fold,
)
from .merging import MergingWindowSet
from .timers import FlinkTimerHeap, HeapqTimers
from .triggers import EventTimeTrigger, Trigger
from .windows import MAX_TIMESTAMP, MIN_TIMESTAMP, TimeWindow, java_hash_set_order, wrap_long

ACCUMULATION_MODES = ("accumulating", "discarding", "accumulating_and_retracting")

_ABSENT = object()


class WindowResult:
    """One emitted firing (``kind="fire"``) or retraction (``kind="retract"``)."""

    __slots__ = ("kind", "key", "window", "timestamp", "value", "pane", "timing", "watermark",
                 "processing_time", "record_ids")

    def __init__(self, kind, key, window, timestamp, value, pane, timing, watermark, processing_time,
                 record_ids=None):
        self.kind = kind
        self.key = key
        self.window = window
        self.timestamp = timestamp
        self.value = value
        self.pane = pane
        self.timing = timing
        self.watermark = watermark
        self.processing_time = processing_time
        self.record_ids = record_ids

    @property
    def start(self):
        return self.window.start

    @property
    def end(self):
        return self.window.end

    @property
    def max_timestamp(self) -> int:
        return self.timestamp

    def as_dict(self) -> dict:
        return {s: getattr(self, s) for s in self.__slots__}

    def __repr__(self) -> str:
        return ("WindowResult(kind=%r, key=%r, window=%r, timestamp=%r, value=%r, pane=%r, timing=%r, "
                "watermark=%r, processing_time=%r%s)" % (
                    self.kind, self.key, self.window, self.timestamp, self.value, self.pane, self.timing,
                    self.watermark, self.processing_time,
                    "" if self.record_ids is None else ", record_ids=%r" % (self.record_ids,)))

    def __eq__(self, other):
        return isinstance(other, WindowResult) and self.as_dict() == other.as_dict()


class LateRecord:
    """A record sent to the late side output."""

    __slots__ = ("key", "timestamp", "value", "record_id", "watermark", "processing_time")
    kind = "late"

    def __init__(self, key, timestamp, value, record_id, watermark, processing_time):
        self.key = key
        self.timestamp = timestamp
        self.value = value
        self.record_id = record_id
        self.watermark = watermark
        self.processing_time = processing_time

    def as_dict(self) -> dict:
        d = {s: getattr(self, s) for s in self.__slots__}
        d["kind"] = "late"
        return d

    def __repr__(self) -> str:
        return "LateRecord(key=%r, timestamp=%r, value=%r, record_id=%r, watermark=%r, processing_time=%r)" % (
            self.key, self.timestamp, self.value, self.record_id, self.watermark, self.processing_time)

    def __eq__(self, other):
        return isinstance(other, LateRecord) and self.as_dict() == other.as_dict()


class _Pane:
    __slots__ = ("next", "passed", "emitted")

    def __init__(self):
        self.next = 0          # index of the next pane
        self.passed = False    # a firing happened with max_timestamp <= time
        self.emitted = None    # [(window, value, pane)] to retract before the next pane


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


def _check_config(assigner, trigger, evictor, allowed_lateness, function, accumulation):
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
    ``state_size()``, ``current_watermark``, ``current_processing_time``.
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
        _check_config(assigner, trigger, evictor, allowed_lateness, function, accumulation)
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
        from .triggers import EndOfStreamTrigger

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

        fn = function
        self._use_fast = (
            not self._exact_timers
            and type(trigger) is EventTimeTrigger
            and not self._merging
            and self._event_time
            and not self._full
            and isinstance(fn, (AggregateFunction, ReduceFunction))
            and not self._retracting
            and isinstance(assigner, (TumblingEventTimeWindows, SlidingEventTimeWindows))
            and type(assigner) in (TumblingEventTimeWindows, SlidingEventTimeWindows)
        )
        if self._use_fast:
            self.process_element, self.process_watermark = self._make_fast_process_element()
        elif (
            not self._exact_timers
            and type(trigger) is EventTimeTrigger
            and type(assigner) is EventTimeSessionWindows
            and type(assigner).merge_windows is MergingWindowAssigner.merge_windows
            and not self._full
            and isinstance(fn, (AggregateFunction, ReduceFunction))
            and not self._retracting
        ):
            self.process_element, self.process_watermark = self._make_fast_session()

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
            from .sorting import key_sort_key

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

    # ------------------------------------------------------------------ helpers

    def _cleanup_time(self, window) -> int:
        if self._event_time:
            mt = window.max_timestamp()
            c = mt + self.allowed_lateness
            return c if c <= MAX_TIMESTAMP else MAX_TIMESTAMP
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

    def _add(self, sk, value, timestamp, record_id):
        if self._full:
            lst = self._contents.get(sk)
            if lst is None:
                lst = self._contents[sk] = [TimestampedValue(value, timestamp, record_id)]
            else:
                lst.append(TimestampedValue(value, timestamp, record_id))
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
        from .sorting import flink_sort, key_sort_key

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

    def process_element(self, key, timestamp: int, value, record_id=None) -> None:
        """Process one record (Flink's ``WindowOperator.processElement``)."""
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
            self._merge_key = key
            event_time = self._event_time
            lateness = self.allowed_lateness
            for window in windows:
                actual = mset.add_window(window, self._merge_current_key)
                if event_time:
                    # isWindowLate (inlined): cleanup time, overflow-guarded, <= watermark
                    cleanup = actual.end - 1 + lateness
                    if cleanup > MAX_TIMESTAMP:
                        cleanup = MAX_TIMESTAMP
                    if cleanup <= self._wm:
                        mset.retire_window(actual)
                        continue
                skipped = False
                sw = mset.get_state_window(actual)
                if sw is None:
                    raise RuntimeError(f"Window {actual} is not in in-flight window set.")
                sk = (key, sw)
                self._add(sk, value, timestamp, record_id)
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
                self._add(sk, value, timestamp, record_id)
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
        if skipped and self._event_time and wrap_long(timestamp + self.allowed_lateness) <= self._wm:
            # Flink's isElementLate, in Java long arithmetic (fixture edge10)
            self._late(key, timestamp, value, record_id)

    def _late(self, key, timestamp, value, record_id):
        if self.side_output_late:
            self._out.append(LateRecord(key, timestamp, value, record_id, self._wm, self._pt))
        else:
            self.num_late_records_dropped += 1

    def _make_fast_process_element(self):
        """Tumbling/sliding event-time windows + ``EventTimeTrigger`` + an incremental function
        (aggregate or reduce), accumulating or discarding: the steps of the general path with
        the assigner and trigger inlined (results are identical, the conformance and property
        tests run both). Windows are shared ``TimeWindow`` objects from a small cache; a
        window's timers are registered when it gets its first element (later registrations
        of the same timers are no-ops in Flink)."""
        op = self
        assigner = self.assigner
        tumbling = isinstance(assigner, TumblingEventTimeWindows)
        size = assigner.size
        off = assigner._eff_offset if tumbling else assigner.offset
        slide = size if tumbling else assigner.slide
        lateness = self.allowed_lateness
        contents = self._contents
        nrec = self._nrec
        timers = self._et
        heap, live = timers.heap, timers.live
        fn = self.function
        if isinstance(fn, AggregateFunction):
            create, add = fn.create_accumulator, fn.add
        else:
            reduce = fn.reduce
            FIRST = object()

            def create():
                return FIRST

            def add(value, acc):
                return value if acc is FIRST else reduce(acc, value)
        is_count = type(fn) is Count
        is_count_sum = type(fn) is CountSum
        track = self.track_records
        ids = self._ids
        keyed = self.keyed
        discarding = self._discarding
        emit = self._emit
        clear = self._clear_contents
        late = self._late
        wcache: dict = {}
        MAXT = MAX_TIMESTAMP
        MISSING = _ABSENT

        def process_element(key, timestamp, value, record_id=None):
            if not keyed:
                key = None
            if track and record_id is None:
                record_id = op._next_id
                op._next_id += 1
            wm = op._wm
            start = timestamp - (timestamp - off) % slide
            skipped = True
            lower = timestamp - size
            while start > lower:
                window = wcache.get(start)
                if window is None:
                    if len(wcache) > 65536:
                        wcache.clear()
                    window = wcache[start] = TimeWindow(start, start + size)
                start -= slide
                mt = window[1] - 1
                cleanup = mt + lateness
                if cleanup > MAXT:
                    cleanup = MAXT
                if cleanup <= wm:
                    continue
                skipped = False
                sk = (key, window)
                acc = contents.get(sk, MISSING)
                op._buffered += 1
                if acc is MISSING:
                    contents[sk] = add(value, create())
                    nrec[sk] = 1
                    if track:
                        ids[sk] = [record_id]
                    if mt > wm:
                        tk = (mt, key, window)
                        if tk not in live:
                            timers.seq += 1
                            live[tk] = timers.seq
                            heappush(heap, (mt, timers.seq, key, window))
                    if cleanup != MAXT and cleanup != mt:
                        tk = (cleanup, key, window)
                        if tk not in live:
                            timers.seq += 1
                            live[tk] = timers.seq
                            heappush(heap, (cleanup, timers.seq, key, window))
                else:
                    if is_count:
                        contents[sk] = acc + 1
                    elif is_count_sum:
                        acc[0] += 1
                        acc[1] += value
                    else:
                        contents[sk] = add(value, acc)
                    nrec[sk] += 1
                    if track:
                        ids[sk].append(record_id)
                if mt <= wm:
                    # EventTimeTrigger.onElement: the watermark is past the window: FIRE now
                    emit(key, window, sk, contents[sk], False)
                    if discarding:
                        clear(sk)
            if skipped and wrap_long(timestamp + lateness) <= wm:
                late(key, timestamp, value, record_id)

        def process_element_tumbling(key, timestamp, value, record_id=None):
            # the same steps for the single window of a tumbling assigner
            if not keyed:
                key = None
            if track and record_id is None:
                record_id = op._next_id
                op._next_id += 1
            wm = op._wm
            start = timestamp - (timestamp - off) % size
            window = wcache.get(start)
            if window is None:
                if len(wcache) > 65536:
                    wcache.clear()
                window = wcache[start] = TimeWindow(start, start + size)
            mt = start + size - 1
            cleanup = mt + lateness
            if cleanup > MAXT:
                cleanup = MAXT
            if cleanup <= wm:
                if wrap_long(timestamp + lateness) <= wm:
                    late(key, timestamp, value, record_id)
                return
            sk = (key, window)
            acc = contents.get(sk, MISSING)
            op._buffered += 1
            if acc is MISSING:
                contents[sk] = add(value, create())
                nrec[sk] = 1
                if track:
                    ids[sk] = [record_id]
                if mt > wm:
                    tk = (mt, key, window)
                    if tk not in live:
                        timers.seq += 1
                        live[tk] = timers.seq
                        heappush(heap, (mt, timers.seq, key, window))
                if cleanup != MAXT and cleanup != mt:
                    tk = (cleanup, key, window)
                    if tk not in live:
                        timers.seq += 1
                        live[tk] = timers.seq
                        heappush(heap, (cleanup, timers.seq, key, window))
            else:
                # the built-in Count/CountSum inlined (their add, exactly)
                if is_count:
                    contents[sk] = acc + 1
                elif is_count_sum:
                    acc[0] += 1
                    acc[1] += value
                else:
                    contents[sk] = add(value, acc)
                nrec[sk] += 1
                if track:
                    ids[sk].append(record_id)
            if mt <= wm:
                emit(key, window, sk, contents[sk], False)
                if discarding:
                    clear(sk)

        def process_watermark(watermark):
            """``process_watermark`` with ``EventTimeTrigger.onEventTime`` and the cleanup inlined."""
            if watermark <= op._wm:
                return
            op._wm = watermark
            ctx.current_watermark = watermark
            panes = op._panes
            while heap:
                ts, seq, key, window = heap[0]
                if ts > watermark:
                    break
                heappop(heap)
                tk = (ts, key, window)
                if live.get(tk) != seq:
                    continue
                del live[tk]
                sk = (key, window)
                mt = window[1] - 1
                if ts == mt:
                    acc = contents.get(sk, MISSING)
                    if acc is not MISSING:
                        emit(key, window, sk, acc, True)
                        if discarding:
                            clear(sk)
                cleanup = mt + lateness
                if cleanup > MAXT:
                    cleanup = MAXT
                if ts == cleanup:
                    clear(sk)
                    live.pop((mt, key, window), None)   # EventTimeTrigger.clear
                    panes.pop(sk, None)

        ctx = self._ctx
        return (process_element_tumbling if tumbling else process_element), process_watermark

    def _make_fast_session(self):
        """``EventTimeSessionWindows`` + ``EventTimeTrigger`` + an incremental function
        (aggregate or reduce), accumulating or discarding: the general merging path
        (``MergingWindowSet.add_window``'s built-in branch, ``_merge``, the trigger and the
        timer callbacks) inlined step for step, with the same timer registrations and removals
        in the same order, so outputs, their order and all state are identical (a property
        test runs both paths)."""
        op = self
        gap = self.assigner.gap
        lateness = self.allowed_lateness
        contents = self._contents
        nrec = self._nrec
        ids = self._ids
        msets = self._msets
        timers = self._et
        heap, live = timers.heap, timers.live
        fn = self.function
        is_agg = isinstance(fn, AggregateFunction)
        if is_agg:
            create, add, merge_acc = fn.create_accumulator, fn.add, fn.merge
        else:
            reduce = merge_acc = fn.reduce
            FIRST = object()

            def create():
                return FIRST

            def add(value, acc):
                return value if acc is FIRST else reduce(acc, value)
        is_count = type(fn) is Count
        is_count_sum = type(fn) is CountSum
        track = self.track_records
        keyed = self.keyed
        discarding = self._discarding
        emit = self._emit
        clear = self._clear_contents
        late = self._late
        panes_d = self._panes
        assigner = self.assigner
        MAXT = MAX_TIMESTAMP
        MISSING = _ABSENT
        TW = TimeWindow
        tuple_new = tuple.__new__
        MINT = MIN_TIMESTAMP
        new_mset = object.__new__       # a MergingWindowSet without re-inspecting the assigner

        def add_timer(ts, key, window):
            tk = (ts, key, window)
            if tk not in live:
                timers.seq += 1
                live[tk] = timers.seq
                heappush(heap, (ts, timers.seq, key, window))

        def merge(key, mapping, hits, new, ns):
            """A merge of ``new`` with the windows ``hits`` (>= 1, none equal to ``new``);
            returns the window the element belongs to."""
            if len(hits) == 1:
                h = hits[0]
                ordered = hits
                s0 = h[0] if h[0] < ns else ns
                e0 = h[1] if h[1] > new[1] else new[1]
            else:
                members = sorted(hits, key=_start)
                i = 0
                for w in members:
                    if w[0] > ns:
                        break
                    i += 1
                members.insert(i, new)
                s0 = min(w[0] for w in members)
                e0 = max(w[1] for w in members)
                ordered = java_hash_set_order(members)
                ordered.remove(new)
            merge_result = TW(s0, e0)
            msws = [mapping.pop(w) for w in ordered]
            sw_result = msws[0]
            mapping[merge_result] = sw_result
            if len(ordered) == 1 and ordered[0] == merge_result:
                return merge_result
            del msws[0]
            # WindowOperator._merge, inlined
            mt = e0 - 1
            wm = op._wm
            if wrap_long(mt + lateness) <= wm:
                raise RuntimeError(
                    "The end timestamp of an event-time window cannot become earlier than the current "
                    f"watermark by merging. Current watermark: {wm} window: {merge_result}")
            if mt > wm:
                add_timer(mt, key, merge_result)                    # EventTimeTrigger.onMerge
            for m in ordered:
                mmt = m[1] - 1
                live.pop((mmt, key, m), None)                       # EventTimeTrigger.clear
                c = mmt + lateness
                if c < MAXT:
                    live.pop((c, key, m), None)                     # the cleanup timer
            target = (key, sw_result)
            for sw in msws:
                sk = (key, sw)
                src = contents.pop(sk, MISSING)
                if src is MISSING:
                    continue
                cur = contents.get(target, MISSING)
                n = nrec.pop(sk, 0)
                rids = ids.pop(sk, None)
                contents[target] = src if cur is MISSING else merge_acc(cur, src)
                nrec[target] = nrec.get(target, 0) + n
                if rids is not None:
                    ids.setdefault(target, []).extend(rids)
            if panes_d:
                panes = [panes_d.pop((key, m)) for m in ordered if (key, m) in panes_d]
                if panes:
                    p = panes_d.get((key, merge_result))
                    if p is None:
                        p = panes_d[(key, merge_result)] = _Pane()
                    for q in panes:
                        p.next = max(p.next, q.next)
                        p.passed = p.passed or q.passed
                        if q.emitted:
                            p.emitted = (p.emitted or []) + q.emitted
            return merge_result

        def process_element(key, timestamp, value, record_id=None):
            if not keyed:
                key = None
            if track and record_id is None:
                record_id = op._next_id
                op._next_id += 1
            ne = timestamp + gap
            wm = op._wm
            merged = False
            mset = msets.get(key)
            if mset is None:
                cleanup = ne - 1 + lateness
                if cleanup > MAXT:
                    cleanup = MAXT
                if cleanup <= wm:
                    # the window alone is late: MergingWindowSet.addWindow then retireWindow
                    # leave no trace
                    x = timestamp + lateness                          # Java long sum
                    if (x if MINT <= x <= MAXT else wrap_long(x)) <= wm:
                        late(key, timestamp, value, record_id)
                    return
                mset = msets[key] = new_mset(MergingWindowSet)
                mset._assigner = assigner
                mset._builtin = True
                mapping = mset.mapping = {}
                actual = new = tuple_new(TW, (timestamp, ne))
                mapping[new] = new
            else:
                mapping = mset.mapping
                hit = None
                for w in mapping:
                    if w[0] <= ne and w[1] >= timestamp:
                        if hit is None:
                            hit = w
                        else:
                            hit = MISSING
                            break
                if hit is None:
                    cleanup = ne - 1 + lateness
                    if cleanup > MAXT:
                        cleanup = MAXT
                    if cleanup <= wm:
                        # a late window on its own: added, then retired at once (no trace)
                        x = timestamp + lateness                          # Java long sum
                        if (x if MINT <= x <= MAXT else wrap_long(x)) <= wm:
                            late(key, timestamp, value, record_id)
                        return
                new = tuple_new(TW, (timestamp, ne))
                if hit is None or hit == new:
                    mapping[new] = new
                    actual = new
                elif hit is MISSING:
                    actual = merge(key, mapping, [w for w in mapping if w[0] <= ne and w[1] >= timestamp],
                                   new, timestamp)
                else:
                    # one intersecting window: the merge of two, inlined
                    h0, h1 = hit
                    if h0 <= timestamp and h1 >= ne:
                        # inside it: the set is unchanged (Flink re-puts the window)
                        mapping[hit] = mapping.pop(hit)
                        actual = hit
                    else:
                        s0 = h0 if h0 < timestamp else timestamp
                        e0 = h1 if h1 > ne else ne
                        actual = tuple_new(TW, (s0, e0))
                        mapping[actual] = mapping.pop(hit)
                        mt = e0 - 1
                        x = mt + lateness
                        if (x if x <= MAXT else wrap_long(x)) <= wm:
                            raise RuntimeError(
                                "The end timestamp of an event-time window cannot become earlier than the "
                                f"current watermark by merging. Current watermark: {wm} window: {actual}")
                        if mt > wm:
                            merged = True                           # on_element's timer: a no-op
                            tk = (mt, key, actual)                  # EventTimeTrigger.onMerge
                            if tk not in live:
                                timers.seq += 1
                                live[tk] = timers.seq
                                heappush(heap, (mt, timers.seq, key, actual))
                        mmt = h1 - 1
                        live.pop((mmt, key, hit), None)             # EventTimeTrigger.clear
                        c = mmt + lateness
                        if c < MAXT:
                            live.pop((c, key, hit), None)           # the cleanup timer
                        if panes_d:
                            q = panes_d.pop((key, hit), None)
                            if q is not None:
                                pk = (key, actual)
                                p = panes_d.get(pk)
                                if p is None:
                                    p = panes_d[pk] = _Pane()
                                if q.next > p.next:
                                    p.next = q.next
                                p.passed = p.passed or q.passed
                                if q.emitted:
                                    p.emitted = (p.emitted or []) + q.emitted
            mt = actual[1] - 1
            cleanup = mt + lateness
            if cleanup > MAXT:
                cleanup = MAXT
            if cleanup <= wm:
                del mapping[actual]                                 # retire_window
                if not mapping:
                    del msets[key]
                x = timestamp + lateness                          # Java long sum
                if (x if MINT <= x <= MAXT else wrap_long(x)) <= wm:
                    late(key, timestamp, value, record_id)
                return
            sk = (key, mapping[actual])
            acc = contents.get(sk, MISSING)
            op._buffered += 1
            if acc is MISSING:
                contents[sk] = add(value, create())
                nrec[sk] = 1
                if track:
                    ids[sk] = [record_id]
            else:
                if is_count:
                    contents[sk] = acc + 1
                elif is_count_sum:
                    acc[0] += 1
                    acc[1] += value
                else:
                    contents[sk] = add(value, acc)
                nrec[sk] += 1
                if track:
                    rids = ids.get(sk)
                    if rids is None:
                        ids[sk] = [record_id]
                    else:
                        rids.append(record_id)
            if mt <= wm:
                # EventTimeTrigger.onElement: the watermark is past the window: FIRE now
                emit(key, actual, sk, contents[sk], False)
                if discarding:
                    clear(sk)
            elif not merged:
                tk = (mt, key, actual)
                if tk not in live:
                    timers.seq += 1
                    live[tk] = timers.seq
                    heappush(heap, (mt, timers.seq, key, actual))
            # the cleanup timer (when it equals the one at mt, that one is registered already)
            if cleanup != MAXT and cleanup != mt:
                tk = (cleanup, key, actual)
                if tk not in live:
                    timers.seq += 1
                    live[tk] = timers.seq
                    heappush(heap, (cleanup, timers.seq, key, actual))

        def process_watermark(watermark):
            """``process_watermark`` with ``_on_timer`` for this configuration inlined."""
            if watermark <= op._wm:
                return
            op._wm = watermark
            ctx.current_watermark = watermark
            while heap:
                ts, seq, key, window = heap[0]
                if ts > watermark:
                    break
                heappop(heap)
                tk = (ts, key, window)
                if live.get(tk) != seq:
                    continue
                del live[tk]
                mset = msets.get(key)
                if mset is None:
                    continue
                mapping = mset.mapping
                sw = mapping.get(window)
                if sw is None:
                    continue
                sk = (key, sw)
                mt = window[1] - 1
                if ts == mt:
                    acc = contents.get(sk, MISSING)
                    if acc is not MISSING:
                        emit(key, window, sk, acc, True)
                        if discarding:
                            clear(sk)
                cleanup = mt + lateness
                if cleanup > MAXT:
                    cleanup = MAXT
                if ts == cleanup:
                    clear(sk)
                    live.pop((mt, key, window), None)               # EventTimeTrigger.clear
                    panes_d.pop((key, window), None)
                    del mapping[window]                             # retire_window
                    if not mapping:
                        del msets[key]

        ctx = self._ctx
        return process_element, process_watermark


    # ------------------------------------------------------------------ merging

    def _merge_current_key(self, merge_result, merged_windows, state_window_result, merged_state_windows):
        self._merge(self._merge_key, merge_result, merged_windows, state_window_result, merged_state_windows)

    def _merge(self, key, merge_result, merged_windows, state_window_result, merged_state_windows):
        if self._event_time:
            # Java long arithmetic, as in Flink: with a huge lateness the sum wraps negative and
            # Flink throws here (checked with the oracle, fixture edge09)
            if wrap_long(merge_result.max_timestamp() + self.allowed_lateness) <= self._wm:
                raise RuntimeError(
                    "The end timestamp of an event-time window cannot become earlier than the current "
                    f"watermark by merging. Current watermark: {self._wm} window: {merge_result}")
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
        # fold the merged state windows into the kept one (target first, then sources in order)
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
        # pane bookkeeping follows the windows
        panes = [self._panes.pop((key, m)) for m in merged_windows if (key, m) in self._panes]
        if panes:
            p = self._panes.get((key, merge_result))
            if p is None:
                p = self._panes[(key, merge_result)] = _Pane()
            for q in panes:
                p.next = max(p.next, q.next)
                p.passed = p.passed or q.passed
                if q.emitted:
                    p.emitted = (p.emitted or []) + q.emitted

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
        self._panes.pop((key, window), None)
        if mset is not None:
            mset.retire_window(window)
            if not mset.mapping:
                del self._msets[key]

    # ------------------------------------------------------------------ emission

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
                    pctx = ProcessContext(key, window, self._wm, self._pt, pane.next, timing)
                    value = fn.process.process(key, pctx, [value])
            else:
                pctx = ProcessContext(key, window, self._wm, self._pt, pane.next, timing)
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
                pctx = ProcessContext(key, window, self._wm, self._pt, pane.next, timing)
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


def _start(w):
    return w[0]
