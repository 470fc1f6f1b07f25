"""``bench sweep`` against real Flink: the bench log is the oracle's anchor job's log, and the
sweep's row for the anchor's setting has real Flink's figures (fixtures from the oracle,
``tests/fixtures/bench/generate.py``); without the oracle the benchmark says so."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.bench import sweep as bench_sweep
from toolkit.bench._anchors import (
    Anchor,
    check_flink,
    check_spark,
    check_spark_windows,
    flink_bench_table,
    flink_setting,
    replay_windows,
    spark_anchor,
    spark_setting,
    spark_tick_files,
)
from toolkit.bench._timing import process_cpu_s
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


def test_bench_sweep_prints_the_session_figure(capsys):
    """Sub-case ``s``: session windows on the fast path over the same log, in record-configurations
    per second (the issue asks ``bench sweep`` for the session figure beside the windows')."""
    assert main(["bench", "sweep", "--records", "3000", "--keys", "10", "--only", "s"]) == 0
    out = capsys.readouterr().out
    assert "(s) session windows (200 ms gap) on the fast path, the same log, 100 configurations x 3,000 records" in out
    assert "M per CPU-second" in out and "(a)" not in out


@pytest.mark.spark
def test_bench_sweep_runs_real_spark_structured_streaming(spark, tmp_path, monkeypatch, capsys):
    """Sub-case ``c`` runs the Spark-semantics setting on real Spark Structured Streaming over the
    same records in the same run: its emitted windows and the windows left in its state must be
    the sweep row's, every emitted window our replay's, and the table gives the ratio per setting."""
    monkeypatch.setenv("WATERMARK_LAB_ORACLE", str(tmp_path / "nowhere"))
    assert main(["bench", "sweep", "--records", "3000", "--keys", "10", "--only", "c"]) == 0
    out = capsys.readouterr().out
    assert "our sweep of it and 19 other delays in-process" in out and "for 20 settings" in out
    assert "Structured Streaming (local" in out and "run now: " in out and "s CPU (Spark's JVM and the driver)" in out
    assert "the sweep's row for that setting: same figures as real Spark (emitted windows" in out
    assert "our replay of that setting: the same 0 windows as real Spark" in out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("real Spark Structured Streaming, query"))
    assert "in-process, 20 Spark-semantics settings" in line and line.rstrip().endswith("yes")
    assert line.count("x") >= 2  # wall and CPU ratios


def _ticking_table() -> pd.DataFrame:
    """200 records arriving every 50 ms over 10 s (records in every 2 s tick), 3 keys, event times
    up to 1.5 s behind: with 2 s triggers, windows close in several micro-batches."""
    rng = np.random.default_rng(7)
    arrival = np.arange(200, dtype=np.int64) * 50
    return pd.DataFrame({"row": np.arange(200), "event_time": 5000 + arrival - rng.integers(0, 1500, 200),
                         "arrival_time": arrival, "key": np.array(["a", "b", "c"])[rng.integers(0, 3, 200)],
                         "partition": 0})


@pytest.mark.spark
def test_real_spark_emits_the_windows_of_our_replay_in_the_same_micro_batches(spark, tmp_path):
    """The window-level check on a log small enough to close windows in several micro-batches:
    real Spark's emitted (key, window, count, batch) are exactly our replay's, and the CPU figure
    is read."""
    table = _ticking_table()
    anchor = spark_anchor(table, spark, tmp_path, trigger=2000)
    assert isinstance(anchor, Anchor), anchor
    ours = replay_windows(table, trigger=2000)
    assert ours["batch"].nunique() >= 3 and len(ours) >= 10
    assert check_spark_windows(anchor, ours).startswith(f"the same {len(ours):,} windows as real Spark")
    assert anchor.figures["emitted windows"] == len(ours)
    assert anchor.cpu_s is not None and anchor.cpu_s > 0
    row = toolkit.sweep(table, execution="local", progress=False, **spark_setting(trigger=2000)).iloc[0]
    assert check_spark(anchor, row).startswith("same figures as real Spark")


