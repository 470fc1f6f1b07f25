"""``run_microbatch``: a whole log through Spark Structured Streaming's event-time semantics.

The log is columns (numpy arrays, any row order: Spark reads a micro-batch as a set). Steps:
micro-batches from arrival times (``batches``), the global watermark after each data batch
(``watermark``), the executed batches with no-data batches, then the stateful aggregation
(``aggregation`` for tumbling/sliding windows, ``sessions`` for session windows).

Record fates, Spark's way: ``dropped`` when the late filter removed the row from every window
it belongs to; ``late_accepted`` when a window accepted it although its event time was already
behind the watermark its batch filtered with (``event_time <= late_watermark``: Spark keeps
such a row while its window is open); ``on_time`` otherwise; ``no_session`` for a row whose
per-record session gap is null, zero or negative (Spark filters it out of ``session_window``;
it is not late and not in ``numRowsDroppedByWatermark``, but it moved the watermark).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from toolkit.engine.microbatch.aggregation import Emissions, aggregate_windows
from toolkit.engine.microbatch.batches import Batches, executed_batches
from toolkit.engine.microbatch.config import MicroBatchConfig, MicroBatchConfigError
from toolkit.engine.microbatch.prepared import MicroBatchLog, key_codes
from toolkit.engine.microbatch.sessions import aggregate_sessions
from toolkit.engine.microbatch.watermark import watermarks_from_maxima

ON_TIME, LATE_ACCEPTED, DROPPED, NO_SESSION = 0, 1, 2, 3


@dataclass(frozen=True)
class MicroBatchResult:
    """What a micro-batch run produced (columnar).

    ``batches``: the executed batches (tick, watermark, late_watermark, is_data);
    ``input_rows`` and ``rows_dropped_by_watermark`` (Spark's metric, rule: distinct groups, not
    rows) per batch; ``emissions`` (key codes into ``keys``, emission batch; ``emit_time`` =
    that batch's tick); ``windows``: every window/session that accepted a row (first_batch,
    emit_batch, count, sum; ``emit_batch == len(batches)`` when still in state at the end);
    ``fate`` per record (0 on_time, 1 late_accepted, 2 dropped, 3 no_session), ``record_batch`` per record;
    ``first_pairs``: accepted (record, window) pairs in their window's first emission (the end
    of input counting as one), ``accepted_pairs``.
    """

    config: MicroBatchConfig
    keys: np.ndarray
    batches: Batches
    input_rows: np.ndarray
    rows_dropped_by_watermark: np.ndarray
    emissions: Emissions
    windows: dict
    fate: np.ndarray
    record_batch: np.ndarray
    first_pairs: int
    accepted_pairs: int

    @property
    def emit_time(self) -> np.ndarray:
        return self.batches.tick[self.emissions.batch]

    def batch_rows(self) -> list[dict]:
        """One dict per executed batch, as the Spark oracle writes them (for conformance)."""
        em = self.emissions
        out = []
        order = np.lexsort((em.end, em.start, em.key))
        keys = self.keys
        for b in range(len(self.batches)):
            sel = order[em.batch[order] == b]
            rows = [[keys[em.key[i]], int(em.start[i]), int(em.end[i]), int(em.count[i]), em.sum[i].item()] for i in sel]
            rows.sort(key=lambda r: (r[0], r[1], r[2]))
            out.append({"batch": b, "tick": int(self.batches.tick[b]), "watermark": int(self.batches.watermark[b]),
                        "input_rows": int(self.input_rows[b]),
                        "rows_dropped_by_watermark": int(self.rows_dropped_by_watermark[b]), "rows": rows})
        return out


def _codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct keys, code of every record): :func:`prepared.key_codes`."""
    return key_codes(keys)


