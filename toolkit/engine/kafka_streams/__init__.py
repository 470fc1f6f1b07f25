"""Kafka Streams' event-time windowing, re-implemented (engine layer: standard library + numpy).

No watermark: each stream task tracks its own stream time (the highest record timestamp it has
processed), a window closes when stream time passes ``end + grace``, and records for closed
windows are skipped and counted by the dropped-records sensor. One module per concept:
``partitioner`` (key -> task, Kafka's murmur2), ``windows`` (``TimeWindows``, ``SlidingWindows``,
``SessionWindows``), ``emit`` (``EmitStrategy``), the three aggregations
(``time_window_aggregate``, ``sliding_window_aggregate``, ``session_window_aggregate``),
``unlimited_window_aggregate`` (``UnlimitedWindows``), ``record_cache`` (the record cache: compaction
until commit or eviction), ``suppress`` (``untilWindowCloses`` / ``untilTimeLimit``, bounded buffers),
``output`` (the result contract) and ``topology`` (``run_windowed_aggregation``). The rules and the Kafka tests that show them:
``docs/kafka_streams_semantics.md``.
"""
from __future__ import annotations

from toolkit.engine.kafka_streams.emit import (
    ON_WINDOW_CLOSE,
    ON_WINDOW_UPDATE,
    SUPPRESS_UNTIL_WINDOW_CLOSES,
    Emit,
)
from toolkit.engine.kafka_streams.output import KafkaStreamsResult
from toolkit.engine.kafka_streams.partitioner import murmur2, partition_for_key, tasks_for_keys, to_positive
from toolkit.engine.kafka_streams.topology import run_windowed_aggregation
from toolkit.engine.kafka_streams.windows import SessionWindows, SlidingWindows, TimeWindows, UnlimitedWindows

__all__ = [
    "Emit", "ON_WINDOW_CLOSE", "ON_WINDOW_UPDATE", "SUPPRESS_UNTIL_WINDOW_CLOSES", "KafkaStreamsResult",
    "murmur2", "partition_for_key", "tasks_for_keys", "to_positive", "run_windowed_aggregation",
    "SessionWindows", "SlidingWindows", "TimeWindows", "UnlimitedWindows",
]
