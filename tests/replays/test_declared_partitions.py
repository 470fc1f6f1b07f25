"""Partitions declared by the user (``load_log(..., partitions=...)``, ``--partitions 0-3``): a
partition the job reads but the log has no record of is still a source.

Truth: Spark's ``corner_never_speaks_*`` cases (tests/fixtures/spark, real Spark 4.3: an input that
never delivers a row holds a min-policy watermark at 0 for good) through ``toolkit.replay``; for
Flink, real Flink's generator and multiplexer on a split without records (fixtures
``watermarks/wm09_no_records_idleness``: IDLE at the first periodic call more than the timeout
after the countdown started, here 1400 ms; ``wm10_no_records``: MIN forever;
``multiplexer/silent_split_holds_until_idle``: the combined watermark waits for the silent split
until it goes idle), composed by the replay as a Flink source task does.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.log import PartitionsError, parse_partitions
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.settings import Setting, SettingError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NEVER = sorted(p for p in (FIXTURES / "spark").glob("corner_never_speaks_*.jsonl") if not p.name.endswith(".out.jsonl"))


def _read(case: Path):
    lines = [json.loads(s) for s in case.read_text().splitlines() if s.strip()]
    out = [json.loads(s) for s in case.with_name(case.name[:-6] + ".out.jsonl").read_text().splitlines() if s.strip()]
    return lines[0]["config"], lines[1:], out


@pytest.mark.parametrize("case", NEVER, ids=[c.name[:-6] for c in NEVER])
def test_spark_input_that_never_speaks(case):
    cfg, records, spark = _read(case)
    silent = sorted(set(cfg["partitions"]) - {r["partition"] for r in records})
    assert silent, "the case must have an input without rows"
    setting = dict(semantics="spark", window=f"tumbling:{cfg['window']['size']}ms", delay=cfg["delay"],
                   trigger_interval=cfg["trigger_interval"], output_mode=cfg["output_mode"], partitions_as_sources=True,
                   multiple_watermark_policy=cfg["multiple_watermark_policy"])
    log = toolkit.load_log(pd.DataFrame(records), time_unit="ms", partitions=cfg["partitions"])
    assert log.silent_partitions == tuple(silent)
    r = toolkit.replay(log, **setting)
    ops = r.watermarks[r.watermarks["level"] == "operator"]
    assert ops["watermark"].astype("int64").tolist() == [b["watermark"] for b in spark]
    em = r.emissions[~r.emissions["at_end"]]
    assert sorted((int(b), k, int(s), int(e), int(c), int(v)) for b, k, s, e, c, v in
                  em[["batch", "key", "window_start", "window_end", "count", "sum"]].itertuples(index=False)) == \
        sorted((b["batch"], *row) for b in spark for row in b["rows"])
    # undeclared, the replay cannot know the silent input: with the min policy it differs from Spark
    plain = toolkit.replay(toolkit.load_log(pd.DataFrame(records), time_unit="ms"), **setting)
    moved = plain.watermarks[plain.watermarks["level"] == "operator"]["watermark"].astype("int64").tolist()
    assert (moved != [b["watermark"] for b in spark]) == (cfg["multiple_watermark_policy"] == "min")


def _log(declared=None, seed: int = 1, n: int = 300):
    rng = np.random.default_rng(seed)
    et = np.sort(rng.integers(0, 30_000, n))
    arr = np.sort(et + rng.integers(0, 300, n))
    et[0] = arr[0] = 0
    df = pd.DataFrame({"event_time": et, "arrival_time": arr, "key": rng.choice(list("abcd"), n),
                       "partition": np.arange(n) % 2, "value": rng.integers(1, 5, n)})
    return toolkit.load_log(df, partitions=declared)


def test_flink_silent_split_holds_the_watermark_until_idle():
    log = _log([0, 1, 2])
    held = toolkit.replay(log, window="tumbling:2s", delay="500ms")
    ops = held.watermarks[held.watermarks["level"] == "operator"]
    assert ops["watermark"].astype("int64").tolist() == [np.iinfo(np.int64).max]  # only the end of input
    s = held.summary()
    assert s["at_end_firings"] == s["firings"] > 0 and s["dropped"] == 0
    # withIdleness(1s), interval 200 ms, first arrival 0: the countdown starts at the call at 200 ms
    # and the split is idle at 1400 ms (wm09_no_records_idleness); the others' min applies from then
    idle = toolkit.replay(log, window="tumbling:2s", delay="500ms", idleness="1s")
    p2 = idle.watermarks[(idle.watermarks["level"] == "partition") & (idle.watermarks["id"] == 2)]
    assert p2[["time", "status"]].values.tolist() == [[1400, "idle"]]
    ops = idle.watermarks[idle.watermarks["level"] == "operator"]
    assert int(ops["time"].iloc[0]) == 1400
    undeclared = toolkit.replay(_log(None), window="tumbling:2s", delay="500ms", idleness="1s")
    first = undeclared.watermarks[undeclared.watermarks["level"] == "operator"]
    assert int(first["time"].iloc[0]) < 1400
    # one generator for the whole stream: a declared partition changes nothing
    one = toolkit.replay(log, window="tumbling:2s", delay="500ms", partitions_as_sources=False).summary()
    assert one == toolkit.replay(_log(None), window="tumbling:2s", delay="500ms", partitions_as_sources=False).summary()


def _same_as_replays(frame: pd.DataFrame, log) -> None:
    for _, row in frame.iterrows():
        want = toolkit.replay(log, Setting.from_row(row)).summary()
        for c in SUMMARY_COLUMNS:
            assert want[c] == row[c] or (pd.isna(want[c]) and pd.isna(row[c])), (row["semantics"], c, want[c], row[c])


GRID = dict(semantics=["flink", "spark"], window=["tumbling:2s", "session:1s"], delay=["500ms"],
            multiple_watermark_policy=None, progress=False)


def test_sweep_in_one_piece_and_in_shards_uses_the_declaration():
    log = _log([0, 1, 2])
    g = dict(GRID)
    g.pop("multiple_watermark_policy")
    rows = toolkit.sweep(log, **g)
    pd.testing.assert_frame_equal(rows, toolkit.sweep(log, shards=3, **g), check_exact=True)
    _same_as_replays(rows, log)
    plain = toolkit.sweep(_log(None), **g)
    assert (rows["at_end_firings"] > plain["at_end_firings"]).all()  # the silent source holds every engine
    fl = toolkit.sweep(log, window="tumbling:2s", delay=["0", "500ms"], idleness=[None, "1s"], interval=["0", "200ms"],
                       progress=False)
    pd.testing.assert_frame_equal(fl, toolkit.sweep(log, window="tumbling:2s", delay=["0", "500ms"], idleness=[None, "1s"],
                                                     interval=["0", "200ms"], shards=2, progress=False), check_exact=True)
    _same_as_replays(fl, log)


@pytest.mark.spark
def test_sweep_on_spark_uses_the_declaration(spark):
    log = _log([0, 1, 2])
    g = dict(GRID)
    g.pop("multiple_watermark_policy")
    local = toolkit.sweep(log, **g)
    on_spark = toolkit.sweep(log, execution="spark", spark=spark, shards=2, **g)
    pd.testing.assert_frame_equal(local, on_spark, check_exact=True)
    slog = toolkit.load_log(spark.createDataFrame(log.table), partitions="0-2")
    assert slog.silent_partitions == (2,)
    pd.testing.assert_frame_equal(local, toolkit.sweep(slog, spark=spark, shards=2, **g), check_exact=True)
    dist = toolkit.distribute(log, shards=2, spark=spark)  # the cached, key-partitioned copy keeps the declaration
    assert dist.declared_partitions == (0, 1, 2)
    pd.testing.assert_frame_equal(local, toolkit.sweep(dist, spark=spark, shards=2, **g), check_exact=True)


def test_bad_declarations_name_the_option():
    assert parse_partitions("0-3") == (0, 1, 2, 3) and parse_partitions("5,0-1,1") == (0, 1, 5)
    assert parse_partitions(range(3)) == (0, 1, 2) and parse_partitions(np.array([2, 0])) == (0, 2)
    for bad, msg in (([0], "records in partition 1, which the declaration leaves out"),
                     ([0, 1, -1], "non-negative"), ("0,x", "'x' is not a partition id"), ("3-1", "ends before"),
                     ([], "at least one"), ([0.5], "not a partition id"), (7, "list of partition ids")):
        with pytest.raises(PartitionsError, match=msg) as e:
            _log(bad)
        assert str(e.value).startswith("partitions")
    named = pd.DataFrame({"event_time": [1, 2], "arrival_time": [1, 2], "partition": ["x", "y"]})
    with pytest.raises(PartitionsError, match="names"):
        toolkit.load_log(named, partitions=[0, 1])
    with pytest.raises(SettingError, match="union") as e:
        toolkit.replay([_log([0, 1, 2]), _log(None, seed=2)], window="tumbling:2s")
    assert e.value.setting == "partitions"


def test_describe_and_command_line(tmp_path, capsys):
    from toolkit.cli import main

    log = _log([0, 1, 2])
    text = str(log.describe())
    assert "partitions                 2 (+ 1 declared without records)" in text
    assert "partition 2              declared, no records" in text
    p = tmp_path / "log.csv"
    log.table.drop(columns=["row"]).to_csv(p, index=False)
    assert main(["describe", str(p), "--partitions", "0-2"]) == 0
    assert "declared, no records" in capsys.readouterr().out
    assert main(["replay", str(p), "--window", "tumbling:2s", "--delay", "500ms", "--partitions", "0-2"]) == 0
    out = capsys.readouterr().out
    held = toolkit.replay(log, window="tumbling:2s", delay="500ms").summary()
    assert f"{held['at_end_firings']} at end of input" in out
    csv = tmp_path / "rows.csv"
    assert main(["sweep", str(p), "--window", "tumbling:2s", "--delay", "500ms", "--semantics", "flink,spark",
                 "--partitions", "0-2", "--out", str(csv)]) == 0
    rows = pd.read_csv(csv)
    assert (rows["at_end_firings"] == rows["firings"]).all()
    assert main(["replay", str(p), "--window", "tumbling:2s", "--partitions", "0"]) == 2
    err = capsys.readouterr().err
    assert "--partitions [0]: the log has records in partition 1" in err
