"""Spark Structured Streaming (``semantics="spark"``) sweep rows: in one piece on a log prepared
once for all the settings (:class:`SparkSweepLog`, :func:`sweep_rows`), or in key shards.

Why sharding is exact: the only thing one key's figures need from the other keys is the
batch timeline (which micro-batches run, at which ticks, with which watermark), and that
depends only on the per-batch, per-input maximum event time (Spark's ``WatermarkTracker``:
one global watermark). So the timeline is computed first from an aggregate of the log
(:func:`batch_maxima`: one row per (trigger tick, partition), a pandas groupby in-process, a
Spark ``groupBy`` on a cluster: the log is never collected), with the engine's own code
(``toolkit.engine.microbatch``: ``watermarks_after``, ``executed_batches``); then every key
shard runs the engine's stateful aggregation (``aggregate_windows`` / ``aggregate_sessions``)
with that timeline and returns a *partial* in the common exactly-mergeable form
(``toolkit.metrics.summary``: additive scalars, latency value counts, state deltas at batch
positions). ``merge_config`` then gives exactly ``replay(log, setting).summary()``'s figures
(``toolkit.semantics.structured_streaming.replay``), whatever the sharding.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from toolkit.engine.microbatch.aggregation import aggregate_windows
from toolkit.engine.microbatch.batches import Batches, executed_batches
from toolkit.engine.microbatch.prepared import MicroBatchLog
from toolkit.engine.microbatch.run import DROPPED, LATE_ACCEPTED, NO_SESSION, ON_TIME
from toolkit.engine.microbatch.sessions import aggregate_sessions
from toolkit.engine.microbatch.watermark import watermarks_after
from toolkit.fast.evaluate import SCALARS, Shard
from toolkit.metrics.truth import sessionize
from toolkit.semantics.structured_streaming.figures import microbatch_summary
from toolkit.semantics.structured_streaming.inputs import (
    microbatch_config,
    sessions_of_batch,
    spark_gap_array,
    spark_gap_column,
)
from toolkit.settings import Setting, SettingError
from toolkit.sweeps.batches import tick_of


@dataclass(frozen=True)
class BatchTimeline:
    """The executed micro-batches of one (trigger interval, delay, inputs, policy) setting.

    ``ticks``: the data batches' trigger ticks (ascending); ``batches``: every executed batch
    (data and no-data) with its watermark and late-filter watermark. ``start_time`` /
    ``end_time``: first and last executed tick (the span the mean state is averaged over)."""

    interval: int
    ticks: np.ndarray
    batches: Batches

    @property
    def start_time(self) -> int:
        return int(self.batches.tick[0]) if len(self.batches) else 0

    @property
    def end_time(self) -> int:
        return int(self.batches.tick[-1]) if len(self.batches) else 0


def timeline_from_maxima(maxima: pd.DataFrame, config: Setting, partitions=None) -> BatchTimeline:
    """The batch timeline of a Spark setting from the per-(tick, partition) maxima, by the
    engine's own rules (as ``run_microbatch`` computes it from the records). ``partitions``: the
    declared inputs (an input that never delivers a row proposes 0; None: those with rows)."""
    interval = int(config.trigger_interval)
    tick = maxima["tick"].to_numpy(dtype=np.int64)
    ts = maxima["tsmax"].to_numpy(dtype=np.int64)
    ticks, data_idx = np.unique(tick, return_inverse=True)
    if config.partitions_as_sources:
        part = maxima["partition"].to_numpy(dtype=np.int64)
        sources = np.unique(part) if partitions is None else np.union1d(np.unique(part), np.asarray(partitions, np.int64))
        src, n_src = np.searchsorted(sources, part), len(sources)
    else:
        src, n_src = np.zeros(len(tick), dtype=np.int64), 1
    after = watermarks_after(ts, data_idx.astype(np.int64), len(ticks), src, n_src, int(config.delay),
                             config.multiple_watermark_policy)
    return BatchTimeline(interval, ticks.astype(np.int64), executed_batches(ticks, after, interval))


def build_batch_timelines(configs: list[Setting], maxima_of, partitions=None) -> dict[int, BatchTimeline]:
    """Timeline per config index; ``maxima_of(interval)`` gives the aggregate (computed once
    per trigger interval), one timeline per distinct (interval, delay, inputs, policy);
    ``partitions``: the declared inputs."""
    tables: dict[int, pd.DataFrame] = {}
    cache: dict[tuple, BatchTimeline] = {}
    out = {}
    for i, c in enumerate(configs):
        key = (c.trigger_interval, c.delay, bool(c.partitions_as_sources), c.multiple_watermark_policy)
        if key not in cache:
            if c.trigger_interval not in tables:
                tables[c.trigger_interval] = maxima_of(int(c.trigger_interval))
            cache[key] = timeline_from_maxima(tables[c.trigger_interval], c, partitions)
        out[i] = cache[key]
    return out


class _ShardWork:
    """What a key shard's Spark partials share across the sweep's settings: the engine's
    prepared log of the shard (window pairs and groups, their order by batch), each trigger
    interval's data-batch ticks, the batch answer of each session gap."""

    def __init__(self, shard: Shard) -> None:
        ones = np.ones(shard.n, dtype=np.int64)
        self.log = MicroBatchLog(shard.ts, shard.arrival, None, ones, codes=(shard.keys, shard.key_code))
        self.ticks: dict[int, np.ndarray] = {}
        self.truths: dict = {}

    def tick(self, arrival: np.ndarray, interval: int) -> np.ndarray:
        if interval not in self.ticks:
            self.ticks[interval] = tick_of(arrival, interval)
        return self.ticks[interval]


