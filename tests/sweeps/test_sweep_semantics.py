"""``semantics`` as a sweep axis: Flink and Spark settings in one sweep, in-process, each row
with exactly the figures ``replay(log, setting).summary()`` gives."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

import toolkit
from toolkit.cli import main
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.settings import Setting


def _log(n=600, seed=11):
    rng = np.random.default_rng(seed)
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 90_000, n))
    event = arrival - rng.choice([0, 300, 1_500, 6_000, 20_000], n)
    return toolkit.load_log(pd.DataFrame({"event_time": event, "arrival_time": arrival,
                                          "key": rng.choice(["a", "b", "c", "d"], n),
                                          "partition": rng.integers(0, 3, n), "value": rng.integers(1, 10, n)}),
                            time_unit="ms")


def _same(a, b) -> bool:
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)) or abs(a - b) < 1e-12


def test_semantics_axis_rows_equal_replay_summaries():
    log = _log()
    res = toolkit.sweep(log, semantics=["flink", "spark"], window="sliding:10s/5s", delay=["0", "10s"],
                        lateness=["0", "5s"], output_mode=["append", "update"])
    # Flink: 2 delays x 2 lateness; Spark: lateness collapses, 2 delays x 2 output modes
    assert (res["semantics"] == "flink").sum() == 4 and (res["semantics"] == "spark").sum() == 4
    assert set(res.loc[res["semantics"] == "spark", "path"]) == {"microbatch"}
    assert (res.loc[res["semantics"] == "spark", "lateness_ms"] == 0).all()
    for _, row in res.iterrows():
        want = toolkit.replay(log, Setting.from_row(row)).summary()
        diff = [k for k in SUMMARY_COLUMNS if not _same(want[k], row[k])]
        assert not diff, (Setting.from_row(row), diff)
    flink_only = toolkit.sweep(log, window="sliding:10s/5s", delay=["0", "10s"], lateness=["0", "5s"])
    got = res[res["semantics"] == "flink"].reset_index(drop=True)
    pd.testing.assert_frame_equal(got[SUMMARY_COLUMNS], flink_only[SUMMARY_COLUMNS])


def test_spark_only_sweep_and_recommend():
    log = _log(seed=2)
    res = toolkit.sweep(log, semantics="spark", window="tumbling:5s", delay=["0", "5s", "30s"],
                        trigger_interval=["1s", "10s"])
    assert len(res) == 6 and (res["path"] == "microbatch").all()
    rec = toolkit.recommend(res, completeness=0.5)
    assert rec["setting"].semantics == "spark"
    assert toolkit.replay(log, rec["setting"]).summary()["completeness_first"] >= 0.5


def test_sweep_cli_semantics_axis(tmp_path, capsys):
    log = _log(n=200)
    csv = tmp_path / "log.csv"
    log.table[["event_time", "arrival_time", "key", "partition", "value"]].to_csv(csv, index=False)
    out = tmp_path / "r.csv"
    assert main(["sweep", str(csv), "--time-unit", "ms", "--window", "tumbling:5s", "--delay", "0,2s",
                 "--semantics", "flink,spark", "--output-mode", "append,update", "--out", str(out)]) == 0
    res = pd.read_csv(out)
    assert sorted(res["semantics"].value_counts().to_dict().items()) == [("flink", 2), ("spark", 4)]
    assert main(["sweep", str(csv), "--semantics", "spark", "--trigger-interval", "0"]) == 2
    assert "--trigger-interval" in capsys.readouterr().err


