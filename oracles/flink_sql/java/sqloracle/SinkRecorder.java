package sqloracle;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.types.Row;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Set;

/**
 * The end of the query: notes every result row (its change kind and columns; TIMESTAMP
 * columns as epoch ms) and every watermark and status change reaching it, in order. Rows come
 * before the watermark whose arrival made the window operator emit them.
 */
public final class SinkRecorder extends AbstractStreamOperator<String> implements OneInputStreamOperator<Row, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(StreamRecord<Row> r) {
        Row row = r.getValue();
        ObjectNode o = Json.obj();
        o.put("kind", "row");
        o.put("op", row.getKind().shortString());
        Set<String> names = row.getFieldNames(true);
        for (String n : names) {
            Object v = row.getField(n);
            if (v == null) {
                o.putNull(n);
            } else if (v instanceof LocalDateTime) {
                o.put(n, ((LocalDateTime) v).toInstant(ZoneOffset.UTC).toEpochMilli());
            } else if (v instanceof java.time.Instant) {
                o.put(n, ((java.time.Instant) v).toEpochMilli());
            } else if (v instanceof Long || v instanceof Integer) {
                o.put(n, ((Number) v).longValue());
            } else if (v instanceof Double) {
                o.put(n, (Double) v);
            } else {
                o.put(n, v.toString());
            }
        }
        Recorders.SINK.add(o);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        ObjectNode o = Json.obj();
        o.put("kind", "watermark");
        o.put("ts", mark.getTimestamp());
        Recorders.SINK.add(o);
        super.processWatermark(mark);
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) throws Exception {
        ObjectNode o = Json.obj();
        o.put("kind", "status");
        o.put("status", status.isIdle() ? "idle" : "active");
        Recorders.SINK.add(o);
        super.processWatermarkStatus(status);
    }
}
