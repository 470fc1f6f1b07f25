"""The replay loop: a recorded log becomes records and watermarks over processing time.

Input: numpy arrays in **arrival order** (``event_time``, ``arrival_time``, ``partition``, and
for the operator ``key``, ``value``, ``record_id``). Model (docs/design.md "Time and replay model"):

- every partition has its own generator (``strategy.create()``); partition ``p`` is read by
  source subtask ``p % parallelism`` (:mod:`toolkit.engine.flink.sources`), each subtask feeds one
  channel of the window operator's :class:`~toolkit.engine.flink.valve.StatusWatermarkValve`;
- periodic ticks at ``first_arrival + k * interval`` (k >= 1) up to the first tick at or after
  the last arrival; records with arrival ``<= T`` are processed before the tick at ``T``;
  only the ticks that can change something are run (:func:`tick_schedule`, idleness
  countdowns followed to their expiry; for a watermark that moves with processing time, the
  calls that reach one of the operator's timers, :func:`window_timer_targets`, found in
  closed form, :mod:`toolkit.engine.flink.jumps`), so cost follows the records, not the time span;
  at a tick every subtask asks its partitions' generators (partition order) and combines them;
  ``interval == 0`` = a periodic call after every record, at its arrival time;
- end of input: the operator gets the MAX watermark; what fires then is flagged ``at_end``.

(Flink itself reads ``pipeline.auto-watermark-interval = 0`` as "no periodic emission";
Watermark Lab's 0 means a periodic call after every record, as docs/design.md states.) Each piece
is checked against real Flink: generators + emitter and the valve line by line (oracle
fixtures), the operator on the exported interleaving (window oracle). The composition
(per-split multiplexing inside a subtask, subtasks into the valve) follows Flink's
``ProgressiveTimestampsAndWatermarks``/``WatermarkOutputMultiplexer`` source code.

Two phases. :func:`watermark_timeline` computes where the operator's watermark changes
(vectorized with numpy for bounded out-of-orderness / monotonous generators without
idleness; a loop over ticks, never over records one by one unless a generator emits on events,
otherwise). :func:`run_pipeline` then feeds records and those watermark changes to a
chain of window operators (a second stage is just a second operator). Replays and the
sweep's engine path both run through it; the sweep's closed form reads the same timeline
(``toolkit.engine.flink.timeline.WatermarkTimeline``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from toolkit.engine.flink.jumps import (
    can_jump,
    next_jump,
    next_wakeup,
    window_timer_targets,  # noqa: F401 - re-exported: toolkit/settings.py imports it from here
)
from toolkit.engine.flink.sources import SPLIT_DISCOVERY, SourceSubtask, subtask_partitions
from toolkit.engine.flink.timeline import PeriodicTicks, TimerTargets, WatermarkTimeline, empty_timeline, from_changes
from toolkit.engine.flink.valve import StatusWatermarkValve
from toolkit.engine.flink.watermarks import (
    MAX_WATERMARK,
    MIN_WATERMARK,
    BoundedOutOfOrderness,
    Monotonous,
    WatermarkStrategy,
)

I64 = np.int64


# ----------------------------------------------------------------------------------------
# tick schedule
# ----------------------------------------------------------------------------------------


def tick_count(first: int, last: int, interval: int) -> int:
    """How many periodic calls a replay makes: ``K``, the first ``k >= 1`` with
    ``first + k * interval >= last`` (``interval > 0``)."""
    return max(1, -(-(int(last) - int(first)) // int(interval)))


def tick_index(arrival: np.ndarray, first: int, interval: int) -> np.ndarray:
    """Index ``k >= 1`` of the first periodic call at or after each arrival (``interval > 0``)."""
    rel = np.asarray(arrival, dtype=I64) - I64(first)
    return np.maximum(-(-rel // I64(interval)), 1)


def tick_schedule(arrival: np.ndarray, interval: int) -> tuple[np.ndarray, np.ndarray]:
    """The periodic calls that can change something, and per call how many records (arrival
    order) come before it.

    ``interval > 0``: the calls sit at ``first + k*interval``, k = 1..K (:func:`tick_count`);
    listed are the first call at or after each arrival and the call after it (the first one
    with no new record), never the calls in between records' buckets: with no new record
    they emit nothing new (idleness countdowns are followed by the loop itself). So the
    schedule has at most two calls per record, whatever the span. ``interval == 0``: one
    call after every record.
    """
    n = len(arrival)
    if interval < 0:
        raise ValueError(f"interval must not be negative, got {interval}")
    if n == 0:
        return np.zeros(0, I64), np.zeros(0, I64)
    if interval == 0:
        return arrival.astype(I64, copy=True), np.arange(1, n + 1, dtype=I64)
    first, last = int(arrival[0]), int(arrival[-1])
    k_last = tick_count(first, last, interval)
    kb = np.unique(tick_index(arrival, first, interval))
    k = np.union1d(kb, np.minimum(kb + 1, k_last))
    ticks = I64(first) + I64(interval) * k
    pos = np.searchsorted(arrival, ticks, side="right").astype(I64)
    return ticks, pos


# ----------------------------------------------------------------------------------------
# watermark timeline
# ----------------------------------------------------------------------------------------


def _plain_bounded_subtract(strategy: WatermarkStrategy) -> int | None:
    if isinstance(strategy, BoundedOutOfOrderness):
        return strategy.subtract
    if isinstance(strategy, Monotonous):
        return 1
    return None


def _check_inputs(event_time: np.ndarray, arrival: np.ndarray, partition: np.ndarray) -> None:
    if not (len(event_time) == len(arrival) == len(partition)):
        raise ValueError("event_time, arrival_time and partition must have the same length")
    if len(arrival) > 1 and np.any(np.diff(arrival) < 0):
        raise ValueError("records must be given in arrival order (arrival_time non-decreasing)")
    if len(partition) and partition.min() < 0:
        raise ValueError("partitions must be non-negative integers")


def watermark_timeline(
    event_time: np.ndarray,
    arrival_time: np.ndarray,
    partition: np.ndarray | None,
    strategy: WatermarkStrategy,
    *,
    interval: int = 200,
    parallelism: int = 1,
    marker: np.ndarray | None = None,
    force_general: bool = False,
    with_log: bool = True,
    rows: np.ndarray | None = None,
    last_arrival: int | None = None,
    targets: TimerTargets | None = None,
    partitions: "np.ndarray | list[int] | None" = None,
    split_discovery: str = "at_start",
) -> WatermarkTimeline:
    """Compute the operator's input watermark over processing time (see module doc).

    Inputs in arrival order; ``rows`` (default ``0..n-1``) are the records' row ids, which
    place a change that comes right after a record (``toolkit.engine.flink.timeline``).
    ``last_arrival``: when the arrays hold only the records that can move a watermark (a
    sweep's candidates), the true last arrival, which sets the end of input.

    ``targets``: for a watermark that moves with processing time (``time_lag``,
    ``idle_advance``, with or without idleness), the operator's event-time timers
    (:func:`window_timer_targets`). Given, the calls between records are run only where they
    can change something (:func:`toolkit.engine.flink.jumps.next_jump`): the first call at which the watermark reaches
    the next target, the call just before the next record, an idleness expiry, the last
    call; so the timeline lists the changes that fire a timer or that a record sees, and
    grows with the records, not with the span. Without it every call is run (the timeline
    then lists every advance, one per call).

    ``partitions``: the source partitions (splits) the job reads, when some have no record at
    all: such a split gets a generator like the others, which keeps its subtask's watermark at
    MIN until idleness marks it idle (Flink's ``WatermarkOutputMultiplexer``; oracle fixtures
    ``wm09_no_records_idleness``, ``silent_split_holds_until_idle``).

    ``split_discovery``: when each partition's split is registered in its source subtask
    (``toolkit.engine.flink.sources.SPLIT_DISCOVERY``): ``"at_start"`` (every partition at job
    start) or ``"at_first_record"`` (just before its first record, Flink's dynamic split
    assignment: until then the partition holds nothing back)."""
    ts = np.ascontiguousarray(event_time, dtype=I64)
    arr = np.ascontiguousarray(arrival_time, dtype=I64)
    part = np.zeros(len(ts), I64) if partition is None else np.ascontiguousarray(partition, dtype=I64)
    _check_inputs(ts, arr, part)
    if parallelism < 1:
        raise ValueError(f"source parallelism must be >= 1, got {parallelism}")
    if split_discovery not in SPLIT_DISCOVERY:
        raise ValueError(f"split discovery must be one of {SPLIT_DISCOVERY}, got {split_discovery!r}")
    ticks, pos = tick_schedule(arr, interval)
    sub = _plain_bounded_subtract(strategy)
    parts = _partition_ids(part, partitions)
    if sub is not None and not force_general and split_discovery == "at_start":
        got = _bounded_fast(ts, arr, part, sub, ticks, pos, interval, parallelism, with_log, parts)
    else:  # the vectorised path registers every split at the start
        got = _general(ts, arr, part, strategy, ticks, pos, interval, parallelism, marker, with_log, parts, targets,
                       split_discovery)
    ticks, pos, tick_wm, c_pos, c_time, c_wm, log = got
    n = len(arr)
    if n == 0:
        return empty_timeline()
    first = int(arr[0])
    last = int(arr[-1]) if last_arrival is None else int(last_arrival)
    end = end_time_of(first, last, interval)
    grid = PeriodicTicks(np.asarray(ticks, dtype=I64), np.asarray(tick_wm, dtype=I64), first, interval,
                         tick_count(first, int(arr[-1]), interval) if interval > 0 else len(arr))
    return from_changes(c_pos, c_time, c_wm, arr, np.arange(n, dtype=I64) if rows is None else rows, first, end,
                        ticks=grid, log=log)


def end_time_of(first: int, last: int, interval: int) -> int:
    """When the end-of-input watermark comes: the replay's last periodic tick (the first at or
    after the last arrival), or the last arrival with ``interval`` 0."""
    if interval <= 0 or last <= first:
        return first + interval if interval > 0 else last
    return first + interval * (-(-(last - first) // interval))


def _partition_ids(part: np.ndarray, declared=None) -> np.ndarray:
    """The partitions with records, plus the declared ones without (sorted)."""
    have = np.unique(part) if len(part) else np.zeros(1, I64)
    if declared is None:
        return have
    declared = np.asarray(declared, dtype=I64)
    if len(part) and not np.isin(have, declared).all():
        raise ValueError(f"partitions: partition {int(have[~np.isin(have, declared)][0])} has records but is not "
                         f"among the declared partitions {declared.tolist()}")
    return np.union1d(have if len(part) else np.zeros(0, I64), declared).astype(I64)


def _per_tick_partition_max(ts, arr, part, ticks, interval, parts):
    """K x P array: running max event time per partition after each tick (MIN = none yet)."""
    k = len(ticks)
    pidx = np.searchsorted(parts, part)
    if interval == 0:
        tk = np.arange(len(ts), dtype=I64)
    else:
        tk = np.searchsorted(ticks, arr, side="left")
    m = np.full((k, len(parts)), MIN_WATERMARK, dtype=I64)
    # records sorted by arrival, so (tk, pidx) groups: max by sorting on a flat key
    flat = tk * len(parts) + pidx
    order = np.lexsort((ts, flat))
    fs = flat[order]
    last = np.flatnonzero(np.r_[fs[1:] != fs[:-1], True])
    m.reshape(-1)[fs[last]] = ts[order][last]
    np.maximum.accumulate(m, axis=0, out=m)
    return m


def _changes_1d(values: np.ndarray) -> np.ndarray:
    """Indices where a non-decreasing series rises above its previous value (and above MIN)."""
    prev = np.r_[MIN_WATERMARK, values[:-1]]
    return np.flatnonzero(values > prev)


def _bounded_fast(ts, arr, part, subtract, ticks, pos, interval, parallelism, with_log, parts) -> tuple:
    m = _per_tick_partition_max(ts, arr, part, ticks, interval, parts) if len(ticks) else np.zeros((0, len(parts)), I64)
    # Flink's generator starts its max at MIN + subtract: a record below that (a Long.MIN + 1
    # sentinel) leaves the watermark at MIN instead of wrapping round to near Long.MAX
    wm = np.maximum(m, np.int64(MIN_WATERMARK + subtract)) - np.int64(subtract)
    groups = subtask_partitions(parts, parallelism)
    col = {int(p): j for j, p in enumerate(parts.tolist())}
    sub_wm = []
    for g in groups:
        if g:
            sub_wm.append(wm[:, [col[p] for p in g]].min(axis=1))
    op = np.minimum.reduce(sub_wm) if sub_wm else np.full(len(ticks), MIN_WATERMARK, I64)
    # the valve sees the subtasks one after another at each tick: intermediate minima are real
    # operator watermarks too (a window fired by one of them reports it)
    if len(sub_wm) > 1 and len(ticks):
        sw = np.stack(sub_wm, axis=1)  # K x S
        prev = np.vstack([np.full((1, sw.shape[1]), MIN_WATERMARK, I64), sw[:-1]])
        pre = np.minimum.accumulate(sw, axis=1)
        suf = np.minimum.accumulate(prev[:, ::-1], axis=1)[:, ::-1]  # suf[:, s] = min prev[:, s:]
        cand = pre.copy()
        cand[:, :-1] = np.minimum(pre[:, :-1], suf[:, 1:])
        flat = cand.reshape(-1)
        run = np.maximum.accumulate(flat)
        fi = _changes_1d(run)
        rows = fi // sw.shape[1]
        c_pos, c_time, c_wm = pos[rows], ticks[rows], run[fi]
    else:
        ch = _changes_1d(op)
        c_pos, c_time, c_wm = pos[ch], ticks[ch], op[ch]
    log: list[tuple[str, int, int, int | None, str]] = []
    if with_log:
        for j, p in enumerate(parts.tolist()):
            for i in _changes_1d(wm[:, j]).tolist():
                log.append(("partition", int(p), int(ticks[i]), int(wm[i, j]), "active"))
        si = 0
        for s, g in enumerate(groups):
            if not g:
                log.append(("subtask", s, int(arr[0]) if len(arr) else 0, None, "idle"))
                continue
            w = sub_wm[si]
            si += 1
            for i in _changes_1d(w).tolist():
                log.append(("subtask", s, int(ticks[i]), int(w[i]), "active"))
        for t_, w_ in zip(c_time.tolist(), c_wm.tolist()):
            log.append(("operator", 0, int(t_), int(w_), "active"))
        log.sort(key=lambda r: r[2])
    return ticks, pos, op, c_pos, c_time, c_wm, log


class _Recorder:
    """Collects operator changes and per-level logs while the general loop runs."""

    def __init__(self, with_log: bool) -> None:
        self.time = 0
        self.pos = 0
        self.with_log = with_log
        self.op_wm = MIN_WATERMARK
        self.pos_l: list[int] = []
        self.time_l: list[int] = []
        self.wm_l: list[int] = []
        self.log: list[tuple[str, int, int, int | None, str]] = []
        self.op_idle = False

    def subtask_downstream(self, s: int, valve: StatusWatermarkValve) -> Callable[[str, object], None]:
        feed = valve.channel_input(s)
        if not self.with_log:
            return feed
        state = {"wm": MIN_WATERMARK, "status": "active"}

        def f(kind: str, value: object) -> None:
            if kind == "watermark":
                state["wm"] = value
            else:
                state["status"] = value
            self.log.append(("subtask", s, self.time, None if state["wm"] == MIN_WATERMARK else state["wm"], state["status"]))
            feed(kind, value)

        return f

    def valve_output(self, kind: str, value: object) -> None:
        if kind == "watermark":
            self.op_wm = value  # type: ignore[assignment]
            self.pos_l.append(self.pos)
            self.time_l.append(self.time)
            self.wm_l.append(value)  # type: ignore[arg-type]
        else:
            self.op_idle = value == "idle"
        if self.with_log:
            self.log.append(
                ("operator", 0, self.time, None if self.op_wm == MIN_WATERMARK else self.op_wm, "idle" if self.op_idle else "active")
            )


def _general(ts, arr, part, strategy, ticks, pos, interval, parallelism, marker, with_log, parts, targets=None,
             discovery="at_start") -> tuple:
    """Any strategy, idleness, split discovery: each source subtask's generators and the valve
    run call by call (only the calls that can change something when ``targets`` allow jumps);
    returns the calls, their records and watermarks, the changes and the log (see
    :func:`watermark_timeline`)."""
    rec = _Recorder(with_log)
    valve = StatusWatermarkValve(parallelism, rec.valve_output)
    rec.time = int(arr[0]) if len(arr) else 0
    subtasks = [SourceSubtask(s, g, strategy, rec.subtask_downstream(s, valve), discovery=discovery)
                for s, g in enumerate(subtask_partitions(parts, parallelism))]
    sub_of = {p: subtasks[p % parallelism] for p in parts.tolist()}
    all_gens = [gen for st in subtasks for gen in st.generators.values()]
    # (with splits registered at their first record there may be no generator yet)
    per_event = any(gen.emits_on_event for gen in all_gens) or (discovery != "at_start" and strategy.create().emits_on_event)
    needs_pt = strategy.needs_processing_time
    mk = np.zeros(len(ts), bool) if marker is None else np.asarray(marker, bool)
    log_partition, log_partitions = _partition_loggers(rec, subtasks, parts)
    n = len(ts)
    first = int(arr[0]) if n else 0
    rec_tick, k_last, r_k, r_pos = _record_calls(arr, first, interval)
    g_tick, g_part, g_start, g_end, ts_o, arr_o = _call_groups(ts, arr, part, rec_tick, batched=not per_event)
    t_list: list[int] = []
    wm_list: list[int] = []
    pos_list: list[int] = []
    gi = 0
    ng = len(g_tick)
    ri = 0  # next call with records
    lo = 0
    t = r_k[0] if r_k else None
    then: int | None = None  # a call to run right after this one (a jump's target)
    jumping = targets is not None and interval > 0 and needs_pt
    while t is not None:
        T = int(arr[t]) if interval == 0 else first + t * interval
        has_rec = ri < len(r_k) and r_k[ri] == t
        hi = r_pos[ri] if has_rec else lo
        if has_rec:
            ri += 1
        if per_event:
            for i in range(lo, hi):
                rec.time = int(arr[i])
                rec.pos = i + 1
                p = int(part[i])
                st_ = sub_of[p]
                st_.on_event(p, int(ts[i]), rec.time, bool(mk[i]))
                if with_log:  # an event only changes its own partition's state
                    log_partition(p, st_.states[p])
        else:
            while gi < ng and g_tick[gi] == t:
                p = g_part[gi]
                a, b = g_start[gi], g_end[gi]
                sub_of[p].on_events(p, ts_o[a:b], arr_o[a:b])
                gi += 1
        if has_rec and discovery != "at_start":  # splits registered by these records
            all_gens = [gen for st in subtasks for gen in st.generators.values()]
        rec.time = T
        rec.pos = hi
        for st in subtasks:
            st.on_periodic_emit(T)
        if with_log:
            log_partitions()
        t_list.append(T)
        wm_list.append(rec.op_wm)
        pos_list.append(hi)
        lo = hi
        # the next call that can change something: the next one after records, while an
        # idleness countdown runs (or jumps to where it ends), else the next one with records
        nxt = r_k[ri] if ri < len(r_k) else None
        if t >= k_last:
            t = None
        elif then is not None:
            t, then = then, None
        elif nxt is not None and nxt == t + 1:
            t = t + 1
        elif jumping and not all(g.quiescent() for g in all_gens) and can_jump(all_gens, valve):
            k = next_jump(subtasks, valve, targets, rec.op_wm, t, nxt, k_last, first, interval)
            if k > t + 1 and len(subtasks) > 1:
                # run the call before it too: the valve then holds what every skipped call
                # left (with several channels, a call's intermediate minima depend on it)
                for g in all_gens:
                    g.skip_calls(t, k - 1, first, interval)
                t, then = k - 1, k
            else:
                for g in all_gens:
                    g.skip_calls(t, k, first, interval)
                t = k
        elif has_rec:
            t = t + 1
        elif needs_pt and not all(g.quiescent() for g in all_gens):
            w = next_wakeup(all_gens, t, first, interval)
            t = w if nxt is None else min(w, nxt)
        else:
            t = nxt
    return (np.asarray(t_list, dtype=I64), np.asarray(pos_list, dtype=I64), np.asarray(wm_list, dtype=I64),
            np.asarray(rec.pos_l, dtype=I64), np.asarray(rec.time_l, dtype=I64), np.asarray(rec.wm_l, dtype=I64),
            rec.log)


def _partition_loggers(rec: _Recorder, subtasks: list[SourceSubtask], parts: np.ndarray) -> tuple[Callable, Callable]:
    """Partition-level change detection (the state of each PartialWatermark): ``log_partition(p,
    state)`` logs partition ``p`` when its (watermark, idle) changed; ``log_partitions()`` every one."""
    last_part: dict[int, tuple[int, bool]] = {p: (MIN_WATERMARK, False) for p in parts.tolist()}

    def log_partition(p: int, s: Any) -> None:
        cur = (s.watermark, s.idle)
        if cur != last_part[p]:
            last_part[p] = cur
            rec.log.append(("partition", p, rec.time, None if s.watermark == MIN_WATERMARK else s.watermark, "idle" if s.idle else "active"))

    def log_partitions() -> None:
        for st in subtasks:
            for p, s in st.states.items():
                log_partition(p, s)

    return log_partition, log_partitions


def _record_calls(arr: np.ndarray, first: int, interval: int) -> tuple[np.ndarray, int, list[int], list[int]]:
    """The call each record is seen by, the last call, the calls with records and how many
    records precede each: calls are grid indices k (interval > 0: the call at
    ``first + k*interval``) or record positions (interval 0)."""
    n = len(arr)
    if interval == 0:
        rec_tick = np.arange(n, dtype=I64)
        k_last = n - 1
    else:
        rec_tick = tick_index(arr, first, interval) if n else np.zeros(0, I64)
        k_last = tick_count(first, int(arr[-1]), interval) if n else 0
    r_k = np.unique(rec_tick) if n else np.zeros(0, I64)
    r_pos = (np.searchsorted(rec_tick, r_k, side="right") if n else r_k).tolist()
    return rec_tick, k_last, r_k.tolist(), r_pos


def _call_groups(ts: np.ndarray, arr: np.ndarray, part: np.ndarray, rec_tick: np.ndarray, *, batched: bool) -> tuple:
    """Records grouped by (call, partition) for batched ``on_events``: each group's call,
    partition, start and end in the reordered ``ts`` and ``arr`` (no groups unless ``batched``)."""
    if not (batched and len(ts)):
        return [], [], None, None, None, None
    order = np.lexsort((part, rec_tick))
    tk_o = rec_tick[order]
    po = part[order]
    bounds = np.flatnonzero(np.r_[True, (tk_o[1:] != tk_o[:-1]) | (po[1:] != po[:-1]), True])
    g_start = bounds[:-1]
    g_end = bounds[1:]
    return tk_o[g_start].tolist(), po[g_start].tolist(), g_start, g_end, ts[order], arr[order]


# ----------------------------------------------------------------------------------------
# feeding the window operator
# ----------------------------------------------------------------------------------------


@dataclass
class PipelineResult:
    """What :func:`run_pipeline` collected (plain Python/numpy; the edge makes DataFrames)."""

    timeline: WatermarkTimeline
    outputs: list[tuple[int, bool, Any]]  # (stage, at_end, item) in emission order
    state: list[tuple]  # see run_pipeline's ``state``
    end_time: int
    stage_watermarks: list[tuple[int, str, int, int]]  # (stage, "input"|"output", time, watermark)
    stage_inputs: dict[int, list[tuple]] = field(default_factory=dict)  # stage -> ("record", key, ts, value) | ("watermark", w)
    exact_state: list[tuple] | None = None  # the exact samples (``state="exact"`` or ``"both"``), else None

    @property
    def stage2_input(self) -> list[tuple]:
        return self.stage_inputs.get(2, [])


def run_pipeline(
    timeline: WatermarkTimeline,
    keys: list[Any] | np.ndarray,
    event_time: np.ndarray,
    arrival_time: np.ndarray,
    values: np.ndarray,
    record_ids: np.ndarray,
    stages: list[Callable[[], Any]],
    *,
    rows: np.ndarray | None = None,
    connect: Callable[[Any], tuple[Any, int, Any] | None] | None = None,
    state: str = "ticks",
    state_samples: int = 5000,
) -> PipelineResult:
    """Feed records (arrival order) and the timeline's watermark changes through a chain of
    window operators: the one driver of replays and of the sweep's engine path.

    ``stages`` are factories of fresh operators with ``process_element(key, ts, value,
    record_id)``, ``process_watermark(wm)``, ``advance_processing_time(t)``, ``end_input()``,
    ``drain()`` and ``state_size()``. Before record ``i`` every change that precedes it (the
    timeline's ordering rule, by ``(arrival, rows)``; ``rows`` default ``record_ids``) is
    applied at its time. Stage ``j + 1`` receives every result of stage ``j`` that
    ``connect`` maps to ``(key, ts, value)`` (others are not forwarded), and stage ``j``'s
    watermark after stage ``j`` processed it. The end of input is the MAX watermark at
    ``timeline.end_time``; what it fires is flagged ``at_end``.

    ``state``: ``"ticks"`` samples the first stage's ``(time, open_windows, buffered)`` at
    (at most ``state_samples``) periodic ticks and at the end (a replay's state table);
    ``"exact"`` samples after every record and every change as ``(pos, arrival, row, time,
    open_windows, buffered)`` with ``pos = 2 * changes before`` for a record and ``2k + 1``
    for change ``k`` (the sweep's exactly mergeable state figures); ``"both"`` takes both: the
    ticks in ``state``, the exact samples in ``exact_state`` (a replay that also gives its
    summary figures). ``exact_state`` holds the exact samples in ``"exact"`` mode too.
    """
    if state not in ("ticks", "exact", "both"):
        raise ValueError(f"state must be 'ticks', 'exact' or 'both', got {state!r}")
    ops = [make() for make in stages]
    if not ops:
        raise ValueError("a pipeline needs at least one stage")
    n = len(event_time)
    arr_np = np.asarray(arrival_time, dtype=I64)
    rows_np = np.asarray(record_ids if rows is None else rows, dtype=I64)
    cols = _record_lists(keys, event_time, arr_np, values, record_ids)
    exact = state != "ticks"
    rows_l = rows_np.tolist() if exact else None
    multi = len(ops) > 1
    samples: list[tuple] = []  # exact samples (exact, both modes)
    ticks: list[tuple] = samples if state == "ticks" else []  # the state table at ticks (ticks, both modes)
    outputs, stage_wm, inputs, forward, watermark, set_time = _stage_chain(ops, connect)
    first = ops[0]
    last_pt = None
    i = 0
    k_change = 0
    for p, t, kind, w in _between_records(timeline, arr_np, rows_np, n, state != "exact", state_samples):
        if i < p:
            last_pt = _feed(first, forward, set_time, cols, rows_l, i, p, last_pt, 2 * k_change, samples,
                            exact=exact, multi=multi)
            i = p
        if t != last_pt:
            set_time(t)
            last_pt = t
        if kind == 0:
            watermark(w, t)
            if exact:
                o, b = first.state_size()
                samples.append((2 * k_change + 1, 0, 0, t, o, b))
            k_change += 1
        else:
            o, b = first.state_size()
            ticks.append((t, o, b))
    last_pt = _feed(first, forward, set_time, cols, rows_l, i, n, last_pt, 2 * k_change, samples, exact=exact, multi=multi)
    end_time = int(timeline.end_time)
    _end_of_input(ops, forward, set_time, stage_wm, ticks, end_time, last_pt, with_ticks=state != "exact")
    return PipelineResult(timeline, outputs, samples if state == "exact" else ticks, end_time, stage_wm, inputs,
                          samples if exact else None)


def _record_lists(keys: Any, event_time: np.ndarray, arr_np: np.ndarray, values: Any,
                  record_ids: np.ndarray) -> tuple[list, list, list, list, list]:
    """The records' keys, event times, arrivals, values and ids as Python lists (the loops
    index them one record at a time)."""
    rid_l = np.asarray(record_ids).tolist()
    ts_l = np.asarray(event_time, dtype=I64).tolist()
    arr_l = arr_np.tolist()
    val_l = values.tolist() if isinstance(values, np.ndarray) else list(values)
    key_l = keys.tolist() if isinstance(keys, np.ndarray) else list(keys)
    return key_l, ts_l, arr_l, val_l, rid_l


def _stage_chain(ops: list[Any], connect: Callable[[Any], tuple[Any, int, Any] | None] | None) -> tuple:
    """What the stages emit and see, and how they are driven: ``(outputs, stage_wm, inputs,
    forward, watermark, set_time)``. ``forward(j, items, at_end)`` records stage j's results and
    feeds stage j + 1 (results as they come); ``watermark(w, t)`` passes a watermark down the
    chain; ``set_time(t)`` sets every stage's processing time."""
    outputs: list[tuple[int, bool, Any]] = []
    stage_wm: list[tuple[int, str, int, int]] = []
    inputs: dict[int, list[tuple]] = {j + 2: [] for j in range(len(ops) - 1)}

    def forward(j: int, items: list[Any], at_end: bool) -> None:
        """Stage j's results: record them, then feed stage j + 1 (results as they come)."""
        for it in items:
            outputs.append((j + 1, at_end, it))
            if j + 1 < len(ops) and connect is not None:
                m = connect(it)
                if m is not None:
                    inputs[j + 2].append(("record",) + tuple(m))
                    ops[j + 1].process_element(*m)
                    forward(j + 1, ops[j + 1].drain(), at_end)

    def watermark(w: int, t: int) -> None:
        for j, op in enumerate(ops):
            if j:
                inputs[j + 1].append(("watermark", w))
            stage_wm.append((j + 1, "input", t, w))
            op.process_watermark(w)
            forward(j, op.drain(), False)
            stage_wm.append((j + 1, "output", t, w))

    def set_time(t: int) -> None:
        for op in ops:
            op.advance_processing_time(t)

    return outputs, stage_wm, inputs, forward, watermark, set_time


def _between_records(timeline: WatermarkTimeline, arr_np: np.ndarray, rows_np: np.ndarray, n: int, with_ticks: bool,
                     state_samples: int) -> list[tuple[int, int, int, int]]:
    """One ordered list of what happens between records: ``(records before, time, kind, payload)``
    with kind 0 a watermark change (payload: the watermark) and kind 1, ``with_ticks``, a state
    sample at a periodic tick (after the records and the change at that time)."""
    c_time = timeline.shape.time.tolist()
    c_wm = timeline.watermark.tolist()
    n_changes = len(c_time)
    seg = timeline.ticks_before(arr_np, rows_np) if n else np.zeros(0, dtype=I64)
    c_pos = np.searchsorted(seg, np.arange(n_changes, dtype=I64), side="right").tolist()
    sample_at: list[tuple[int, int]] = []
    if with_ticks and len(timeline.ticks):
        t_s = timeline.ticks.sample(state_samples)[0]
        sample_at = list(zip(np.searchsorted(arr_np, t_s, side="right").tolist(), t_s.tolist()))
    events = [(p, t, 0, w) for p, t, w in zip(c_pos, c_time, c_wm)] + [(p, t, 1, 0) for p, t in sample_at]
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    return events


def _feed(first: Any, forward: Callable, set_time: Callable, cols: tuple[list, ...], rows_l: list | None,
          i: int, p: int, last_pt: int | None, pos: int, samples: list[tuple], *, exact: bool,
          multi: bool) -> int | None:
    """Records ``i`` to ``p`` through the first stage, then its results forwarded; returns the
    last processing time set. Several stages: each result is forwarded as it comes (the next
    stage sees it at that processing time). ``exact``: a state sample ``(pos, arrival, row,
    arrival, open_windows, buffered)`` after every record. One stage: the results are forwarded
    in order after the batch (the same order, fewer calls)."""
    key_l, ts_l, arr_l, val_l, rid_l = cols
    pe = first.process_element
    if multi:
        for j in range(i, p):
            a = arr_l[j]
            if a != last_pt:
                set_time(a)
                last_pt = a
            pe(key_l[j], ts_l[j], val_l[j], rid_l[j])
            forward(0, first.drain(), False)
            if exact:
                o, b = first.state_size()
                samples.append((pos, a, rows_l[j], a, o, b))
    elif exact:
        size = first.state_size
        for j in range(i, p):
            a = arr_l[j]
            if a != last_pt:
                set_time(a)
                last_pt = a
            pe(key_l[j], ts_l[j], val_l[j], rid_l[j])
            o, b = size()
            samples.append((pos, a, rows_l[j], a, o, b))
    else:
        spt = first.advance_processing_time
        for a, k_, t_, v_, r_ in zip(arr_l[i:p], key_l[i:p], ts_l[i:p], val_l[i:p], rid_l[i:p]):
            if a != last_pt:
                spt(a)
                last_pt = a
            pe(k_, t_, v_, r_)
    forward(0, first.drain(), False)
    return last_pt


def _end_of_input(ops: list[Any], forward: Callable, set_time: Callable, stage_wm: list[tuple], ticks: list[tuple],
                  end_time: int, last_pt: int | None, *, with_ticks: bool) -> None:
    """The MAX watermark at ``end_time`` through every stage (what it fires is ``at_end``);
    ``with_ticks``, the first stage's state before and after it in ``ticks``."""
    first = ops[0]
    if end_time != last_pt:
        set_time(end_time)
    if with_ticks:
        o, b = first.state_size()
        ticks.append((end_time, o, b))
    for j, op in enumerate(ops):
        stage_wm.append((j + 1, "input", end_time, MAX_WATERMARK))
        op.end_input()
        forward(j, op.drain(), True)
        stage_wm.append((j + 1, "output", end_time, MAX_WATERMARK))
    if with_ticks:
        o, b = first.state_size()
        ticks.append((end_time, o, b))
