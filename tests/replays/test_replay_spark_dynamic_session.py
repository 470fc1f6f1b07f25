"""``window="dynamic_session:COLUMN"`` with ``semantics="spark"`` (Spark's ``session_window(ts,
gap_column)``) through the public API: ``toolkit.replay`` of every real-Spark case with a per-record
gap (tests/fixtures/spark, ``oracles/spark/spark_oracle.py``) gives real Spark's batches, and the
sweep (in one piece, in key shards) gives the replay's figures. Real Spark itself runs in
tests/replays/test_pyspark_snippet.py (the deployed snippet) and tests/sweeps/test_sweep_spark_dynamic.py.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.settings import Setting, SettingError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "spark"


def _gap_cases() -> list[Path]:
    out = []
    for p in sorted(FIXTURES.glob("*.jsonl")):
        if p.name.endswith((".out.jsonl", ".pt.jsonl")) or not (FIXTURES / (p.name[:-6] + ".out.jsonl")).exists():
            continue
        cfg = json.loads(p.read_text().splitlines()[0])["config"]
        if cfg["window"].get("gap_column"):
            out.append(p)
    return out


CASES = _gap_cases()


def _read(case: Path) -> tuple[dict, list[dict], list[dict]]:
    lines = [json.loads(s) for s in case.read_text().splitlines() if s.strip()]
    out = [json.loads(s) for s in (FIXTURES / (case.name[:-6] + ".out.jsonl")).read_text().splitlines() if s.strip()]
    return lines[0]["config"], lines[1:], out


def _setting(cfg: dict) -> dict:
    return dict(semantics="spark", window="dynamic_session:gap", delay=cfg["delay"], trigger_interval=cfg["trigger_interval"],
                output_mode=cfg["output_mode"], partitions_as_sources=cfg["partitions_as_sources"],
                multiple_watermark_policy=cfg["multiple_watermark_policy"])


def test_there_are_gap_cases():
    assert len(CASES) >= 20
    assert any("null" in c.name for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name[:-6] for c in CASES])
def test_replay_gives_real_sparks_batches(case):
    cfg, records, spark = _read(case)
    if "error" in spark[0]:  # update mode: Spark refuses it, so does the setting, naming output_mode
        with pytest.raises(SettingError) as e:
            Setting.parse(**_setting(cfg))
        assert e.value.setting == "output_mode"
        return
    log = toolkit.load_log(pd.DataFrame(records), time_unit="ms", keep=["gap"], partitions=cfg["partitions"])
    r = toolkit.replay(log, **_setting(cfg))
    ops = r.watermarks[r.watermarks["level"] == "operator"]
    assert ops["watermark"].astype("int64").tolist() == [b["watermark"] for b in spark]
    assert ops["time"].astype("int64").tolist() == [b["tick"] for b in spark]
    em = r.emissions[~r.emissions["at_end"]]
    got = sorted((int(b), k, int(s), int(e), int(c), int(v)) for b, k, s, e, c, v in
                 em[["batch", "key", "window_start", "window_end", "count", "sum"]].itertuples(index=False))
    assert got == sorted((b["batch"], *row) for b in spark for row in b["rows"])
    s = r.summary()
    assert s["rows_dropped_by_watermark"] == sum(b["rows_dropped_by_watermark"] for b in spark)
    no_session = sum(1 for x in records if x["gap"] is None or x["gap"] <= 0)
    assert s["invalid"] == no_session == int((r.fates["fate"] == "invalid").sum())
    assert s["records"] == len(records) == s["on_time"] + s["late_accepted"] + s["dropped"] + s["invalid"]


def _log(null_every: int = 0, n: int = 500, seed: int = 5):
    rng = np.random.default_rng(seed)
    et = np.sort(rng.integers(0, 80_000, n))
    gap = rng.integers(200, 4000, n).astype(float)
    if null_every:
        gap[::null_every] = np.nan
        gap[3::null_every * 2] = 0
        gap[5::null_every * 3] = -1000
    df = pd.DataFrame({"event_time": et, "arrival_time": et + rng.integers(0, 5000, n),
                       "key": rng.choice(list("abcdefgh"), n), "value": rng.integers(1, 9, n),
                       "partition": rng.integers(0, 3, n), "gap_ms": gap})
    return df, toolkit.load_log(df, time_unit="ms", keep=["gap_ms"])


def _same(frame: pd.DataFrame, log) -> None:
    for _, row in frame.iterrows():
        want = toolkit.replay(log, Setting.from_row(row)).summary()
        for c in SUMMARY_COLUMNS:
            assert want[c] == row[c] or (pd.isna(want[c]) and pd.isna(row[c])), (row["semantics"], c, want[c], row[c])


def test_flink_and_spark_rows_in_one_sweep_in_one_piece_and_in_shards():
    """The acceptance case: semantics=["flink", "spark"] with window=dynamic_session:COL gives the
    same figures in one piece and in 3 key shards, each the replay's."""
    _, log = _log()
    g = dict(semantics=["flink", "spark"], window="dynamic_session:gap_ms", delay=["500ms", "3s"], progress=False)
    one = toolkit.sweep(log, **g)
    sharded = toolkit.sweep(log, shards=3, **g)
    assert sorted(set(one["semantics"])) == ["flink", "spark"]
    pd.testing.assert_frame_equal(one, sharded, check_exact=True)
    _same(one, log)
    # the engines differ on this log (one global watermark between batches vs per-partition periodic)
    assert not one[one["semantics"] == "flink"]["on_time"].equals(one[one["semantics"] == "spark"]["on_time"])


