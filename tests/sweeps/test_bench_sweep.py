"""``bench sweep`` against real Flink: the bench log is the oracle's anchor job's log, and the
sweep's row for the anchor's setting has real Flink's figures (fixtures from the oracle,
``tests/fixtures/bench/generate.py``); without the oracle the benchmark says so."""
from __future__ import annotations

import json

import pytest

import toolkit
from toolkit.bench.anchors import Anchor, check_flink, check_spark, flink_bench_table, flink_setting, spark_setting
from toolkit.cli import main

FIXTURES = sorted((__import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures" / "bench").glob("flink_bench_*.json"))


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.stem)
def test_sweep_of_the_bench_log_has_real_flinks_figures(fixture):
    flink = json.loads(fixture.read_text())["flink"]
    table = flink_bench_table(flink["records"], flink["keys"], 42 if "seed42" in fixture.stem else 3)
    assert table["event_time"].min() > -flink["max_delay_ms"]
    row = toolkit.sweep(table, execution="local", progress=False, **flink_setting()).iloc[0]
    assert (row["firings"], row["on_time"], row["dropped"], row["late_accepted"]) == (
        flink["fires"], flink["counted"], flink["late"], 0)
    anchor = Anchor("real Flink", flink["records"], 1.0, figures={"firings": flink["fires"], "on_time": flink["counted"],
                                                                  "dropped": flink["late"]})
    assert check_flink(anchor, row).startswith("same figures as real Flink")
    anchor.figures["dropped"] += 1
    assert "DIFFERENT" in check_flink(anchor, row)


def test_fixtures_exist():
    assert len(FIXTURES) == 2


def test_bench_sweep_without_the_oracle_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WATERMARK_LAB_ORACLE", str(tmp_path / "nowhere"))
    assert main(["bench", "sweep", "--records", "3000", "--keys", "10", "--only", "c"]) == 0
    out = capsys.readouterr().out
    assert "real Flink: not measured in this run: no Flink oracle at" in out
    assert "x real Flink" not in out
    assert main(["bench", "sweep", "--only", "spark10m"]) == 2
    assert "bench scale" in capsys.readouterr().err


def test_bench_sweep_prints_the_session_figure(capsys):
    """Sub-case ``s``: session windows on the fast path over the same log, in record-configurations
    per second (the issue asks ``bench sweep`` for the session figure beside the windows')."""
    assert main(["bench", "sweep", "--records", "3000", "--keys", "10", "--only", "s"]) == 0
    out = capsys.readouterr().out
    assert "(s) session windows (200 ms gap) on the fast path" in out
    assert "100 configurations x 3,000 records" in out and "M per CPU-second" in out


@pytest.mark.spark
def test_bench_sweep_runs_real_spark_structured_streaming(spark, tmp_path, monkeypatch, capsys):
    """Sub-case ``c`` runs the Spark-semantics setting on real Spark Structured Streaming over the
    same records in the same run: its emitted windows and the windows left in its state must be
    the sweep row's, and the ratio per setting is printed."""
    monkeypatch.setenv("WATERMARK_LAB_ORACLE", str(tmp_path / "nowhere"))
    assert main(["bench", "sweep", "--records", "3000", "--keys", "10", "--only", "c"]) == 0
    out = capsys.readouterr().out
    assert "our sweep in-process" in out and "20 settings" in out
    assert "Structured Streaming (local" in out and "measured now over the same 3,000 records" in out
    assert "the sweep's row for that setting: same figures as real Spark (emitted windows" in out
    assert "x real Spark Structured Streaming per setting" in out


def test_check_spark_compares_emitted_and_left_windows():
    table = flink_bench_table(3000, 10, 42)
    row = toolkit.sweep(table, execution="local", progress=False, **spark_setting()).iloc[0]
    emitted = int(row["firings"]) - int(row["at_end_firings"])
    anchor = Anchor("real Spark", 3000, 1.0, figures={"emitted windows": emitted,
                                                       "windows left in state at the end": int(row["at_end_firings"])})
    assert check_spark(anchor, row).startswith("same figures as real Spark")
    anchor.figures["emitted windows"] += 1
    assert "DIFFERENT from real Spark: emitted windows" in check_spark(anchor, row)
