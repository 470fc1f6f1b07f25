package sqloracle;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Pass-through operator chained to the source: forwards everything unchanged and notes each
 * watermark and status change with the scenario step during which the source emitted it.
 */
public final class SourceRecorder<T> extends AbstractStreamOperator<T> implements OneInputStreamOperator<T, T> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(StreamRecord<T> r) {
        output.collect(r);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        int step = Gate.current.step;
        Recorders.WATERMARK_STEP.putIfAbsent(mark.getTimestamp(), step);
        ObjectNode o = Json.obj();
        o.put("kind", "source_watermark");
        o.put("ts", mark.getTimestamp());
        o.put("step", step);
        Recorders.SOURCE.add(o);
        super.processWatermark(mark);
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) throws Exception {
        ObjectNode o = Json.obj();
        o.put("kind", "source_status");
        o.put("status", status.isIdle() ? "idle" : "active");
        o.put("step", Gate.current.step);
        Recorders.SOURCE.add(o);
        super.processWatermarkStatus(status);
    }
}
