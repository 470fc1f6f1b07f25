"""The ``scenario`` and ``bench engine`` commands."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from toolkit.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "window"


def test_scenario_prints_the_oracle_format(capsys):
    assert main(["scenario", str(FIXTURES / "seed01_tumbling3_late.jsonl")]) == 0
    out = capsys.readouterr().out
    assert out == (FIXTURES / "seed01_tumbling3_late.out.jsonl").read_text()


def test_scenario_out_dir_and_several_inputs(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    for name in ("seed02_tumbling5000_boundaries", "seed05_sliding"):
        shutil.copy(FIXTURES / f"{name}.jsonl", src)
        shutil.copy(FIXTURES / f"{name}.out.jsonl", src)     # *.out.jsonl are not inputs
    assert main(["scenario", str(src), "--out-dir", str(tmp_path / "out")]) == 0
    for name in ("seed02_tumbling5000_boundaries", "seed05_sliding"):
        got = (tmp_path / "out" / f"{name}.out.jsonl").read_text()
        assert got == (FIXTURES / f"{name}.out.jsonl").read_text()
    assert main(["scenario", str(src / "seed02_tumbling5000_boundaries.jsonl"), str(src / "seed05_sliding.jsonl")]) == 0
    lines = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [l["name"] for l in lines if l["kind"] == "scenario"] == ["seed02_tumbling5000_boundaries.jsonl", "seed05_sliding.jsonl"]


def test_bench_engine_runs_small(capsys):
    assert main(["bench", "engine", "--records", "3000", "--keys", "10", "--only", "tumbling,session"]) == 0
    out = capsys.readouterr().out
    assert "tumbling" in out and "session" in out and "sliding" not in out and "records/s" in out
