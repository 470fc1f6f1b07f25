package alignoracle;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A bounded FLIP-27 source with one split per scenario split, all assigned to the single reader
 * at start (as a Kafka topic's partitions are), read by {@link AlignReader}.
 */
public final class AlignSource implements Source<Integer, AlignSource.Split, Integer> {
    private static final long serialVersionUID = 1L;

    /** A split: only its id. */
    public static final class Split implements SourceSplit {
        final String id;

        Split(String id) {
            this.id = id;
        }

        @Override
        public String splitId() {
            return id;
        }
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<Integer, Split> createReader(SourceReaderContext ctx) {
        return new AlignReader(Scenario.current, ctx);
    }

    @Override
    public SplitEnumerator<Split, Integer> createEnumerator(SplitEnumeratorContext<Split> ctx) {
        return new Enumerator(ctx);
    }

    @Override
    public SplitEnumerator<Split, Integer> restoreEnumerator(SplitEnumeratorContext<Split> ctx, Integer state) {
        return new Enumerator(ctx);
    }

    @Override
    public SimpleVersionedSerializer<Split> getSplitSerializer() {
        return new SimpleVersionedSerializer<>() {
            @Override
            public int getVersion() {
                return 1;
            }

            @Override
            public byte[] serialize(Split s) {
                return s.id.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public Split deserialize(int version, byte[] b) {
                return new Split(new String(b, StandardCharsets.UTF_8));
            }
        };
    }

    @Override
    public SimpleVersionedSerializer<Integer> getEnumeratorCheckpointSerializer() {
        return new SimpleVersionedSerializer<>() {
            @Override
            public int getVersion() {
                return 1;
            }

            @Override
            public byte[] serialize(Integer s) {
                return new byte[0];
            }

            @Override
            public Integer deserialize(int version, byte[] b) {
                return 0;
            }
        };
    }

    /** Gives every split to the reader that registers, then says no more. */
    static final class Enumerator implements SplitEnumerator<Split, Integer> {
        private final SplitEnumeratorContext<Split> ctx;

        Enumerator(SplitEnumeratorContext<Split> ctx) {
            this.ctx = ctx;
        }

        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtask, String host) {}

        @Override
        public void addSplitsBack(List<Split> splits, int subtask) {}

        @Override
        public void addReader(int subtask) {
            List<Split> all = new ArrayList<>();
            for (String p : Scenario.current.splits) {
                all.add(new Split(p));
            }
            ctx.assignSplits(new SplitsAssignment<>(Map.of(subtask, all)));
            ctx.signalNoMoreSplits(subtask);
        }

        @Override
        public Integer snapshotState(long checkpointId) {
            return 0;
        }

        @Override
        public void close() {}
    }
}
