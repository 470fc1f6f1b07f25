"""Kafka Streams' event-time semantics (``semantics="kafka_streams"``).

No watermark: each task's stream time is the largest record timestamp it has seen; a window
closes when stream time passes its end plus ``grace``; results leave on every update, on window
close (``emit="final"``) or through ``suppress(untilWindowCloses)``. Records go to tasks by the
key's partition of the repartition topic (``tasks``) or, ``repartition=False``, by their own
partition. The simulator is ``toolkit.engine.kafka_streams``. In this package: ``figures`` (one
setting's figures task by task, shared by replay and sweep), ``replay`` (the replay's tables),
``sweep`` (rows, shards of whole tasks), ``deploy``, ``translate``, ``words``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from toolkit.durations import readable
from toolkit.semantics.base import Semantics, refuse_given
from toolkit.settings import (
    Global,
    KafkaSliding,
    Option,
    Session,
    SettingError,
    Sliding,
    TriggerSpec,
    Tumbling,
    as_bool,
    choice,
    format_duration,
    integer,
    optional_duration,
)
from toolkit.settings.durations import duration

#: what a bounded suppression buffer does when full (BufferConfig.shutDownWhenFull / emitEarlyWhenFull)
WHEN_FULL = ("shut_down", "emit_early")
_FULL_ALIASES = {"shutdownwhenfull": "shut_down", "shutdown": "shut_down", "emitearlywhenfull": "emit_early",
                 "emit_early_when_full": "emit_early", "shut_down_when_full": "shut_down"}

#: the record cache's defaults: Kafka's ``statestore.cache.max.bytes`` (10 MiB) and
#: ``commit.interval.ms`` (30 s); the aggregate's serialized size (a long and a double)
DEFAULT_CACHE_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_COMMIT_INTERVAL_MS = 30_000
DEFAULT_AGGREGATE_BYTES = 16
_BYTE_UNITS = {"": 1, "b": 1, "kb": 1024, "kib": 1024, "mb": 1024**2, "mib": 1024**2, "gb": 1024**3, "gib": 1024**3}


def parse_bytes(v: Any, name: str) -> int:
    """A size in bytes: an integer, or a number with B, KB/KiB, MB/MiB, GB/GiB (powers of 1024,
    as Kafka's "10 MB" default is 10 x 1024 x 1024); ``off`` / ``none``: 0."""
    if isinstance(v, bool):
        raise SettingError(name, f"{name} must be a size in bytes such as 10MB or 0, got {v!r}")
    if isinstance(v, (int, np.integer)):
        n = int(v)
    else:
        text = str(v).strip().lower().replace(" ", "")
        if text in ("off", "none", "false"):
            return 0
        num = text.rstrip("abegikm")
        unit = text[len(num):]
        try:
            n = int(float(num) * _BYTE_UNITS[unit])
        except (KeyError, ValueError):
            raise SettingError(name, f"{name} must be a size in bytes such as 10MB, 512KB or 0, got {v!r}") from None
    if n < 0:
        raise SettingError(name, f"{name} must not be negative, got {v!r}")
    return n

#: emit="update": EmitStrategy.onWindowUpdate() (through the record cache unless cache_max_bytes=0); "final":
#: EmitStrategy.onWindowClose(); "suppress": .suppress(Suppressed.untilWindowCloses(unbounded()))
EMITS = ("update", "final", "suppress")
_EMIT_ALIASES = {"on_window_update": "update", "on_window_close": "final", "emit_final": "final",
                 "until_window_closes": "suppress", "suppressed": "suppress"}

#: the note :meth:`KafkaStreams.result_notes` gives a setting with ``emit="update"``
UPDATE_FIRST_RESULT_NOTE = (
    "emit=update: Kafka Streams forwards a window's first result at the window's first record, so "
    "completeness_first (and exact_windows) are low by design; read completeness_final (the last update), "
    "or use emit=final or suppress for complete first results")

#: the note :meth:`KafkaStreams.result_notes` gives ``emit="update"`` with the record cache on
CACHED_UPDATE_NOTE = (
    "emit=update with the record cache (cache_max_bytes, commit_interval): a window's updates are compacted and "
    "forwarded at each commit or eviction, so its first result holds what arrived before the first commit after it "
    "opened and its latency includes the wait for that commit; cache_max_bytes=0 forwards every update at once")

#: the note next to a chart's first-result completeness of rows with ``emit="update"``
CHART_NOTE = ("Kafka Streams with emit=update: every update of a window is a result, so a window's first "
              "result is a partial one and its first-result completeness is low by design; its final "
              "completeness, or emit=suppress / final, tells whether records are kept.")
#: the same note, short enough for a small chart panel
CHART_NOTE_SHORT = ("Kafka Streams, emit=update: each update is a result, so a window's first result is "
                    "partial; its low first-result completeness is by design.")

#: the watermark (Flink) and micro-batch (Spark) settings Kafka Streams has none of
NOT_KAFKA = ("trigger", "evictor", "lateness", "function", "accumulation", "stagger", "strategy", "interval", "idleness",
             "source_parallelism", "step", "marker", "quantile", "quantile_window", "min_delay", "max_delay",
             "second_window", "second_lateness", "stages", "split_discovery", "delay")

_HINTS = {
    "lateness": "Kafka Streams keeps a window open for its grace period: use grace",
    "delay": "Kafka Streams has no watermark; each task's stream time is its largest record timestamp: use grace",
    "strategy": "Kafka Streams has no watermark strategy (stream time is the largest timestamp seen)",
    "interval": "Kafka Streams has no periodic watermark",
    "trigger": "Kafka Streams emits by emit=update|final|suppress",
    "partitions_as_sources": "use repartition=False when the log's partitions are the tasks' input",
    "source_parallelism": "use tasks=N",
    "stagger": "Kafka Streams' TimeWindows start at multiples of the advance from 0",
}


def _none_or(parse):
    def read(v: Any, name: str) -> Any:
        if v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "default", "auto")):
            return None
        return parse(v, name)
    return read