def test_check_spark_windows_names_what_differs():
    table = _ticking_table()
    ours = replay_windows(table, trigger=2000)
    anchor = Anchor("real Spark", len(table), 1.0, emitted=ours.sample(frac=1.0, random_state=1))  # any order
    assert check_spark_windows(anchor, ours).startswith(f"the same {len(ours):,} windows")
    moved = ours.copy()
    moved.loc[moved.index[0], "count"] += 1
    moved.loc[moved.index[1], "batch"] += 1
    text = check_spark_windows(Anchor("real Spark", len(table), 1.0, emitted=moved), ours)
    assert text.startswith("DIFFERENT from real Spark") and "2 with another count or micro-batch" in text
    assert " s, " in text and " s)" in text  # windows in seconds of event time, not raw ms
    text = check_spark_windows(Anchor("real Spark", len(table), 1.0, emitted=ours.iloc[1:]), ours)
    assert "1 only in ours" in text
    assert check_spark_windows(Anchor("real Spark", len(table), 1.0), ours).startswith("not compared")


def test_spark_tick_files_one_file_per_tick_then_an_empty_one(tmp_path):
    table = _ticking_table()
    assert spark_tick_files(table, tmp_path, 2000) == 7  # ticks 0, 2, 4, 6, 8, 10 s, then the empty one
    files = sorted(tmp_path.glob("*.parquet"))
    sizes = [len(pd.read_parquet(f)) for f in files]
    assert sizes == [1, 40, 40, 40, 40, 39, 0]  # arrival 0 alone at tick 0, then (T - 2 s, T]
    first = pd.read_parquet(files[1])
    assert list(first.columns) == ["event_time", "key", "value"] and (first["value"] == 1).all()


def test_bench_sweep_without_the_oracle_or_spark_says_so(tmp_path, monkeypatch, capsys):
    """No Flink oracle beside the repository, no Spark session (no Java, no pyspark): case c says
    which real engine was not measured and why, and prints no ratio against it."""
    monkeypatch.setenv("WATERMARK_LAB_ORACLE", str(tmp_path / "nowhere"))

    def no_spark(*_a, **_k):
        raise RuntimeError("Java was not found")

    monkeypatch.setattr(bench_sweep, "spark_session", no_spark)
    assert main(["bench", "sweep", "--records", "3000", "--keys", "10", "--only", "c"]) == 0
    out = capsys.readouterr().out
    assert "real Flink: not measured in this run: no Flink oracle at" in out
    assert "real Spark Structured Streaming: not measured in this run: no Spark session (Java was not found)" in out
    assert "real Flink, whole process" not in out and "real Spark Structured Streaming, query" not in out
    assert "engine path" in out and "one setting run by" in out
    assert main(["bench", "sweep", "--only", "spark10m"]) == 2
    assert "bench scale" in capsys.readouterr().err


def test_comparison_table_is_aligned_with_units():
    rows = [bench_sweep.Comparison("real Flink, whole process", "in-process, 100 settings", 0.0042, 0.0021, 15.3, 9.6,
                                   "yes"),
            bench_sweep.Comparison("real Flink, job alone", "in-process, 100 settings", 0.0042, None, 3.6, None, "yes"),
            bench_sweep.Comparison("engine path (extrapolated)", "in-process, 100 settings", 0.0042, 0.0021, 203.0,
                                   101.0, "")]
    lines = bench_sweep._comparison_table(rows).splitlines()
    assert len(lines) == 4 and len({ln.index("theirs CPU") if i == 0 else 0 for i, ln in enumerate(lines)}) == 2
    assert "4.2 ms" in lines[1] and "15.30 s" in lines[1] and "3,643x" in lines[1] and "4,571x" in lines[1]
    assert lines[2].split()[-2:] == ["-", "yes"] and "857x" in lines[2]
    assert "203 s" in lines[3] and lines[3].rstrip().endswith("-")
    ends = {len(ln.split("x  ")[0]) for ln in lines[1:]}  # the ratio column ends at one place
    assert len(ends) == 1


