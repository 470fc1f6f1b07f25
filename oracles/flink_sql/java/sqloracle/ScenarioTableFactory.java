package sqloracle;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsWatermarkPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.types.DataType;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code 'connector' = 'scenario'}: a table over the current scenario, read by
 * {@link ScenarioSource}. It supports watermark push-down as Flink's Kafka connector does, so
 * the planner hands it the {@code WATERMARK FOR} strategy (with idleness from
 * {@code table.exec.source.idle-timeout}) and the watermarks are generated per split inside the
 * source. A pass-through {@link SourceRecorder}, chained to the source, labels every watermark
 * and status change with the scenario step that produced it.
 */
public final class ScenarioTableFactory implements DynamicTableSourceFactory {
    @Override
    public String factoryIdentifier() {
        return "scenario";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        DataType row = context.getPhysicalRowDataType();
        List<String[]> columns = new ArrayList<>();
        List<String> names = DataType.getFieldNames(row);
        List<DataType> types = DataType.getFieldDataTypes(row);
        for (int i = 0; i < names.size(); i++) {
            columns.add(new String[] {names.get(i), types.get(i).getLogicalType().getTypeRoot().name()});
        }
        Scenario.current.columns = columns;
        return new Table(row, null);
    }

    /** The scan source; {@code strategy} is what the planner pushed (null: no watermark). */
    static final class Table implements ScanTableSource, SupportsWatermarkPushDown {
        private final DataType rowType;
        private WatermarkStrategy<RowData> strategy;

        Table(DataType rowType, WatermarkStrategy<RowData> strategy) {
            this.rowType = rowType;
            this.strategy = strategy;
        }

        @Override
        public void applyWatermark(WatermarkStrategy<RowData> s) {
            strategy = s;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return ChangelogMode.insertOnly();
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext ctx) {
            TypeInformation<RowData> type = ctx.createTypeInformation(rowType);
            WatermarkStrategy<RowData> s = strategy;
            return new DataStreamScanProvider() {
                @Override
                public DataStream<RowData> produceDataStream(ProviderContext pc, StreamExecutionEnvironment env) {
                    WatermarkStrategy<RowData> w =
                            s == null ? WatermarkStrategy.noWatermarks() : new GatedWatermarks(s);
                    return env.fromSource(new ScenarioSource(), w, "scenario-source", type)
                            .transform("source-recorder", type, new SourceRecorder<>());
                }

                @Override
                public boolean isBounded() {
                    return true;
                }
            };
        }

        @Override
        public DynamicTableSource copy() {
            return new Table(rowType, strategy);
        }

        @Override
        public String asSummaryString() {
            return "scenario";
        }
    }
}
