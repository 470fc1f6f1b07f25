"""Watermark-generator and valve scenarios reproduce real Flink's committed outputs line for line."""
from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.engine.wm_scenario import read_jsonl, run_valve_scenario, run_watermark_scenario

FIX = Path(__file__).resolve().parent.parent / "fixtures"


def _cases(kind: str) -> list[Path]:
    return sorted(p for p in (FIX / kind).glob("*.jsonl") if not p.name.endswith(".out.jsonl"))


def test_fixture_counts() -> None:
    for kind in ("watermarks", "valve"):
        cases = _cases(kind)
        assert sum(p.name.startswith("gen") for p in cases) >= 30
        assert all(p.with_name(p.name[:-6] + ".out.jsonl").exists() for p in cases)


@pytest.mark.parametrize("path", _cases("watermarks"), ids=lambda p: p.stem)
def test_watermark_scenario_matches_flink(path: Path) -> None:
    expected = path.with_name(path.stem + ".out.jsonl").read_text().splitlines()
    assert run_watermark_scenario(read_jsonl(path)) == expected


@pytest.mark.parametrize("path", _cases("valve"), ids=lambda p: p.stem)
def test_valve_scenario_matches_flink(path: Path) -> None:
    expected = path.with_name(path.stem + ".out.jsonl").read_text().splitlines()
    assert run_valve_scenario(read_jsonl(path)) == expected


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
