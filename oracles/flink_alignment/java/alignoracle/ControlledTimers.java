package alignoracle;

import org.apache.flink.api.common.operators.ProcessingTimeService.ProcessingTimeCallback;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.util.clock.Clock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The source operator's processing-time service with its two periodic timers held back: the
 * periodic watermark emission (registered first, in {@code open()}) and the alignment update
 * (registered at the first {@code emitNext}). Their callbacks are Flink's own; the reader runs
 * them at simulated times instead of on the wall clock. Everything else is delegated.
 */
final class ControlledTimers implements ProcessingTimeService {
    private final ProcessingTimeService real;
    final List<ProcessingTimeCallback> periodic = new ArrayList<>();

    ControlledTimers(ProcessingTimeService real) {
        this.real = real;
    }

    @Override
    public long getCurrentProcessingTime() {
        return real.getCurrentProcessingTime();
    }

    @Override
    public Clock getClock() {
        return real.getClock();
    }

    @Override
    public ScheduledFuture<?> registerTimer(long timestamp, ProcessingTimeCallback target) {
        return real.registerTimer(timestamp, target);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(ProcessingTimeCallback callback, long initialDelay, long period) {
        return real.scheduleAtFixedRate(callback, initialDelay, period);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(ProcessingTimeCallback callback, long initialDelay, long period) {
        periodic.add(callback);
        return new Held();
    }

    @Override
    public CompletableFuture<Void> quiesce() {
        return real.quiesce();
    }

    /** Runs the i-th held timer (0: periodic watermarks, 1: alignment update) at simulated time t. */
    void fire(int i, long t) {
        try {
            periodic.get(i).onProcessingTime(t);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /** A timer that never fires on its own. */
    private static final class Held implements ScheduledFuture<Object> {
        private volatile boolean cancelled;

        @Override
        public long getDelay(TimeUnit unit) {
            return Long.MAX_VALUE;
        }

        @Override
        public int compareTo(Delayed o) {
            return 0;
        }

        @Override
        public boolean cancel(boolean mayInterrupt) {
            cancelled = true;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return cancelled;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }
}