def test_rows_without_a_session_are_invalid_and_sharding_keeps_them():
    _, log = _log(null_every=9)
    g = dict(semantics="spark", window="dynamic_session:gap_ms", delay=["1s", "4s"], partitions_as_sources=[True, False],
             output_mode=["append", "complete"], progress=False)
    one = toolkit.sweep(log, **g)
    sharded = toolkit.sweep(log, shards=3, **g)
    pd.testing.assert_frame_equal(one, sharded, check_exact=True)
    _same(one, log)
    assert (one["invalid"] > 0).all() and log.n_invalid == 0


def test_bad_gaps_name_the_option():
    df, _ = _log()
    bad = toolkit.load_log(df.assign(gap_ms=df["gap_ms"].astype(object).where(df.index != 4, "soon")), time_unit="ms",
                           keep=["gap_ms"])
    for call in (lambda: toolkit.replay(bad, semantics="spark", window="dynamic_session:gap_ms"),
                 lambda: toolkit.sweep(bad, semantics="spark", window="dynamic_session:gap_ms", shards=2)):
        with pytest.raises(SettingError, match=r"1 of 500 records.*row 4.*'soon'") as e:
            call()
        assert e.value.setting == "window"
    frac = toolkit.load_log(df.assign(gap_ms=df["gap_ms"] + 0.5), time_unit="ms", keep=["gap_ms"])
    with pytest.raises(SettingError, match="whole number of milliseconds"):
        toolkit.replay(frac, semantics="spark", window="dynamic_session:gap_ms")
    with pytest.raises(SettingError, match="no column 'gap_x'"):
        toolkit.replay(frac, semantics="spark", window="dynamic_session:gap_x")
    # a Flink row refuses the null/zero/negative gaps a Spark row reads as "no session"
    _, nulls = _log(null_every=9)
    with pytest.raises(SettingError, match="not a positive integer"):
        toolkit.sweep(nulls, semantics=["flink", "spark"], window="dynamic_session:gap_ms")


def test_the_setting():
    s = Setting.parse(semantics="spark", window="dynamic_session:gap_ms", delay="2s", output_mode="complete")
    assert Setting.parse(str(s)) == s and Setting.from_row(s.row()) == s and s.gap_column == "gap_ms"
    with pytest.raises(SettingError, match="Spark refuses it") as e:
        Setting.parse(semantics="spark", window="dynamic_session:gap_ms", output_mode="update")
    assert e.value.setting == "output_mode"


def test_command_line(tmp_path, capsys):
    from toolkit.cli import main

    df, log = _log(null_every=9)
    p = tmp_path / "log.csv"
    df.to_csv(p, index=False)
    assert main(["replay", str(p), "--time-unit", "ms", "--window", "dynamic_session:gap_ms", "--semantics", "spark",
                 "--delay", "2s"]) == 0
    out = capsys.readouterr().out
    want = toolkit.replay(log, semantics="spark", window="dynamic_session:gap_ms", delay="2s").summary()
    assert f"{want['invalid']} more rows of the 500 read" in out and "no session" in out
    csv = tmp_path / "sweep.csv"
    assert main(["sweep", str(p), "--time-unit", "ms", "--window", "dynamic_session:gap_ms", "--semantics", "spark",
                 "--delay", "1s,2s", "--shards", "2", "--out", str(csv)]) == 0
    got = pd.read_csv(csv)
    assert got["invalid"].tolist() == [want["invalid"]] * 2 and got["path"].tolist() == ["microbatch"] * 2