def run_microbatch(config: MicroBatchConfig, event_time, arrival_time, key, value, partition=None,
                   gap=None) -> MicroBatchResult:
    """Run the log's columns through the Spark semantics of ``config`` (see the module doc).

    ``gap``: a per-record session gap in ms (Spark's ``session_window(ts, gap_column)``), an
    array as long as the log (int, float with NaN for null, or object with None), instead of
    ``config.gap``; session windows only. Rows whose gap is null, zero or negative get no
    session (fate ``NO_SESSION``), as in Spark. Many settings over one log: prepare it once
    (``MicroBatchLog``) and call :func:`run_prepared` (the same figures)."""
    if len(np.asarray(event_time)) == 0:
        raise MicroBatchConfigError("log: there are no records to replay")
    return run_prepared(config, MicroBatchLog(event_time, arrival_time, key, value, partition), gap=gap)


def run_prepared(config: MicroBatchConfig, log: MicroBatchLog, gap=None) -> MicroBatchResult:
    """:func:`run_microbatch` on a prepared log: the key codes, data batches, per-batch maxima and
    window groups come from ``log``'s caches (computed by the first run that needs them)."""
    ts, vals = log.event_time, log.value
    n = len(ts)
    if n == 0:
        raise MicroBatchConfigError("log: there are no records to replay")
    ticks, data_idx = log.ticks(config.trigger_interval)
    per_input = bool(config.partitions_as_sources)
    if per_input:
        log.sources(config.sources)  # an undeclared partition is refused before any work
    per = log.maxima(config.trigger_interval, config.sources, per_input)
    after = watermarks_from_maxima(per, config.delay, config.multiple_watermark_policy)
    complete = config.output_mode == "complete"
    batches = executed_batches(ticks, after, config.trigger_interval, no_data_batches=not complete)
    rb = batches.of_data[data_idx]
    n_exec = len(batches)
    input_rows = np.bincount(rb, minlength=n_exec).astype(np.int64)
    keys, kc = log.keys, log.key_code
    late_wm = batches.late_watermark[rb]
    fate = np.full(n, DROPPED, dtype=np.int8)
    if config.window_kind == "session":
        if gap is None:
            if config.gap <= 0:
                raise MicroBatchConfigError("window: a session window needs a positive gap or a per-record gap array")
            g = np.int64(config.gap)
        else:
            g = np.asarray(gap)
            if g.shape != ts.shape:
                raise MicroBatchConfigError(f"window: the per-record session gap has {g.size} values for {n} records")
        accepted, sid, em, table, dropped, has_session = aggregate_sessions(kc, ts, g, vals, rb, batches,
                                                                            complete=complete)
        fate[~has_session] = NO_SESSION
        fate[accepted] = np.where(ts[accepted] <= late_wm[accepted], LATE_ACCEPTED, ON_TIME)
        accepted_pairs = int(accepted.sum())
        # append: a session's one emission holds all its rows; complete: rows count in their first
        # emission when their batch is the session's first (a later merge re-emits them)
        first_pairs = accepted_pairs if not complete else int((rb[accepted] == table["first_batch"][sid[accepted]]).sum())
    else:
        groups = log.windows(config.size, config.slide, config.offset)
        order = (log.window_batch_order(config.size, config.slide, config.offset, config.trigger_interval)
                 if config.output_mode == "update" else None)
        pairs, em, table, dropped = aggregate_windows(kc, ts, vals, rb, batches, config.size, config.slide,
                                                      config.output_mode, config.offset, groups=groups,
                                                      batch_order=order)
        acc_rec = np.zeros(n, dtype=bool)
        acc_rec[pairs.record[pairs.accepted]] = True
        fate[acc_rec] = np.where(ts[acc_rec] <= late_wm[acc_rec], LATE_ACCEPTED, ON_TIME)
        accepted_pairs = int(pairs.accepted.sum())
        if config.output_mode == "append":
            first_pairs = accepted_pairs
        else:
            idx = table["pair_index"]
            first_pairs = int((pairs.batch[idx] == table["first_batch"][table["pair_window"]]).sum())
    return MicroBatchResult(config, keys, batches, input_rows, dropped, em, table, fate, rb, first_pairs,
                            accepted_pairs)