_WORK: "weakref.WeakKeyDictionary[Shard, _ShardWork]" = weakref.WeakKeyDictionary()


def _work(shard: Shard) -> _ShardWork:
    """The shard's shared work, made on its first Spark setting, gone with the shard."""
    w = _WORK.get(shard)
    if w is None:
        w = _WORK[shard] = _ShardWork(shard)
    return w


def _empty_partial() -> dict:
    z = np.zeros(0, dtype=np.int64)
    return {"scalars": dict.fromkeys(SCALARS, 0), "latency": (z, z), "state": (z, z, z)}


def microbatch_partial(shard: Shard, config: Setting, tl: BatchTimeline) -> dict:
    """The partial figures of one key shard under the Spark setting ``config`` (see module doc).

    Definitions are the replay's (``toolkit.semantics.structured_streaming.figures._summary``): fates by Spark's
    late filter; ground truth the batch answer; a window's first result its first emission
    (append mode: its only one; windows still in state at the end flushed at the last tick,
    counted in ``at_end_firings``, without a latency); state after every executed batch."""

    cfg = microbatch_config(config)
    n = shard.n
    if n == 0:
        return _empty_partial()
    work = _work(shard)
    b = tl.batches
    n_exec = len(b)
    idx = np.searchsorted(tl.ticks, work.tick(shard.arrival, tl.interval))
    rb = b.of_data[idx]
    kc, ts = shard.key_code, shard.ts
    ones = np.ones(n, dtype=np.int64)
    late_wm = b.late_watermark[rb]
    fate = np.full(n, DROPPED, dtype=np.int8)
    append = cfg.output_mode == "append"
    if cfg.window_kind == "session":
        # dynamic_session:COLUMN: the shard carries the column's gaps (null read as 0: no session)
        gap = shard.gaps[config.gap_column] if config.gap_column is not None else np.int64(cfg.gap)
        accepted, _, em, tab, _, has = aggregate_sessions(kc, ts, gap, ones, rb, b)
        fate[~has] = NO_SESSION
        fate[accepted] = np.where(ts[accepted] <= late_wm[accepted], LATE_ACCEPTED, ON_TIME)
        accepted_pairs = first_pairs = int(accepted.sum())
        tkey = ("gap", cfg.gap) if config.gap_column is None else ("column", config.gap_column)
        if tkey not in work.truths:
            work.truths[tkey] = ((sessionize(kc, ts, cfg.gap)[0], n) if config.gap_column is None
                                 else sessions_of_batch(kc, ts, gap))
        truth, true_pairs = work.truths[tkey]
        n_true = len(truth)
    else:
        groups = work.log.windows(cfg.size, cfg.slide, cfg.offset)
        order = (work.log.window_batch_order(cfg.size, cfg.slide, cfg.offset, tl.interval)
                 if cfg.output_mode == "update" else None)
        pairs, em, tab, _ = aggregate_windows(kc, ts, ones, rb, b, cfg.size, cfg.slide, cfg.output_mode, cfg.offset,
                                              groups=groups, batch_order=order)
        acc_rec = np.zeros(n, dtype=bool)
        acc_rec[pairs.record[pairs.accepted]] = True
        fate[acc_rec] = np.where(ts[acc_rec] <= late_wm[acc_rec], LATE_ACCEPTED, ON_TIME)
        accepted_pairs = int(pairs.accepted.sum())
        if append:
            first_pairs = accepted_pairs
        else:
            pi = tab["pair_index"]
            first_pairs = int((pairs.batch[pi] == tab["first_batch"][tab["pair_window"]]).sum())
        # the batch answer: the window's (key, window) groups of the shard's pairs
        true_pairs = len(groups.record)
        truth = pd.DataFrame({"key": groups.group_key, "window_start": groups.group_start,
                              "true_count": groups.true_count})
        n_true = len(truth)
    # first results: emissions of pane 0, plus (append) the windows flushed at the end
    pending = tab["emit_batch"] >= n_exec if append else np.zeros(len(tab["start"]), dtype=bool)
    n_pend = int(pending.sum())
    p0 = em.pane == 0
    first = pd.DataFrame({"key": np.concatenate([em.key[p0], tab["key"][pending]]),
                          "window_start": np.concatenate([em.start[p0], tab["start"][pending]]),
                          "window_end": np.concatenate([em.end[p0], tab["end"][pending]]),
                          "got": np.concatenate([em.count[p0], tab["count"][pending]]).astype(np.int64)})
    on = ["key", "window_start", "window_end"] if cfg.window_kind == "session" else ["key", "window_start"]
    joined = truth.merge(first[on + ["got"]], on=on, how="inner")
    exact = int((joined["true_count"].to_numpy() == joined["got"].to_numpy()).sum())
    lat = b.tick[em.batch[p0]] - em.end[p0]
    lv, lc = np.unique(lat.astype(np.int64), return_counts=True)
    # state after every executed batch, as deltas at batch positions (the last position drops:
    # the replay's state series ends with the last executed batch)
    f_b = tab["first_batch"]
    last = np.minimum(tab["emit_batch"], n_exec)
    if "pair_batch" in tab:
        r_pos, r_add = tab["pair_batch"], np.ones(len(tab["pair_batch"]), dtype=np.int64)
    else:
        r_pos, r_add = f_b, tab["count"]
    pos = np.concatenate([f_b, last, r_pos, last]).astype(np.int64)
    dw = np.concatenate([np.ones(len(f_b), np.int64), -np.ones(len(last), np.int64), np.zeros(len(r_pos) + len(last), np.int64)])
    dr = np.concatenate([np.zeros(len(f_b) + len(last), np.int64), r_add.astype(np.int64), -tab["count"].astype(np.int64)])
    keep = pos < n_exec
    pos, dw, dr = pos[keep], dw[keep], dr[keep]
    # time integrals of the state step function over the executed ticks: sum of delta x (last tick - tick)
    rest = b.tick[-1] - b.tick[pos]
    scalars = dict.fromkeys(SCALARS, 0)
    scalars.update({
        "valid": n, "on_time": int((fate == ON_TIME).sum()), "late_accepted": int((fate == LATE_ACCEPTED).sum()),
        "dropped": int((fate == DROPPED).sum()), "no_session": int((fate == NO_SESSION).sum()), "windows": int(n_true), "exact_windows": exact,
        "fired_windows": int(p0.sum()), "true_pairs": int(true_pairs), "first_pairs": first_pairs,
        "final_pairs": accepted_pairs, "firings": int(len(em.key)) + n_pend, "at_end_firings": n_pend,
        "state_area_windows": int((dw * rest).sum()), "state_area_records": int((dr * rest).sum()),
    })
    return {"scalars": scalars, "latency": (lv.astype(np.int64), lc.astype(np.int64)), "state": (pos, dw, dr)}


