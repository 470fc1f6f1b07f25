"""The engine simulators: each engine's event-time rules, record by record (stdlib + numpy only).

One folder per engine, in that engine's own vocabulary: ``flink`` (the DataStream API's window
operator and watermarks), ``microbatch`` (Spark Structured Streaming's micro-batches),
``kafka_streams`` (windowed aggregations with per-task stream time) and ``beam`` (GroupByKey
with triggers and panes); Flink's ``scenarios`` read and run the oracle's scenario files. Nothing here
imports pandas I/O, Spark or charts: what a replay or a sweep asks of an engine goes through
``toolkit.semantics``.
"""
