"""Watermark-generator and valve scenarios reproduce real Flink's committed outputs line for line."""
from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.engine.flink.scenarios import RUNNERS, discover, dumps, read

FIX = Path(__file__).resolve().parent.parent / "fixtures"


def _expected(path: Path) -> list[str]:
    return path.with_name(path.stem + ".out.jsonl").read_text().splitlines()


def test_fixture_counts() -> None:
    for kind in ("watermarks", "valve"):
        cases = discover([FIX / kind])
        assert sum(p.name.startswith("gen") for p in cases) >= 30
        assert all(p.with_name(p.name[:-6] + ".out.jsonl").exists() for p in cases)


def test_watermark_scenario_matches_flink(watermarks_case: Path) -> None:
    assert [dumps(o) for o in RUNNERS["watermarks"](read(watermarks_case))] == _expected(watermarks_case)


def test_valve_scenario_matches_flink(valve_case: Path) -> None:
    assert [dumps(o) for o in RUNNERS["valve"](read(valve_case))] == _expected(valve_case)


def test_watermark_and_valve_runners_do_not_load_the_window_operator() -> None:
    import subprocess
    import sys

    code = ("import sys\nfrom toolkit.engine.flink.scenarios import RUNNERS\n"
            "RUNNERS['watermarks']; RUNNERS['valve']\n"
            "bad = [m for m in ('toolkit.engine.flink.operator', 'toolkit.engine.flink.config', 'toolkit.engine.flink.assigners') "
            "if m in sys.modules]\nassert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_discover_rejects_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such scenario"):
        discover([tmp_path / "nope.jsonl"])


def test_cli_out_dir(tmp_path: Path) -> None:
    src = FIX / "watermarks" / "wm05_idle_then_stale_event.jsonl"
    assert main(["watermarks", str(src), str(FIX / "watermarks" / "wm01_bounded_basic.jsonl"), "--out-dir", str(tmp_path)]) == 0
    assert (tmp_path / "wm05_idle_then_stale_event.out.jsonl").read_text() == src.with_name(
        "wm05_idle_then_stale_event.out.jsonl"
    ).read_text()
    assert (tmp_path / "wm01_bounded_basic.out.jsonl").exists()
    assert main(["valve", str(FIX / "valve"), "--out-dir", str(tmp_path / "v")]) == 0
    assert (tmp_path / "v" / "v03_all_idle_flush.out.jsonl").read_text() == (FIX / "valve" / "v03_all_idle_flush.out.jsonl").read_text()


def test_cli_stdout_and_errors(tmp_path: Path, capsys) -> None:
    assert main(["valve", str(FIX / "valve" / "v01_min_two_channels.jsonl")]) == 0
    assert capsys.readouterr().out == (FIX / "valve" / "v01_min_two_channels.out.jsonl").read_text()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"channels":2}\n{"channel":5,"watermark":1}\n')
    assert main(["valve", str(bad)]) == 2
    assert "out of range" in capsys.readouterr().err
    back = tmp_path / "back.jsonl"
    back.write_text('{"strategy":"monotonous"}\n{"ts":1,"pt":10}\n{"ts":2,"pt":5}\n')
    assert main(["watermarks", str(back)]) == 2
    assert "backwards" in capsys.readouterr().err


def test_cli_one_error_policy_for_every_format(tmp_path: Path, capsys) -> None:
    """Several inputs: a bad scenario gives an error line, the others still run, exit 1."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"channels":2}\n{"channel":5,"watermark":1}\n')
    good = FIX / "valve" / "v01_min_two_channels.jsonl"
    assert main(["valve", str(bad), str(good)]) == 1
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == '{"kind":"scenario","name":"bad.jsonl"}'
    assert lines[1].startswith('{"kind":"error","message":"bad.jsonl: channel 5 out of range')
    assert lines[2] == '{"kind":"scenario","name":"v01_min_two_channels.jsonl"}'
    assert lines[3:] == (FIX / "valve" / "v01_min_two_channels.out.jsonl").read_text().splitlines()
    assert "1 of 2 scenarios failed" in captured.err
    assert main(["watermarks", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such scenario" in capsys.readouterr().err
