"""``replay([left, right], two_input="interval:LOWER/UPPER")`` and ``--interval-join LOG2
--between=LOWER/UPPER``: Flink's interval join through the two-input valve, checked against
real Flink 2.3 on the interleavings the replays exported (tests/fixtures/interval_join/ijr*:
replay_cases.py wrote the logs and scenarios, run.sh the real outputs)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.cli import main
from toolkit.settings import SettingError

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "interval_join"
REPLAYS = sorted(p.name.split(".")[0] for p in FIX.glob("ijr*.settings.json"))


def _replay(case: str):
    settings = json.loads((FIX / f"{case}.settings.json").read_text())
    logs = [toolkit.load_log(FIX / f"{case}.left.csv"), toolkit.load_log(FIX / f"{case}.right.csv")]
    return toolkit.replay(logs, **settings), settings


def _lines(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.mark.parametrize("case", REPLAYS)
def test_replay_matches_real_flink_on_its_interleaving(case):
    r, _ = _replay(case)
    lines = r.scenario_lines()
    scen = (FIX / f"{case}.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines[1:] == scen[1:]                      # the interleaving Flink was given
    want = _lines(FIX / f"{case}.out.jsonl")
    joins = [(w["key"], w["left_ts"], w["right_ts"], w["timestamp"], w["left"], w["right"]) for w in want
             if w["kind"] == "join"]
    em = r.emissions
    assert list(zip(em["key"], em["left_ts"], em["right_ts"], em["timestamp"], em["left_value"], em["right_value"])) == joins
    late = [(w["input"], w["key"], w["ts"], w["value"]) for w in want if w["kind"] == "late"]
    assert list(zip(r.late["input"], r.late["key"], r.late["event_time"], r.late["value"])) == late
    s = r.summary()
    assert s["pairs"] == len(joins) and s["dropped"] == len(late) == s["left_late"] + s["right_late"]
    assert s["on_time"] + s["dropped"] == s["records"]
    f = r.fates
    assert (f.loc[f["fate"] == "dropped", "reason"] == "late").all()
    assert int(f["pairs"].sum()) == 2 * len(joins)


def test_some_replays_have_late_records_and_pairs():
    got = {c: _replay(c)[0].summary() for c in REPLAYS}
    assert len(got) >= 5
    assert sum(s["dropped"] for s in got.values()) > 20 and sum(s["pairs"] for s in got.values()) > 100


def test_the_operator_watermark_is_the_min_of_the_inputs():
    r, _ = _replay("ijr03")
    w = r.watermarks
    cur = {1: None, 2: None}
    op = None
    for lvl, i, wm in zip(w["level"], w["id"], w["watermark"]):
        if lvl.startswith("input") and wm is not pd.NA:
            cur[int(i)] = int(wm)
        elif lvl == "operator" and wm < np.iinfo(np.int64).max:
            assert None not in cur.values() and int(wm) == min(cur.values())
            assert op is None or int(wm) > op
            op = int(wm)


def test_cli(tmp_path, capsys):
    args = ["replay", str(FIX / "ijr02.left.csv"), "--interval-join", str(FIX / "ijr02.right.csv"),
            "--between=0ms/2s", "--delay", "0ms", "--interval", "500ms"]
    assert main(args + ["--out", str(tmp_path / "o")]) == 0
    text = capsys.readouterr().out
    assert "interval join: 45 joined pairs" in text and "late records skipped" in text
    em = pd.read_csv(tmp_path / "o" / "emissions.csv")
    assert len(em) == 45 and {"left_ts", "right_ts", "left_row", "right_row"} <= set(em.columns)
    assert main(args + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["pairs"] == 45
    assert main(["replay", str(FIX / "ijr02.left.csv"), "--interval-join", str(FIX / "ijr02.right.csv"),
                 "--between=2s/0s"]) != 0
    assert "--between" in capsys.readouterr().err
    assert main(["replay", str(FIX / "ijr02.left.csv"), "--interval-join", str(FIX / "ijr02.right.csv")]) != 0
    assert "--between" in capsys.readouterr().err


def test_explain_says_what_to_read_instead():
    r, _ = _replay("ijr05")
    with pytest.raises(SettingError, match="result.late"):
        r.explain(0)


def test_bad_settings_name_themselves():
    logs = [toolkit.load_log(FIX / "ijr01.left.csv"), toolkit.load_log(FIX / "ijr01.right.csv")]
    with pytest.raises(SettingError, match="two_input"):
        toolkit.replay(logs, two_input="interval:5s")
    with pytest.raises(SettingError, match="lateness"):
        toolkit.replay(logs, two_input="interval:-1s/1s", lateness="1s")
    with pytest.raises(SettingError, match="interval"):
        toolkit.replay(logs, two_input="interval:-1s/1s", interval=0)
    with pytest.raises(SettingError, match="exactly two logs") as e:
        toolkit.replay(logs + logs[:1], two_input="interval:-1s/1s")
    assert e.value.setting == "two_input"
