package alignoracle;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/** What the reader observed, in order: one JSON object a line (shaded Jackson of flink-dist). */
final class Output {
    static final ObjectMapper M = new ObjectMapper();
    private static final List<ObjectNode> LINES = new ArrayList<>();

    private Output() {}

    static ObjectNode event(String kind, long at) {
        ObjectNode n = M.createObjectNode();
        n.put("kind", kind);
        n.put("at", at);
        return n;
    }

    static synchronized void add(ObjectNode n) {
        LINES.add(n);
    }

    /** The lines observed since the last call. */
    static synchronized List<ObjectNode> drain() {
        List<ObjectNode> out = new ArrayList<>(LINES);
        LINES.clear();
        return out;
    }
}
