"""The SQL of a ``semantics="flink_sql"`` setting: the script that runs what was replayed.

The ``SET`` statements are the table options of :func:`toolkit.semantics.flink_sql.run.table_options`
(the ones the simulator was given) and ``pipeline.auto-watermark-interval``; the ``CREATE TABLE``
has ``WATERMARK FOR ts AS ts - INTERVAL '<delay>'`` (Flink SQL's watermark is the expression
itself: no ``- 1 ms``), and the query is the window TVF (or the legacy group window) of
:func:`toolkit.semantics.flink_sql.run.window_head`. Nothing is approximated: a setting the
replay refuses is refused before this runs; the one note is ``partitions_as_sources=false`` (a SQL
source has a generator per split).
"""
from __future__ import annotations

from typing import Any

from toolkit.deployment import Deployment, sql_interval
from toolkit.semantics.flink_sql.run import table_options, window_head

_TVF = {"tumble": "TUMBLE", "hop": "HOP", "cumulate": "CUMULATE", "session": "SESSION"}


def _interval(ms: int) -> str:
    """An interval literal; negative offsets keep their sign."""
    return f"-{sql_interval(-ms)}" if ms < 0 else sql_interval(ms)


def _duration(ms: int) -> str:
    return f"{ms} ms"


def _query(w: dict) -> list[str]:
    kind = w["kind"]
    off = f", {_interval(w['offset'])}" if w.get("offset") else ""
    if kind.startswith("legacy_"):
        base = kind[len("legacy_"):]
        fn = _TVF[base]
        args = {"tumble": lambda: f"{sql_interval(w['size'])}{off}",
                "hop": lambda: f"{sql_interval(w['slide'])}, {sql_interval(w['size'])}{off}",
                "session": lambda: sql_interval(w["gap"])}[base]()
        return [f"SELECT `key`, {fn}_START(ts, {args}) AS window_start, {fn}_END(ts, {args}) AS window_end,",
                "       COUNT(*) AS `count`, SUM(`value`) AS `sum`",
                "FROM events",
                f"GROUP BY `key`, {fn}(ts, {args});"]
    if kind == "tumble":
        tvf = f"TUMBLE(TABLE events, DESCRIPTOR(ts), {sql_interval(w['size'])}{off})"
    elif kind == "hop":
        tvf = f"HOP(TABLE events, DESCRIPTOR(ts), {sql_interval(w['slide'])}, {sql_interval(w['size'])}{off})"
    elif kind == "cumulate":
        tvf = f"CUMULATE(TABLE events, DESCRIPTOR(ts), {sql_interval(w['step'])}, {sql_interval(w['size'])}{off})"
    else:
        tvf = f"SESSION(TABLE events PARTITION BY `key`, DESCRIPTOR(ts), {sql_interval(w['gap'])})"
    return ["SELECT `key`, window_start, window_end, COUNT(*) AS `count`, SUM(`value`) AS `sum`",
            f"FROM TABLE({tvf})",
            "GROUP BY `key`, window_start, window_end;"]


def render(s: Any) -> Deployment:
    """The runnable Flink SQL script of ``s`` (see the module doc)."""
    lines = [f"-- Watermark Lab setting: {s}",
             f"SET 'pipeline.auto-watermark-interval' = '{_duration(int(s.interval))}';"
             + ("  -- 0: no periodic watermark before the end of input, as replayed" if s.interval == 0 else "")]
    lines += [f"SET '{k}' = '{v}';" for k, v in table_options(s).items()]
    wm = f"ts - {sql_interval(int(s.delay))}" if s.delay else "ts"
    lines += ["", "CREATE TABLE events (", "  `key` STRING,", "  `value` DOUBLE,", "  ts TIMESTAMP_LTZ(3),",
              f"  WATERMARK FOR ts AS {wm}  -- the running max of this expression, per split (no - 1 ms)",
              ") WITH ("]
    if s.watermark_emit != "on-periodic":
        lines.append(f"  'scan.watermark.emit.strategy' = '{s.watermark_emit}',")
    lines += ["  'connector' = '...'  -- your source; with Kafka each partition is a split with its own watermark"
              + ("" if s.partitions_as_sources else " (the replay had one split for the whole stream)"),
              ");", ""]
    lines += _query(window_head(s))
    notes = () if s.partitions_as_sources else (
        "partitions_as_sources=false: the replay had one watermark generator for the whole stream, and a SQL "
        "source generates one per split; read the topic as one split (one partition) to get what was replayed",)
    return Deployment("flink-sql", "sql", "\n".join(lines) + "\n", notes, s)
