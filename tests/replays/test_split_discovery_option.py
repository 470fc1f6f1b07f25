"""``split_discovery=`` (``--split-discovery``): when each log partition's source split is
registered, through ``toolkit.replay``, ``toolkit.sweep`` and the CLI down to the source model
(``toolkit.engine.flink.sources.SourceSubtask``, whose register rules the multiplexer fixtures check
against real Flink's ``WatermarkOutputMultiplexer``: a split registered later starts at MIN,
active, and the combined watermark never goes back)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings as hsettings, strategies as hst

import toolkit
from toolkit.cli import main
from toolkit.engine.flink.pipeline import watermark_timeline
from toolkit.engine.flink.watermarks import MIN_WATERMARK, BoundedOutOfOrderness
from toolkit.settings import SettingError


def _late_partition_log() -> pd.DataFrame:
    """Partition 0 from the start (event time = arrival, 1000..6900); partition 1's first record
    arrives at 6050, its event times 1 s behind (5000..5900)."""
    rows = [(1000 + 100 * i, 1000 + 100 * i, "a", 0, 1) for i in range(60)]
    rows += [(5000 + 100 * i, 6050 + 100 * i, "b", 1, 1) for i in range(10)]
    rows.sort(key=lambda r: r[1])
    return pd.DataFrame(rows, columns=["event_time", "arrival_time", "key", "partition", "value"])


def _operator(result) -> pd.DataFrame:
    w = result.watermarks
    return w[(w["level"] == "operator") & (w["watermark"] < np.iinfo(np.int64).max)]  # without the end of input


def test_a_partition_that_appears_late_holds_nothing_back_before_its_first_record():
    """Ticks every 200 ms from 1000. at_start: partition 1 is a split from the start, at MIN,
    so the operator sees nothing until partition 1's first tick (6200: min(6199, 5099)), then
    follows partition 1 up to 5899. at_first_record: partition 0 alone until 6050 (T - 1 at
    every tick up to 5999); partition 1, registered at MIN, then holds the combined watermark
    at 5999 (it never goes back) and never passes it."""
    log = toolkit.load_log(_late_partition_log())
    start = _operator(toolkit.replay(log, window="tumbling:1s", delay="0ms"))
    dyn_r = toolkit.replay(log, window="tumbling:1s", delay="0ms", split_discovery="at_first_record")
    dyn = _operator(dyn_r)
    assert start["watermark"].tolist() == [5099, 5299, 5499, 5699, 5899]
    assert start["time"].tolist() == [6200, 6400, 6600, 6800, 7000]
    assert dyn["watermark"].tolist() == list(range(1199, 6000, 200))
    assert dyn["time"].tolist() == list(range(1200, 6001, 200))
    late = {"at_start": len(toolkit.replay(log, window="tumbling:1s").late),
            "at_first_record": len(dyn_r.late)}
    assert dyn_r.settings["split_discovery"] == "at_first_record"
    assert dyn_r.summary()["settings"]["split_discovery"] == "at_first_record"
    # at_first_record: partition 1's records are behind the watermark 5999 (all but none of
    # window [5000, 6000) is closed): they are dropped as late; at_start keeps them
    assert late == {"at_start": 0, "at_first_record": 10}
    fires = dyn_r.emissions[dyn_r.emissions["kind"] == "fire"]
    assert (~fires["at_end"]).sum() == 5  # windows [1s, 2s) .. [5s, 6s) fire before the end of input


def test_with_every_partition_present_from_the_first_tick_both_agree():
    rng = np.random.default_rng(3)
    n = 400
    arr = np.sort(rng.integers(0, 20_000, n))
    df = pd.DataFrame({"event_time": arr - rng.integers(0, 800, n), "arrival_time": arr,
                       "key": rng.choice(list("abc"), n), "partition": rng.integers(0, 3, n), "value": 1})
    df.loc[0:2, "partition"] = [0, 1, 2]
    df.loc[0:2, "arrival_time"] = df.loc[0, "arrival_time"]
    log = toolkit.load_log(df)
    a = toolkit.replay(log, window="tumbling:1s", delay="300ms", idleness="2s")
    b = toolkit.replay(log, window="tumbling:1s", delay="300ms", idleness="2s", split_discovery="at_first_record")
    pd.testing.assert_frame_equal(a.emissions, b.emissions)
    pd.testing.assert_frame_equal(a.fates, b.fates)


@hsettings(max_examples=40, deadline=None)
@given(hst.lists(hst.tuples(hst.integers(0, 3), hst.integers(0, 5000), hst.integers(0, 2000)), min_size=1, max_size=40),
       hst.sampled_from([0, 50, 200]), hst.sampled_from([None, 300]))
def test_at_first_record_never_lags_at_start(recs, interval, idleness):
    """In one source subtask that has a split from its first record on, registering the other
    splits later can only hold the watermark back less: at every change time the
    at_first_record operator watermark is at least the at_start one. (Not so across
    subtasks: a subtask with no split yet emits nothing and never goes idle, as Flink's Kafka
    source documents, while with idleness its at_start splits could have gone idle.)"""
    parallelism = 1
    recs.sort(key=lambda r: r[1])
    part = np.array([r[0] for r in recs])
    arr = np.array([r[1] for r in recs])
    ts = arr - np.array([r[2] for r in recs])
    from toolkit.engine.flink.watermarks import WithIdleness

    strat = BoundedOutOfOrderness(100) if idleness is None else WithIdleness(BoundedOutOfOrderness(100), idleness)
    t0 = watermark_timeline(ts, arr, part, strat, interval=interval, parallelism=parallelism, force_general=True)
    t1 = watermark_timeline(ts, arr, part, strat, interval=interval, parallelism=parallelism,
                            split_discovery="at_first_record")
    times = np.union1d(t0.change_time, t1.change_time)

    def at(tl, t):
        i = np.searchsorted(tl.change_time, t, side="right") - 1
        return np.where(i >= 0, tl.change_watermark[np.maximum(i, 0)], MIN_WATERMARK)

    assert (at(t1, times) >= at(t0, times)).all()


def test_the_sweep_row_agrees_with_the_replay():
    log = toolkit.load_log(_late_partition_log())
    rows = toolkit.sweep(log, window="tumbling:1s", delay=["0ms", "300ms"], split_discovery=["at_start", "at_first_record"])
    assert set(rows["split_discovery"]) == {"at_start", "at_first_record"}
    for _, r in rows.iterrows():
        s = toolkit.replay(log, window="tumbling:1s", delay=int(r["delay_ms"]), split_discovery=r["split_discovery"]).summary()
        for k in ("on_time", "late_accepted", "dropped", "firings"):
            assert s[k] == r[k], (k, r["split_discovery"], r["delay_ms"])
    a = rows[(rows["split_discovery"] == "at_start") & (rows["delay_ms"] == 0)].iloc[0]
    b = rows[(rows["split_discovery"] == "at_first_record") & (rows["delay_ms"] == 0)].iloc[0]
    assert a.to_dict() != b.to_dict()


def test_cli_option_and_bad_values(tmp_path, capsys):
    p = tmp_path / "log.csv"
    _late_partition_log().to_csv(p, index=False)
    assert main(["replay", str(p), "--window", "tumbling:1s", "--split-discovery", "at_first_record", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["setting"] == "window=tumbling:1s split_discovery=at_first_record"
    assert out["dropped"] == 10 and out["late_side_output"] == 10
    assert main(["replay", str(p), "--split-discovery", "lazy"]) != 0
    err = capsys.readouterr().err
    assert "--split-discovery" in err and "at_first_record" in err
    with pytest.raises(SettingError, match="split_discovery"):
        toolkit.replay(toolkit.load_log(_late_partition_log()), split_discovery="later")
    with pytest.raises(SettingError, match="split_discovery"):
        toolkit.replay(toolkit.load_log(_late_partition_log()), semantics="spark", split_discovery="at_first_record")


SD = Path(__file__).resolve().parent.parent / "fixtures" / "split_discovery"


@pytest.mark.parametrize("case", ["sd01", "sd02", "sd03", "sd04"])
def test_at_first_record_matches_flinks_multiplexer(case):
    """The replay's source subtask watermarks with splits registered at their first record are
    what real Flink's WatermarkOutputMultiplexer emits for that registration sequence
    (fixtures/split_discovery/make.py wrote the scenarios, the multiplexer oracle the outputs)."""
    meta = json.loads((SD / f"{case}.ticks.json").read_text())
    steps = [json.loads(x) for x in (SD / f"{case}.jsonl").read_text().splitlines()[1:]]
    tick_of_step, k = {}, 0
    for i, s in enumerate(steps):
        if s.get("periodic"):
            tick_of_step[i] = meta["ticks"][k]
            k += 1
    want = [(tick_of_step[o["step"]], o["ts"]) for o in map(json.loads, (SD / f"{case}.out.jsonl").read_text().splitlines())
            if o["type"] == "watermark"]
    r = toolkit.replay(toolkit.load_log(SD / f"{case}.csv"), window="tumbling:1s", delay=meta["delay"],
                       interval=meta["interval"], split_discovery="at_first_record")
    w = r.watermarks
    sub = w[(w["level"] == "subtask") & (w["id"] == 0) & w["watermark"].notna()]
    got = [(int(t), int(x)) for t, x in zip(sub["time"], sub["watermark"])]
    assert got == want and len(want) > 3
    # registered at the start instead, the late partitions hold the same subtask back
    r0 = toolkit.replay(toolkit.load_log(SD / f"{case}.csv"), window="tumbling:1s", delay=meta["delay"],
                        interval=meta["interval"])
    w0 = r0.watermarks
    assert w0[(w0["level"] == "subtask") & w0["watermark"].notna()]["time"].min() > want[0][0]
