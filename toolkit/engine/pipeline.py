"""The replay loop: a recorded log becomes records and watermarks over processing time.

Input: numpy arrays in **arrival order** (``event_time``, ``arrival_time``, ``partition``, and
for the operator ``key``, ``value``, ``record_id``). Model (DESIGN.md "Time and replay model"):

- every partition has its own generator (``strategy.create()``); partition ``p`` is read by
  source subtask ``p % parallelism`` (:mod:`toolkit.engine.sources`), each subtask feeds one
  channel of the window operator's :class:`~toolkit.engine.valve.StatusWatermarkValve`;
- periodic ticks at ``first_arrival + k * interval`` (k >= 1) up to the first tick at or after
  the last arrival; records with arrival ``<= T`` are processed before the tick at ``T``;
  at a tick every subtask asks its partitions' generators (partition order) and combines them;
  ``interval == 0`` = a periodic call after every record, at its arrival time;
- end of input: the operator gets the MAX watermark; what fires then is flagged ``at_end``.

(Flink itself reads ``pipeline.auto-watermark-interval = 0`` as "no periodic emission";
Watermark Lab's 0 means a periodic call after every record, as DESIGN.md states.) Each piece
is checked against real Flink: generators + emitter and the valve line by line (oracle
fixtures), the operator on the exported interleaving (window oracle). The composition
(per-split multiplexing inside a subtask, subtasks into the valve) follows Flink's
``ProgressiveTimestampsAndWatermarks``/``WatermarkOutputMultiplexer`` source code.

Two phases. :func:`watermark_timeline` computes where the operator's watermark changes
(vectorized with numpy for bounded out-of-orderness / monotonous generators without
idleness; a loop over ticks, never over records one by one unless a generator emits on events,
otherwise). :func:`run_pipeline` then feeds records and those watermark changes to a
window operator (and optionally a second stage).

**Fast path for the sweep** — :func:`operator_watermark_timeline` returns just
``(tick_time, tick_watermark, record_watermark)``: the processing time of every tick, the
operator watermark after each tick, and the operator watermark in effect when each record
(arrival order) reached the operator. For a bounded out-of-orderness generator the per-partition
running max is computed once; :func:`bounded_timelines` gives the timelines of many delays
from one pass.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from toolkit.engine.sources import SourceSubtask, subtask_partitions
from toolkit.engine.valve import StatusWatermarkValve
from toolkit.engine.watermarks import (
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


def tick_schedule(arrival: np.ndarray, interval: int) -> tuple[np.ndarray, np.ndarray]:
    """Tick times and, per tick, how many records (arrival order) come before it.

    ``interval > 0``: ticks at ``first + k*interval``, k = 1..K, K the first k with
    ``first + k*interval >= last``. ``interval == 0``: one tick after every record.
    """
    n = len(arrival)
    if interval < 0:
        raise ValueError(f"interval must not be negative, got {interval}")
    if n == 0:
        return np.zeros(0, I64), np.zeros(0, I64)
    if interval == 0:
        return arrival.astype(I64, copy=True), np.arange(1, n + 1, dtype=I64)
    first, last = int(arrival[0]), int(arrival[-1])
    k = max(1, -(-(last - first) // interval))
    ticks = first + interval * np.arange(1, k + 1, dtype=I64)
    pos = np.searchsorted(arrival, ticks, side="right").astype(I64)
    return ticks, pos


# ----------------------------------------------------------------------------------------
# watermark timeline
# ----------------------------------------------------------------------------------------


@dataclass
class WatermarkTimeline:
    """Where watermarks change over processing time (see module doc).

    ``changes``: operator-input watermark changes as arrays ``pos`` (records processed
    before it), ``time`` and ``watermark``. ``log``: every change at each level as tuples
    ``(level, id, time, watermark, status)``, level in partition|subtask|operator.
    """

    tick_time: np.ndarray
    tick_pos: np.ndarray
    tick_watermark: np.ndarray
    change_pos: np.ndarray
    change_time: np.ndarray
    change_watermark: np.ndarray
    log: list[tuple[str, int, int, int | None, str]] = field(default_factory=list)

    def record_watermark(self, n: int) -> np.ndarray:
        """Operator watermark in effect when each of the ``n`` records was processed."""
        idx = np.searchsorted(self.change_pos, np.arange(n, dtype=I64), side="right") - 1
        out = np.full(n, MIN_WATERMARK, dtype=I64)
        ok = idx >= 0
        out[ok] = self.change_watermark[idx[ok]]
        return out


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
) -> WatermarkTimeline:
    """Compute the operator's input watermark over processing time (see module doc)."""
    ts = np.ascontiguousarray(event_time, dtype=I64)
    arr = np.ascontiguousarray(arrival_time, dtype=I64)
    part = np.zeros(len(ts), I64) if partition is None else np.ascontiguousarray(partition, dtype=I64)
    _check_inputs(ts, arr, part)
    if parallelism < 1:
        raise ValueError(f"source parallelism must be >= 1, got {parallelism}")
    ticks, pos = tick_schedule(arr, interval)
    sub = _plain_bounded_subtract(strategy)
    if sub is not None and not force_general:
        return _bounded_fast(ts, arr, part, sub, ticks, pos, interval, parallelism, with_log)
    return _general(ts, arr, part, strategy, ticks, pos, interval, parallelism, marker, with_log)


