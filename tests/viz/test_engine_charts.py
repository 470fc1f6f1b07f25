"""Charts of the engines side by side: what they plot is the sweep's and the comparison's figures."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit import viz


@pytest.fixture(scope="module")
def log():
    rng = np.random.default_rng(21)
    n = 300
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 30_000, n))
    event = arrival - rng.choice([0, 400, 1_500], n, p=[0.7, 0.2, 0.1])
    return toolkit.load_log(pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": rng.choice(["a", "b"], n),
                                          "value": 1}), time_unit="ms")


def _data(chart):
    spec = chart.to_dict()
    return {name: pd.DataFrame(rows) for name, rows in spec.get("datasets", {}).items()}, spec


def test_engines_by_delay_one_line_per_engine_and_setting(log):
    res = toolkit.sweep(log, semantics=["flink", "spark"], window="tumbling:1s", delay=["0", "1s"], lateness=["0", "1s"])
    datasets, spec = _data(viz.engines_by_delay(res))
    d = next(iter(datasets.values()))
    assert set(d["line"]) == {"Flink, no allowed lateness", "Flink, allowed lateness 1 s", "Spark Structured Streaming"}
    for r in d.itertuples(index=False):
        row = res[(res["semantics"] == r.semantics) & (res["delay_ms"] == r.delay_ms) & (res["lateness_ms"] == r.lateness_ms)]
        assert len(row) == 1 and row["dropped"].iloc[0] == r.dropped
    assert len(spec["concat"]) == 4
    with pytest.raises(ValueError, match="semantics"):
        viz.engines_by_delay(res.drop(columns=["semantics"]))


def test_fates_and_disagreements_charts(log):
    c = toolkit.compare_engines(log, window="tumbling:1s", delay="500ms", lateness="1s", semantics=["flink", "spark"])
    datasets, _ = _data(viz.engine_fates(c))
    d = next(iter(datasets.values()))
    for r in d.itertuples(index=False):
        sem = {"Flink": "flink", "Spark Structured Streaming": "spark"}[r.engine]
        fate = {"late but accepted": "late_accepted", "dropped": "dropped"}[r.fate]
        assert r.records == int((c.fates[f"fate_{sem}"] == fate).sum())
    total = int(c.kept_dropped["records"].sum())
    assert total > 3
    datasets, spec = _data(viz.disagreements(c, max_points=3))
    assert len(next(iter(datasets.values()))) == 3
    assert f"showing 3 of {total:,} records" in " ".join(spec["title"]["subtitle"])


def test_kafka_update_first_result_completeness_is_explained_next_to_the_figure(log):
    res = toolkit.sweep(log, semantics=["flink", "kafka_streams"], window="tumbling:1s", delay=["0", "1s"],
                        emit=["update", "suppress"], cache_max_bytes=0)
    kafka = res[res["semantics"] == "kafka_streams"]
    assert set(kafka["emit"]) == {"update", "suppress"}
    upd = kafka[kafka["emit"] == "update"]["completeness_first"]
    sup = kafka[kafka["emit"] == "suppress"]["completeness_first"]
    assert upd.max() < sup.min()  # the partial first result: why the note is there
    spec = viz.engines_by_delay(res).to_dict()
    panels = {(p["title"]["text"] if isinstance(p["title"], dict) else p["title"]): p for p in spec["concat"]}
    first = panels["first-result completeness (higher is better)"]["title"]
    assert " ".join(first["subtitle"]) == toolkit.semantics.get("kafka_streams").first_result_note_short
    assert all(isinstance(p["title"], str) for t, p in panels.items() if not t.startswith("first-result"))
    scatter = viz.sweep_scatter(res, "dropped").to_dict()
    assert "emit=update" in " ".join(scatter["title"]["subtitle"])
    assert "emit=update" in " ".join(viz.latency_completeness(res, recommendation=None).to_dict()["title"]["subtitle"])

    only_suppress = res[(res["semantics"] != "kafka_streams") | (res["emit"] == "suppress")]
    spec = viz.engines_by_delay(only_suppress).to_dict()
    assert all(isinstance(p["title"], str) for p in spec["concat"])  # no note: every Kafka row waits for the close
    assert not viz.sweep.first_result_notes(res[res["semantics"] == "flink"])


def test_disagreements_draw_each_record_once(log):
    c = toolkit.compare_engines(log, window="tumbling:1s", delay="500ms", lateness="1s",
                                semantics=["flink", "spark", "kafka_streams"])
    datasets, spec = _data(viz.disagreements(c))
    d = next(iter(datasets.values()))
    assert d["row"].is_unique  # a record two engines drop is one point, not two on one spot
    kept = {s: c.kept(s).to_numpy() for s in c.semantics}
    some = np.any(list(kept.values()), axis=0) & ~np.all(list(kept.values()), axis=0)
    assert len(d) == int(some.sum())
    for r in d.itertuples(index=False):
        i = int(np.flatnonzero(c.fates["row"].to_numpy() == r.row)[0])
        by = [toolkit.sweeps.choose.engine_name(s) for s in c.semantics if kept[s][i]]
        assert r.who.startswith("kept by " + (by[0] if len(by) == 1 else f"{by[0]} and {by[1]}") + ", dropped by ")
    legend = spec["encoding"]["color"]["legend"] if "encoding" in spec else spec["layer"][0]["encoding"]["color"]["legend"]
    assert legend["direction"] == "vertical" and legend["labelLimit"] >= spec.get("width", 620)  # labels never cut
