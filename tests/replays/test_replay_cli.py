"""``python -m toolkit replay`` and ``bench replay`` wiring."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from toolkit.cli import main

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "replay"


def test_replay_command_writes_emissions_fates_and_exports(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    scen = tmp_path / "x.jsonl"
    code = main([
        "replay", str(FIX / "log00.csv"), "--window", "tumbling:1s", "--delay", "500ms", "--lateness", "2s",
        "--interval", "200ms", "--idleness", "1s", "--out", str(out), "--export-scenario", str(scen), "--json",
    ])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    fates = pd.read_csv(out / "fates.csv")
    assert summary["records"] == len(fates) == 259
    assert summary["on_time"] + summary["late_accepted"] + summary["dropped"] == 259
    assert fates["fate"].value_counts().to_dict() == {k: summary[k] for k in ("on_time", "late_accepted", "dropped") if summary[k]}
    em = pd.read_csv(out / "emissions.csv")
    assert list(em.columns[:12]) == ["key", "window_start", "window_end", "max_timestamp", "pane", "timing", "kind",
                                     "count", "sum", "watermark", "emit_time", "at_end"]
    assert len(em) == summary["firings"]
    for name in ("late.csv", "watermarks.csv", "state.csv", "summary.json"):
        assert (out / name).exists()
    # same settings as the committed case: the export is the interleaving Flink was given
    assert scen.read_text() == (FIX / "log00.jsonl").read_text()


def test_replay_command_errors(capsys) -> None:
    assert main(["replay", str(FIX / "log00.csv"), "--interval=-1s"]) == 2
    assert "--interval must not be negative" in capsys.readouterr().err
    assert main(["replay", str(FIX / "log00.csv"), "--idleness=-1s"]) == 2
    assert "--idleness must not be negative" in capsys.readouterr().err
    assert main(["replay", str(FIX / "log00.csv"), "--window", "sliding:1s"]) == 2
    assert "SIZE/SLIDE" in capsys.readouterr().err


def test_bench_replay_small(capsys) -> None:
    from toolkit.bench.replay import bench_replay

    out = bench_replay(records=5000, partitions=8, keys=50)
    assert out["records"] == 5000 and out["records_per_s"] > 0
    assert out["on_time"] + out["late_side_output"] == 5000
    assert json.loads(capsys.readouterr().out)["bench"] == "replay"


def test_replay_command_second_stage(tmp_path: Path, capsys) -> None:
    out = tmp_path / "o"
    assert main(["replay", str(FIX / "ms00.csv"), "--window", "tumbling:1s", "--delay", "300ms",
                 "--second-window", "tumbling:5s", "--out", str(out)]) == 0
    capsys.readouterr()
    s2 = pd.read_csv(out / "emissions_stage2.csv")
    s1 = pd.read_csv(out / "emissions.csv")
    assert s2["sum"].sum() == s1["sum"].sum()  # stage 2 re-aggregates every stage-1 firing once
    st = pd.read_csv(out / "stage_watermarks.csv")
    assert set(st["stage"]) == {1, 2}


def test_replay_command_prints_a_readable_summary_and_the_files(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["replay", str(FIX / "log00.csv"), "--window", "tumbling:1s", "--delay", "500ms", "--lateness", "2s",
                 "--idleness", "1s", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Replayed 259 valid records of ")
    assert "setting: window=tumbling:1s lateness=2s delay=500ms idleness=1s" in text
    assert "late but accepted" in text and "%" in text and "result latency (first firing - window end): median " in text
    assert " ms" in text or " s," in text  # durations carry their unit
    assert f"wrote {out / 'fates.csv'} (259 rows)" in text and f"wrote {out / 'summary.json'} (" in text
    assert "latency_p99_ms" not in text and "9223372036854775807" not in text


def test_replay_summary_says_when_no_latency_is_defined(tmp_path: Path, capsys) -> None:
    """A one-record log: its window fires only at the end of input, so there is no latency to
    print (never a negative one, never an empty 'median ,')."""
    src = tmp_path / "one.csv"
    src.write_text("event_time,arrival_time,key,partition,value\n1000,1500,a,0,1\n")
    assert main(["replay", str(src), "--time-unit", "ms"]) == 0
    out = capsys.readouterr().out
    assert "result latency: none defined (every window was fired only by the end of input)" in out
    assert "median ," not in out and "1 at end of input" in out