def _partition_ids(part: np.ndarray) -> np.ndarray:
    return np.unique(part) if len(part) else np.zeros(1, I64)


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


def _bounded_fast(ts, arr, part, subtract, ticks, pos, interval, parallelism, with_log) -> WatermarkTimeline:
    parts = _partition_ids(part)
    m = _per_tick_partition_max(ts, arr, part, ticks, interval, parts) if len(ticks) else np.zeros((0, len(parts)), I64)
    wm = np.where(m == MIN_WATERMARK, MIN_WATERMARK, m - np.int64(subtract))
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
    return WatermarkTimeline(ticks, pos, op, c_pos, c_time, c_wm, log)


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


def _general(ts, arr, part, strategy, ticks, pos, interval, parallelism, marker, with_log) -> WatermarkTimeline:
    parts = _partition_ids(part)
    groups = subtask_partitions(parts, parallelism)
    rec = _Recorder(with_log)
    valve = StatusWatermarkValve(parallelism, rec.valve_output)
    subtasks: list[SourceSubtask] = []
    rec.time = int(arr[0]) if len(arr) else 0
    for s, g in enumerate(groups):
        subtasks.append(SourceSubtask(s, g, strategy, rec.subtask_downstream(s, valve)))
    sub_of = {p: subtasks[p % parallelism] for p in parts.tolist()}
    all_gens = [gen for st in subtasks for gen in st.generators.values()]
    per_event = any(gen.emits_on_event for gen in all_gens)
    needs_pt = strategy.needs_processing_time
    mk = np.zeros(len(ts), bool) if marker is None else np.asarray(marker, bool)

    # partition-level change detection (state of each PartialWatermark)
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

    # group records by (tick, partition) for batched on_events
    k = len(ticks)
    tick_wm = np.full(k, MIN_WATERMARK, dtype=I64)
    if not per_event and len(ts):
        tk = np.arange(len(ts), dtype=I64) if interval == 0 else np.searchsorted(ticks, arr, side="left")
        order = np.lexsort((part, tk))
        gkey = tk[order] * (int(parts.max()) + 1) + part[order]
        bounds = np.flatnonzero(np.r_[True, gkey[1:] != gkey[:-1], True])
        g_start = bounds[:-1]
        g_end = bounds[1:]
        g_tick = tk[order][g_start].tolist()
        g_part = part[order][g_start].tolist()
        ts_o = ts[order]
        arr_o = arr[order]
    else:
        g_tick = []
    gi = 0
    ng = len(g_tick)
    lo = 0
    quiet = False  # no records since the last periodic call
    for t in range(k):
        hi = int(pos[t])
        T = int(ticks[t])
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
            had = False
            while gi < ng and g_tick[gi] == t:
                p = g_part[gi]
                a, b = g_start[gi], g_end[gi]
                sub_of[p].on_events(p, ts_o[a:b], arr_o[a:b])
                gi += 1
                had = True
            if not had and quiet and (not needs_pt or all(g.quiescent() for g in all_gens)):
                tick_wm[t] = rec.op_wm
                lo = hi
                continue
            quiet = not had
        rec.time = T
        rec.pos = hi
        for st in subtasks:
            st.on_periodic_emit(T)
        if with_log:
            log_partitions()
        tick_wm[t] = rec.op_wm
        lo = hi
    return WatermarkTimeline(
        ticks,
        pos,
        tick_wm,
        np.asarray(rec.pos_l, dtype=I64),
        np.asarray(rec.time_l, dtype=I64),
        np.asarray(rec.wm_l, dtype=I64),
        rec.log,
    )


