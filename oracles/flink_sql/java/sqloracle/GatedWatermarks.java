package sqloracle;

import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.clock.RelativeClock;

/**
 * Wraps the WatermarkStrategy the planner pushes into the source (the generated
 * {@code WATERMARK FOR} generator, with {@code withIdleness} when
 * {@code table.exec.source.idle-timeout} is set) without changing what it computes: each
 * generator it creates is Flink's own, given a context whose input-activity clock is the
 * scenario's simulated processing time; its periodic emission runs only at the scenario's tick
 * steps (see {@link Gate}). onEvent is passed through untouched.
 */
public final class GatedWatermarks implements WatermarkStrategy<RowData> {
    private static final long serialVersionUID = 1L;
    private final WatermarkStrategy<RowData> inner;

    GatedWatermarks(WatermarkStrategy<RowData> inner) {
        this.inner = inner;
    }

    @Override
    public WatermarkGenerator<RowData> createWatermarkGenerator(WatermarkGeneratorSupplier.Context ctx) {
        WatermarkGeneratorSupplier.Context simulated = new WatermarkGeneratorSupplier.Context() {
            @Override
            public MetricGroup getMetricGroup() {
                return ctx.getMetricGroup();
            }

            @Override
            public RelativeClock getInputActivityClock() {
                return SIM_CLOCK;
            }
        };
        Gate.current.gated = true;
        return new Gated(inner.createWatermarkGenerator(simulated));
    }

    @Override
    public TimestampAssigner<RowData> createTimestampAssigner(TimestampAssignerSupplier.Context ctx) {
        return inner.createTimestampAssigner(ctx);
    }

    /** The simulated processing time of the current tick. */
    static final RelativeClock SIM_CLOCK = new RelativeClock() {
        @Override
        public long relativeTimeMillis() {
            return Gate.current.clockNanos / 1_000_000L;
        }

        @Override
        public long relativeTimeNanos() {
            return Gate.current.clockNanos;
        }
    };

    /** Flink's generator, asked periodically only at armed ticks. */
    static final class Gated implements WatermarkGenerator<RowData> {
        private final WatermarkGenerator<RowData> real;
        private int lastAsked = -1;

        Gated(WatermarkGenerator<RowData> real) {
            this.real = real;
        }

        @Override
        public void onEvent(RowData event, long ts, WatermarkOutput output) {
            real.onEvent(event, ts, output);
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            Gate g = Gate.current;
            if (g.mayEmit(lastAsked)) {
                lastAsked = g.tickStep;
                g.step = g.tickStep;
                real.onPeriodicEmit(output);
                g.emitted();
            }
        }
    }
}