def check_gaps_in_spark(spark_df: Any, col: str) -> None:
    """Spark's gap rule checked in Spark: one aggregate; the first bad row collected to name it."""
    from pyspark.sql import functions as F

    if col not in spark_df.columns:
        spark_gap_column(pd.DataFrame({"row": []}), col)  # the missing-column error
    raw = F.col(f"`{col}`")
    x = raw.try_cast("double")
    bad = raw.isNotNull() & (x.isNull() | F.isnan(x) | (x != F.floor(x)) | (F.abs(x) >= F.lit(2.0**63)))
    agg = spark_df.agg(F.sum(F.when(bad, 1).otherwise(0)).alias("bad"), F.count(F.lit(1)).alias("n")).first()
    if agg["bad"]:
        first = spark_df.where(bad).orderBy("row").select("row", raw.alias("g")).first()
        try:  # the pandas rule's message, on the first bad row, with the counts of the whole log
            spark_gap_array(np.asarray([first["g"]], dtype=object), col, [first["row"]])
        except SettingError as exc:
            raise SettingError("window", str(exc).replace("1 of 1 records", f"{int(agg['bad']):,} of {int(agg['n']):,} records")) from None


def table_arrays(table: pd.DataFrame, s: Setting) -> dict:
    """A log table's columns in arrival order (ties: row order), as ``microbatch_parts`` takes them."""
    return SparkSweepLog(table).arrays(s)


