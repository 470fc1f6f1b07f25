package sqloracle;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Performs the scenario's steps one at a time: a record is emitted on its partition's split
 * output (row: k, v, ts, p, idx; record timestamp = ts); a tick arms the {@link Gate} and waits
 * until Flink's next periodic watermark emission has asked the generators. After the last step
 * the input ends (Flink then emits the final MAX watermark).
 */
public final class ScenarioReader implements SourceReader<RowData, ScenarioSource.Split> {
    private final Scenario sc;
    private final List<ScenarioSource.Split> splits = new ArrayList<>();
    private final Map<Integer, SourceOutput<RowData>> outputs = new HashMap<>();
    private boolean noMoreSplits;
    private int pos;
    private CompletableFuture<Void> available = new CompletableFuture<>();

    ScenarioReader(Scenario sc) {
        this.sc = sc;
    }

    @Override
    public void start() {}

    @Override
    public InputStatus pollNext(ReaderOutput<RowData> out) {
        Gate g = Gate.current;
        if (splits.size() < sc.partitions.size() || !noMoreSplits) {
            if (available.isDone()) {
                available = new CompletableFuture<>();
            }
            return InputStatus.NOTHING_AVAILABLE;
        }
        if (outputs.isEmpty()) {
            for (ScenarioSource.Split s : splits) {
                outputs.put(Integer.parseInt(s.id), out.createOutputForSplit(s.id));
            }
        }
        if (g.armed) {
            if (!g.released.isDone()) {
                available = g.released;
                return InputStatus.NOTHING_AVAILABLE;
            }
            g.disarm();
        }
        if (pos >= sc.steps.size()) {
            g.step = sc.steps.size();
            return InputStatus.END_OF_INPUT;
        }
        Scenario.Step s = sc.steps.get(pos);
        if (s.tick && !g.gated) {
            pos++;
            return InputStatus.MORE_AVAILABLE;
        }
        if (s.tick) {
            available = g.arm(pos, s.time);
            pos++;
            return InputStatus.NOTHING_AVAILABLE;
        }
        g.step = pos;
        pos++;
        outputs.get(s.partition).collect(row(s), s.time);
        return InputStatus.MORE_AVAILABLE;
    }

    /**
     * The record as a row of the table's columns, by name: {@code k}/{@code key} the key,
     * {@code v}/{@code value} the value (BIGINT, INTEGER or DOUBLE), {@code ts} the event time
     * (TIMESTAMP or TIMESTAMP_LTZ), {@code p} the partition, {@code idx} the record's index. The
     * corpus' table is (k, v, ts, p, idx); a printed deploy script declares (key, value, ts).
     */
    private GenericRowData row(Scenario.Step s) {
        GenericRowData row = new GenericRowData(sc.columns.size());
        for (int i = 0; i < sc.columns.size(); i++) {
            String name = sc.columns.get(i)[0];
            String type = sc.columns.get(i)[1];
            switch (name) {
                case "k", "key" -> row.setField(i, StringData.fromString(s.key));
                case "v", "value" -> row.setField(i, type.equals("DOUBLE") ? (Object) s.doubleValue
                        : type.equals("INTEGER") ? (Object) (int) s.value : (Object) s.value);
                case "ts" -> row.setField(i, TimestampData.fromEpochMillis(s.time));
                case "p" -> row.setField(i, s.partition);
                case "idx" -> row.setField(i, s.index);
                default -> throw new IllegalArgumentException("the scenario source has no column " + name);
            }
        }
        return row;
    }

    @Override
    public List<ScenarioSource.Split> snapshotState(long checkpointId) {
        return new ArrayList<>(splits);
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return available;
    }

    @Override
    public void addSplits(List<ScenarioSource.Split> s) {
        splits.addAll(s);
        available.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        available.complete(null);
    }

    @Override
    public void close() {}
}
