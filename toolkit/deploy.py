"""Deployable settings: the code an engineer pastes into a job to run a :class:`~toolkit.settings.Setting`.

``toolkit.deploy(setting, engine="flink")`` returns a :class:`Deployment`: Flink DataStream Java
(``"flink"``) or Flink SQL (``"flink-sql"``) for Flink settings, PySpark Structured Streaming
(``"spark"``) for ``semantics="spark"`` ones, the Kafka Streams DSL (``"kafka-streams"``) for
``semantics="kafka_streams"`` ones, Apache Beam's Python SDK (``"beam"``) for ``semantics="beam"``
ones. Names are Flink 2.x's (the ones the real-Flink
oracle in ``../shared/oracle`` compiles against). What an engine cannot express is said in the
deployment's ``notes`` (and as comments in its code), never written as code that would do
something else. Other engines add themselves with :func:`register_engine` (e.g. a Spark
module: ``register_engine("spark", render, language="python")``).

Exactness rules (from Flink's source):

- DataStream ``forBoundedOutOfOrderness(d)`` emits ``max - d - 1``; the legacy strategy
  (``max - d``) is ``forBoundedOutOfOrderness(d - 1 ms)``.
- Flink SQL's ``WATERMARK FOR ts AS expr`` emits the expression itself (the
  ``WatermarkAssignerOperator`` keeps ``max(expr)``), so the bounded delay ``d`` is
  ``ts - INTERVAL 'd + 1 ms'`` and the legacy one ``ts - INTERVAL 'd'``.
- Periodic emission is ``pipeline.auto-watermark-interval``; 0 switches periodic watermarks
  off in Flink, whereas the replay's ``interval=0`` emits after every record: that needs a
  generator that emits in ``onEvent`` (said in the notes).
"""
from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from typing import Any, Callable

from toolkit.durations import readable
from toolkit.pyspark_code import pyspark_snippet
from toolkit.settings import (EVENT_TIME_WINDOWS, Custom, DynamicSession, Global, Session, Setting, SettingError, Sliding,
                              Tumbling, TriggerSpec)

__all__ = ["Deployment", "deploy", "register_engine", "engines", "java_duration", "sql_interval"]


@dataclass(frozen=True)
class Deployment:
    """The code that runs a setting in one engine, and what it cannot express."""

    engine: str
    language: str          # "java", "sql", "python" ... (the code block's language)
    code: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    setting: Setting | None = None

    @property
    def exact(self) -> bool:
        """True when the code expresses the whole setting (no note says otherwise)."""
        return not self.notes

    def __str__(self) -> str:
        comment = "-- " if self.language == "sql" else ("# " if self.language == "python" else "// ")
        notes = "".join(f"{comment}NOTE: {n}\n" for n in self.notes)
        return notes + self.code

    def _repr_markdown_(self) -> str:
        notes = "".join(f"- {n}\n" for n in self.notes)
        return (f"**{self.engine}**\n\n```{self.language}\n{self.code.rstrip()}\n```\n"
                + (f"\nCannot be expressed here:\n\n{notes}" if notes else ""))


_Render = Callable[[Setting], Deployment]
_ENGINES: dict[str, tuple[_Render, str]] = {}
_SEMANTICS: dict[str, str] = {}


def register_engine(name: str, render: _Render, *, language: str, description: str = "",
                    semantics: str = "flink") -> None:
    """Add an engine: ``render(setting)`` returns its :class:`Deployment`; it deploys settings
    replayed with ``semantics`` (a Spark setting is not a Flink job, and the other way round)."""
    _ENGINES[name] = (render, description or language)
    _SEMANTICS[name] = semantics


def engines(setting: Any = None) -> dict[str, str]:
    """The registered engines and what each writes; with ``setting``, those that deploy it
    (the engines of its ``semantics``)."""
    want = None if setting is None else _as_setting(setting, {}).semantics
    return {name: desc for name, (_, desc) in _ENGINES.items() if want is None or _SEMANTICS[name] == want}


