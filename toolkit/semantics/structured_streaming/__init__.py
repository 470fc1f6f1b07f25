"""Spark Structured Streaming's event-time semantics (``semantics="spark"``).

Micro-batches cut every ``trigger_interval`` of arrival time, one global watermark (max event
time - delay, per input combined by ``multiple_watermark_policy``) moved between batches, output
modes append / update / complete. The simulator is ``toolkit.engine.microbatch``. In this
package: ``inputs`` (a setting and a log as the engine takes them), ``figures`` (one setting's
run and its figures, shared by replay and sweep), ``replay`` (the replay's tables), ``sweep``
(rows on a prepared log, key shards), ``pyspark_code``, ``translate``, ``words``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from toolkit.semantics.base import Semantics, refuse_given
from toolkit.settings import (
    SESSION_WINDOWS,
    DynamicSession,
    KafkaSliding,
    Option,
    Session,
    SettingError,
    Sliding,
    TriggerSpec,
    Tumbling,
    choice,
    optional_duration,
)

OUTPUT_MODES = ("append", "update", "complete")
#: Spark's default processing-time trigger (ms) when the query sets none
TRIGGER_INTERVAL_DEFAULT = 1000
WATERMARK_POLICIES = ("min", "max")

#: Flink settings Spark has no counterpart for (refused; a grid's axis collapses to the default)
NOT_SPARK = ("trigger", "evictor", "lateness", "function", "accumulation", "stagger", "strategy", "interval", "idleness",
             "source_parallelism", "step", "marker", "quantile", "quantile_window", "min_delay", "max_delay",
             "second_window", "second_lateness", "stages", "split_discovery")

_HINTS = {
    "trigger": "Spark emits by output mode (output_mode=append|update|complete) at every micro-batch",
    "lateness": "Spark keeps a window until the watermark passes its end; raise delay instead",
    "strategy": "Spark's watermark is always max event time - delay (withWatermark)",
    "interval": "Spark moves its watermark between micro-batches; use trigger_interval",
    "idleness": "Spark has no idle timeout; multiple_watermark_policy='max' ignores a silent input",
    "accumulation": "Spark's output modes are append and update",
    "stagger": "Spark's window() has no stagger; its windows start at multiples of the slide (plus startTime)",
}


class StructuredStreaming(Semantics):
    name = "spark"
    window_types = (Tumbling, Sliding, Session, DynamicSession)
    package = __name__
    title = "Spark Structured Streaming"
    short_title = "Spark"
    aliases = ("spark_structured_streaming", "structured_streaming")
    options = (
        Option("trigger_interval", TRIGGER_INTERVAL_DEFAULT, lambda v, n: optional_duration(v, n, positive=True),
               "processing-time trigger interval, trigger(processingTime=...)", unit="ms", control="duration"),
        Option("output_mode", "append", lambda v, n: choice(v, n, OUTPUT_MODES), "the query's output mode (sessions: append or complete)",
               control="choice", choices=OUTPUT_MODES),
        Option("multiple_watermark_policy", "min", lambda v, n: choice(v, n, WATERMARK_POLICIES),
               "spark.sql.streaming.multipleWatermarkPolicy, when each partition is an input", control="choice",
               choices=WATERMARK_POLICIES),
    )
    shared = ("window", "delay", "partitions_as_sources")
    path = "microbatch"
    shards_in_process = False
    null_gap_is_no_session = True
    deploy_targets = {"spark": ("PySpark Structured Streaming", "python")}

    def check(self, s: Any) -> None:
        """Refuse what Spark Structured Streaming has no counterpart for, naming the setting, and
        fill Spark's defaults (trigger interval 1s, append mode, min policy)."""
        w = s.window
        if not isinstance(w, (Tumbling, Sliding, Session, DynamicSession)):
            raise SettingError("window", f"window {w}: Spark's window()/session_window() give tumbling, sliding or "
                               "session windows; use e.g. 'tumbling:10s', 'sliding:10s/5s', 'session:30s' or "
                               "'dynamic_session:gap_ms' (session_window(ts, gap_column))")
        refuse_given({
            "trigger": s.trigger != TriggerSpec("event_time"), "evictor": s.evictor is not None,
            "lateness": s.lateness != 0, "function": s.function != "count_sum",
            "accumulation": s.accumulation != "accumulating", "stagger": s.stagger != "aligned",
            "split_discovery": s.split_discovery != "at_start", "strategy": s.strategy != "bounded",
            "interval": s.interval != 200, "idleness": s.idleness is not None,
            "source_parallelism": s.source_parallelism != 1, "second_window": s.second_window is not None,
            "stages": bool(s.stages),
        }, _HINTS, "{name} is a Flink setting that semantics='spark' does not have{more}; leave it at its default")
        self.fill_defaults(s)
        if s.trigger_interval <= 0:
            raise SettingError("trigger_interval", f"trigger_interval must be > 0, got {s.trigger_interval}")
        if isinstance(w, SESSION_WINDOWS) and s.output_mode == "update":
            raise SettingError("output_mode", "output_mode 'update' with session windows: Spark refuses it "
                               "(STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION); use output_mode='append' or 'complete'")

    def fit_grid(self, values: dict) -> dict | None:
        for p in NOT_SPARK:  # Flink's axes collapse to their default on Spark rows
            values.pop(p, None)
        if isinstance(values.get("window"), KafkaSliding):
            return None
        return values

    # -- replay --------------------------------------------------------------------------------

    def replay(self, log: Any, s: Any, *, limits: Any, sources: Any, explicit: Any) -> Any:
        from toolkit.replays.arrays import log_arrays
        from toolkit.replays.result import ReplayResult
        from toolkit.semantics.structured_streaming.replay import microbatch_parts

        a = log_arrays(log, s, self)
        if not s.partitions_as_sources:
            a["part"] = np.zeros_like(a["part"])
        if not len(a["ts"]):
            raise SettingError("log", "the log has no valid records to replay")
        return ReplayResult(**microbatch_parts(log, s, a, sources=sources))

    def gap_array(self, table: Any, column: str) -> np.ndarray:
        """Spark's rule: a null, 0 or negative gap is no session (``session_window``)."""
        from toolkit.semantics.structured_streaming.inputs import spark_gap_column

        return spark_gap_column(table, column)

    def check_gap_column(self, column: str, table: Any, spark_df: Any) -> None:
        if table is not None:
            self.gap_array(table, column)
        else:
            from toolkit.semantics.structured_streaming.sweep import check_gaps_in_spark

            check_gaps_in_spark(spark_df, column)

    # -- sweep ---------------------------------------------------------------------------------

    def shardable(self, s: Any) -> bool:
        """Complete mode re-emits every window every batch and never evicts: its figures come from
        the replay's own code, in one piece (the sharded partial models append and update)."""
        return s.output_mode != "complete"

    def timelines(self, configs: list, sources: Any) -> dict[int, Any]:
        from toolkit.semantics.structured_streaming.sweep import build_batch_timelines

        return build_batch_timelines(configs, sources.batch_maxima, getattr(sources, "partitions", None))

    def evaluate(self, shard: Any, config: Any, path: str, timeline: Any) -> dict:
        from toolkit.semantics.structured_streaming.sweep import microbatch_partial

        return microbatch_partial(shard, config, timeline)

    def whole_figures(self, table: Any, configs: list, invalid: int, sources: Any) -> list[dict]:
        """One prepared log for all the settings (``toolkit.semantics.structured_streaming.sweep.sweep_rows``)."""
        from toolkit.semantics.structured_streaming.sweep import sweep_rows

        return list(sweep_rows(table, configs, invalid, sources=sources))

    def timeline_inputs(self, s: Any) -> tuple | None:
        return ("batches", s.trigger_interval)

    def whole_bytes(self) -> tuple[int, int]:
        return (600, 150)

    # -- words ---------------------------------------------------------------------------------

    def holding_level(self, settings: dict) -> str | None:
        """Partitions hold the watermark back only as inputs under the (default) min policy."""
        if not settings.get("partitions_as_sources", True) or settings.get("multiple_watermark_policy") == "max":
            return None
        return "partition"

    def setting_words(self, row: Any, results: Any = None) -> str:
        from toolkit.semantics.words import engine_setting_words

        words = [("trigger_interval_ms", "micro-batches every {}"), ("output_mode", "{} output mode"),
                 ("multiple_watermark_policy", "the {} watermark policy")]
        extra = ["one input for all partitions"] if ("partitions_as_sources" in row
                                                     and not bool(row["partitions_as_sources"])) else []
        return engine_setting_words(row, results, words, extra)

    def invalid_words(self, s: Any) -> str | None:
        if s.gap_column is None:
            return None
        return (f"quarantined, or with a null, zero or negative {s.gap_column} that puts them in no session "
                "(Spark's session_window leaves them out; their event times still move the watermark)")

    def render(self, setting: Any, target: str) -> Any:
        """The PySpark query the replay assumed (``pyspark_code``)."""
        from toolkit.deployment import Deployment
        from toolkit.semantics.structured_streaming.pyspark_code import pyspark_snippet

        return Deployment(target, "python", pyspark_snippet(setting), (), setting)


SEMANTICS = StructuredStreaming()
