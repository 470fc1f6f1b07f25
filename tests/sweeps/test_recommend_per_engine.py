"""``recommend(results, per="semantics")``: one recommendation per engine of a multi-engine
sweep, each chosen among its own rows, in words, with that engine's deploy code."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.deployment import engines
from toolkit.settings import Setting, semantics_names
from toolkit.sweeps.choose import setting_words


def _log(n=600, seed=4):
    rng = np.random.default_rng(seed)
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 60_000, n))
    event = arrival - rng.choice([0, 300, 1_200, 4_000], n, p=[0.6, 0.2, 0.15, 0.05])
    return toolkit.load_log(pd.DataFrame({"event_time": event, "arrival_time": arrival,
                                          "key": rng.choice(["a", "b"], n), "value": 1}), time_unit="ms")


@pytest.fixture(scope="module")
def results():
    return toolkit.sweep(_log(), semantics=["flink", "spark"], window="tumbling:2s", delay=["0", "1s", "2s", "5s"],
                         lateness=["0", "2s"])


def test_one_recommendation_per_engine_each_from_its_own_rows(results):
    recs = toolkit.recommend(results, completeness=0.98, per="semantics")
    assert list(recs) == [s for s in semantics_names() if s in set(results["semantics"])]
    for name, rec in recs.items():
        own = results[results["semantics"] == name]
        alone = toolkit.recommend(own, completeness=0.98)
        assert rec["setting"] == alone["setting"] and rec["setting"].semantics == name
        assert rec["semantics"] == name
        assert rec["reason"].startswith({"flink": "Flink: ", "spark": "Spark Structured Streaming: "}[name])
        assert rec["deploy"] and set(rec["deploy"]) == set(engines(rec["setting"]))
        got = toolkit.replay(_log(), rec["setting"]).summary()
        assert got["completeness_first"] >= 0.98 and got["latency_p99_ms"] == rec["row"]["latency_p99_ms"]
    assert "withWatermark" in recs["spark"]["deploy"]["spark"]
    assert "forBoundedOutOfOrderness" in recs["flink"]["deploy"]["flink"]


def test_spark_setting_in_spark_words():
    s = Setting.parse(window="tumbling:2s", delay="1s", semantics="spark", trigger_interval="5s")
    words = setting_words(s)
    assert words.startswith("a 1 s watermark delay with micro-batches every 5 s, append output mode")
    assert "lateness" not in words and "bounded" not in words


def test_unreachable_target_per_engine_and_bad_column(results):
    recs = toolkit.recommend(results, completeness=1.0, per="semantics")
    for name, rec in recs.items():
        if rec["setting"] is None:
            assert "no setting" in rec["reason"]
            assert ("allowed lateness" in rec["reason"]) == (name == "flink")
    with pytest.raises(ValueError, match="per='engine'"):
        toolkit.recommend(results, per="engine")
