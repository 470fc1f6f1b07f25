package sqloracle;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs real Flink SQL (Flink 2.3's table planner and runtime, on one local MiniCluster) on
 * scenario files and writes what it emitted.
 *
 * <p>Usage: {@code SqlOracle OUT_DIR SCENARIO.jsonl...}; each {@code NAME.jsonl} gives
 * {@code OUT_DIR/NAME.out.jsonl}. The scenario's table is
 * {@code events (k STRING, v BIGINT, ts TIMESTAMP(3), p INT, idx INT, WATERMARK FOR ts AS <watermark>)}
 * read by {@link ScenarioSource}; its header gives {@code partitions}, {@code watermark} (the
 * expression), {@code options} (table options, set before planning) and {@code query}.
 */
public final class SqlOracle {
    /** Real periodic-emission interval: ticks are scenario steps, this only paces them. */
    static final Duration REAL_INTERVAL = Duration.ofMillis(1);

    private SqlOracle() {}

    static Configuration clusterConfiguration() {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
        conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        conf.set(CoreOptions.CLASSLOADER_RESOLVE_ORDER, "parent-first");
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, REAL_INTERVAL);
        conf.setString("metrics.reporter.capture.factory.class", MetricCapture.class.getName());
        conf.setString("rest.bind-port", "0");  // any free port: other Flink clusters may run beside it
        return conf;
    }

    /** Sets a table option as the scenario's {@code options} and a script's {@code SET} do. */
    static void setOption(StreamTableEnvironment t, StreamExecutionEnvironment env, String key, String value) {
        t.getConfig().set(key, value);
        if (key.equals("pipeline.auto-watermark-interval")) {
            // the user's interval runs for real (0: no periodic emission; the scenario has no ticks)
            env.getConfig().setAutoWatermarkInterval(org.apache.flink.util.TimeUtils.parseDuration(value).toMillis());
        }
    }

    private static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'\\s*");

    /**
     * Runs a printed deploy script (the header's {@code script}) statement by statement, as the
     * SQL client would: {@code SET 'k' = 'v'} sets a table option, the {@code SELECT} is the
     * query (returned), every other statement (the {@code CREATE TABLE}) goes to
     * {@code executeSql}. Statements end with {@code ;} at the end of a line; whole-line
     * {@code --} comments before a statement are dropped.
     */
    static Table runScript(StreamTableEnvironment t, StreamExecutionEnvironment env, String script) {
        Table query = null;
        for (String raw : script.split(";\\s*(\\n|$)")) {
            StringBuilder b = new StringBuilder();
            for (String line : raw.split("\\n")) {
                if (b.length() > 0 || !line.strip().startsWith("--")) {
                    b.append(line).append('\n');
                }
            }
            String stmt = b.toString().strip();
            if (stmt.isEmpty()) {
                continue;
            }
            Matcher m = SET.matcher(stmt);
            if (m.matches()) {
                setOption(t, env, m.group(1), m.group(2));
            } else if (stmt.regionMatches(true, 0, "SELECT", 0, 6)) {
                query = t.sqlQuery(stmt);
            } else {
                t.executeSql(stmt);
            }
        }
        if (query == null) {
            throw new IllegalArgumentException("the script has no SELECT");
        }
        return query;
    }

    /** Plans the scenario's query (or runs its script) on a fresh environment; returns its job graph. */
    static JobGraph plan(Scenario sc, List<ObjectNode> out) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, clusterConfiguration());
        env.setParallelism(1);
        env.setMaxParallelism(128);
        StreamTableEnvironment t =
                StreamTableEnvironment.create(env, EnvironmentSettings.newInstance().inStreamingMode().build());
        t.getConfig().set("table.local-time-zone", "UTC");
        Table q = sc.head.has("script") ? runScript(t, env, sc.head.get("script").asText()) : corpusQuery(t, env, sc);
        ObjectNode plan = Json.obj();
        plan.put("kind", "plan");
        String text = q.explain();
        int at = text.indexOf("== Optimized Execution Plan ==");
        plan.put("text", at < 0 ? text : text.substring(at + "== Optimized Execution Plan ==".length()).trim());
        out.add(plan);
        DataStream<Row> rows = t.toChangelogStream(q);
        rows.transform("sink-recorder", Types.STRING, new SinkRecorder())
                .sinkTo(new DiscardingSink<>());
        return env.getStreamGraph().getJobGraph();
    }

    /** The corpus' table (k, v, ts, p, idx) with the header's watermark, options and query. */
    static Table corpusQuery(StreamTableEnvironment t, StreamExecutionEnvironment env, Scenario sc) {
        JsonNode opts = sc.head.get("options");
        if (opts != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = opts.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                setOption(t, env, e.getKey(), e.getValue().asText());
            }
        }
        StringBuilder with = new StringBuilder("'connector' = 'scenario'");
        JsonNode tableOptions = sc.head.get("with");
        if (tableOptions != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = tableOptions.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                with.append(", '").append(e.getKey()).append("' = '").append(e.getValue().asText()).append("'");
            }
        }
        String wm = sc.head.get("watermark").asText();
        t.executeSql("CREATE TABLE events (k STRING, v BIGINT, ts TIMESTAMP(3), p INT, idx INT"
                + (wm.isEmpty() ? "" : ", WATERMARK FOR ts AS " + wm)
                + ") WITH (" + with + ")");
        return t.sqlQuery(sc.head.get("query").asText());
    }

    /** The step of the scenario during which the source emitted watermark {@code ts}. */
    static JsonNode stepOf(long ts) {
        Integer s = Recorders.WATERMARK_STEP.get(ts);
        return s == null ? null : Json.M.getNodeFactory().numberNode(s);
    }

    /** Runs one scenario; returns its output lines (or one error line). */
    static List<ObjectNode> run(MiniCluster cluster, Scenario sc) {
        List<ObjectNode> out = new ArrayList<>();
        Scenario.current = sc;
        Gate.current = new Gate();
        Recorders.clear();
        MetricCapture.LATE.clear();
        try {
            long t0 = System.nanoTime();
            JobGraph jg = plan(sc, out);
            long t1 = System.nanoTime();
            cluster.executeJobBlocking(jg);
            if (System.getenv("SQLORACLE_VERBOSE") != null) {
                System.err.printf("  plan %.1f s, job %.1f s%n", (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
            }
        } catch (Throwable e) {
            Throwable c = e;
            while (c.getCause() != null) {
                c = c.getCause();
            }
            ObjectNode o = Json.obj();
            o.put("kind", "error");
            o.put("type", c.getClass().getSimpleName());
            o.put("message", String.valueOf(c.getMessage()));
            out.clear();
            out.add(o);
            return out;
        }
        for (ObjectNode o : Recorders.SOURCE) {
            out.add(o);
        }
        List<ObjectNode> sink = new ArrayList<>(Recorders.SINK);
        JsonNode next = null;  // the step of the next watermark at the sink, for the rows before it
        for (int i = sink.size() - 1; i >= 0; i--) {
            ObjectNode o = sink.get(i);
            if (o.get("kind").asText().equals("watermark")) {
                next = stepOf(o.get("ts").asLong());
                o.set("step", next);
            } else if (o.get("kind").asText().equals("row")) {
                o.set("next_watermark_step", next);
            }
        }
        out.addAll(sink);
        ObjectNode m = Json.obj();
        m.put("kind", "metrics");
        ObjectNode late = m.putObject("late");
        for (Object[] c : MetricCapture.LATE) {
            // the operator's name without its (run-dependent) node id: "GlobalWindowAggregate"
            String op = String.valueOf(c[0]).replaceAll("\\[\\d+\\]", "");
            late.put(op + "." + c[1], ((Counter) c[2]).getCount());
        }
        out.add(m);
        return out;
    }

    public static void main(String[] args) throws Exception {
        Path outDir = Path.of(args[0]);
        Files.createDirectories(outDir);
        MiniClusterConfiguration mc = new MiniClusterConfiguration.Builder()
                .setConfiguration(clusterConfiguration()).setNumTaskManagers(1).setNumSlotsPerTaskManager(4).build();
        try (MiniCluster cluster = new MiniCluster(mc)) {
            cluster.start();
            for (int i = 1; i < args.length; i++) {
                Path p = Path.of(args[i]);
                String name = p.getFileName().toString().replaceAll("\\.jsonl$", "");
                long t0 = System.nanoTime();
                List<ObjectNode> out = run(cluster, new Scenario(name, Json.readLines(p)));
                StringBuilder b = new StringBuilder();
                for (ObjectNode o : out) {
                    b.append(Json.M.writeValueAsString(o)).append('\n');
                }
                Files.write(outDir.resolve(name + ".out.jsonl"), b.toString().getBytes(StandardCharsets.UTF_8));
                System.err.printf("%s: %d lines, %.1f s%n", name, out.size(), (System.nanoTime() - t0) / 1e9);
            }
        }
    }
}
