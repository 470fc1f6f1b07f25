package alignoracle;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs Flink 2.3's split-level watermark alignment on scenario files: one local job per scenario
 * (parallelism 1), {@code fromSource(AlignSource, forBoundedOutOfOrderness(delay)
 * .withWatermarkAlignment("g", drift, update))} into a discarding sink, with
 * {@code pipeline.watermark-alignment.buffer-size} from the scenario. Writes OUT_DIR/NAME.out.jsonl.
 *
 * <p>Usage: {@code AlignOracle OUT_DIR SCENARIO.jsonl...}
 */
public final class AlignOracle {
    private AlignOracle() {}

    public static void main(String[] args) throws Exception {
        Path outDir = Path.of(args[0]);
        Files.createDirectories(outDir);
        int failed = 0;
        for (int i = 1; i < args.length; i++) {
            Path in = Path.of(args[i]);
            String name = in.getFileName().toString().replaceAll("\\.jsonl$", "");
            List<String> lines = new ArrayList<>();
            try {
                for (ObjectNode n : run(name, read(in))) {
                    lines.add(Output.M.writeValueAsString(n));
                }
            } catch (Exception e) {
                failed++;
                ObjectNode err = Output.M.createObjectNode();
                err.put("kind", "error");
                err.put("message", String.valueOf(e));
                lines.add(Output.M.writeValueAsString(err));
                e.printStackTrace();
            }
            Files.write(outDir.resolve(name + ".out.jsonl"), lines, StandardCharsets.UTF_8);
            System.err.println(name + ": " + lines.size() + " lines");
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    private static List<JsonNode> read(Path p) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                out.add(Output.M.readTree(line));
            }
        }
        return out;
    }

    static List<ObjectNode> run(String name, List<JsonNode> lines) throws Exception {
        Scenario sc = new Scenario(name, lines);
        Scenario.current = sc;
        Output.drain();
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.WATERMARK_ALIGNMENT_BUFFER_SIZE, sc.buffer);
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(sc.interval));
        conf.setString("rest.bind-port", "0");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        WatermarkStrategy<Integer> strategy = WatermarkStrategy.<Integer>forBoundedOutOfOrderness(
                Duration.ofMillis(sc.delay)).withWatermarkAlignment(
                "g", Duration.ofMillis(sc.drift), Duration.ofMillis(sc.update));
        env.fromSource(new AlignSource(), strategy, "aligned").sinkTo(new DiscardingSink<>());
        env.execute(name);
        return Output.drain();
    }
}
