"""The README's main job, in-process (the Spark sweep itself is tested in tests/sweeps)."""
from __future__ import annotations

from pathlib import Path

from toolkit.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_demo_writes_the_report(tmp_path, capsys):
    out = tmp_path / "reports" / "demo.html"
    assert main(["demo", "--no-spark", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "[demo] recommendation for flink: window=tumbling:1s" in printed
    assert "idleness=2s" in printed  # the silent partition makes an idle timeout pay off
    assert "[demo] recommendation for spark: window=tumbling:1s" in printed and "withWatermark" in printed
    assert "kept by flink, dropped by spark" in printed  # the engines compared record by record
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") or html.lstrip().lower().startswith("<!doctype html>")
    assert "Recommended" in html and "sample.csv" in html
    assert "The engines side by side" in html and "Deploy it: PySpark Structured Streaming" in html
    assert str(ROOT) not in html.split("<script")[0]  # the log is named relative to the working folder
