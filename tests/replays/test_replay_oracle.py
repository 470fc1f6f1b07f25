"""Replays of generated logs emit exactly what real Flink emits for the exported interleaving.

Each ``tests/fixtures/replay/logNN`` case: a CSV log (several partitions, one silent for a
while), the replay settings, the record/watermark interleaving the replay exported
(``logNN.jsonl``) and real Flink's window-operator output for it (``logNN.out.jsonl``).
"""
from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from toolkit.log import load_log
from toolkit.replays import replay
from toolkit.semantics.flink.export import oracle_lines

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "replay"
CASES = sorted(p.stem for p in FIX.glob("log*.csv"))


def _per_key(lines: list[dict], unordered: bool) -> dict:
    g: dict = collections.defaultdict(list)
    for line in lines:
        line = dict(line)
        g[line["key"]].append(json.dumps(line, sort_keys=True))
    return dict(g)


def test_enough_cases() -> None:
    assert len(CASES) >= 10
    parts = [len(set(load_log(FIX / f"{c}.csv").table["partition"])) for c in CASES]
    assert min(parts) >= 2


@pytest.mark.parametrize("case", CASES)
def test_replay_matches_flink_window_oracle(case: str) -> None:
    settings = json.loads((FIX / f"{case}.settings.json").read_text())
    result = replay(load_log(FIX / f"{case}.csv"), **settings)
    # the interleaving is the one Flink was given
    assert result.scenario_lines() == (FIX / f"{case}.jsonl").read_text().splitlines()
    expected = [json.loads(l) for l in (FIX / f"{case}.out.jsonl").read_text().splitlines() if l.strip()]
    assert expected, "oracle output is empty"
    unordered = "session" in settings["window"]
    assert _per_key(oracle_lines(result), unordered) == _per_key(expected, unordered)
    # every input record has exactly one fate
    assert len(result.fates) == len(result.fates["row"].unique()) == len(load_log(FIX / f"{case}.csv").table)


MS_CASES = sorted(p.stem for p in FIX.glob("ms*.csv"))


@pytest.mark.parametrize("case", MS_CASES)
def test_multi_stage_matches_flink_for_both_stages(case: str) -> None:
    settings = json.loads((FIX / f"{case}.settings.json").read_text())
    result = replay(load_log(FIX / f"{case}.csv"), **settings)
    for stage, stem in ((1, case), (2, f"{case}.s2")):
        assert result.scenario_lines(stage) == (FIX / f"{stem}.jsonl").read_text().splitlines()
        expected = [json.loads(l) for l in (FIX / f"{stem}.out.jsonl").read_text().splitlines() if l.strip()]
        assert expected
        assert _per_key(oracle_lines(result, stage), False) == _per_key(expected, False)
    # stage 2 input watermarks are stage 1's output watermarks
    st = result.stages
    assert st[(st.stage == 1) & (st.side == "output")]["watermark"].tolist() == st[(st.stage == 2) & (st.side == "input")]["watermark"].tolist()
