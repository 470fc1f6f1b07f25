"""``python -m toolkit replay --stage ... [--union LOG2 | --join LOG2]``."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from toolkit.cli import main

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "pipeline"


def _args(case: str) -> list[str]:
    """The command line of a committed pipeline case (its settings.json as options)."""
    s = json.loads((FIX / f"{case}.settings.json").read_text())
    out = [str(FIX / f"{case}.csv")]
    mode = s.pop("two_input", None)
    if mode:
        out += [f"--{mode}", str(FIX / f"{case}.b.csv")]
    for st in s.pop("stages"):
        out += ["--stage", st]
    for k, v in s.items():
        out.append(f"--{k.replace('_', '-')}={str(v).lower() if isinstance(v, bool) else v}")
    return out


def test_stages_on_the_command_line_export_what_flink_was_given(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    for k in (1, 2, 3):
        scen = tmp_path / f"s{k}.jsonl"
        assert main(["replay", *_args("chain01"), "--export-scenario", str(scen), "--export-stage", str(k),
                     "--out", str(out), "--json"]) == 0
        assert scen.read_text() == (FIX / f"chain01.s{k}.jsonl").read_text()
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["stages"] == 4
    for k in (2, 3, 4):
        em = pd.read_csv(out / f"emissions_stage{k}.csv")
        fates = pd.read_csv(out / f"fates_stage{k}.csv")
        assert list(fates.columns) == ["element", "key", "timestamp", "value", "fate", "reason"]
        if k == 4:
            assert len(em) == summary["last_stage_firings"] and len(fates) == summary["last_stage_elements"]
    st = pd.read_csv(out / "stage_watermarks.csv")
    assert sorted(st["stage"].unique()) == [1, 2, 3, 4]


def test_union_and_join_on_the_command_line(tmp_path: Path, capsys) -> None:
    for case in ("union00", "join06"):
        scen = tmp_path / f"{case}.jsonl"
        assert main(["replay", *_args(case), "--export-scenario", str(scen), "--out", str(tmp_path / case)]) == 0
        assert scen.read_text() == (FIX / f"{case}.s1.jsonl").read_text()
        text = capsys.readouterr().out
        assert f"{case}.csv + " in text and "stages (each fed by the previous one's firings):" in text
        fates = pd.read_csv(tmp_path / case / "fates.csv")
        assert set(fates["input"]) == {1, 2}
    em = pd.read_csv(tmp_path / "join06" / "emissions.csv")
    assert (em["pairs"] == em["left"] * em["right"]).all()


def test_bad_stage_options_name_the_option(capsys) -> None:
    log = str(FIX / "chain00.csv")
    for args, words in [
        (["--stage", "window=tumbing:5s"], "--stage 'window=tumbing:5s' (stage 2): window 'tumbing:5s': unknown kind"),
        (["--stage", "window=tumbling:5s", "--stage", "lateness=1s"], "--stage 'lateness=1s' (stage 3): the stage"),
        (["--stage", "window=tumbling:5s latenes=1s"], "did you mean 'lateness'?"),
        (["--stage", "window=tumbling:5s", "--export-scenario", "x.jsonl", "--export-stage", "3"], "--export-stage 3"),
        (["--stage", "window=tumbling:5s", "--second-window", "tumbling:5s"], "give either --stage or --second-window"),
        (["--join", log, "--function", "values"], "--function"),
    ]:
        assert main(["replay", log, *args]) == 2, args
        err = capsys.readouterr().err
        assert words in err, (args, err)
