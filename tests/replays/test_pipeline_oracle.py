"""N-stage pipelines, unions and joins emit, stage by stage, exactly what real Flink emits.

Each ``tests/fixtures/pipeline`` case (made by ``gen_pipelines.py`` there): one log (a chain
of 3-4 windowed stages) or two (a union, or a windowed join, then more stages); every
stage's exported interleaving ``NAME.sK.jsonl`` and real Flink's window-operator output for
it ``NAME.sK.out.jsonl``; for two logs, what the first operator's watermark valve received
(``valve/NAME.jsonl``) and real Flink's ``StatusWatermarkValve`` output for it.
"""
from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from toolkit.log import load_log
from toolkit.replays import replay
from toolkit.semantics.flink.export import join_counts, oracle_lines, valve_lines, valve_outputs

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "pipeline"
CASES = sorted(p.name[: -len(".settings.json")] for p in FIX.glob("*.settings.json"))


def _load(case: str):
    settings = json.loads((FIX / f"{case}.settings.json").read_text())
    log = load_log(FIX / f"{case}.csv")
    if (FIX / f"{case}.b.csv").exists():
        log = [log, load_log(FIX / f"{case}.b.csv")]
    return settings, log


def _per_key(lines: list[dict]) -> dict:
    g: dict = collections.defaultdict(list)
    for line in lines:
        g[line["key"]].append(json.dumps(line, sort_keys=True))
    return dict(g)


def _expected(path: Path, join: bool) -> list[dict]:
    out = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        d = json.loads(line)
        if join and d["kind"] == "fire":  # the join's export writes 2 * value + side
            d.update(join_counts(d["values"]))
            d["values"] = None
        elif join and d["kind"] == "late":
            d["value"] = d["value"] >> 1
        out.append(d)
    return out


def test_enough_cases() -> None:
    stages = {c: len(json.loads((FIX / f"{c}.settings.json").read_text())["stages"]) + 1 for c in CASES}
    assert len(CASES) >= 20 and min(stages.values()) >= 3
    assert sum(c.startswith("union") for c in CASES) >= 5 and sum(c.startswith("join") for c in CASES) >= 5


@pytest.mark.parametrize("case", CASES)
def test_every_stage_matches_flink(case: str) -> None:
    settings, log = _load(case)
    result = replay(log, **settings)
    n = len(result.pipeline)
    assert n == len(settings["stages"]) + 1 == len(list(FIX.glob(f"{case}.s?.jsonl")))
    join = settings.get("two_input") == "join"
    for k in range(1, n + 1):
        # the interleaving stage k saw is the one Flink was given
        assert result.scenario_lines(k) == (FIX / f"{case}.s{k}.jsonl").read_text().splitlines(), f"stage {k}"
        expected = _expected(FIX / f"{case}.s{k}.out.jsonl", join and k == 1)
        assert _per_key(oracle_lines(result, k)) == _per_key(expected), f"stage {k}"
    # stage k + 1's input watermarks are stage k's output watermarks
    st = result.stages
    for k in range(1, n):
        out = st[(st.stage == k) & (st.side == "output")]["watermark"].tolist()
        assert out == st[(st.stage == k + 1) & (st.side == "input")]["watermark"].tolist()


@pytest.mark.parametrize("case", [c for c in CASES if (FIX / "valve" / f"{c}.jsonl").exists()])
def test_union_watermark_is_flinks_valve(case: str) -> None:
    settings, log = _load(case)
    result = replay(log, **settings)
    assert valve_lines(result) == (FIX / "valve" / f"{case}.jsonl").read_text().splitlines()
    flink = []
    for line in (FIX / "valve" / f"{case}.out.jsonl").read_text().splitlines():
        d = json.loads(line)
        flink.append(("watermark", d["ts"]) if d["type"] == "watermark" else ("status", d["status"]))
    assert valve_outputs(result) == flink
    # the channels are every subtask of both logs
    p = int(settings.get("parallelism", 1))
    assert result.setting.source_parallelism == 2 * p


@pytest.mark.parametrize("case", CASES)
def test_fates_add_up_per_stage(case: str) -> None:
    settings, log = _load(case)
    result = replay(log, **settings)
    records = sum(len(lg.table) for lg in (log if isinstance(log, list) else [log]))
    assert len(result.pipeline[0].fates) == records
    for k, st in enumerate(result.pipeline[1:], start=2):
        d = st.summary()
        assert d["on_time"] + d["late_accepted"] + d["dropped"] == d["elements"]
        # a stage's elements are the previous stage's firings
        assert d["elements"] == result.pipeline[k - 2].summary()["firings"]
