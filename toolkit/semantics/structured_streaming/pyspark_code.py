"""The PySpark Structured Streaming code of a ``semantics="spark"`` setting, to paste into a job.

``pyspark_snippet(setting)`` returns Python source defining ``build_query(spark, read_input,
sink)``: ``read_input(partition)`` gives a streaming DataFrame with ``event_time`` (timestamp),
``key`` and ``value`` (and, for ``dynamic_session:COLUMN``, that column: each row's session gap
in ms, read by ``session_window(event_time, concat(COLUMN, ' milliseconds'))``) (``partition`` is ``None`` for one input, or each partition id when every
partition is an input of its own, ``partitions_as_sources=True``); ``sink`` is a
``foreachBatch`` function. It returns the ``DataStreamWriter`` (call ``.start()``) configured
exactly as the replay assumed: ``.withWatermark("event_time", delay)`` on every input,
``window()`` / ``session_window()``, ``count`` and ``sum``, ``.outputMode(...)``,
``.trigger(processingTime=...)`` and ``spark.sql.streaming.multipleWatermarkPolicy``.
"""
from __future__ import annotations

from toolkit.settings import DynamicSession, Session, Setting, SettingError, Sliding, Tumbling


def _interval(ms: int) -> str:
    """A Spark interval string in the largest exact unit (``5 seconds``, ``1500 milliseconds``)."""
    for unit, size in (("hours", 3_600_000), ("minutes", 60_000), ("seconds", 1000)):
        if ms and ms % size == 0:
            return f"{ms // size} {unit}"
    return f"{ms} milliseconds"


def pyspark_snippet(setting: Setting | str | dict, partitions: list[int] | None = None) -> str:
    """PySpark code for ``setting`` (which must have ``semantics="spark"``); ``partitions``: the
    input partitions when each is an input (default: ``read_input`` is called for 0..N-1, with N
    a parameter of ``build_query``)."""
    s = Setting.parse(setting)
    if s.semantics != "spark":
        raise SettingError("semantics", "pyspark_snippet writes Spark code: give a setting with semantics='spark'")
    w = s.window
    start = f', startTime="{_interval(w.offset)}"' if getattr(w, "offset", 0) else ""  # window offset
    if isinstance(w, Tumbling):
        window = (f'F.window("event_time", "{_interval(w.size)}", "{_interval(w.size)}"{start})' if start
                  else f'F.window("event_time", "{_interval(w.size)}")')
    elif isinstance(w, Sliding):
        window = f'F.window("event_time", "{_interval(w.size)}", "{_interval(w.slide)}"{start})'
    elif isinstance(w, Session):
        window = f'F.session_window("event_time", "{_interval(w.gap)}")'
    elif isinstance(w, DynamicSession):  # a per-row gap in ms (null, 0 or negative: no session)
        window = (f'F.session_window("event_time", F.concat(F.col("{w.column}").cast("string"), '
                  'F.lit(" milliseconds")))')
    else:  # pragma: no cover - Setting refuses other windows with semantics="spark"
        raise SettingError("window", f"no Spark window for {w}")
    delay = _interval(s.delay) if s.delay else "0 seconds"
    if s.partitions_as_sources:
        parts = repr(list(partitions)) if partitions is not None else "range(n_partitions)"
        inputs = (f'    inputs = [read_input(p).withWatermark("event_time", "{delay}") for p in {parts}]\n'
                  "    events = functools.reduce(lambda a, b: a.union(b), inputs)\n")
        sig = "def build_query(spark, read_input, sink" + (", n_partitions" if partitions is None else "") + "):"
    else:
        inputs = f'    events = read_input(None).withWatermark("event_time", "{delay}")\n'
        sig = "def build_query(spark, read_input, sink):"
    return (
        "import functools\n\n"
        "from pyspark.sql import functions as F\n\n\n"
        f"{sig}\n"
        f'    """Watermark Lab setting: {s}"""\n'
        f'    spark.conf.set("spark.sql.streaming.multipleWatermarkPolicy", "{s.multiple_watermark_policy}")\n'
        f"{inputs}"
        "    result = (events\n"
        f'              .groupBy({window}, "key")\n'
        '              .agg(F.count(F.lit(1)).alias("count"), F.sum("value").alias("sum")))\n'
        "    return (result.writeStream\n"
        f'            .outputMode("{s.output_mode}")\n'
        f'            .trigger(processingTime="{_interval(s.trigger_interval)}")\n'
        "            .foreachBatch(sink))\n"
    )
