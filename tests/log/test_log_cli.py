"""`python -m toolkit describe` and `generate`."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

from toolkit.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_generate_then_describe(tmp_path, capsys):
    out = tmp_path / "g.csv"
    assert main(["generate", "silent", "--records", "3000", "--seed", "5", "--out", str(out), "--bad-rows", "2"]) == 0
    assert capsys.readouterr().out.startswith("wrote 3000 records, 2 of them corrupted of model 'silent' (seed 5)")
    assert len(pd.read_csv(out)) == 3000
    assert main(["describe", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: 2 of 3000 rows (0.07%) of ") and "--max-invalid-fraction 0.00067" in err
    assert main(["describe", str(out), "--max-invalid-fraction", "0.001"]) == 0
    text = capsys.readouterr().out
    assert "2,998 valid of 3,000 rows (2 quarantined)" in text
    assert "quarantined rows (first 2 of 2):" in text
    assert "  partition 2 " in text


def test_describe_json_and_column_mapping(tmp_path, capsys):
    path = tmp_path / "m.csv"
    pd.DataFrame({"ts": [3, 1, 2], "who": ["a", "b", "a"], "arrival_time": [10, 11, 12]}).to_csv(path, index=False)
    assert main(["describe", str(path), "--event-time", "ts", "--key", "who", "--time-unit", "s",
                 "--arrival-time", "none", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["event_time_min"] == 1000 and figures["keys"] == 2 and figures["delay"] is None
    assert figures["behind"] == 2  # 1 and 2 are behind 3


def test_generate_set_parameters_and_formats(tmp_path, capsys):
    out = tmp_path / "g.parquet"
    assert main(["generate", "steady", "-n", "100", "--out", str(out), "--partitions", "3",
                 "--set", "silent_partition=1", "--set", "silent_for=10s", "--set", "bursts=1s,100ms,5"]) == 0
    t = pd.read_parquet(out)
    assert len(t) == 100 and set(t["partition"]) <= {0, 1, 2}
    assert main(["generate", "year", "-n", "300", "--out", str(out), "--set", "nightly=22h,8h",
                 "--set", "partition_names=a,b,c"]) == 0
    t = pd.read_parquet(out)
    assert set(t["partition"]) == {"a", "b", "c"}
    assert not pd.to_datetime(t["event_time"], unit="ms", utc=True).dt.hour.isin([22, 23, 0, 5]).any()
    assert main(["generate", "steady", "--out", str(out), "--set", "colour=red"]) == 2
    assert "--set 'colour=red': expected NAME=VALUE" in capsys.readouterr().err


def test_module_entry_point_runs(tmp_path):
    out = tmp_path / "n.jsonl"
    run = subprocess.run([sys.executable, "-m", "toolkit", "generate", "nexmark", "-n", "50", "--out", str(out),
                          "--time-format", "iso"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    run = subprocess.run([sys.executable, "-m", "toolkit", "describe", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "50 valid of 50 rows (0 quarantined)" in run.stdout


def test_generate_errors_name_the_options(tmp_path, capsys):
    assert main(["generate", "steady", "--records", "0", "--out", str(tmp_path / "g.csv")]) == 2
    assert capsys.readouterr().err == "error: --records must be at least 1, got 0\n"
    assert main(["generate", "steady", "-n", "5", "--bad-rows", "9", "--out", str(tmp_path / "g.csv")]) == 2
    assert capsys.readouterr().err == "error: --bad-rows must be between 0 and the number of records (5), got 9\n"
    out = tmp_path / "g.dat"
    assert main(["generate", "steady", "-n", "5", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"error: cannot tell the format of {str(out)!r} from its name; pass --format csv, parquet or jsonl\n")
