"""Flink's deployments: the code an engineer pastes into a job to run a setting (DataStream Java,
``render_datastream``; Flink SQL is ``semantics="flink_sql"``'s, ``toolkit.semantics.flink_sql.deploy``); what
the engine cannot express is said in the deployment's notes, never written as other code."""
from __future__ import annotations

from typing import Any

from toolkit.deployment import Deployment, java_duration
from toolkit.settings import (
    EVENT_TIME_WINDOWS,
    Custom,
    DynamicSession,
    Global,
    Session,
    Setting,
    Sliding,
    TriggerSpec,
    Tumbling,
)


def _config_duration(ms: int) -> str:
    """A duration as Flink's configuration reads it: ``200 ms``, ``2 s``."""
    if ms and ms % 1000 == 0:
        return f"{ms // 1000} s"
    return f"{ms} ms"


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


def _trigger_java(t: Any, notes: list[str], window: Any = None) -> str | None:
    """The Java of a trigger on ``window``'s windows (``GlobalWindows.NeverTrigger`` is a
    ``Trigger<Object, GlobalWindow>``: on time windows the user brings a trigger that never fires)."""
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
        "purging": lambda: f"PurgingTrigger.of({_trigger_java(t.inner, notes, window)})",
        "never": lambda: "new GlobalWindows.NeverTrigger()" if isinstance(window, Global) else _never_fire(notes),
        "end_of_stream": lambda: "new GlobalWindows.EndOfStreamTrigger()",
    }[t.kind]()


def _never_fire(notes: list[str]) -> str:
    notes.append("trigger never on time windows: Flink's GlobalWindows.NeverTrigger takes global windows only; "
                 "NeverFire is your Trigger<Object, TimeWindow> whose every method returns TriggerResult.CONTINUE")
    return "new NeverFire()"


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


def render_datastream(s: Setting) -> Deployment:
    notes: list[str] = []
    lines = [f"// Watermark Lab setting: {s}",
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
    trig = None if own else _trigger_java(s.trigger, notes, s.window)
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
        trig_k = None if own_k else _trigger_java(st.trigger, notes, st.window)
        if trig_k:
            lines.append(f"        .trigger({trig_k})")
        lines.append(f"        .allowedLateness({java_duration(st.lateness)})")
        lines.append("        .process(new CollectResults());  // your ProcessWindowFunction<Result, Result, String, TimeWindow>: "
                     "all sums of the pane" if st.function == "values" else
                     "        .aggregate(new CountAndSumOfResults());  // your AggregateFunction<Result, ?, Result>: "
                     "count of the results and sum of their sums")
        if st.accumulation != "accumulating":
            notes.append(f"stage {k}: accumulation={st.accumulation} is Beam's pane mode (see above)")
        prev = name
    return Deployment("flink", "java", "\n".join(lines) + "\n", tuple(notes), s)
