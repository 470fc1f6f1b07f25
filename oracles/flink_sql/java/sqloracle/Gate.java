package sqloracle;

import java.util.concurrent.CompletableFuture;

/**
 * Coordinates the scenario reader with Flink's periodic watermark emission (all in the source
 * task's mailbox thread): a tick step is "armed" by the reader, which then waits; the next real
 * periodic emission asks every watermark generator once (with the simulated processing time on
 * the idleness clock, each generator once) and releases the reader. Periodic emissions that find no armed tick ask
 * no generator, so between two tick steps the generators see only the records in between.
 */
public final class Gate {
    /** The gate of the scenario being run (one at a time, same JVM as the MiniCluster). */
    static volatile Gate current = new Gate();

    /** True once a gated generator exists (a table without WATERMARK has none: ticks are no-ops). */
    volatile boolean gated;
    /** True while a tick step waits for the generators to be asked. */
    boolean armed;
    /** The scenario step of the armed (or last) tick. */
    int tickStep = -1;
    /** Simulated processing time read by the idleness timers, in nanoseconds. */
    long clockNanos = 1;
    /** The scenario step being processed; what the source emits now is labelled with it. */
    volatile int step = -1;
    CompletableFuture<Void> released = CompletableFuture.completedFuture(null);

    /** Arms the tick at scenario step {@code s} and simulated time {@code t} ms. */
    CompletableFuture<Void> arm(int s, long t) {
        armed = true;
        tickStep = s;
        clockNanos = t * 1_000_000L;
        released = new CompletableFuture<>();
        return released;
    }

    /** A generator asks whether to run its periodic emission now (each once per armed tick). */
    boolean mayEmit(int lastAskedStep) {
        return armed && lastAskedStep != tickStep;
    }

    /**
     * A generator ran the armed tick: the reader is released. It resumes only after the whole
     * periodic emission (every generator, then the split multiplexer) has run, since that is one
     * mailbox action; it then disarms the gate ({@link #disarm}).
     */
    void emitted() {
        step = tickStep;
        released.complete(null);
    }

    /** Called by the reader when it resumes after a tick. */
    void disarm() {
        armed = false;
    }
}
