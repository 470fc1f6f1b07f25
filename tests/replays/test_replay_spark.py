"""``toolkit.replay(log, semantics="spark", ...)`` and ``python -m toolkit replay --semantics spark``.

The replay reaches the micro-batch engine (checked against real Spark in tests/engine), so here:
a committed real-Spark case replayed through the public API gives Spark's rows per batch; the
result has the Flink replay's columns and figures; bad settings name the option.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.cli import main
from toolkit.settings import Setting, SettingError

SPARK = Path(__file__).resolve().parent.parent / "fixtures" / "spark"
CASES = ["tumbling_append_max_late_0", "sliding_update_min_gaps_0", "session_append_min_gaps_0",
         "tumbling3_update_single_steady_0", "sliding6_append_max_late_0"]


def _case(name: str):
    lines = [json.loads(s) for s in (SPARK / f"{name}.jsonl").read_text().splitlines() if s.strip()]
    cfg, recs = lines[0]["config"], pd.DataFrame(lines[1:])
    out = [json.loads(s) for s in (SPARK / f"{name}.out.jsonl").read_text().splitlines() if s.strip()]
    w = cfg["window"]
    window = {"tumbling": f"tumbling:{w.get('size')}ms", "sliding": f"sliding:{w.get('size')}ms/{w.get('slide')}ms",
              "session": f"session:{w.get('gap')}ms"}[w["kind"]]
    settings = dict(semantics="spark", window=window, delay=cfg["delay"], trigger_interval=cfg["trigger_interval"],
                    output_mode=cfg["output_mode"], partitions_as_sources=cfg["partitions_as_sources"],
                    multiple_watermark_policy=cfg["multiple_watermark_policy"])
    log = toolkit.load_log(recs[["event_time", "arrival_time", "key", "partition", "value"]], time_unit="ms")
    return log, settings, out, cfg


@pytest.mark.parametrize("name", [c for c in CASES if (SPARK / f"{c}.out.jsonl").exists()])
def test_replay_gives_real_sparks_rows(name):
    log, settings, spark, cfg = _case(name)
    if cfg["partitions_as_sources"] and len(set(cfg["partitions"]) - set(log.table["partition"])):
        pytest.skip("a silent input is not in the log: the replay knows the log's partitions only")
    r = toolkit.replay(log, **settings)
    em = r.emissions[~r.emissions["at_end"]]
    got = sorted((int(b), k, int(s), int(e), int(c), int(v)) for b, k, s, e, c, v in
                 em[["batch", "key", "window_start", "window_end", "count", "sum"]].itertuples(index=False))
    want = sorted((b["batch"], *row) for b in spark for row in b["rows"])
    assert got == [tuple(w) for w in want]
    ops = r.watermarks[r.watermarks["level"] == "operator"]
    assert ops["watermark"].astype("int64").tolist() == [b["watermark"] for b in spark]
    assert r.summary()["rows_dropped_by_watermark"] == sum(b["rows_dropped_by_watermark"] for b in spark)


def _log(n=400, seed=3):
    rng = np.random.default_rng(seed)
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 60_000, n))
    event = arrival - rng.choice([0, 200, 1_000, 4_000, 15_000], n)
    return toolkit.load_log(pd.DataFrame({"event_time": event, "arrival_time": arrival,
                                          "key": rng.choice(["a", "b", "c"], n), "partition": rng.integers(0, 3, n),
                                          "value": rng.integers(1, 10, n)}), time_unit="ms")


@pytest.mark.parametrize("kw", [dict(window="tumbling:5s"), dict(window="sliding:10s/5s", output_mode="update"),
                                dict(window="session:3s", partitions_as_sources=False),
                                dict(window="tumbling:5s", multiple_watermark_policy="max", trigger_interval="2s")])
def test_result_has_the_flink_replays_columns_and_figures(kw):
    log = _log()
    spark = toolkit.replay(log, semantics="spark", delay="2s", **kw)
    flink = toolkit.replay(log, window=kw["window"], delay="2s")
    assert list(flink.emissions.columns) == list(spark.emissions.columns)[:len(flink.emissions.columns)]
    assert list(spark.fates.columns) == list(flink.fates.columns)
    assert set(flink.summary()) <= set(spark.summary())
    s = spark.summary()
    assert s["on_time"] + s["late_accepted"] + s["dropped"] + s["invalid"] == s["records"] == 400
    assert s["dropped"] == len(spark.late) == int((spark.fates["fate"] == "dropped").sum())
    assert s["firings"] == len(spark.emissions) and s["late_firings"] == 0
    assert 0 <= s["completeness_first"] <= s["completeness_final"] <= 1
    # emission time is the tick of the emitting batch
    em = spark.emissions[~spark.emissions["at_end"]]
    ops = spark.watermarks[spark.watermarks["level"] == "operator"].set_index("batch")
    assert (em["emit_time"].to_numpy() == ops.loc[em["batch"].astype(int), "time"].to_numpy()).all()


def test_more_delay_drops_no_more_and_str_round_trip():
    log = _log(seed=5)
    a = toolkit.replay(log, semantics="spark", window="tumbling:5s", delay="1s")
    b = toolkit.replay(log, semantics="spark", window="tumbling:5s", delay="10s")
    da, db = a.fates["fate"] == "dropped", b.fates["fate"] == "dropped"
    assert not (db & ~da).any() and db.sum() <= da.sum()
    s = a.setting
    assert Setting.parse(str(s)) == s and Setting.from_row(s.row()) == s
    assert toolkit.replay(log, str(s)).summary() == a.summary()


@pytest.mark.parametrize("kw,name", [
    (dict(semantics="spark", lateness="1s"), "lateness"),
    (dict(semantics="spark", idleness="5s"), "idleness"),
    (dict(semantics="spark", trigger="count:3"), "trigger"),
    (dict(semantics="spark", strategy="legacy"), "strategy"),
    (dict(semantics="spark", window="global"), "window"),
    (dict(trigger_interval="1s"), "trigger_interval"),
    (dict(output_mode="update"), "output_mode"),
    (dict(semantics="spark", trigger_interval="-1s"), "trigger_interval"),
    (dict(semantics="spark", trigger_interval="0"), "trigger_interval"),
    (dict(semantics="spark", output_mode="full"), "output_mode"),
    (dict(semantics="spark", window="sliding:10s/5s,-5s"), "window"),
    (dict(semantics="spark", window="session:5s", output_mode="update"), "output_mode"),
    (dict(semantics="spark", multiple_watermark_policy="avg"), "multiple_watermark_policy"),
    (dict(semantics="samza"), "semantics"),
])
def test_bad_settings_name_the_option(kw, name):
    with pytest.raises(SettingError) as e:
        toolkit.replay(_log(n=20), **kw)
    assert e.value.setting == name and name in str(e.value)


def test_no_arrival_times_is_a_clear_error():
    log = toolkit.load_log(pd.DataFrame({"event_time": [1, 2, 3], "key": ["a"] * 3}), time_unit="ms")
    with pytest.raises(SettingError, match="arrival"):
        toolkit.replay(log, semantics="spark")


def test_cli_replay_semantics_spark(tmp_path, capsys):
    log = _log()
    csv = tmp_path / "log.csv"
    log.table[["event_time", "arrival_time", "key", "partition", "value"]].to_csv(csv, index=False)
    out = tmp_path / "out"
    assert main(["replay", str(csv), "--time-unit", "ms", "--semantics", "spark", "--window", "sliding:10s/5s",
                 "--delay", "2s", "--trigger-interval", "1s", "--output-mode", "update", "--out", str(out), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    want = toolkit.replay(log, semantics="spark", window="sliding:10s/5s", delay="2s", output_mode="update").summary()
    assert {k: printed[k] for k in ("on_time", "dropped", "firings", "batches")} == {
        k: want[k] for k in ("on_time", "dropped", "firings", "batches")}
    assert "semantics=spark" in printed["setting"]
    em = pd.read_csv(out / "emissions.csv")
    assert len(em) == printed["firings"] and "batch" in em.columns
    assert main(["replay", str(csv), "--semantics", "spark", "--window", "session:5s", "--output-mode", "update"]) == 2
    assert "--output-mode" in capsys.readouterr().err
    assert main(["replay", str(csv), "--trigger-interval", "1s"]) == 2
    assert "--trigger-interval is a Spark" in capsys.readouterr().err
    assert main(["replay", str(csv), "--semantics", "spark", "--lateness", "2s"]) == 2
    assert "--lateness is a Flink setting" in capsys.readouterr().err


def test_charts_and_report_take_a_spark_replay(tmp_path):
    import toolkit.viz as viz

    log = _log(n=300)
    r = toolkit.replay(log, semantics="spark", window="sliding:10s/5s", delay="2s", output_mode="update")
    for chart in (viz.event_time_scatter(log, r), viz.drops_by_key(log, r), viz.firing_timeline(r),
                  viz.state_over_time(r), viz.watermark_lag(r), viz.lateness_histogram(log, r)):
        assert chart.to_dict()
    out = toolkit.report(log, replay=r, out=tmp_path / "r.html")
    assert "semantics=spark" in Path(out).read_text()
