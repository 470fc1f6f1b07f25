"""Grid parsing, frontier/recommend, invalid rows, errors and the sweep command."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
import toolkit.sweeps
from toolkit.cli import main
from toolkit.fast.evaluate import FixedWindows
from toolkit.log import EventLog
from toolkit.metrics.summary import check_summary
from toolkit.semantics.flink.window_operator import closed_form
from toolkit.settings import Session, SettingError, Sliding, Tumbling, grid, parse_window


def test_parse_window_specs():
    assert parse_window("tumbling:1s") == Tumbling(1000)
    assert parse_window("tumbling:1s+250ms") == Tumbling(1000, 250)
    assert parse_window("sliding:10s/5s") == Sliding(10000, 5000)
    assert parse_window("tumbling:1s,-250ms") == Tumbling(1000, -250)
    assert parse_window("sliding:10s/5s,1s") == Sliding(10000, 5000, 1000)
    assert parse_window("session:30s") == Session(30000)
    assert FixedWindows.of(parse_window("sliding:7ms/3ms,-2ms")) == FixedWindows(7, 3, -2)
    for w in (Sliding(7, 3, -2), Tumbling(5), Session(9)):
        assert parse_window(str(w)) == w
    for bad, msg in [("hopping:1s", "unknown kind"), ("tumbling", "give a size"), ("sliding:1s", "SIZE/SLIDE"),
                     ("tumbling:0ms", "> 0"), ("tumbling:1s+1s", "offset"), ("session:0s", "> 0")]:
        with pytest.raises(ValueError, match=msg):
            parse_window(bad)


def test_grid_is_the_product_without_duplicates():
    g = grid(window=["tumbling:1s", "tumbling:1000ms"], delay=[0, "250ms", 250], lateness=["0", "10s"], interval="200ms")
    assert len(g) == 1 * 2 * 2
    assert {(c.delay, c.lateness) for c in g} == {(0, 0), (0, 10000), (250, 0), (250, 10000)}
    assert all(c.interval == 200 and str(c.window) == "tumbling:1s" and closed_form(c) for c in g)
    assert not closed_form(grid(window="session:1s")[0])
    assert not closed_form(grid(window="tumbling:1s", accumulation="discarding")[0])
    with pytest.raises(ValueError, match="delay must not be negative"):
        grid(window="tumbling:1s", delay=[-5])
    with pytest.raises(ValueError, match="strategy"):
        grid(window="tumbling:1s", strategy="magic")
    with pytest.raises(ValueError, match="empty list"):
        grid(window="tumbling:1s", delay=[])


def _results():
    return pd.DataFrame(
        {
            "window": ["tumbling:1000ms"] * 5,
            "delay_ms": [0, 100, 200, 300, 400],
            "lateness_ms": [0] * 5,
            "interval_ms": [200] * 5,
            "dropped": [50, 20, 5, 0, 0],
            "completeness_first": [0.5, 0.8, 0.95, 0.995, 0.999],
            "latency_p99_ms": [100.0, 300.0, 250.0, 400.0, 400.0],
        }
    )


def test_frontier_keeps_only_undominated_settings():
    f = toolkit.frontier(_results())
    # delay 100 (300 ms, 0.8) is dominated by delay 200 (250 ms, 0.95); 400 ties 300 on latency but is more complete
    assert f["delay_ms"].tolist() == [0, 200, 400]


def test_recommend_cheapest_setting_meeting_the_target():
    rec = toolkit.recommend(_results(), completeness=0.99)
    assert rec["config"]["delay_ms"] == 300
    assert "delay=300ms" in rec["criterion"] and ">= 99 %" in rec["criterion"]
    assert rec["reason"].startswith("A 300 ms bounded out-of-orderness delay with no allowed lateness keeps 99.5 % ")
    assert rec["setting"].delay == 300 and str(rec["setting"].window) == "tumbling:1s"
    none = toolkit.recommend(_results(), completeness=0.9999)
    assert none["config"] is None and "no setting reaches" in none["criterion"] and ">= 99.99 %; the best is 99.9 %" in none["criterion"]
    assert none["reason"].startswith("No setting of the 5 swept reaches the 99.99 % target")
    with pytest.raises(ValueError, match="completeness target"):
        toolkit.recommend(_results(), completeness=1.5)


def test_invalid_rows_are_counted_and_conserved(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("event_time,arrival_time,key\n1,5,a\n2,6,a\noops,7,a\n12,20,b\n,21,b\n3,22,a\n")
    log = toolkit.load_log(str(path), max_invalid_fraction=0.5)
    assert log.n_invalid == 2
    r = toolkit.sweep(log, window=["tumbling:10ms", "session:5ms"], delay=[0, 10], lateness=[0, 5], interval=[0, 3])
    check_summary(r)
    assert (r["records"] == 6).all() and (r["invalid"] == 2).all()
    fates = toolkit.sweeps.record_fates(log, window="tumbling:10ms", delay=0, lateness=0, interval=0)
    assert fates["row"].tolist() == [0, 1, 2, 3, 4, 5]
    assert fates["fate"].tolist()[2] == "invalid" and fates["fate"].tolist()[4] == "invalid"
    assert fates["fate"].tolist()[5] == "dropped"  # ts 3 arrives after the watermark passed [0,10) + 0


def test_sessions_run_on_the_fast_path():
    rng = np.random.default_rng(5)
    n = 200
    arrival = np.sort(rng.integers(0, 2000, n))
    log = EventLog.from_arrays(arrival - rng.integers(0, 100, n), arrival_time=arrival, key=rng.choice(["x", "y"], n))
    r = toolkit.sweep(log, window="session:30ms", delay=[0, 50], lateness=[0, 40], interval=[10])
    check_summary(r)
    assert set(r["path"]) == {"fast"}
    assert r["completeness_final"].iloc[-1] >= r["completeness_final"].iloc[0]
    truth = toolkit.metrics.ground_truth(log.table, Session(30))
    assert truth["true_count"].sum() == n and (r["windows"] == len(truth)).all()
    engine = toolkit.sweep(log, window="session:30ms", delay=[0, 50], lateness=[0, 40], interval=[10], path="engine")
    pd.testing.assert_frame_equal(r.drop(columns=["path"]), engine.drop(columns=["path"]), check_exact=True)
    with pytest.raises(ValueError, match="fast path does not apply"):
        toolkit.sweep(log, window="session:30ms", evictor="count:2", path="fast")


def test_log_without_arrival_times_is_refused():
    log = EventLog.from_arrays(np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="no arrival times"):
        toolkit.sweep(log, window="tumbling:1s")


def test_sweep_command_writes_one_row_per_setting(tmp_path, capsys):
    rng = np.random.default_rng(2)
    n = 500
    arrival = np.sort(rng.integers(0, 20_000, n))
    src = tmp_path / "log.csv"
    pd.DataFrame({"event_time": arrival - rng.integers(0, 2000, n), "arrival_time": arrival,
                  "key": rng.choice(["a", "b"], n), "partition": rng.integers(0, 2, n)}).to_csv(src, index=False)
    out = tmp_path / "results.csv"
    code = main(["sweep", str(src), "--window", "tumbling:1s", "--delay", "0,250ms,1s,5s", "--lateness", "0,10s",
                 "--interval", "200ms", "--partitions-as-sources", "--out", str(out), "--recommend", "0.9", "--no-progress"])
    assert code == 0
    r = pd.read_csv(out)
    assert len(r) == 8 and r["partitions_as_sources"].all()
    assert sorted(set(r["delay_ms"])) == [0, 250, 1000, 5000] and sorted(set(r["lateness_ms"])) == [0, 10000]
    check_summary(r.assign(invalid=r["invalid"].astype(int)))
    printed = capsys.readouterr().out
    assert "wrote 8 configurations" in printed and "recommend" in printed
    assert main(["sweep", str(src), "--window", "hopping:1s"]) == 2
    assert "unknown kind" in capsys.readouterr().err


def test_path_fast_refuses_a_row_that_runs_in_one_piece():
    """A row no engine evaluates in closed form (here Beam sessions, which run by the replay in
    one piece) is refused under path='fast' rather than labelled with its replay's path."""
    log = toolkit.load_log(pd.DataFrame({"event_time": [0, 5, 900], "arrival_time": [1, 6, 901], "key": ["a", "a", "b"]}),
                           time_unit="ms")
    with pytest.raises(SettingError, match="path='fast': the Apache Beam row window=session:1s") as err:
        toolkit.sweep(log, semantics="beam", window="session:1s", path="fast", progress=False)
    assert err.value.setting == "path"
    assert toolkit.sweep(log, semantics="beam", window="session:1s", progress=False)["path"].tolist() == ["beam"]
