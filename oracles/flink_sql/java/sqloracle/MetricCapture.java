package sqloracle;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

/**
 * A metric reporter that keeps every counter whose name mentions late records
 * ({@code numLateRecordsDropped} of the window operators), so that the oracle can read their
 * values once the job has finished.
 */
public final class MetricCapture implements MetricReporter, MetricReporterFactory {
    /** (operator scope, metric name, counter) of the current job. */
    static final List<Object[]> LATE = Collections.synchronizedList(new ArrayList<>());

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new MetricCapture();
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (metric instanceof Counter && name.toLowerCase().contains("late")) {
            String op = group.getAllVariables().getOrDefault("<operator_name>", "?");
            LATE.add(new Object[] {op, name, metric});
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}
}
