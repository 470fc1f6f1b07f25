package sqloracle;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** JSON through the Jackson copy shaded inside flink-dist (no extra dependency). */
final class Json {
    static final ObjectMapper M = new ObjectMapper();

    private Json() {}

    static ObjectNode obj() {
        return M.createObjectNode();
    }

    /** The non-blank lines of a JSON-lines file, parsed; a bad line is an error naming it. */
    static List<JsonNode> readLines(Path p) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        int n = 0;
        for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            try {
                out.add(M.readTree(line));
            } catch (IOException e) {
                throw new IllegalArgumentException(p + ":" + n + ": bad JSON", e);
            }
        }
        return out;
    }
}
