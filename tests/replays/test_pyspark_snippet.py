"""``toolkit.pyspark_snippet(setting)``: the PySpark code of a Spark setting. The live test runs
that code on real Spark (only its trigger swapped for ``availableNow`` over one file per tick,
as the oracle does, so the run is deterministic) and gets the batches the replay predicted."""
from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pandas as pd
import pytest

import toolkit
from toolkit.settings import Setting, SettingError

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "tests" / "fixtures" / "spark" / "corner_silent_speaks_min.jsonl"


def test_snippet_states_every_setting():
    code = toolkit.pyspark_snippet(Setting.parse(semantics="spark", window="sliding:10s/5s", delay="5s",
                                                 trigger_interval="1500ms", output_mode="update",
                                                 partitions_as_sources=False))
    compile(code, "snippet", "exec")
    for part in ('.withWatermark("event_time", "5 seconds")', 'F.window("event_time", "10 seconds", "5 seconds")',
                 '.outputMode("update")', '.trigger(processingTime="1500 milliseconds")',
                 '"spark.sql.streaming.multipleWatermarkPolicy", "min"'):
        assert part in code
    code = toolkit.pyspark_snippet("window=session:30s delay=1min semantics=spark multiple_watermark_policy=max",
                                   partitions=[0, 1, 2])
    assert 'F.session_window("event_time", "30 seconds")' in code and "for p in [0, 1, 2]" in code
    assert '.withWatermark("event_time", "1 minutes")' in code
    with pytest.raises(SettingError, match="semantics"):
        toolkit.pyspark_snippet(Setting.parse(window="tumbling:1s"))
    code = toolkit.pyspark_snippet("window=dynamic_session:gap_ms semantics=spark", partitions=[0])
    compile(code, "snippet", "exec")
    assert 'F.session_window("event_time", F.concat(F.col("gap_ms").cast("string"), F.lit(" milliseconds")))' in code


def _oracle():
    spec = importlib.util.spec_from_file_location("spark_oracle", ROOT / "oracles" / "spark" / "spark_oracle.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.spark
@pytest.mark.parametrize("case,window", [
    (CASE, "tumbling:10s"),
    # complete mode and a negative window offset (startTime), one input
    (CASE.parent / "corner_complete_late_complete.jsonl", "tumbling:10s,-2500ms"),
    # per-record session gaps (session_window(ts, gap_column)), null, zero and negative ones among them,
    # two inputs, min policy, late rows
    (CASE.parent / "sessiongapnull_append_min_late_0.jsonl", "dynamic_session:gap"),
    # an input that never delivers a row (min policy: the watermark stays at 0), declared to the log
    (CASE.parent / "corner_never_speaks_min_append.jsonl", "tumbling:10s"),
])
def test_snippet_on_real_spark_gives_the_replays_figures(spark, tmp_path, case, window):
    from pyspark.sql import functions as F

    oracle = _oracle()
    config, records = oracle.read_case(case)
    if not config["partitions_as_sources"]:  # the snippet reads each partition as an input: here, one
        config = {**config, "partitions_as_sources": True, "partitions": sorted({r["partition"] for r in records})}
    setting = Setting.parse(semantics="spark", window=window, delay=config["delay"],
                            trigger_interval=config["trigger_interval"], output_mode=config["output_mode"],
                            partitions_as_sources=True, multiple_watermark_policy=config["multiple_watermark_policy"])
    dynamic = window.startswith("dynamic_session:")
    log = toolkit.load_log(pd.DataFrame(records), time_unit="ms", keep=["gap"] if dynamic else [],
                           partitions=config["partitions"])
    r = toolkit.replay(log, setting)
    session = spark.newSession()
    plan = oracle.plan_files(config, records)
    dirs = oracle.write_inputs(tmp_path / "in", plan, config["partitions"], time.time() - len(plan) - 10)
    schema = "event_time LONG, arrival_time LONG, key STRING, partition LONG, value LONG" + (", gap LONG" if dynamic else "")

    def read_input(p):
        return (session.readStream.schema(schema).option("maxFilesPerTrigger", 1).json(str(dirs[p]))
                .select(F.timestamp_millis("event_time").alias("event_time"), "key", "value", *(["gap"] if dynamic else [])))

    emitted: dict[int, list] = {}

    def sink(df, batch_id):
        # the window column: "window" or "session_window"
        emitted[batch_id] = [[x["key"], int(x[0]["start"].timestamp() * 1000),
                              int(x[0]["end"].timestamp() * 1000), x["count"], x["sum"]] for x in df.collect()]

    scope: dict = {}
    exec(toolkit.pyspark_snippet(setting, partitions=config["partitions"]), scope)
    q = (scope["build_query"](session, read_input, sink).trigger(availableNow=True)
         .option("checkpointLocation", str(tmp_path / "ckpt")).start())
    q.awaitTermination()
    batches = oracle.assemble(plan, q.recentProgress, emitted)
    em = r.emissions[~r.emissions["at_end"]]
    predicted = sorted((int(b), k, int(s), int(e), int(c), int(v)) for b, k, s, e, c, v in
                       em[["batch", "key", "window_start", "window_end", "count", "sum"]].itertuples(index=False))
    assert sorted((b["batch"], *row) for b in batches for row in b["rows"]) == predicted
    ops = r.watermarks[r.watermarks["level"] == "operator"]
    assert [b["watermark"] for b in batches] == ops["watermark"].astype("int64").tolist()
    assert sum(b["rows_dropped_by_watermark"] for b in batches) == r.summary()["rows_dropped_by_watermark"]
    if dynamic:  # the rows without a session are the replay's invalid ones, and none was quarantined
        no_session = sum(1 for x in records if x["gap"] is None or x["gap"] <= 0)
        assert no_session > 0 and r.summary()["invalid"] == no_session and log.n_invalid == 0
        assert (r.fates["fate"] == "invalid").sum() == no_session
