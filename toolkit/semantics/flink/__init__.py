"""Apache Flink's event-time semantics, DataStream API (``semantics="flink"``, the default).

Per-partition watermark generators (``WatermarkStrategy``), source subtasks, the
``StatusWatermarkValve`` and the ``WindowOperator`` with its assigners, triggers, evictors,
allowed lateness and window functions, in pipelines of windowed stages, unions and joins. The
simulator is ``toolkit.engine.flink``; the replay :mod:`toolkit.semantics.flink.replay`; the
sweep's closed form ``toolkit.fast`` and the engine path ``toolkit.sweeps.evaluate``.
"""
from __future__ import annotations

from typing import Any, Callable

from toolkit.semantics.base import Semantics
from toolkit.settings import (
    STRATEGY_PARAMETERS,
    Custom,
    DynamicSession,
    Global,
    KafkaSliding,
    Session,
    SettingError,
    Sliding,
    Tumbling,
)


class Flink(Semantics):
    name = "flink"
    window_types = (Tumbling, Sliding, Session, DynamicSession, Global, Custom)
    package = __name__
    title = "Flink"
    aliases = ("apache_flink", "datastream")
    options = ()  # Flink's settings are the common ones: the window operator's and the watermarks'
    shared = ("window", "delay", "lateness", "strategy", *STRATEGY_PARAMETERS, "interval", "idleness", "source_parallelism",
              "partitions_as_sources", "trigger", "evictor", "function", "accumulation", "stagger", "split_discovery",
              "stages")
    path = "engine"
    shards_in_process = True
    multi_input = True
    exports_scenarios = True
    deploy_targets = {"flink": ("Flink DataStream API (Java)", "java")}  # Flink SQL: semantics="flink_sql"

    def timer_targets(self, setting: Any, event_time: Any, gaps: Any = None) -> Any:
        from toolkit.semantics.flink.window_operator import timer_targets

        return timer_targets(setting, event_time, gaps)

    def check(self, s: Any) -> None:
        if isinstance(s.window, KafkaSliding):
            raise SettingError("window", f"window {s.window} is Kafka Streams' SlidingWindows; give "
                               "semantics='kafka_streams' (or use sliding:SIZE/SLIDE)")

    def fit_grid(self, values: dict) -> dict | None:
        return None if isinstance(values.get("window"), KafkaSliding) else values

    # -- replay --------------------------------------------------------------------------------

    def replay(self, log: Any, s: Any, *, limits: Any, sources: Any, explicit: Any) -> Any:
        from toolkit.semantics.flink.replay import replay_flink

        return replay_flink(log, s, limits=limits, sources=sources, explicit=explicit)

    def replay_inputs(self, logs: list, s: Any, two_input: Any, *, limits: Any, explicit: Callable[[str], bool]) -> Any:
        from toolkit.semantics.flink.replay import replay_inputs

        return replay_inputs(logs, s, two_input, limits=limits, explicit=explicit)

    # -- sweep ---------------------------------------------------------------------------------

    def sweep_paths(self, configs: list, path: str, *, event_range: Any, gap_max: dict) -> list[str]:
        """The closed form (``fast``) where it applies, else the engine (``toolkit.semantics.flink.engine_path``)."""
        from toolkit.semantics.flink.paths import choose_paths

        return choose_paths(configs, path, event_range=event_range(), gap_max=gap_max)

    def timelines(self, configs: list, sources: Any) -> dict[int, Any]:
        from toolkit.sweeps.timelines import build_timelines

        return build_timelines(configs, sources)

    def evaluate(self, shard: Any, config: Any, path: str, timeline: Any) -> dict:
        from toolkit.semantics.flink.sweep import evaluate_config

        return evaluate_config(shard, config, path, timeline)

    # -- words ---------------------------------------------------------------------------------

    def setting_words(self, row: Any, results: Any = None) -> str:
        from toolkit.semantics.flink.words import flink_words

        return flink_words(row, results)

    def explain_refusal(self, what: str) -> str | None:
        return None

    def render(self, setting: Any, target: str) -> Any:
        from toolkit.semantics.flink.deploy import render_datastream

        return render_datastream(setting)


SEMANTICS = Flink()
