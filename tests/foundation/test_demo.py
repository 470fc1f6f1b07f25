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
    assert "kept by \\ dropped by" in printed  # the engines compared record by record
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") or html.lstrip().lower().startswith("<!doctype html>")
    assert "Recommended" in html and "sample.csv" in html
    assert "The engines side by side" in html and "Deploy it: PySpark Structured Streaming" in html
    assert str(ROOT) not in html.split("<script")[0]  # the log is named relative to the working folder


def test_an_installed_package_writes_the_same_sample(tmp_path, monkeypatch):
    """Without the source tree's data/ folder (an installed package) the demo writes the sample
    into the cache folder with data/generate.py's own command: the very same bytes."""
    import runpy

    from toolkit.commands import demo

    model, records, seed, bad_rows = demo.SAMPLE_MODEL
    assert runpy.run_path(str(ROOT / "data" / "generate.py"))["COMMANDS"]["sample.csv"] == [
        model, "--records", str(records), "--seed", str(seed), "--bad-rows", str(bad_rows)]
    monkeypatch.setattr(demo, "SAMPLE", tmp_path / "no-checkout" / "data" / "sample.csv")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    written = demo.sample_path()
    assert written == tmp_path / "cache" / "watermark-lab" / "sample.csv"
    assert written.read_bytes() == (ROOT / "data" / "sample.csv").read_bytes()
    assert demo.sample_path() == written  # written once, then reused