def test_process_cpu_s_reads_a_process():
    import os

    assert process_cpu_s(os.getpid()) >= 0
    assert process_cpu_s(2**22 + 12345) is None  # beyond pid_max: no such process


def test_check_spark_compares_emitted_and_left_windows():
    table = flink_bench_table(3000, 10, 42)
    row = toolkit.sweep(table, execution="local", progress=False, **spark_setting()).iloc[0]
    emitted = int(row["firings"]) - int(row["at_end_firings"])
    anchor = Anchor("real Spark", 3000, 1.0, figures={"emitted windows": emitted,
                                                       "windows left in state at the end": int(row["at_end_firings"])})
    assert check_spark(anchor, row).startswith("same figures as real Spark")
    anchor.figures["emitted windows"] += 1
    assert "DIFFERENT from real Spark: emitted windows" in check_spark(anchor, row)


def test_bench_sweep_writes_its_figures_as_json(tmp_path, monkeypatch, capsys):
    """``--json FILE``: the printed figures, machine-readable (seconds, ratios, checks, load)."""
    monkeypatch.setenv("WATERMARK_LAB_ORACLE", str(tmp_path / "nowhere"))
    monkeypatch.setattr(bench_sweep, "spark_session", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("no Java")))
    out = tmp_path / "figures.json"
    assert main(["bench", "sweep", "--records", "3000", "--keys", "10", "--only", "a,c", "--json", str(out)]) == 0
    assert f"figures written to {out}" in capsys.readouterr().out
    figures = json.loads(out.read_text())
    assert figures["records"] == 3000 and "load_average_start" in figures and "load_average_end" in figures
    assert figures["a"]["record_configurations_per_s"] > 0 and "b" not in figures
    (engine,) = figures["c"]
    assert engine["theirs"] == "engine path" and engine["ours"] == "in-process, 100 settings"
    assert engine["ratio"] == pytest.approx(engine["theirs_s"] / engine["ours_s"]) and engine["same_figures"] is None


def test_bench_json_bad_target_names_the_option(tmp_path, capsys):
    assert main(["bench", "sweep", "--records", "3000", "--json", str(tmp_path / "no" / "such" / "f.json")]) == 2
    assert "--json" in capsys.readouterr().err
    assert main(["bench", "replay", "--records", "3000", "--json", str(tmp_path / "f.json")]) == 2
    assert "--json: only bench sweep writes JSON" in capsys.readouterr().err


def test_bench_sweep_when_the_spark_query_fails_says_why(tmp_path, monkeypatch, capsys):
    """A session starts but the query fails: Spark's reason, no Spark line in the table."""
    monkeypatch.setenv("WATERMARK_LAB_ORACLE", str(tmp_path / "nowhere"))
    monkeypatch.setattr(bench_sweep, "spark_session", lambda *a, **k: object())
    monkeypatch.setattr(bench_sweep, "spark_anchor",
                        lambda *a, **k: "the Spark Structured Streaming query failed: StreamingQueryException: boom")
    assert main(["bench", "sweep", "--records", "3000", "--keys", "10", "--only", "c"]) == 0
    out = capsys.readouterr().out
    assert ("real Spark Structured Streaming: not measured in this run: the Spark Structured Streaming query failed: "
            "StreamingQueryException: boom") in out
    assert "real Spark Structured Streaming, query" not in out


def test_case_e_sweeps_one_row_per_engine_on_a_year(capsys, tmp_path):
    """Issue 27: every registered engine's row on a year-long log, its path, and the replay's figures."""
    from toolkit.settings import semantics_names

    out = tmp_path / "e.json"
    assert main(["bench", "sweep", "--records", "4000", "--only", "e", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "a year of data (4,000 records, 16 keys, 3 partitions)" in text
    rows = json.loads(out.read_text())["e"]
    assert [r["engine"] for r in rows] == list(semantics_names())
    assert all(r["same"] in (True, None) and r["seconds"] > 0 for r in rows), rows
    assert "NO" not in text.split("(e)")[1]