def min_retention(s: Any) -> tuple[int, str]:
    """The smallest window store retention Kafka Streams accepts (also its default):
    ``WindowStoreMaterializer`` size + grace (TimeWindows), ``SlidingWindowStoreMaterializer``
    2 * timeDifference + grace, ``SessionStoreMaterializer`` inactivityGap + grace. Returns (ms,
    the rule in words)."""
    w, g = s.window, s.grace or 0
    if isinstance(w, KafkaSliding):
        return 2 * w.time_difference + g, "2 x time difference + grace"
    if isinstance(w, Session):
        return w.gap + g, "inactivity gap + grace"
    return w.size + g, "window size + grace"


class KafkaStreams(Semantics):
    name = "kafka_streams"
    window_types = (Tumbling, Sliding, Session, KafkaSliding, Global)  # global: UnlimitedWindows
    package = __name__
    title = "Kafka Streams"
    watermark_word = "stream time"  # no watermark: each task's largest record timestamp fires its windows
    aliases = ("kafka", "kafka-streams", "kstreams")
    options = (
        Option("grace", 0, _none_or(lambda v, n: optional_duration(v, n)), "the windows' grace period, TimeWindows.ofSizeAndGrace / SlidingWindows / SessionWindows ...AndGrace "
               "(window kafka_sliding:DIFF is Kafka's SlidingWindows)",
               unit="ms", control="duration"),
        Option("tasks", None, _none_or(lambda v, n: integer(v, n, minimum=1)),
               "stream tasks = partitions of the repartition topic, key -> task by murmur2 (default: the input topic's "
               "partitions: the log's, or the declared --partitions)", control="int"),
        Option("repartition", True, _none_or(as_bool), "true = re-key through a repartition topic; false = the log is "
               "co-partitioned by key, task = log partition", control="bool"),
        Option("emit", "update", _none_or(lambda v, n: choice(v, n, EMITS, _EMIT_ALIASES)),
               "update (every update, compacted by the record cache until a commit: cache_max_bytes) | final "
               "(EmitStrategy.onWindowClose) | suppress (suppress(untilWindowCloses))", control="choice",
               choices=EMITS),
        Option("retention", None, _none_or(lambda v, n: optional_duration(v, n)),
               "the window store's retention, Materialized.withRetention (default and minimum: "
               "size + grace; kafka_sliding 2 x difference + grace; session gap + grace; below it Kafka refuses it, "
               "and so does the toolkit)", unit="ms",
               control="duration"),
        Option("cache_max_bytes", DEFAULT_CACHE_MAX_BYTES, parse_bytes,
               "the record cache, statestore.cache.max.bytes (default 10MB as Kafka's; 0 = off, "
               "withCachingDisabled: every update forwarded at once): updates of a window are compacted and "
               "forwarded on commit or eviction (emit=update and suppress; emit=final never caches)", control="int"),
        Option("commit_interval", DEFAULT_COMMIT_INTERVAL_MS, lambda v, n: duration(v, n),
               "commit.interval.ms: how often (arrival time) the record cache is flushed (default 30s)",
               unit="ms", control="duration"),
        Option("aggregate_bytes", DEFAULT_AGGREGATE_BYTES, lambda v, n: integer(v, n, minimum=1),
               "bytes of one serialized aggregate in the record cache (default 16: a long count and a double sum); "
               "with the key's UTF-8 bytes it sizes a cache entry", control="int"),
        Option("suppress_time_limit", None, _none_or(lambda v, n: optional_duration(v, n)),
               "emit=suppress: none = Suppressed.untilWindowCloses (final results); a duration = "
               "Suppressed.untilTimeLimit(duration, ...): a window's latest update leaves that long (stream time) "
               "after it was first buffered", unit="ms", control="duration", read_when=("emit", ("suppress",))),
        Option("suppress_max_records", None, _none_or(lambda v, n: integer(v, n, minimum=1)),
               "emit=suppress: BufferConfig.maxRecords (none: unbounded)", control="int",
               read_when=("emit", ("suppress",))),
        Option("suppress_max_bytes", None, _none_or(parse_bytes),
               "emit=suppress: BufferConfig.maxBytes (none: unbounded; sized as Kafka's buffer does, with "
               "aggregate_bytes)", control="int", read_when=("emit", ("suppress",))),
        Option("suppress_when_full", "shut_down", _none_or(lambda v, n: choice(v, n, WHEN_FULL, _FULL_ALIASES)),
               "emit=suppress with a bounded buffer: shut_down (shutDownWhenFull: Kafka Streams stops, and so does "
               "the replay, naming the record) | emit_early (emitEarlyWhenFull: only with suppress_time_limit)",
               control="choice", choices=WHEN_FULL, read_when=("emit", ("suppress",))),
        Option("emit_interval", 1000, lambda v, n: duration(v, n),
               "emit=final: how often (arrival time) closed windows are looked for, the internal "
               "__emit.interval.ms.kstreams.windowed.aggregation__ (default 1s)", unit="ms", control="duration"),
    )
    shared = ("window",)
    delay_setting = "grace"
    showcase_axes = {"emit": ["update", "suppress"]}  # a result on every update (partial first), or at the close
    path = "kafka_streams"  # the replay's own code; the fast path's rows say "fast" (sweep_paths)
    shard_by = "task"
    shards_in_process = True  # unsharded in-process rows take the shard evaluator too, on the path sweep_paths chose
    deploy_targets = {"kafka-streams": ("Kafka Streams DSL (Java)", "java")}

    def check(self, s: Any) -> None:
        """Refuse what Kafka Streams has no counterpart for, naming the setting, and fill its
        defaults (grace 0, repartition by key, emit on every update).

        Windows: ``tumbling:SIZE`` = ``TimeWindows.ofSizeAndGrace(SIZE, grace)``,
        ``sliding:SIZE/ADVANCE`` = ``...advanceBy(ADVANCE)`` (hopping, ADVANCE <= SIZE),
        ``session:GAP`` = ``SessionWindows.ofInactivityGapAndGrace(GAP, grace)``,
        ``kafka_sliding:DIFF`` = ``SlidingWindows.ofTimeDifferenceAndGrace(DIFF, grace)``, ``global`` =
        ``UnlimitedWindows.of()``."""
        w = s.window
        if not isinstance(w, (Tumbling, Sliding, Session, KafkaSliding, Global)) or (isinstance(w, Global) and w.end_of_stream):
            raise SettingError("window", f"window {w}: Kafka Streams' windowedBy takes TimeWindows, SlidingWindows, "
                               "SessionWindows or UnlimitedWindows; use e.g. 'tumbling:10s', 'sliding:10s/5s' (hopping), "
                               "'kafka_sliding:10s', 'session:30s' or 'global' (UnlimitedWindows.of())")
        if getattr(w, "offset", 0):
            raise SettingError("window", f"window {w}: Kafka Streams' TimeWindows have no offset (they start at "
                               "multiples of the advance from 0); drop the offset")
        if isinstance(w, Sliding) and w.slide > w.size:
            raise SettingError("window", f"window {w}: Kafka's TimeWindows.advanceBy needs an advance no larger than "
                               "the size")
        refuse_given({
            "trigger": s.trigger not in (TriggerSpec("event_time"), TriggerSpec("default")),
            "evictor": s.evictor is not None, "lateness": s.lateness != 0, "function": s.function != "count_sum",
            "accumulation": s.accumulation != "accumulating", "strategy": s.strategy != "bounded",
            "delay": s.delay != 0, "interval": s.interval != 200, "idleness": s.idleness is not None,
            "source_parallelism": s.source_parallelism != 1, "partitions_as_sources": s.partitions_as_sources is not True,
            "second_window": s.second_window is not None, "stages": bool(s.stages), "stagger": s.stagger != "aligned",
            "split_discovery": s.split_discovery != "at_start",
        }, _HINTS, "{name} is not a Kafka Streams setting{more}; leave it at its default with semantics='kafka_streams'")
        self.fill_defaults(s)
        if s.grace < 0:
            raise SettingError("grace", f"grace must not be negative, got {s.grace}")
        if s.tasks is not None and (isinstance(s.tasks, bool) or s.tasks < 1):
            raise SettingError("tasks", f"tasks must be an integer >= 1, got {s.tasks!r}")
        self._check_suppress(s)
        if isinstance(w, Global):
            self._check_unlimited(s)
        if s.retention is not None:
            low, what = min_retention(s)
            if s.retention < low:  # Kafka's store materializers throw IllegalArgumentException here
                raise SettingError("retention", f"retention {format_duration(s.retention)} is too small: Kafka Streams "
                                   f"refuses a window store retention below {what} ({format_duration(low)}; "
                                   "IllegalArgumentException when the topology is built); leave it unset for that default")

    def _check_unlimited(self, s: Any) -> None:
        """``window=global`` is ``UnlimitedWindows.of()``: no grace, no retention, no ``onWindowClose()``."""
        if s.grace:
            raise SettingError("grace", "grace with window=global: Kafka's UnlimitedWindows have no grace period "
                               "(their window never closes); leave grace at 0")
        if s.retention is not None:
            raise SettingError("retention", "retention with window=global: UnlimitedWindows keep their window for "
                               "ever; leave retention unset")
        if s.emit == "final":
            raise SettingError("emit", "emit=final with window=global: Kafka Streams refuses "
                               "EmitStrategy.onWindowClose() with UnlimitedWindows (their window never closes; "
                               "IllegalArgumentException when the topology is built); use update or suppress "
                               "with suppress_time_limit")

    def _check_suppress(self, s: Any) -> None:
        """The suppression's settings: only with ``emit=suppress``; ``emit_early`` only with a time limit."""
        given = {"suppress_time_limit": s.suppress_time_limit is not None,
                 "suppress_max_records": s.suppress_max_records is not None,
                 "suppress_max_bytes": s.suppress_max_bytes is not None,
                 "suppress_when_full": s.suppress_when_full != "shut_down"}
        if s.emit != "suppress":
            for name, on in given.items():
                if on:
                    raise SettingError(name, f"{name} sets the suppression of emit=suppress; with emit={s.emit} there "
                                       "is none: use emit=suppress or leave it unset")
            return
        if s.suppress_when_full == "emit_early" and s.suppress_time_limit is None:
            raise SettingError("suppress_when_full", "suppress_when_full=emit_early: Suppressed.untilWindowCloses takes "
                               "only a strict buffer config (unbounded or shutDownWhenFull), since an early emission "
                               "is not a final result; give suppress_time_limit (untilTimeLimit) or use shut_down")
        if s.suppress_when_full == "emit_early" and s.suppress_max_records is None and s.suppress_max_bytes is None:
            raise SettingError("suppress_when_full", "suppress_when_full=emit_early needs a bounded buffer: give "
                               "suppress_max_records or suppress_max_bytes")

    def fit_grid(self, values: dict) -> dict | None:
        if values.get("emit", "update") != "suppress" and any(
                values.get(p) not in (None, "shut_down") for p in
                ("suppress_time_limit", "suppress_max_records", "suppress_max_bytes", "suppress_when_full")):
            return None  # a suppression setting on a row without suppression: no such row
        for p in NOT_KAFKA:  # neither Flink's nor Spark's axes, and no watermark delay, on Kafka rows
            values.pop(p, None)
        if values.get("partitions_as_sources") is False:
            values.pop("partitions_as_sources")
        return values

    # -- replay --------------------------------------------------------------------------------

    def replay(self, log: Any, s: Any, *, limits: Any, sources: Any, explicit: Any) -> Any:
        from toolkit.replays.arrays import log_arrays
        from toolkit.replays.result import ReplayResult
        from toolkit.semantics.kafka_streams.replay import kafka_parts

        return ReplayResult(**kafka_parts(log, s, log_arrays(log, s, self)))

    # -- sweep ---------------------------------------------------------------------------------

    def sweep_paths(self, configs: list, path: str, *, event_range: Any, gap_max: dict) -> list[str]:
        """``fast`` for TimeWindows rows with emit update, final or suppress (until the window closes,
        unbounded), any record cache (``toolkit.semantics.kafka_streams.fast``); the replay's code
        (``kafka_streams``) for the others, or for every row with ``path="engine"``."""
        from toolkit.semantics.kafka_streams.sweep import choose_paths

        return choose_paths(configs, path)

    def timelines(self, configs: list, sources: Any) -> dict[int, Any]:
        from toolkit.semantics.kafka_streams.sweep import task_timelines

        return task_timelines(configs, sources)

    def evaluate(self, shard: Any, config: Any, path: str, timeline: Any) -> dict:
        from toolkit.semantics.kafka_streams.sweep import task_partial

        return task_partial(shard, config, path, timeline)

    def unit(self, config: Any, timeline: Any) -> tuple:
        from toolkit.semantics.kafka_streams.sweep import task_unit

        return task_unit(config, timeline)

    def assign(self, unit: tuple, keys: np.ndarray, partitions: np.ndarray) -> np.ndarray:
        from toolkit.semantics.kafka_streams.sweep import assign_tasks

        return assign_tasks(unit, keys, partitions)

    def timeline_inputs(self, s: Any) -> tuple | None:
        return None  # stream time per task: one aggregate of the log

    def whole_figures(self, table: Any, configs: list, invalid: int, sources: Any) -> list[dict]:
        from toolkit.metrics.summary import SUMMARY_COLUMNS
        from toolkit.semantics.kafka_streams.sweep import choose_paths, sweep_figures

        out = []
        for s, p in zip(configs, choose_paths(configs, "auto")):
            f = sweep_figures(table, s, invalid, partitions=sources, path=p)
            out.append({k: f[k] for k in SUMMARY_COLUMNS})
        return out

    # -- words ---------------------------------------------------------------------------------

    def setting_words(self, row: Any, results: Any = None) -> str:
        from toolkit.semantics.kafka_streams.words import kafka_words

        return kafka_words(row, results)

    first_result_note = CHART_NOTE
    first_result_note_short = CHART_NOTE_SHORT

    def partial_first_results(self, rows: Any) -> bool:
        """Rows with ``emit="update"`` (the default when no ``emit`` column says otherwise)."""
        if "emit" not in rows.columns:
            return len(rows) > 0
        emit = rows["emit"]
        return bool((emit.isna() | (emit.astype(str) == "update")).any())

    def result_notes(self, setting: Any) -> list[str]:
        """``emit="update"``: a window's first result is partial by design (cache off), or leaves at a
        commit (cache on)."""
        if (setting.emit or "update") != "update":
            return []
        return [CACHED_UPDATE_NOTE] if setting.cache_max_bytes else [UPDATE_FIRST_RESULT_NOTE]

    def figure_notes(self, setting: Any, summary: dict) -> list[str]:
        """``result_notes``, and with ``emit="final"`` the windows never emitted: the on-close check
        runs at most once a second of arrival time and finds only what the store still holds."""
        notes = self.result_notes(setting)
        windows, emitted = int(summary.get("windows", 0) or 0), int(summary.get("finals", 0) or 0)
        if setting.emit == "final" and 0 < emitted < windows:
            low, what = min_retention(setting)
            retention = (f"retention {readable(setting.retention)}" if setting.retention is not None else
                         f"retention {readable(low)}: {what}, the default")
            notes.append(f"emit=final: {emitted:,} of {windows:,} windows were emitted. Kafka Streams looks for "
                         "closed windows at most once a second of arrival time and emits only those its store "
                         f"still holds ({retention}); a jump of stream time longer than that (a silence) loses "
                         "the windows closed in it. A longer --retention keeps them "
                         "(docs/kafka_streams_semantics.md, Store retention)")
        return notes

    def summary_lines(self, summary: dict, setting: Any, result: Any, fmt: Any) -> list[str]:
        """Kafka Streams' own figures: tasks, the dropped-records sensor, record lateness, updates."""
        if "dropped_records_sensor" not in summary:
            return []
        number, duration = fmt.number, fmt.duration
        return [f"  Kafka Streams: {number(summary.get('tasks', 0))} tasks; dropped-records sensor "
                f"{number(summary['dropped_records_sensor'])} (one per skipped record-window pair); "
                f"largest record lateness {duration(summary.get('record_lateness_max_ms', 0))}; "
                f"{number(summary.get('updates', 0))} updates, {number(summary.get('tombstones', 0))} tombstones, "
                f"{number(summary.get('finals', 0))} final results"
                + (f"; record cache {number(int(setting.cache_max_bytes))} bytes, committed every "
                   f"{duration(int(setting.commit_interval))}, {number(summary.get('cache_evictions', 0))} evictions"
                   if getattr(setting, "cache_max_bytes", 0) and setting.emit != "final" else "")]

    def explain_refusal(self, what: str) -> str | None:
        return (f"{what}() explains drops by Flink's watermark; with semantics='kafka_streams' read result.late (each "
                "dropped record with its task and the task's stream time) and result.emissions")

    def render(self, setting: Any, target: str) -> Any:
        from toolkit.semantics.kafka_streams.deploy import render

        return render(setting)


SEMANTICS = KafkaStreams()
