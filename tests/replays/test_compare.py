"""Engines side by side: the translation between semantics, ``toolkit.compare_engines`` and
``python -m toolkit compare``. Every figure is checked against independent replays, and every
"a delay of X keeps it" against a replay with that delay."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.cli import main
from toolkit.replays.translate import Intent, same_setting, translatable, translate
from toolkit.settings import Setting, SettingError, semantics_names


def _log(n=500, seed=3, parts=3):
    rng = np.random.default_rng(seed)
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 60_000, n))
    event = arrival - rng.choice([0, 200, 900, 2_500, 7_000], n)
    return toolkit.load_log(pd.DataFrame({"event_time": event, "arrival_time": arrival,
                                          "key": rng.choice(["a", "b", "c"], n),
                                          "partition": rng.integers(0, parts, n), "value": rng.integers(1, 9, n)}),
                            time_unit="ms")


# ------------------------------------------------------------------------------ translation
def test_flink_to_spark_maps_window_delay_interval_and_notes_lateness_and_idleness():
    t = translate("window=sliding:10s/5s delay=2s lateness=3s interval=500ms idleness=4s", "spark")
    s = t.setting
    assert (s.semantics, str(s.window), s.delay, s.trigger_interval) == ("spark", "sliding:10s/5s", 2000, 500)
    assert (s.output_mode, s.multiple_watermark_policy, s.partitions_as_sources) == ("append", "min", True)
    assert not t.exact and any("no allowed lateness" in n for n in t.notes) and any("idle timeout" in n for n in t.notes)
    folded = translate("window=tumbling:1s delay=2s lateness=3s", "spark", lateness_as="delay")
    assert folded.setting.delay == 5000 and "folded" in folded.notes[0]


def test_spark_to_flink_and_round_trip():
    t = translate(Setting.parse(window="session:5s", delay="2s", semantics="spark", trigger_interval="2s"), "flink")
    assert t.exact and t.setting == Setting.parse(window="session:5s", delay="2s", interval="2s")
    back = translate(t.setting, "spark").setting
    assert back == Setting.parse(window="session:5s", delay="2s", semantics="spark", trigger_interval="2s")
    assert translate(back, "spark").setting is back  # to its own semantics: unchanged
    assert any("update mode" in n for n in translate("window=tumbling:1s semantics=spark output_mode=update", "flink").notes)


def test_translation_errors_name_the_setting():
    with pytest.raises(SettingError, match="offset") as e:
        translate("window=tumbling:10s,2s delay=1s", "spark")
    assert e.value.setting == "window"
    with pytest.raises(SettingError) as e:
        translate("window=tumbling:1s strategy=time_lag delay=1s", "spark")
    assert e.value.setting == "strategy"
    with pytest.raises(SettingError) as e:
        translate("window=tumbling:1s", "flonk")
    assert e.value.setting == "semantics"
    with pytest.raises(SettingError) as e:
        translate("window=tumbling:1s", "spark", lateness_as="keep")
    assert e.value.setting == "lateness_as"


def test_every_semantics_of_the_settings_has_a_translation():
    assert set(semantics_names()) <= set(translatable())
    assert list(same_setting("window=tumbling:1s delay=1s")) == list(translatable())


def test_registry_takes_a_new_engine():
    from toolkit import semantics as engines

    flink = engines.get("flink")

    class Mine(type(flink)):  # an engine that reads everything as Flink would, with notes of its own
        def to_intent(self, s):
            return Intent(s.window, s.delay, 0, s.interval), ["mine"]

        def from_intent(self, i, how):
            return Setting.parse(window=i.window, delay=i.delay), ["from mine"]

    engines.register(Mine())
    try:
        t = translate(Setting.parse(window="tumbling:1s", delay=7, semantics="spark"), "flink")
        assert t.notes == ("from mine",) and t.setting.delay == 7
    finally:
        engines.register(flink)


# ------------------------------------------------------------------------------ comparison
def test_fates_and_counts_equal_independent_replays():
    log = _log()
    c = toolkit.compare_engines(log, window="tumbling:2s", delay="1s", lateness="2s", semantics=["flink", "spark"])
    flink = toolkit.replay(log, window="tumbling:2s", delay="1s", lateness="2s").fates.set_index("row")["fate"]
    spark = toolkit.replay(log, translate("window=tumbling:2s delay=1s lateness=2s", "spark").setting).fates
    spark = spark.set_index("row")["fate"]
    f = c.fates.set_index("row")
    assert (f["fate_flink"] == flink.loc[f.index]).all() and (f["fate_spark"] == spark.loc[f.index]).all()
    kept_f, kept_s = flink.isin(["on_time", "late_accepted"]), spark.isin(["on_time", "late_accepted"])
    kd = c.kept_dropped.set_index(["kept_by", "dropped_by"])["records"]
    assert kd[("flink", "spark")] == int((kept_f & ~kept_s).sum()) > 0  # the lateness Spark lacks
    assert kd[("spark", "flink")] == int((kept_s & ~kept_f).sum())
    fig = c.figures.set_index("semantics")
    assert fig.loc["flink", "dropped"] == int((flink == "dropped").sum())
    assert fig.loc["spark", "completeness_first"] == c.results["spark"].summary()["completeness_first"]


def _fate(log, setting, row):
    return toolkit.replay(log, setting).fates.set_index("row")["fate"][row]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), window=st.sampled_from(["tumbling:2s", "sliding:4s/2s", "session:1s"]),
       delay=st.sampled_from([0, 300, 1000]), trigger=st.sampled_from([200, 1000, 3000]),
       parts=st.sampled_from([1, 2]))
def test_spark_delay_to_keep_is_the_smallest_delay_that_keeps_the_record(seed, window, delay, trigger, parts):
    log = _log(n=150, seed=seed, parts=parts)
    c = toolkit.compare_engines(log, window=window, delay=delay, interval=trigger, lateness="3s",
                                semantics=["flink", "spark"])
    d = c.differences("flink", "spark", limit=2)
    spark = c.settings["spark"]
    for r in d.itertuples(index=False):
        assert r.why.startswith("it arrived at") and "previous batch's watermark" in r.why
        assert _fate(log, spark.replace(delay=int(r.delay_to_keep_ms)), r.row) != "dropped"
        assert _fate(log, spark.replace(delay=int(r.delay_to_keep_ms) - 1), r.row) == "dropped"


def test_flink_drops_explained_with_explain_and_examples_read_well():
    log = _log(seed=5)
    c = toolkit.compare_engines(log, "window=tumbling:2s delay=2s semantics=spark trigger_interval=5s",
                                semantics="spark,flink")
    assert c.semantics == ["spark", "flink"]
    d = c.differences("spark", "flink")
    assert len(d), "a 5 s trigger lets Spark keep what Flink's 1 s watermark drops"
    drops = c.results["flink"].drops(fates=("dropped",)).set_index("row")
    for r in d.head(5).itertuples(index=False):
        assert r.why.startswith("the watermark was") and drops.loc[r.row, "watermark_at"] in r.why
        assert r.delay_to_keep_ms == drops.loc[r.row, "delay_to_keep_ms"]
    text = c.examples(1)[0]
    assert "kept by Spark Structured Streaming" in text and "dropped by Flink: the watermark was" in text and "2023-11-14" in text and "ms" not in text.split("event time")[1][:25]
    assert "1700000" not in c.summary_text()  # readable times, never epoch ms


def test_compare_errors():
    log = _log(n=50)
    with pytest.raises(SettingError) as e:
        toolkit.compare_engines(log, window="tumbling:1s", semantics=["flink"])
    assert e.value.setting == "semantics"
    c = toolkit.compare_engines(log, window="tumbling:1s", semantics=["flink", "spark"], trigger="count:3")
    assert any("trigger count:3 is Flink's own" in n for n in c.translations["spark"].notes)
    with pytest.raises(SettingError) as e:
        toolkit.compare_engines(log, window="tumbling:1s", semantics=["flink", "spark"]).differences("flink", "beam")
    assert e.value.setting == "semantics"


# ------------------------------------------------------------------------------ command line
def test_cli_compare_text_json_and_csv(tmp_path, capsys):
    log = _log(n=300)
    csv = tmp_path / "log.csv"
    log.table[["event_time", "arrival_time", "key", "partition", "value"]].to_csv(csv, index=False)
    args = ["compare", str(csv), "--time-unit", "ms", "--window", "tumbling:2s", "--delay", "1s", "--lateness", "2s",
            "--semantics", "flink,spark"]
    assert main(args + ["--differences", str(tmp_path / "d.csv")]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())  # the examples wrap at the terminal's width
    assert "kept by \\ dropped by" in out and "dropped by Spark Structured Streaming: it arrived" in flat
    assert "no allowed lateness" in flat and "examples (up to 1 per pair of engines; --examples N for more):" in out
    d = pd.read_csv(tmp_path / "d.csv")
    assert set(d["kept_by"]) <= {"flink", "spark"} and d["why"].notna().all()
    assert main(args + ["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["semantics"] for f in doc["figures"]] == ["flink", "spark"]
    assert {(k["kept_by"], k["dropped_by"]) for k in doc["kept_dropped"]} == {("flink", "spark"), ("spark", "flink")}
    assert main(args[:-2] + ["--semantics", "flink"]) == 2
    assert "--semantics" in capsys.readouterr().err
    assert main(args + ["--lateness-as", "later"]) == 2
    assert "--lateness-as" in capsys.readouterr().err
    assert main(["compare", str(csv), "--time-unit", "ms", "--window", "tumbling:2s,500ms", "--semantics",
                 "flink,spark"]) == 2
    assert "--window" in capsys.readouterr().err


@pytest.mark.skipif("kafka_streams" not in semantics_names(), reason="Kafka Streams semantics are not wired on this branch")
def test_kafka_streams_grace_is_the_delay_and_three_engines_compare():
    t = translate("window=tumbling:1s delay=500ms lateness=1s", "kafka_streams")
    assert (t.setting.grace, t.setting.emit) == (500, "final") and any("only lateness" in n for n in t.notes)
    assert translate("window=tumbling:1s delay=500ms lateness=1s", "kafka_streams", lateness_as="delay").setting.grace == 1500
    log = _log(n=200)
    c = toolkit.compare_engines(log, window="tumbling:2s", delay="1s", semantics=["flink", "spark", "kafka_streams"])
    assert len(c.kept_dropped) == 6 and list(c.figures["semantics"]) == ["flink", "spark", "kafka_streams"]
    ks = toolkit.replay(log, c.settings["kafka_streams"]).fates.set_index("row")["fate"]
    assert (c.fates.set_index("row")["fate_kafka_streams"] == ks.loc[c.fates["row"]].to_numpy()).all()


@pytest.mark.skipif("kafka_streams" not in semantics_names(), reason="Kafka Streams semantics are not wired on this branch")
@pytest.mark.parametrize("window", ["tumbling:2s", "sliding:4s/2s"])
def test_kafka_streams_grace_to_keep_is_the_smallest_grace_that_keeps_the_record(window):
    log = _log(n=300, seed=9)
    c = toolkit.compare_engines(log, window=window, delay="500ms", lateness="2s", semantics=["flink", "kafka_streams"])
    d = c.differences("flink", "kafka_streams", limit=4)
    assert len(d) and d["why"].str.contains("stream time").all()
    ks = c.settings["kafka_streams"]
    for r in d.itertuples(index=False):
        assert _fate(log, ks.replace(grace=int(r.delay_to_keep_ms)), r.row) != "dropped"
        assert _fate(log, ks.replace(grace=int(r.delay_to_keep_ms) - 1), r.row) == "dropped"
    assert "Kafka Streams grace of" in " ".join(c.examples(1))