class SparkSweepLog:
    """A log table prepared once for many Spark settings (a sweep's ``semantics="spark"`` rows).

    What does not depend on the setting is done once and kept: the columns in arrival order
    (ties: row order), the engine's ``MicroBatchLog`` (key codes, data batches per trigger
    interval, window groups: ``toolkit.engine.microbatch.prepared``), the gap columns read
    Spark's way and the batch answer of each session gap. :meth:`figures` gives exactly
    ``replay(log, s).summary()``'s figures (the same code computes both)."""

    def __init__(self, table: pd.DataFrame) -> None:
        self._table = table
        order = np.lexsort((table["row"].to_numpy(np.int64), table["arrival_time"].to_numpy(np.int64)))
        self._order = order
        t = table.iloc[order]
        self._base = {"ts": t["event_time"].to_numpy(np.int64), "arr": t["arrival_time"].to_numpy(np.int64),
                      "part": t["partition"].to_numpy(np.int64) if "partition" in t else np.zeros(len(t), np.int64),
                      "keys": t["key"].to_numpy(dtype=object),
                      "vals": t["value"].to_numpy() if "value" in t else np.ones(len(t), np.int64),
                      "rows": t["row"].to_numpy(np.int64), "has_arr": True}
        self._gaps: dict[str, np.ndarray] = {}
        self._engine: MicroBatchLog | None = None
        self.truths: dict = {}  # session batch answers by gap (see _summary)

    def arrays(self, s: Setting) -> dict:
        """The columns as ``microbatch_parts`` takes them for ``s`` (one input unless
        ``partitions_as_sources``; ``gap``: the setting's gap column, Spark's way)."""
        a = dict(self._base)
        if not s.partitions_as_sources:
            a["part"] = np.zeros_like(a["part"])
        a["gap"] = None
        if s.gap_column is not None:
            if s.gap_column not in self._gaps:
                cols = [c for c in (s.gap_column, "row") if c in self._table.columns]
                self._gaps[s.gap_column] = spark_gap_column(self._table[cols].iloc[self._order], s.gap_column)
            a["gap"] = self._gaps[s.gap_column]
        return a

    @property
    def engine(self) -> MicroBatchLog:
        """The engine's prepared log (made on first use)."""
        if self._engine is None:
            b = self._base
            self._engine = MicroBatchLog(b["ts"], b["arr"], b["keys"], b["vals"], b["part"])
        return self._engine

    def figures(self, s: Setting, invalid: int = 0, sources: Sequence[int] | None = None) -> dict:
        """The sweep row's figures (``SUMMARY_COLUMNS``) of the Spark setting ``s``."""
        from toolkit.metrics.summary import SUMMARY_COLUMNS

        summary = microbatch_summary(s, self.arrays(s), invalid=invalid, sources=sources, prepared=self)
        return {k: summary[k] for k in SUMMARY_COLUMNS}


def sweep_figures(table: pd.DataFrame, s: Setting, invalid: int = 0, sources: Sequence[int] | None = None,
                  prepared: SparkSweepLog | None = None) -> dict:
    """The sweep row's figures (``SUMMARY_COLUMNS``) of the Spark setting ``s`` on a log table:
    exactly ``replay(log, s).summary()``'s (the same code computes both); ``sources``: the
    declared partitions (``EventLog.declared_partitions``); ``prepared``: ``table`` prepared
    once for all the sweep's Spark settings (:class:`SparkSweepLog`; made here when None)."""
    return (prepared or SparkSweepLog(table)).figures(s, invalid, sources)


def sweep_rows(table: pd.DataFrame, settings: Sequence[Setting], invalid: int = 0,
               sources: Sequence[int] | None = None) -> list[dict]:
    """:func:`sweep_figures` of every Spark setting in ``settings``, the table prepared once;
    evaluated grouped by window and trigger interval (the prepared log keeps a few of each)."""
    for s in settings:  # a setting Spark would refuse is named before any work, in the sweep's order
        microbatch_config(s, sources)
    if not settings:
        return []
    prepared = SparkSweepLog(table)
    rank = sorted(range(len(settings)), key=lambda i: (str(settings[i].window), int(settings[i].trigger_interval), i))
    out: dict[int, dict] = {}
    for i in rank:
        out[i] = prepared.figures(settings[i], invalid, sources)
    return [out[i] for i in range(len(settings))]