def operator_watermark_timeline(
    event_time: np.ndarray,
    arrival_time: np.ndarray,
    partition: np.ndarray | None,
    strategy: WatermarkStrategy,
    *,
    interval: int = 200,
    parallelism: int = 1,
    marker: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(tick_time, tick_watermark, record_watermark)`` for the sweep's vectorized path.

    Inputs in arrival order. ``tick_watermark[k]`` = operator watermark right after tick k;
    ``record_watermark[i]`` = operator watermark when record i reached the operator
    (``MIN_WATERMARK`` = none yet).
    """
    tl = watermark_timeline(
        event_time, arrival_time, partition, strategy, interval=interval, parallelism=parallelism, marker=marker, with_log=False
    )
    return tl.tick_time, tl.tick_watermark, tl.record_watermark(len(event_time))


def bounded_timelines(
    event_time: np.ndarray,
    arrival_time: np.ndarray,
    partition: np.ndarray | None,
    delays: Iterable[int],
    *,
    interval: int = 200,
    parallelism: int = 1,
    legacy: bool = False,
) -> tuple[np.ndarray, np.ndarray, dict[int, tuple[np.ndarray, np.ndarray]]]:
    """One pass for many bounded-out-of-orderness delays (no idleness).

    Returns ``(tick_time, tick_pos, {delay: (tick_watermark, record_watermark)})``. The
    per-partition running max is computed once; each delay only subtracts and takes mins.
    """
    ts = np.ascontiguousarray(event_time, dtype=I64)
    arr = np.ascontiguousarray(arrival_time, dtype=I64)
    part = np.zeros(len(ts), I64) if partition is None else np.ascontiguousarray(partition, dtype=I64)
    _check_inputs(ts, arr, part)
    ticks, pos = tick_schedule(arr, interval)
    parts = _partition_ids(part)
    m = _per_tick_partition_max(ts, arr, part, ticks, interval, parts)
    groups = [g for g in subtask_partitions(parts, parallelism) if g]
    col = {int(p): j for j, p in enumerate(parts.tolist())}
    # min over subtasks of min over partitions == min over all partitions (all active)
    lowest = np.minimum.reduce([m[:, [col[p] for p in g]].min(axis=1) for g in groups])
    none = lowest == MIN_WATERMARK
    # record i is processed before tick searchsorted(pos, i, 'right')
    last_tick = np.searchsorted(pos, np.arange(len(ts), dtype=I64), side="right") - 1
    out = {}
    for d in delays:
        d = int(d)
        if d < 0:
            raise ValueError(f"delay must not be negative, got {d}")
        sub = d if legacy else d + 1
        w = np.where(none, MIN_WATERMARK, lowest - np.int64(sub))
        w = np.maximum.accumulate(w) if len(w) else w
        rw = np.full(len(ts), MIN_WATERMARK, I64)
        ok = last_tick >= 0
        rw[ok] = w[last_tick[ok]]
        out[d] = (w, rw)
    return ticks, pos, out


# ----------------------------------------------------------------------------------------
# feeding the window operator
# ----------------------------------------------------------------------------------------


@dataclass
class PipelineResult:
    """What :func:`run_pipeline` collected (plain Python/numpy; the edge makes DataFrames)."""

    timeline: WatermarkTimeline
    outputs: list[tuple[int, bool, Any]]  # (stage, at_end, item) in emission order
    state: list[tuple[int, int, int]]  # (time, open_windows, buffered_records)
    end_time: int
    stage_watermarks: list[tuple[int, str, int, int]]  # (stage, "input"|"output", time, watermark)
    stage2_input: list[tuple] = field(default_factory=list)  # ("record", key, ts, value) | ("watermark", w)


def _drain_items(op: Any) -> list[Any]:
    got = op.drain()
    if isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], list):
        return list(got[0]) + list(got[1])
    return list(got)


def run_pipeline(
    timeline: WatermarkTimeline,
    keys: list[Any] | np.ndarray,
    event_time: np.ndarray,
    arrival_time: np.ndarray,
    values: np.ndarray,
    record_ids: np.ndarray,
    make_operator: Callable[[], Any],
    *,
    second_stage: Callable[[], Any] | None = None,
    state_samples: int = 5000,
    result_to_stage2: Callable[[Any], tuple[Any, int, Any] | None] | None = None,
) -> PipelineResult:
    """Feed records and the timeline's watermark changes to a window operator.

    ``make_operator()`` returns a fresh operator with ``process_element(key, ts, value,
    record_id)``, ``process_watermark(wm)``, ``set_processing_time(t)``, ``end_input()``,
    ``drain()`` and ``state_size()``. Records run in arrival order; before record ``i`` every
    watermark change with ``pos <= i`` is applied at its tick time. The optional second stage
    receives every fired result of stage 1 (``result_to_stage2(result) -> (key, ts, value)``)
    and stage 1's watermarks after stage 1 processed them.
    """
    op = make_operator()
    op2 = second_stage() if second_stage else None
    n = len(event_time)
    ts_l = np.asarray(event_time, dtype=I64).tolist()
    arr_l = np.asarray(arrival_time, dtype=I64).tolist()
    val_l = values.tolist() if isinstance(values, np.ndarray) else list(values)
    key_l = keys.tolist() if isinstance(keys, np.ndarray) else list(keys)
    rid_l = np.asarray(record_ids).tolist()
    outputs: list[tuple[int, bool, Any]] = []
    state: list[tuple[int, int, int]] = []
    stage_wm: list[tuple[int, str, int, int]] = []
    s2_in: list[tuple] = []

    # events between records: watermark changes and state samples at ticks
    ev_pos = timeline.change_pos.tolist()
    ev_time = timeline.change_time.tolist()
    ev_wm = timeline.change_watermark.tolist()
    k = len(timeline.tick_time)
    every = max(1, -(-k // max(1, state_samples)))
    sample_ticks = list(range(0, k, every))
    sp = timeline.tick_pos[sample_ticks].tolist() if k else []
    st = timeline.tick_time[sample_ticks].tolist() if k else []
    # merged, ordered by (pos, time); watermark before sample at the same point
    events = [(p, t, 0, w) for p, t, w in zip(ev_pos, ev_time, ev_wm)] + [(p, t, 1, 0) for p, t in zip(sp, st)]
    events.sort(key=lambda e: (e[0], e[1], e[2]))

    pe = op.process_element
    spt = op.set_processing_time

    def feed_stage2(items: list[Any], at_end: bool) -> None:
        if op2 is None:
            return
        for it in items:
            if result_to_stage2 is not None:
                m = result_to_stage2(it)
                if m is not None:
                    s2_in.append(("record",) + tuple(m))
                    op2.process_element(*m)
        for it2 in _drain_items(op2):
            outputs.append((2, at_end, it2))

    def collect(at_end: bool) -> None:
        items = _drain_items(op)
        for it in items:
            outputs.append((1, at_end, it))
        feed_stage2(items, at_end)

    last_pt = None
    i = 0
    for p, t, kind, w in events:
        if i < p:
            if op2 is None:
                for a, k_, t_, v_, r_ in zip(arr_l[i:p], key_l[i:p], ts_l[i:p], val_l[i:p], rid_l[i:p]):
                    if a != last_pt:
                        spt(a)
                        last_pt = a
                    pe(k_, t_, v_, r_)
                collect(False)
            else:
                for j in range(i, p):
                    a = arr_l[j]
                    if a != last_pt:
                        spt(a)
                        op2.set_processing_time(a)
                        last_pt = a
                    pe(key_l[j], ts_l[j], val_l[j], rid_l[j])
                    collect(False)
            i = p
        if t != last_pt:
            spt(t)
            if op2 is not None:
                op2.set_processing_time(t)
            last_pt = t
        if kind == 0:
            op.process_watermark(w)
            stage_wm.append((1, "input", t, w))
            collect(False)
            stage_wm.append((1, "output", t, w))
            if op2 is not None:
                s2_in.append(("watermark", w))
                op2.process_watermark(w)
                stage_wm.append((2, "input", t, w))
                for it2 in _drain_items(op2):
                    outputs.append((2, False, it2))
                stage_wm.append((2, "output", t, w))
        else:
            o, b = op.state_size()
            state.append((t, o, b))
    for j in range(i, n):
        a = arr_l[j]
        if a != last_pt:
            spt(a)
            if op2 is not None:
                op2.set_processing_time(a)
            last_pt = a
        pe(key_l[j], ts_l[j], val_l[j], rid_l[j])
        if op2 is not None:
            collect(False)
    collect(False)
    end_time = int(timeline.tick_time[-1]) if k else (arr_l[-1] if n else 0)
    if end_time != last_pt:
        spt(end_time)
        if op2 is not None:
            op2.set_processing_time(end_time)
    o, b = op.state_size()
    state.append((end_time, o, b))
    op.end_input()
    stage_wm.append((1, "input", end_time, MAX_WATERMARK))
    collect(True)
    stage_wm.append((1, "output", end_time, MAX_WATERMARK))
    if op2 is not None:
        op2.end_input()
        stage_wm.append((2, "input", end_time, MAX_WATERMARK))
        for it2 in _drain_items(op2):
            outputs.append((2, True, it2))
        stage_wm.append((2, "output", end_time, MAX_WATERMARK))
    o, b = op.state_size()
    state.append((end_time, o, b))
    return PipelineResult(timeline, outputs, state, end_time, stage_wm, s2_in)
