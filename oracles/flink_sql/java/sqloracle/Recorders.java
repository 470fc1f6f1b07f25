package sqloracle;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What the recorders saw during the current scenario's job (same JVM as the MiniCluster). */
public final class Recorders {
    private Recorders() {}

    /** Source side: watermark value -> scenario step that emitted it. */
    static final Map<Long, Integer> WATERMARK_STEP = Collections.synchronizedMap(new HashMap<>());
    /** Source side: every watermark and status change, in order, with its step. */
    static final List<ObjectNode> SOURCE = Collections.synchronizedList(new ArrayList<>());
    /** Sink side: every result row and every watermark/status reaching the sink, in order. */
    static final List<ObjectNode> SINK = Collections.synchronizedList(new ArrayList<>());

    static void clear() {
        WATERMARK_STEP.clear();
        SOURCE.clear();
        SINK.clear();
    }
}
