"""Flink's event-time windowing (the DataStream API), event by event (stdlib + numpy only).

Window-operator side: ``windows``, ``assigners``, ``triggers``, ``evictors``, ``functions``,
``state`` (a process function's keyed state), ``merging``, ``results`` (``WindowResult``,
``LateRecord``, ``SideOutput``), ``operator`` (the general
``WindowOperator``), ``operator_fast`` (specialised subclasses), ``config`` (``WindowConfig``
and ``build_operator``, the one place that picks an operator class), ``harness``.
Watermark side: ``watermarks``, ``valve``, ``sources``, ``pipeline``. The oracle's scenario
formats: ``toolkit.engine.flink.scenarios`` (``jsonl``, ``window``, ``watermarks``, ``valve``, ``multiplexer``).

Names are exported lazily from ``_EXPORTS`` (public name -> module) so that importing one
part does not import the rest; add a line here to export a new name.
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    # windows
    "TimeWindow": "windows", "GlobalWindow": "windows", "MIN_TIMESTAMP": "windows",
    "MAX_TIMESTAMP": "windows", "get_window_start_with_offset": "windows",
    # assigners
    "WindowAssigner": "assigners", "MergingWindowAssigner": "assigners",
    "TumblingEventTimeWindows": "assigners", "TumblingProcessingTimeWindows": "assigners",
    "SlidingEventTimeWindows": "assigners", "SlidingProcessingTimeWindows": "assigners",
    "EventTimeSessionWindows": "assigners", "ProcessingTimeSessionWindows": "assigners",
    "DynamicEventTimeSessionWindows": "assigners", "DynamicProcessingTimeSessionWindows": "assigners",
    "GlobalWindows": "assigners", "WindowStagger": "assigners",
    # triggers
    "TriggerResult": "triggers", "Trigger": "triggers", "EventTimeTrigger": "triggers",
    "ProcessingTimeTrigger": "triggers", "CountTrigger": "triggers",
    "ContinuousEventTimeTrigger": "triggers", "ContinuousProcessingTimeTrigger": "triggers",
    "DeltaTrigger": "triggers", "PurgingTrigger": "triggers", "NeverTrigger": "triggers",
    "EndOfStreamTrigger": "triggers", "AfterWatermark": "triggers", "EarlyLateFiring": "triggers",
    "after_count": "triggers", "after_processing_time": "triggers", "trigger_from_name": "triggers",
    # evictors
    "Evictor": "evictors", "CountEvictor": "evictors", "TimeEvictor": "evictors",
    "DeltaEvictor": "evictors", "TimestampedValue": "evictors",
    # functions
    "WindowFunction": "functions", "ReduceFunction": "functions", "AggregateFunction": "functions",
    "ProcessWindowFunction": "functions", "ProcessContext": "functions", "CountSum": "functions",
    "CountSumResult": "functions", "Count": "functions", "Sum": "functions",
    "CollectValues": "functions", "OutputTag": "functions",
    # process-function state
    "KeyedStateStore": "state", "ValueState": "state", "ListState": "state", "MapState": "state",
    "ReducingState": "state", "AggregatingState": "state", "UnsupportedOperationError": "state",
    # operator
    "MergingWindowSet": "merging", "WindowOperator": "operator", "WindowResult": "results",
    "LateRecord": "results", "SideOutput": "results", "side_outputs": "results", "ACCUMULATION_MODES": "operator",
    "TimeWindowEventTimeOperator": "operator_fast", "SessionEventTimeOperator": "operator_fast",
    "WindowConfig": "config", "build_operator": "config",
    "WindowOperatorTestHarness": "harness",
    "run_scenario": "scenarios.window",
    # watermark side: generators, emitter, source subtasks, valve, pipeline
    "WatermarkStrategy": "watermarks", "BoundedOutOfOrderness": "watermarks", "Monotonous": "watermarks",
    "TimeLag": "watermarks", "Punctuated": "watermarks", "IdleAdvance": "watermarks", "Adaptive": "watermarks",
    "WithIdleness": "watermarks", "make_strategy": "watermarks",
    "MIN_WATERMARK": "watermarks", "MAX_WATERMARK": "watermarks",
    "StatusWatermarkValve": "valve", "TwoInputValves": "valve",
    "SourceSubtask": "sources", "WatermarkEmitter": "sources", "WatermarkOutputMultiplexer": "sources",
    "watermark_timeline": "pipeline", "run_pipeline": "pipeline",
    "WatermarkTimeline": "timeline", "TickShape": "timeline",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'toolkit.engine.flink' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"toolkit.engine.flink.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
