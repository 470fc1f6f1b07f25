"""Flink SQL's event-time rules, record by record: window table-valued functions (TUMBLE, HOP,
CUMULATE, SESSION) and the legacy group window aggregated with COUNT and SUM, over a source
whose per-partition watermarks follow ``WATERMARK FOR ts AS ts - INTERVAL ...``.

Checked against real Flink SQL 2.3 (``tests/fixtures/flink_sql``, produced by
``oracles/flink_sql``); the rules are stated in docs/flink_sql_semantics.md. Standard library
and numpy only.
"""
from toolkit.engine.flink_sql.job import Simulation, run, simulate
from toolkit.engine.flink_sql.legacy import EmittingWindowAggregate
from toolkit.engine.flink_sql.operator import LocalBuffer, Row, WindowAggregate
from toolkit.engine.flink_sql.steps import source_steps
from toolkit.engine.flink_sql.windows import WindowSpec, window_spec

__all__ = ["EmittingWindowAggregate", "LocalBuffer", "Row", "Simulation", "WindowAggregate", "WindowSpec",
           "run", "simulate", "source_steps", "window_spec"]