def deploy(setting: Any = None, engine: str | None = None, **settings: Any) -> Deployment:
    """The code that deploys ``setting`` (a :class:`Setting`, its text or keywords, a sweep row,
    or what :func:`toolkit.recommend` returns) in ``engine`` (see :func:`engines`; default: the
    first engine of the setting's semantics, ``flink`` for Flink settings)."""
    if engine is None:
        fits = list(engines(_as_setting(setting, settings)))
        engine = fits[0] if fits else "flink"
    if engine not in _ENGINES:
        import difflib

        close = difflib.get_close_matches(str(engine), list(_ENGINES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"engine {engine!r} is not one of {', '.join(sorted(_ENGINES))}{hint}")
    s = _as_setting(setting, settings)
    if _SEMANTICS[engine] != s.semantics:
        fits = ", ".join(engines(s)) or "none yet"
        raise SettingError("engine", f"engine {engine!r} deploys semantics={_SEMANTICS[engine]!r} settings, and this "
                           f"setting was replayed with semantics={s.semantics!r}; its engines: {fits}")
    return _ENGINES[engine][0](s)


def _as_setting(setting: Any, settings: dict) -> Setting:
    if isinstance(setting, dict) and "setting" in setting and "reason" in setting:  # a recommendation
        if setting["setting"] is None:
            raise ValueError("the recommendation has no setting (no setting met the target): nothing to deploy")
        setting = setting["setting"]
    if setting is not None and not isinstance(setting, (Setting, str, dict)) and hasattr(setting, "get"):
        setting = Setting.from_row(setting)  # a sweep row (pandas Series)
    elif isinstance(setting, dict) and "delay_ms" in setting:
        setting = Setting.from_row(setting)
    base = Setting.parse(setting) if setting is not None else Setting()
    return base.replace(**settings) if settings else base


# ------------------------------------------------------------------------------- shared spellings
def java_duration(ms: int) -> str:
    """``Duration.ofMillis(2000)`` written in the largest exact unit: ``Duration.ofSeconds(2)``."""
    if ms == 0:
        return "Duration.ZERO"
    for unit, size in (("Hours", 3_600_000), ("Minutes", 60_000), ("Seconds", 1000)):
        if ms % size == 0:
            return f"Duration.of{unit}({ms // size})"
    return f"Duration.ofMillis({ms})"


def sql_interval(ms: int) -> str:
    """A Flink SQL interval literal: ``INTERVAL '2' SECOND``, ``INTERVAL '2.001' SECOND``."""
    for unit, size in (("HOUR", 3_600_000), ("MINUTE", 60_000), ("SECOND", 1000)):
        if ms % size == 0 and ms:
            return f"INTERVAL '{ms // size}' {unit}"
    return f"INTERVAL '{ms // 1000}.{ms % 1000:03d}' SECOND"


def _config_duration(ms: int) -> str:
    """A duration as Flink's configuration reads it: ``200 ms``, ``2 s``."""
    if ms and ms % 1000 == 0:
        return f"{ms // 1000} s"
    return f"{ms} ms"


def _setting_comment(s: Setting) -> str:
    return str(s)


# ------------------------------------------------------------------------------- Flink DataStream
def _strategy_java(s: Setting, notes: list[str]) -> str:
    """``WatermarkStrategy.<Event>...`` for the setting's strategy, or a note when Flink has none."""
    ts = ".withTimestampAssigner((event, recordTimestamp) -> event.eventTime)"
    st = s.strategy
    if isinstance(st, Custom):
        notes.append(f"the watermark strategy is a custom object ({st}): write its WatermarkGenerator by hand")
        code = "WatermarkStrategy.<Event>forGenerator(ctx -> new YourWatermarkGenerator())"
    elif st == "bounded":
        code = f"WatermarkStrategy.<Event>forBoundedOutOfOrderness({java_duration(s.delay)})"
    elif st == "legacy":
        if s.delay >= 1:
            code = (f"WatermarkStrategy.<Event>forBoundedOutOfOrderness({java_duration(s.delay - 1)})"
                    f"  // = max - {s.delay} ms, the legacy extractor's watermark")
        else:
            notes.append("the legacy strategy with no delay (watermark = max event time) has no built-in "
                         "WatermarkStrategy: forMonotonousTimestamps() is max - 1 ms")
            code = "WatermarkStrategy.<Event>forGenerator(ctx -> new YourWatermarkGenerator())"
    elif st == "monotonous":
        code = "WatermarkStrategy.<Event>forMonotonousTimestamps()"
    elif st == "time_lag":
        notes.append("time_lag (processing time - lag) is the TimeLagWatermarkGenerator example of Flink's "
                     "'Generating Watermarks' page, not a built-in: copy that class")
        code = (f"WatermarkStrategy.<Event>forGenerator(ctx -> new TimeLagWatermarkGenerator())"
                f"  // maxTimeLag = {s.delay} ms")
    elif st == "punctuated":
        notes.append("punctuated watermarks need your own WatermarkGenerator that emits "
                     f"event time - {s.delay} ms in onEvent for marker records")
        code = "WatermarkStrategy.<Event>forGenerator(ctx -> new YourPunctuatedGenerator())"
    else:  # idle_advance, adaptive: Watermark Lab extensions
        notes.append(f"the {st} strategy is a Watermark Lab extension with no Flink built-in: "
                     "it needs a custom WatermarkGenerator")
        code = "WatermarkStrategy.<Event>forGenerator(ctx -> new YourWatermarkGenerator())"
    code += "\n        " + ts
    if s.idleness is not None and s.idleness > 0:
        code += f"\n        .withIdleness({java_duration(s.idleness)})"
    return code


def _assigner_java(w: Any, notes: list[str], stagger: str = "aligned") -> str:
    if isinstance(w, Tumbling) and stagger != "aligned":
        kind = stagger.partition(":")[0]
        notes.append(f"stagger {stagger}: Flink draws the stagger offset in each window subtask at its first record "
                     + ("from ThreadLocalRandom (no seed can be set), " if kind == "random" else
                        "from the processing time then, ")
                     + "so the deployed job's windows are shifted by an offset of its own; the replay's figures are "
                     "for the offset it drew")
        return (f"TumblingEventTimeWindows.of({java_duration(w.size)}, {java_duration(w.offset)}, "
                f"WindowStagger.{kind.upper()})")
    if isinstance(w, Tumbling):
        args = java_duration(w.size) + (f", {java_duration(w.offset)}" if w.offset else "")
        return f"TumblingEventTimeWindows.of({args})"
    if isinstance(w, DynamicSession):
        field = w.column if w.column.isidentifier() else "gap"
        return f"EventTimeSessionWindows.withDynamicGap((SessionWindowTimeGapExtractor<Event>) event -> event.{field})"
    if isinstance(w, Sliding):
        args = f"{java_duration(w.size)}, {java_duration(w.slide)}" + (f", {java_duration(w.offset)}" if w.offset else "")
        return f"SlidingEventTimeWindows.of({args})"
    if isinstance(w, Session):
        return f"EventTimeSessionWindows.withGap({java_duration(w.gap)})"
    if isinstance(w, Global):
        return "GlobalWindows.createWithEndOfStreamTrigger()" if w.end_of_stream else "GlobalWindows.create()"
    notes.append(f"the window assigner is a custom object ({w}): pass your own WindowAssigner")
    return "new YourWindowAssigner()"


def _trigger_java(t: Any, notes: list[str]) -> str | None:
    if isinstance(t, Custom):
        notes.append(f"the trigger is a custom object ({t}): pass your own Trigger")
        return "new YourTrigger()"
    if t.kind == "default":
        return None
    return {
        "event_time": lambda: "EventTimeTrigger.create()",
        "processing_time": lambda: "ProcessingTimeTrigger.create()",
        "count": lambda: f"CountTrigger.of({t.count})",
        "continuous": lambda: f"ContinuousEventTimeTrigger.of({java_duration(t.interval)})",
        "continuous_processing": lambda: f"ContinuousProcessingTimeTrigger.of({java_duration(t.interval)})",
        "purging": lambda: f"PurgingTrigger.of({_trigger_java(t.inner, notes)})",
        "never": lambda: "new GlobalWindows.NeverTrigger()",
        "end_of_stream": lambda: "new GlobalWindows.EndOfStreamTrigger()",
    }[t.kind]()


def _evictor_java(e: Any, notes: list[str]) -> str | None:
    if e is None:
        return None
    if isinstance(e, Custom):
        notes.append(f"the evictor is a custom object ({e}): pass your own Evictor")
        return "new YourEvictor()"
    after = ", true" if e.after else ""
    if e.kind == "count":
        return f"CountEvictor.of({e.size}{after})"
    return f"TimeEvictor.of({java_duration(e.size)}{after})"


def _flink_datastream(s: Setting) -> Deployment:
    notes: list[str] = []
    lines = [f"// Watermark Lab setting: {_setting_comment(s)}",
             "Configuration config = new Configuration();"]
    if s.interval > 0:
        lines.append(f"config.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, {java_duration(s.interval)});"
                     f"  // pipeline.auto-watermark-interval: {_config_duration(s.interval)}")
    else:
        lines.append("config.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ZERO);  // no periodic watermarks")
        notes.append("interval 0 (a watermark after every record) needs a WatermarkGenerator that emits in "
                     "onEvent: with auto-watermark-interval 0 Flink's periodic generators never emit")
    lines.append("StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);")
    lines.append("")
    lines.append("WatermarkStrategy<Event> watermarks = " + _strategy_java(s, notes) + ";")
    lines.append("")
    par = f"\n        .setParallelism({s.source_parallelism})" if s.source_parallelism != 1 else ""
    if s.partitions_as_sources:
        lines.append("// each source split (Kafka partition) gets its own watermark generator")
        lines.append(f'DataStream<Event> events = env.fromSource(source, watermarks, "events"){par};')
    else:
        lines.append("// one watermark generator per source subtask, not per split")
        lines.append(f'DataStream<Event> events = env.fromSource(source, WatermarkStrategy.noWatermarks(), "events"){par}')
        lines.append("        .assignTimestampsAndWatermarks(watermarks);")
    lines.append("")
    lines.append("OutputTag<Event> late = new OutputTag<Event>(\"late\") {};")
    chain = ["SingleOutputStreamOperator<Result> results = events",
             "        .keyBy(event -> event.key)"]
    if isinstance(s.window, DynamicSession):
        chain.append(f"        // each record's session gap in ms, > 0 (log column {s.window.column!r}; Flink fails the "
                     "job on a gap <= 0)")
    chain.append(f"        .window({_assigner_java(s.window, notes, s.stagger)})")
    own = isinstance(s.trigger, TriggerSpec) and s.trigger.kind == "event_time" and isinstance(
        s.window, EVENT_TIME_WINDOWS)  # the window's own trigger: nothing to write
    trig = None if own else _trigger_java(s.trigger, notes)
    if trig:
        chain.append(f"        .trigger({trig})")
    ev = _evictor_java(s.evictor, notes)
    if ev:
        chain.append(f"        .evictor({ev})")
    chain.append(f"        .allowedLateness({java_duration(s.lateness)})")
    chain.append("        .sideOutputLateData(late)")
    fn = s.function
    if isinstance(fn, Custom):
        notes.append(f"the window function is a custom object ({fn}): pass your own")
        chain.append("        .process(new YourWindowFunction());")
    elif fn == "values":
        chain.append("        .process(new CollectValues());  // your ProcessWindowFunction: all values of the pane")
    else:
        chain.append("        .aggregate(new CountAndSum());  // your AggregateFunction: count and sum of value")
    lines += chain
    lines.append("DataStream<Event> dropped = results.getSideOutput(late);")
    if s.accumulation != "accumulating":
        notes.append(f"accumulation={s.accumulation} is Beam's pane mode: Flink's window operator always fires "
                     "the accumulated pane (a PurgingTrigger clears the state, but also ends allowed lateness' re-firings)")
    prev = "results"
    for k, st in enumerate(s.pipeline_stages, start=2):  # later stages (stages=[...] or second_window)
        name = "second" if k == 2 else f"stage{k}"
        lines.append("")
        lines.append(f"// stage {k}: windows over stage {k - 1}'s results (event time = window end - 1)"
                     if k > 2 else "// second stage: windows over the first stage's results (event time = window end - 1)")
        lines.append(f"DataStream<Result> {name} = {prev}")
        lines.append("        .keyBy(result -> result.key)")
        lines.append(f"        .window({_assigner_java(st.window, notes)})")
        own_k = isinstance(st.trigger, TriggerSpec) and st.trigger.kind == "event_time" and isinstance(
            st.window, (Tumbling, Sliding, Session))
        trig_k = None if own_k else _trigger_java(st.trigger, notes)
        if trig_k:
            lines.append(f"        .trigger({trig_k})")
        lines.append(f"        .allowedLateness({java_duration(st.lateness)})")
        lines.append("        .process(new CollectValues());" if st.function == "values" else "        .aggregate(new CountAndSum());")
        if st.accumulation != "accumulating":
            notes.append(f"stage {k}: accumulation={st.accumulation} is Beam's pane mode (see above)")
        prev = name
    return Deployment("flink", "java", "\n".join(lines) + "\n", tuple(notes), s)


# ------------------------------------------------------------------------------- Flink SQL
def _sql_watermark(s: Setting, notes: list[str]) -> tuple[str, str]:
    """The WATERMARK expression and a comment line on it ("" when SQL cannot express the strategy)."""
    st = s.strategy
    if st == "bounded":
        return f"ts - {sql_interval(s.delay + 1)}", (
            f"-- = max(ts) - {s.delay} ms - 1 ms: SQL's watermark is the expression itself, DataStream's "
            "forBoundedOutOfOrderness subtracts 1 ms more")
    if st == "legacy":
        return (f"ts - {sql_interval(s.delay)}" if s.delay else "ts"), ""
    if st == "monotonous":
        return f"ts - {sql_interval(1)}", "-- ascending timestamps (ties allowed): max(ts) - 1 ms"
    notes.append(f"the {st} watermark strategy cannot be written as a SQL WATERMARK expression (SQL has only "
                 "bounded expressions of the row time); use the DataStream API")
    return "", ""


def _sql_window(w: Any, notes: list[str]) -> str | None:
    if isinstance(w, Tumbling):
        off = f", {sql_interval(w.offset)}" if w.offset else ""
        return f"TUMBLE(TABLE events, DESCRIPTOR(ts), {sql_interval(w.size)}{off})"
    if isinstance(w, Sliding):
        off = f", {sql_interval(w.offset)}" if w.offset else ""
        if w.size % w.slide:
            notes.append(f"window {w}: Flink SQL's HOP needs the size to be a whole multiple of the slide; "
                         "use the DataStream API's SlidingEventTimeWindows")
            return None
        return f"HOP(TABLE events, DESCRIPTOR(ts), {sql_interval(w.slide)}, {sql_interval(w.size)}{off})"
    if isinstance(w, Session):
        return f"SESSION(TABLE events PARTITION BY `key`, DESCRIPTOR(ts), {sql_interval(w.gap)})"
    if isinstance(w, DynamicSession):
        notes.append(f"window {w}: Flink SQL's SESSION window has one fixed gap; per-record gaps "
                     "(withDynamicGap) exist only in the DataStream API: use engine='flink'")
        return None
    notes.append(f"window {w} has no Flink SQL window table-valued function (TUMBLE, HOP, CUMULATE, SESSION)")
    return None


def _flink_sql(s: Setting) -> Deployment:
    notes: list[str] = []
    wm, wm_comment = _sql_watermark(s, notes)
    lines = [f"-- Watermark Lab setting: {_setting_comment(s)}"]
    if s.interval > 0:
        lines.append(f"SET 'pipeline.auto-watermark-interval' = '{_config_duration(s.interval)}';")
    else:
        pass  # a watermark after every record: the source's on-event emit strategy (below)
    if s.idleness is not None and s.idleness > 0:
        lines.append(f"SET 'table.exec.source.idle-timeout' = '{_config_duration(s.idleness)}';")
    lines.append("")
    lines.append("CREATE TABLE events (")
    lines.append("  `key` STRING,")
    lines.append("  `value` DOUBLE,")
    lines.append("  ts TIMESTAMP_LTZ(3),")
    if wm:
        if wm_comment:
            lines.append(f"  {wm_comment}")
        lines.append(f"  WATERMARK FOR ts AS {wm}")
    else:
        lines.append("  -- no WATERMARK clause can express this strategy (see the notes)")
    lines.append(") WITH (")
    if s.interval == 0:
        lines.append("  'scan.watermark.emit.strategy' = 'on-event',  -- a watermark after every record "
                     "(sources with watermark push-down, e.g. Kafka)")
    lines.append("  'connector' = '...'  -- your source; with Kafka each partition gets its own watermark")
    lines.append(");")
    lines.append("")
    tvf = _sql_window(s.window, notes)
    if s.stagger != "aligned":
        notes.append(f"stagger {s.stagger}: Flink SQL windows have no WindowStagger (TUMBLE takes a fixed offset "
                     "only); use engine='flink' (TumblingEventTimeWindows.of(size, offset, WindowStagger))")
    if tvf:
        lines.append("SELECT `key`, window_start, window_end, COUNT(*) AS `count`, SUM(`value`) AS `sum`")
        lines.append(f"FROM TABLE({tvf})")
        lines.append("GROUP BY `key`, window_start, window_end;")
    if s.lateness > 0:
        notes.append(f"allowed lateness ({readable(s.lateness)}) cannot be set on Flink SQL window aggregations: records "
                     "behind the watermark are dropped; use the DataStream API's allowedLateness")
    if not s.partitions_as_sources:
        notes.append("one watermark generator for the whole stream (partitions_as_sources=false): a SQL source "
                     "with watermark push-down generates per split")
    t = s.trigger
    if isinstance(t, Custom) or (isinstance(t, TriggerSpec) and t.kind not in ("default", "event_time")):
        notes.append(f"trigger {t} cannot be set in Flink SQL (window aggregations fire when the watermark "
                     "passes the window end)")
    if s.evictor is not None:
        notes.append(f"evictor {s.evictor} cannot be set in Flink SQL")
    if s.accumulation != "accumulating":
        notes.append(f"accumulation={s.accumulation} (Beam's pane mode) has no Flink SQL equivalent")
    if s.function != "count_sum":
        notes.append(f"function {s.function}: the query above computes count and sum; write your own aggregate")
    if s.source_parallelism != 1:
        lines.insert(1, f"-- source parallelism {s.source_parallelism}: set it on the source (e.g. the connector's "
                        "'scan.parallelism' where it has one)")
    if s.pipeline_stages:
        notes.append("the later windowed stages are not written out: cascade a window TVF per stage over the "
                     "previous query's window_time")
    return Deployment("flink-sql", "sql", "\n".join(lines) + "\n", tuple(notes), s)


register_engine("flink", _flink_datastream, language="java", description="Flink DataStream API (Java)")
register_engine("flink-sql", _flink_sql, language="sql", description="Flink SQL (window table-valued functions)")


def _pyspark(s: Setting) -> Deployment:
    """PySpark Structured Streaming (``toolkit.pyspark_code``): the query the replay assumed."""
    return Deployment("spark", "python", pyspark_snippet(s), (), s)


register_engine("spark", _pyspark, language="python", description="PySpark Structured Streaming",
                semantics="spark")


# ------------------------------------------------------------------------------- Kafka Streams
def _kafka_windows_java(s: Setting) -> str:
    """``TimeWindows`` / ``SlidingWindows`` / ``SessionWindows`` with the setting's grace."""
    from toolkit.settings import KafkaSliding

    w, g = s.window, s.grace or 0
    if isinstance(w, (Tumbling, Sliding)):
        base = (f"TimeWindows.ofSizeAndGrace({java_duration(w.size)}, {java_duration(g)})" if g else
                f"TimeWindows.ofSizeWithNoGrace({java_duration(w.size)})")
        return base + (f".advanceBy({java_duration(w.slide)})" if isinstance(w, Sliding) and w.slide != w.size else "")
    if isinstance(w, KafkaSliding):
        return (f"SlidingWindows.ofTimeDifferenceAndGrace({java_duration(w.time_difference)}, {java_duration(g)})" if g
                else f"SlidingWindows.ofTimeDifferenceWithNoGrace({java_duration(w.time_difference)})")
    if isinstance(w, Session):
        return (f"SessionWindows.ofInactivityGapAndGrace({java_duration(w.gap)}, {java_duration(g)})" if g else
                f"SessionWindows.ofInactivityGapWithNoGrace({java_duration(w.gap)})")
    raise SettingError("window", f"window {w} has no Kafka Streams form")  # refused by the setting already


def _kafka_streams(s: Setting) -> Deployment:
    """Kafka Streams DSL (Java): the topology ``toolkit.replays.kafka_streams`` replays."""
    notes: list[str] = []
    session = isinstance(s.window, Session)
    store = "SessionStore" if session else "WindowStore"
    lines = [f"// Watermark Lab setting: {_setting_comment(s)}",
             "Properties props = new Properties();",
             'props.put(StreamsConfig.APPLICATION_ID_CONFIG, "watermark-lab");',
             'props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "...");  // your brokers',
             "// the record cache off: every update is forwarded at once (cache.max.bytes.buffering before Kafka 3.4)",
             "props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);",
             "// record timestamp = the event's own time (the log's event_time)",
             "props.put(StreamsConfig.DEFAULT_TIMESTAMP_EXTRACTOR_CLASS_CONFIG, EventTimeExtractor.class);",
             "",
             "public static class EventTimeExtractor implements TimestampExtractor {",
             "    @Override",
             "    public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {",
             "        return ((Event) record.value()).eventTime;  // epoch milliseconds, never negative",
             "    }",
             "}",
             "",
             "StreamsBuilder builder = new StreamsBuilder();",
             'KStream<String, Event> events = builder.stream("events", Consumed.with(Serdes.String(), eventSerde));',
             f"KTable<Windowed<String>, CountAndSum> results = events"]
    if s.repartition:
        if s.tasks is not None:
            lines.append(f"        // {s.tasks} stream tasks: key -> partition by the default partitioner (murmur2 of "
                         "the key's String bytes)")
            lines.append(f"        .repartition(Repartitioned.<String, Event>numberOfPartitions({s.tasks})"
                         ".withKeySerde(Serdes.String()).withValueSerde(eventSerde))")
        else:
            lines.append("        // as many tasks as the source topic has partitions (Kafka sizes the repartition "
                         "topic like it)")
            lines.append("        .repartition(Repartitioned.with(Serdes.String(), eventSerde))")
    else:
        lines.append("        // the input topic is co-partitioned by key: one task per input partition, no repartition")
        if s.tasks is not None:
            notes.append(f"tasks={s.tasks} with repartition=false: the task count is the input topic's partition "
                         "count, set when the topic is created, not in the application")
    lines.append("        .groupByKey(Grouped.with(Serdes.String(), eventSerde))")
    lines.append(f"        .windowedBy({_kafka_windows_java(s)})")
    if s.emit == "final":
        lines.append("        // closed windows are looked for at most once per second of wall-clock time (internal config")
        lines.append("        // __emit.interval.ms.kstreams.windowed.aggregation__); the replay used arrival time as that clock")
        lines.append("        .emitStrategy(EmitStrategy.onWindowClose())")
    merger = "\n                (key, left, right) -> left.merge(right)," if session else ""
    lines.append("        .aggregate(CountAndSum::new, (key, event, agg) -> agg.add(event.value)," + merger)
    lines.append(f"                Materialized.<String, CountAndSum, {store}<Bytes, byte[]>>as(\"counts\")")
    if s.retention is not None:
        lines.append("                        // how long the window store keeps windows (the default: the smallest allowed)")
        lines.append(f"                        .withRetention({java_duration(s.retention)})")
    lines.append("                        .withValueSerde(countAndSumSerde).withCachingDisabled())"
                 + (";" if s.emit != "suppress" else ""))
    if s.emit == "suppress":
        lines.append("        .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()));")
    lines.append("results.toStream().to(\"results\");  // Windowed<String> keys: use a windowed serde")
    return Deployment("kafka-streams", "java", "\n".join(lines) + "\n", tuple(notes), s)


register_engine("kafka-streams", _kafka_streams, language="java", description="Kafka Streams DSL (Java)",
                semantics="kafka_streams")


# -------------------------------------------------------------------------------------- Beam
def python_seconds(ms: int) -> str:
    """Seconds as the Python SDK takes them (``10``, ``0.25``): Beam's Python durations are seconds."""
    return str(ms // 1000) if ms % 1000 == 0 else repr(ms / 1000)


def _beam_trigger_py(t: Any) -> str:
    """A :class:`toolkit.semantics.beam.trigger.BeamTrigger` as Python SDK code."""
    k = t.kind
    if k == "default":
        return "DefaultTrigger()"
    if k == "after_count":
        return f"AfterCount({t.n})"
    if k == "after_processing_time":
        return f"AfterProcessingTime({t.delay // 1000})"
    if k == "after_watermark":
        args = [f"{n}={_beam_trigger_py(v)}" for n, v in (("early", t.early), ("late", t.late)) if v is not None]
        return f"AfterWatermark({', '.join(args)})"
    cls = {"repeatedly": "Repeatedly", "after_any": "AfterAny", "after_all": "AfterAll", "after_each": "AfterEach",
           "orfinally": "OrFinally"}[k]
    return f"{cls}({', '.join(_beam_trigger_py(c) for c in t.children)})"


_BEAM_COMBINERS = {"end_of_window": "OUTPUT_AT_EOW", "earliest": "OUTPUT_AT_EARLIEST", "latest": "OUTPUT_AT_LATEST"}


def _beam_window_py(s: Setting) -> str:
    w = s.window
    off = getattr(w, "offset", 0)
    tail = f", offset={python_seconds(off)}" if off else ""
    if isinstance(w, Tumbling):
        return f"window.FixedWindows({python_seconds(w.size)}{tail})"
    if isinstance(w, Sliding):
        return f"window.SlidingWindows({python_seconds(w.size)}, {python_seconds(w.slide)}{tail})"
    if isinstance(w, Session):
        return f"window.Sessions({python_seconds(w.gap)})"
    raise SettingError("window", f"window {w} has no Beam form")  # refused by the setting already


def _beam(s: Setting) -> Deployment:
    """Apache Beam, Python SDK: the ``WindowInto`` + ``GroupByKey`` ``toolkit.replays.beam``
    replays. Exec'ing the code defines ``windowing`` and ``windowed_counts`` (the Beam oracle
    runs exactly this ``windowing``: ``oracles/beam/deploy_snippets.py``)."""
    notes: list[str] = []
    triggers = ", ".join(sorted({"AccumulationMode"} | set(_trigger_names(s.beam_trigger))))
    wm = s.strategy_name
    if s.strategy in ("bounded", "legacy"):
        policy = (f"max event time seen - {readable(s.delay)} (Beam's bounded-delay source policy, e.g. KafkaIO's "
                  f"CustomTimestampPolicyWithLimitedDelay with maxDelay {readable(s.delay)})")
    elif s.strategy == "monotonous":
        policy = "the max event time seen (ascending timestamps)"
    else:
        policy = f"the replay's {wm} strategy"
        notes.append(f"watermark strategy {wm}: Beam's watermark is its source's; this code cannot set it")
    if s.idleness is not None:
        notes.append(f"idleness {readable(s.idleness)}: an idle split is the source's business in Beam "
                     "(e.g. KafkaIO's timestamp policy advancing on idle partitions); this code cannot set it")
    if s.interval != 200:
        notes.append(f"interval {readable(s.interval)}: how often the source reports its watermark is the runner's; "
                     "this code cannot set it")
    lines = [
        f"# Watermark Lab setting: {_setting_comment(s)}",
        "import apache_beam as beam",
        "from apache_beam.transforms import window",
        f"from apache_beam.transforms.trigger import {triggers}",
        "from apache_beam.transforms.window import TimestampCombiner",
        "",
        "# Event time: each element carries its event time (seconds) as its Beam timestamp, e.g.",
        "#   events = raw | beam.Map(lambda e: window.TimestampedValue((e['key'], e['value']), e['event_time'] / 1000))",
        f"# Watermark: the replay's Beam watermark was {policy}; in Beam it comes from the source.",
        "# Triggers that may finish (AfterCount, AfterWatermark without late firings when lateness > 0, ...) need",
        "# the pipeline option --allow_unsafe_triggers in recent SDKs.",
        "windowing = beam.WindowInto(",
        f"    {_beam_window_py(s)},",
        f"    trigger={_beam_trigger_py(s.beam_trigger)},",
        f"    allowed_lateness={python_seconds(int(s.lateness))},",
        f"    accumulation_mode=AccumulationMode.{s.accumulation.upper()},",
        f"    timestamp_combiner=TimestampCombiner.{_BEAM_COMBINERS[s.timestamp_combiner]})",
        "",
        "",
        "def windowed_counts(events):",
        '    """(key, count, sum) per key, window and pane of a PCollection of timestamped (key, value)."""',
        "    return (events",
        '            | "Window" >> windowing',
        "            | beam.GroupByKey()",
        "            | beam.MapTuple(lambda key, values: (key, len(list(values)), sum(values))))",
    ]
    return Deployment("beam", "python", "\n".join(lines) + "\n", tuple(notes), s)


def _trigger_names(t: Any) -> list[str]:
    k = t.kind
    own = {"default": "DefaultTrigger", "after_count": "AfterCount", "after_processing_time": "AfterProcessingTime",
           "after_watermark": "AfterWatermark", "repeatedly": "Repeatedly", "after_any": "AfterAny",
           "after_all": "AfterAll", "after_each": "AfterEach", "orfinally": "OrFinally"}[k]
    out = [own]
    for c in (*t.children, t.early, t.late):
        if c is not None:
            out += _trigger_names(c)
    return out


register_engine("beam", _beam, language="python", description="Apache Beam, Python SDK (WindowInto)", semantics="beam")


class _CallableModule(types.ModuleType):
    """``toolkit.deploy`` is this module (``toolkit.deploy.Deployment`` ...) and, called, :func:`deploy`."""

    def __call__(self, setting: Any = None, engine: str | None = None, **settings: Any) -> Deployment:
        return deploy(setting, engine, **settings)


sys.modules[__name__].__class__ = _CallableModule
