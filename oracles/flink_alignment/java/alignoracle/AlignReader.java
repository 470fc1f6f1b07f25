package alignoracle;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.SourceOperator;
import org.apache.flink.streaming.api.operators.source.WatermarkSampler;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Drains each split's records on a simulated clock. Time points are the records' arrival times,
 * the periodic watermark ticks {@code t0 + k * interval} and the alignment updates
 * {@code t0 + k * update} (k >= 1, t0 = the first arrival). At a time point: first the
 * alignment update (Flink's own sample-and-report callback; then the reader waits until the
 * real SourceCoordinator's announcement of that report has reached the operator), then every
 * record of an unpaused split with arrival <= now, in log order, then the periodic watermark
 * emission (Flink's own callback). A split is released (finished) right after its last record.
 * Pauses and resumes come from Flink's SourceOperator through {@link #pauseOrResumeSplits}.
 */
final class AlignReader implements SourceReader<Integer, AlignSource.Split> {
    private static final int ALIGN = 0, AWAIT = 1, READ = 2, PERIODIC = 3, ADVANCE = 4;

    private final Scenario sc;
    private final Object operator;
    private final ControlledTimers timers;
    private final Field maxDesiredField;
    private final Field samplerField;
    private final Method shouldWait;
    private final List<AlignSource.Split> splits = new ArrayList<>();
    private final Map<String, SourceOutput<Integer>> outputs = new HashMap<>();
    private final Map<String, Integer> left = new HashMap<>();
    private final Set<String> paused = new HashSet<>();
    private final boolean[] read;
    private boolean noMoreSplits;
    private CompletableFuture<Void> available = new CompletableFuture<>();
    private int phase = READ;
    private long now;
    private Long expected;
    private long loggedWatermark = Long.MIN_VALUE;
    private long loggedMaxDesired = Long.MAX_VALUE;
    private int remaining;
    private int steps;

    AlignReader(Scenario sc, SourceReaderContext ctx) {
        this.sc = sc;
        this.read = new boolean[sc.records.size()];
        this.remaining = sc.records.size();
        for (Scenario.Rec r : sc.records) {
            left.merge(r.split, 1, Integer::sum);
        }
        try {
            Field outer = ctx.getClass().getDeclaredField("this$0");
            outer.setAccessible(true);
            operator = outer.get(ctx);
            Field pts = AbstractStreamOperator.class.getDeclaredField("processingTimeService");
            pts.setAccessible(true);
            timers = new ControlledTimers((ProcessingTimeService) pts.get(operator));
            pts.set(operator, timers);
            maxDesiredField = SourceOperator.class.getDeclaredField("currentMaxDesiredWatermark");
            maxDesiredField.setAccessible(true);
            samplerField = SourceOperator.class.getDeclaredField("sampledLatestWatermark");
            samplerField.setAccessible(true);
            shouldWait = SourceOperator.class.getDeclaredMethod("shouldWaitForAlignment");
            shouldWait.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("not Flink 2.3's SourceOperator", e);
        }
        now = sc.records.get(0).arrival;
    }

    @Override
    public void start() {}

    @Override
    public InputStatus pollNext(ReaderOutput<Integer> out) throws Exception {
        if (splits.size() < sc.splits.size() || !noMoreSplits) {
            if (available.isDone()) {
                available = new CompletableFuture<>();
            }
            return InputStatus.NOTHING_AVAILABLE;
        }
        if (outputs.isEmpty()) {
            for (AlignSource.Split s : splits) {
                outputs.put(s.id, out.createOutputForSplit(s.id));
            }
        }
        while (true) {
            if (++steps > 5_000_000) {
                throw new IllegalStateException(sc.name + ": no progress at " + now);
            }
            switch (phase) {
                case ALIGN:
                    if (isTick(now, sc.update)) {
                        fireAlignment();
                        return InputStatus.MORE_AVAILABLE;
                    }
                    phase = READ;
                    break;
                case AWAIT:
                    if (expected != null && maxDesired() != expected) {
                        available = new CompletableFuture<>();
                        available.completeOnTimeout(null, 1, TimeUnit.MILLISECONDS);
                        return InputStatus.NOTHING_AVAILABLE;
                    }
                    if (expected != null && expected != loggedMaxDesired) {
                        loggedMaxDesired = expected;
                        Output.add(Output.event("max_desired", now).put("ts", expected));
                    }
                    phase = READ;
                    break;
                case READ:
                    Scenario.Rec r = nextReadable();
                    if (r == null) {
                        phase = PERIODIC;
                        break;
                    }
                    emit(out, r);
                    return InputStatus.MORE_AVAILABLE;
                case PERIODIC:
                    phase = ADVANCE;
                    if (isTick(now, sc.interval)) {
                        timers.fire(0, now);
                        logWatermark();
                        if (waiting()) {  // source-level alignment: nothing is read before the next update
                            now = nextTick(now, sc.update);
                            fireAlignment();
                        }
                        return InputStatus.MORE_AVAILABLE;
                    }
                    break;
                default:
                    if (remaining == 0) {
                        return InputStatus.END_OF_INPUT;
                    }
                    now = nextTimePoint();
                    phase = ALIGN;
            }
        }
    }

    private void fireAlignment() {
        timers.fire(1, now);
        long latest = ((WatermarkSampler) get(samplerField)).getLatest();
        if (latest == Long.MIN_VALUE) {
            expected = null;  // nothing reported yet: no announcement
        } else {
            try {
                expected = Math.addExact(latest, sc.drift);
            } catch (ArithmeticException e) {
                expected = Long.MAX_VALUE;
            }
        }
        phase = AWAIT;
    }

    private void emit(ReaderOutput<Integer> out, Scenario.Rec r) {
        read[r.idx] = true;
        remaining--;
        outputs.get(r.split).collect(r.idx, r.ts);
        Output.add(Output.event("read", now).put("idx", r.idx));
        if (left.merge(r.split, -1, Integer::sum) == 0) {
            out.releaseOutputForSplit(r.split);
            Output.add(Output.event("finished", now).put("split", r.split));
            logWatermark();
        }
    }

    /** The first unread record in log order whose split is not paused and that has arrived. */
    private Scenario.Rec nextReadable() {
        for (Scenario.Rec r : sc.records) {
            if (r.arrival > now) {
                return null;
            }
            if (!read[r.idx] && !paused.contains(r.split)) {
                return r;
            }
        }
        return null;
    }

    private long nextTimePoint() {
        long next = Math.min(nextTick(now, sc.interval), nextTick(now, sc.update));
        for (Scenario.Rec r : sc.records) {
            if (r.arrival > now) {
                return Math.min(next, r.arrival);
            }
        }
        return next;
    }

    private boolean isTick(long t, long every) {
        long t0 = sc.records.get(0).arrival;
        return t > t0 && (t - t0) % every == 0;
    }

    private long nextTick(long t, long every) {
        long t0 = sc.records.get(0).arrival;
        return t0 + ((t - t0) / every + 1) * every;
    }

    private void logWatermark() {
        long w = ((WatermarkSampler) get(samplerField)).getLatest();
        if (w != loggedWatermark) {
            loggedWatermark = w;
            Output.add(Output.event("watermark", now).put("ts", w));
        }
    }

    private long maxDesired() {
        return (Long) get(maxDesiredField);
    }

    private boolean waiting() {
        try {
            return (Boolean) shouldWait.invoke(operator);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private Object get(Field f) {
        try {
            return f.get(operator);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void pauseOrResumeSplits(Collection<String> pause, Collection<String> resume) {
        paused.addAll(pause);
        paused.removeAll(resume);
        ObjectNode e = Output.event("pause_resume", now);
        List<String> p = new ArrayList<>(pause);
        List<String> r = new ArrayList<>(resume);
        p.sort(null);
        r.sort(null);
        p.forEach(e.putArray("pause")::add);
        r.forEach(e.putArray("resume")::add);
        Output.add(e);
    }

    @Override
    public List<AlignSource.Split> snapshotState(long checkpointId) {
        return new ArrayList<>(splits);
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return available;
    }

    @Override
    public void addSplits(List<AlignSource.Split> s) {
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
