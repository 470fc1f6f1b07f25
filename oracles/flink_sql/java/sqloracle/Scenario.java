package sqloracle;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * One scenario: its header (partitions, DDL watermark, options, query) and its steps in the
 * exact order the source performs them: a record read from a partition, or a periodic tick at
 * a simulated processing time.
 */
public final class Scenario {
    /** The scenario the source reads (same JVM as the MiniCluster). */
    static volatile Scenario current;

    final String name;
    final JsonNode head;
    final List<Integer> partitions = new ArrayList<>();
    final List<Step> steps = new ArrayList<>();
    /** The table's physical columns (names, type roots), set by the table factory when planned. */
    volatile List<String[]> columns = List.of();

    /** A record (partition, key, value, event time, its 0-based record index) or a tick. */
    static final class Step {
        final boolean tick;
        final long time;
        final int partition;
        final String key;
        final long value;
        final double doubleValue;
        final int index;

        Step(boolean tick, long time, int partition, String key, long value, double doubleValue, int index) {
            this.tick = tick;
            this.time = time;
            this.partition = partition;
            this.key = key;
            this.value = value;
            this.doubleValue = doubleValue;
            this.index = index;
        }
    }

    Scenario(String name, List<JsonNode> lines) {
        this.name = name;
        this.head = lines.get(0);
        for (JsonNode p : head.get("partitions")) {
            partitions.add(p.asInt());
        }
        int records = 0;
        long lastTick = Long.MIN_VALUE;
        for (int i = 1; i < lines.size(); i++) {
            JsonNode l = lines.get(i);
            if (l.has("tick")) {
                long t = l.get("tick").asLong();
                if (t <= 0 || t <= lastTick) {
                    throw new IllegalArgumentException(name + ": ticks must be positive and increasing, got " + t);
                }
                lastTick = t;
                steps.add(new Step(true, t, -1, null, 0, 0.0, -1));
            } else if (l.has("record")) {
                JsonNode r = l.get("record");
                int p = r.get("p").asInt();
                if (!partitions.contains(p)) {
                    throw new IllegalArgumentException(name + ": record in undeclared partition " + p);
                }
                JsonNode v = r.get("v");
                steps.add(new Step(false, r.get("t").asLong(), p, r.get("k").asText(), v.asLong(), v.asDouble(),
                        records++));
            } else {
                throw new IllegalArgumentException(name + ": step " + i + " is neither a record nor a tick: " + l);
            }
        }
    }
}
