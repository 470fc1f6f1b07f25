"""Kafka Streams' deployment: the code an engineer pastes into a job to run a setting (the DSL in Java, ``render``); what
the engine cannot express is said in the deployment's notes, never written as other code."""
from __future__ import annotations

from toolkit.deployment import Deployment, java_duration
from toolkit.settings import Global, Session, Setting, SettingError, Sliding, Tumbling


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
    if isinstance(w, Global):
        return "UnlimitedWindows.of()"
    raise SettingError("window", f"window {w} has no Kafka Streams form")  # refused by the setting already


def _cache_lines(s: Setting) -> list[str]:
    """The record cache's two settings (``statestore.cache.max.bytes``, ``commit.interval.ms``)."""
    if not s.cache_max_bytes:
        return ["// the record cache off: every update is forwarded at once (cache.max.bytes.buffering before Kafka 3.4)",
                "props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);"]
    out = ["// the record cache: a window's updates are compacted and forwarded at each commit or when the cache",
           "// evicts (one stream thread: its tasks share the cache)",
           f"props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, {int(s.cache_max_bytes)}L);",
           f"props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, {int(s.commit_interval)}L);"]
    if s.emit == "final":
        out[0:2] = ["// (emitStrategy(onWindowClose) disables the aggregation's record cache: Kafka forwards its results"
                    " at the close)"]
    return out


def render(s: Setting) -> Deployment:
    """Kafka Streams DSL (Java): the topology ``toolkit.semantics.kafka_streams.replay`` replays."""
    notes: list[str] = []
    session = isinstance(s.window, Session)
    store = "SessionStore" if session else "WindowStore"
    lines = [f"// Watermark Lab setting: {s}",
             "Properties props = new Properties();",
             'props.put(StreamsConfig.APPLICATION_ID_CONFIG, "watermark-lab");',
             'props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "...");  // your brokers',
             *_cache_lines(s),
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
             "KTable<Windowed<String>, CountAndSum> results = events"]
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
        every = "once per second" if s.emit_interval == 1000 else f"once every {s.emit_interval} ms"
        lines.append(f"        // closed windows are looked for at most {every} of wall-clock time (internal config")
        lines.append("        // __emit.interval.ms.kstreams.windowed.aggregation__); the replay used arrival time as that clock")
        lines.append("        .emitStrategy(EmitStrategy.onWindowClose())")
        if s.emit_interval != 1000:
            lines.insert(lines.index("StreamsBuilder builder = new StreamsBuilder();"),
                         f'props.put("__emit.interval.ms.kstreams.windowed.aggregation__", {s.emit_interval}L);\n')
    merger = "\n                (key, left, right) -> left.merge(right)," if session else ""
    lines.append("        .aggregate(CountAndSum::new, (key, event, agg) -> agg.add(event.value)," + merger)
    lines.append(f"                Materialized.<String, CountAndSum, {store}<Bytes, byte[]>>as(\"counts\")")
    if s.retention is not None:
        lines.append("                        // how long the window store keeps windows (the default: the smallest allowed)")
        lines.append(f"                        .withRetention({java_duration(s.retention)})")
    cached = bool(s.cache_max_bytes) and s.emit != "final"
    lines.append("                        .withValueSerde(countAndSumSerde)" + ("" if cached else ".withCachingDisabled()")
                 + ")" + (";" if s.emit != "suppress" else ""))
    if s.emit == "suppress":
        from toolkit.semantics.kafka_streams.figures import suppress_config

        sup = suppress_config(s)
        if sup is not None and sup.bounded and sup.when_full == "shut_down":
            lines.append("        // a full buffer stops the application (StreamsException); the replay stopped there too")
        lines.append(f"        .suppress({sup.deployable() if sup else ''});")
    lines.append("results.toStream().to(\"results\");  // Windowed<String> keys: use a windowed serde")
    return Deployment("kafka-streams", "java", "\n".join(lines) + "\n", tuple(notes), s)
