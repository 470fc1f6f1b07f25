"""The interval join (``toolkit.engine.flink.join.IntervalJoinOperator`` behind the two-input valve)
against real Flink 2.3's ``IntervalJoinOperator`` on exact interleavings: the scenarios and
outputs in tests/fixtures/interval_join (generate.py, IntervalJoinOracle.java, run.sh)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.engine.flink.join import IntervalJoinOperator, JavaLongMap, run_interval_join

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "interval_join"
CASES = sorted(p.name[: -len(".jsonl")] for p in FIX.glob("*.jsonl") if not p.name.endswith(".out.jsonl"))


def _lines(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_there_are_enough_cases():
    assert len(CASES) >= 40
    assert all((FIX / f"{c}.out.jsonl").exists() for c in CASES)


@pytest.mark.parametrize("case", CASES)
def test_interval_join_matches_flink(case):
    head, *steps = _lines(FIX / f"{case}.jsonl")
    want = _lines(FIX / f"{case}.out.jsonl")
    assert run_interval_join(head, steps) == want


def test_rules_in_words():
    """Flink's rules, by hand: a record is late iff ts < the operator watermark; the bounds are
    inclusive unless said otherwise; the result's timestamp is the larger one."""
    op = IntervalJoinOperator(-2, 3)
    op.process_element(1, "a", 10, "L")
    op.process_element(2, "a", 13, "R1")   # 13 - 10 = 3: upper bound, inclusive
    op.process_element(2, "a", 7, "R2")    # -3: out of range
    got = op.drain()
    assert [(r.left, r.right, r.timestamp) for r in got] == [("L", "R1", 13)]
    op.process_watermark(9)
    op.process_element(2, "a", 8, "R3")    # 8 < 9: late
    (late,) = op.drain()
    assert late.kind == "late" and late.input == 2
    op.process_element(2, "a", 9, "R4")    # 9 == watermark: not late; 9 - 10 = -1 in range
    assert [(r.left, r.right) for r in op.drain()] == [("L", "R4")]
    ex = IntervalJoinOperator(-2, 3, lower_inclusive=False, upper_inclusive=False)
    ex.process_element(1, "a", 10, "L")
    for t in (8, 9, 12, 13):
        ex.process_element(2, "a", t, t)
    assert [r.right for r in ex.drain()] == [9, 12]
    with pytest.raises(ValueError, match="lower bound"):
        IntervalJoinOperator(5, 1)


def test_java_hashmap_order():
    """Checked against java.util.HashMap (Java 17) by hand: iteration by bucket, then insertion."""
    m = JavaLongMap()
    for k in [40, 9, 100, 5, -3, 1700000002083, 17, 33]:
        m.put(k, 1)
    assert [k for k, _ in m.entries()] == [17, 33, -3, 100, 5, 40, 9, 1700000002083]
    m = JavaLongMap()
    for k in list(range(0, 161, 16)) + [3]:   # 9 keys in bucket 0 of 16: treeifyBin resizes to 32
        m.put(k, 1)
    assert [k for k, _ in m.entries()] == [0, 32, 64, 96, 128, 160, 3, 16, 48, 80, 112, 144]
