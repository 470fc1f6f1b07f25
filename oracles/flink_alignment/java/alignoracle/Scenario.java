package alignoracle;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * One alignment scenario: the watermark strategy (bounded out-of-orderness {@code delay}), the
 * periodic interval, the alignment (drift, update interval, buffer size) and the records of each
 * split with the simulated time each becomes readable ({@code arrival}), in log order.
 */
final class Scenario {
    /** The scenario the running job reads (same JVM as the MiniCluster). */
    static volatile Scenario current;

    final String name;
    final long delay;
    final long interval;
    final long drift;
    final long update;
    final int buffer;
    final List<String> splits = new ArrayList<>();
    final List<Rec> records = new ArrayList<>();

    /** A record: its index in the log, split, event time and the time it can first be read. */
    static final class Rec {
        final int idx;
        final String split;
        final long ts;
        final long arrival;

        Rec(int idx, String split, long ts, long arrival) {
            this.idx = idx;
            this.split = split;
            this.ts = ts;
            this.arrival = arrival;
        }
    }

    Scenario(String name, List<JsonNode> lines) {
        this.name = name;
        JsonNode h = lines.get(0);
        delay = h.get("delay").asLong();
        interval = h.get("interval").asLong();
        drift = h.get("drift").asLong();
        update = h.get("update").asLong();
        buffer = h.get("buffer").asInt();
        if (interval <= 0 || update <= 0 || drift < 0 || buffer < 0) {
            throw new IllegalArgumentException(name + ": interval and update must be > 0, drift and buffer >= 0");
        }
        for (JsonNode p : h.get("splits")) {
            splits.add(p.asText());
        }
        long last = Long.MIN_VALUE;
        for (int i = 1; i < lines.size(); i++) {
            JsonNode r = lines.get(i).get("record");
            if (r == null) {
                throw new IllegalArgumentException(name + ": line " + (i + 1) + " is not a record");
            }
            long a = r.get("arrival").asLong();
            if (a < last) {
                throw new IllegalArgumentException(name + ": records must be in arrival order");
            }
            last = a;
            String p = r.get("p").asText();
            if (!splits.contains(p)) {
                throw new IllegalArgumentException(name + ": record in undeclared split " + p);
            }
            records.add(new Rec(records.size(), p, r.get("t").asLong(), a));
        }
        if (records.isEmpty()) {
            throw new IllegalArgumentException(name + ": no records");
        }
    }
}
