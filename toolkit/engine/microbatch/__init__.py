"""Spark Structured Streaming's event-time semantics (micro-batches, one global watermark).

One module per concept: ``config`` (``MicroBatchConfig``), ``batches`` (micro-batches from
arrival times and the trigger interval, no-data batches), ``watermark`` (the global watermark
and the multiple-watermark policy), ``aggregation`` (``window()``: append and update modes,
eviction), ``sessions`` (``session_window()``: merging), ``prepared`` (``MicroBatchLog``: the
work that depends only on the log, done once for many settings), ``run`` (``run_microbatch``,
``run_prepared``).
Standard library and numpy only, like the rest of the engine. Checked against real Spark
(``tests/fixtures/spark``, produced by ``oracles/spark/spark_oracle.py``).
"""
from toolkit.engine.microbatch.config import MicroBatchConfig, MicroBatchConfigError
from toolkit.engine.microbatch.prepared import MicroBatchLog
from toolkit.engine.microbatch.run import MicroBatchResult, run_microbatch, run_prepared

__all__ = ["MicroBatchConfig", "MicroBatchConfigError", "MicroBatchLog", "MicroBatchResult", "run_microbatch",
           "run_prepared"]
