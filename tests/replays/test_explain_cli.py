"""``python -m toolkit replay LOG ... --explain ROW --drops FILE``."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from toolkit.cli import main
from toolkit.replays.explain import COLUMNS

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "replay"
SETTING = ["--window", "tumbling:1s", "--delay", "100ms", "--lateness", "200ms", "--interval", "200ms"]


def test_replay_explains_rows_and_writes_the_drops_table(tmp_path: Path, capsys) -> None:
    out = tmp_path / "sub" / "drops.csv"
    assert main(["replay", str(FIX / "log00.csv"), *SETTING, "--drops", str(out), "--json"]) == 0
    lines = capsys.readouterr().out.strip().split("\n")
    summary = json.loads(lines[0])
    table = pd.read_csv(out)
    assert list(table.columns) == COLUMNS
    assert (table["fate"] == "dropped").sum() == summary["dropped"] > 0
    assert (table["fate"] == "late_accepted").sum() == summary["late_accepted"]
    assert lines[-1].startswith(f"wrote {out}: {summary['dropped']:,} dropped")
    dropped = int(table.loc[table["fate"] == "dropped", "row"].iloc[0])
    assert main(["replay", str(FIX / "log00.csv"), *SETTING, "--explain", str(dropped), "--explain", "0"]) == 0
    text = capsys.readouterr().out
    assert f"Row {dropped:,} " in text and "was dropped" in text and "It would have been kept with a delay of at least" in text
    assert "Row 0 " in text


def test_replay_explain_errors_name_the_option(tmp_path: Path, capsys) -> None:
    assert main(["replay", str(FIX / "log00.csv"), *SETTING, "--explain", "100000"]) == 2
    assert "error: --explain 100000: row 100000 was not replayed" in capsys.readouterr().err
    assert main(["replay", str(FIX / "log00.csv"), "--window", "global_eos", "--drops", str(tmp_path / "x.csv")]) == 2
    assert "--window" in capsys.readouterr().err
