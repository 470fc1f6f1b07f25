"""The Flink SQL simulator (``toolkit.engine.flink_sql``) against real Flink SQL 2.3: every
scenario in tests/fixtures/flink_sql (oracles/flink_sql: generate_cases.py, flink_sql_oracle.py)
must give the same source watermarks (with the step that emitted them), the same rows and
watermarks at the sink in the same order (rows fired by one watermark: as a multiset, Flink
orders ties across keys by its timer heap) and the same late-record counters."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.engine.flink_sql import WindowAggregate, run, simulate, source_steps, window_spec

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "flink_sql"
CASES = sorted(p.name[: -len(".jsonl")] for p in FIX.glob("*.jsonl") if not p.name.endswith(".out.jsonl"))


def _lines(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]


def _normal(lines: list[dict]) -> list:
    """Rows between two sink watermarks sorted (window end, key, start); the rest as is."""
    out: list = []
    span: list[dict] = []
    for line in lines:
        if line["kind"] == "row":
            span.append(line)
            continue
        out += sorted(span, key=lambda r: (r["window_end"], r["k"], r["window_start"]))
        span = []
        out.append(line)
    return out + span


def test_the_corpus_is_there():
    assert len(CASES) >= 300
    assert all((FIX / f"{c}.out.jsonl").exists() for c in CASES)


@pytest.mark.parametrize("case", CASES)
def test_flink_sql_matches_real_flink(case):
    head, *steps = _lines(FIX / f"{case}.jsonl")
    want = [x for x in _lines(FIX / f"{case}.out.jsonl") if x["kind"] != "plan"]
    if want[0]["kind"] == "error":  # Flink refused the query: so must the simulator, for the same option
        with pytest.raises(ValueError) as refused:
            run(head, steps)
        named = [o for o in head["options"] if o in want[0]["message"]]
        assert all(o in str(refused.value) for o in named)
        assert named or want[0]["message"].rstrip(".") in str(refused.value)
        return
    assert _normal(run(head, steps)) == _normal(want)


def _refused(case: str) -> bool:
    return _lines(FIX / f"{case}.out.jsonl")[0]["kind"] == "error"


@pytest.mark.parametrize("case", [c for c in CASES if not _refused(c)])
def test_record_fates_match_what_flink_counted(case):
    """Values are 2**index: the records real Flink counted in some row (the bits of the totals)
    are exactly the ones the simulator keeps, except those still in windows that never fired
    (an idle source at the end: no final watermark)."""
    head, *steps = _lines(FIX / f"{case}.jsonl")
    want = _lines(FIX / f"{case}.out.jsonl")
    counted = 0
    for line in want:
        if line["kind"] == "row" and line["op"] != "-U":
            counted |= line["total"]
    sim = simulate(head, steps)
    kept = {f["index"] for f in sim.fates if f["fate"] == "kept"}
    in_rows = {i for i in range(len(sim.fates)) if counted >> i & 1}
    assert in_rows <= kept
    never_fired = kept - in_rows
    assert not never_fired or not any(x.get("ts") == MAX for x in want if x["kind"] == "watermark")


def test_emitted_rows_say_when_and_why():
    """l02 (legacy TUMBLE 10 s, early and late firing on every record, lateness 5 s): the first
    row is fired by record 0 at its arrival; [0, 10000) reaches the watermark unchanged and
    emits nothing then; the late record 3 (9000) re-fires it at its arrival; the last row is
    record 7's early firing, so the end of input, finding nothing changed, emits nothing.
    h13 (HOP at the end of input): the final watermark's rows have no time."""
    head, *steps = _lines(FIX / "l02_legacy_early_late.jsonl")
    sim = simulate(head, steps)
    assert [r["op"] for r in sim.emitted if r["end"] == 10_000 and r["key"] == "a"] == ["+I", "-U", "+U", "-U", "+U"]
    first = sim.emitted[0]
    assert (first["cause"], first["time"], first["indices"]) == ("record", 1000, [0])
    late = [r for r in sim.emitted if r["op"] == "+U" and 3 in r["indices"] and r["end"] == 10_000][0]
    assert (late["cause"], late["time"]) == ("record", 1500)
    assert (sim.emitted[-1]["cause"], sim.emitted[-1]["time"], max(sim.emitted[-1]["indices"])) == ("record", 2100, 7)
    assert not [r for r in sim.emitted if r["cause"] == "end_of_input"]
    assert [r["total"] for r in sim.emitted] == [x["total"] for x in sim.lines if x["kind"] == "row"]
    head, *steps = _lines(FIX / "h13_end_of_input.jsonl")
    causes = [(r["cause"], r["time"]) for r in simulate(head, steps).emitted]
    assert causes[0] == ("watermark", 1400) and causes[-1] == ("end_of_input", None)


def test_steps_are_the_corpus_steps():
    """source_steps (the replay's rule) rebuilds every committed scenario's steps from its records."""
    for case in CASES:
        head, *steps = _lines(FIX / f"{case}.jsonl")
        records = [s["record"] for s in steps if "record" in s]
        assert source_steps(records, head["case"]["interval"], head["case"].get("end")) == steps, case


def test_late_record_rules_by_hand():
    """HOP 10 s / 5 s at watermark 9999: a record at 7 s misses the fired [0, 10) but counts in
    [5, 15); at watermark 14999 a record at 7 s has no open window and is dropped."""
    op = WindowAggregate(window_spec({"kind": "hop", "size": 10_000, "slide": 5_000}))
    assert op.process("a", 1000, 1, 0)
    assert [(r.start, r.end) for r in op.advance(9999)] == [(-5000, 5000), (0, 10_000)]
    assert op.process("a", 7000, 2, 1)
    assert [(r.start, r.end, r.total) for r in op.advance(14_999)] == [(5000, 15_000, 2)]
    assert not op.process("a", 7000, 4, 2)


def test_session_merge_decides_lateness():
    """SESSION gap 3 s at watermark 8000: [5000, 8000) alone would be late, but it touches the
    open [8000, 11000) and merges; [4500, 7500) touches nothing and is dropped."""
    op = WindowAggregate(window_spec({"kind": "session", "gap": 3000}))
    assert op.process("a", 8000, 1, 0)
    op.advance(8000)
    assert not op.process("a", 4500, 2, 1)
    assert op.process("a", 5000, 4, 2)
    assert [(r.start, r.end, r.count) for r in op.advance(MAX)] == [(5000, 11_000, 2)]


MAX = 2**63 - 1


def test_bad_options_name_the_option():
    head, *steps = _lines(FIX / "l05_legacy_late_only.jsonl")
    head["options"]["table.exec.emit.late-fire.delay"] = "1 s"
    with pytest.raises(ValueError, match="table.exec.emit.late-fire.delay above 0"):
        run(head, steps)
    head["options"]["table.exec.emit.late-fire.delay"] = "soon"
    with pytest.raises(ValueError, match="table.exec.emit.late-fire.delay must be written"):
        run(head, steps)
    head, *steps = _lines(FIX / "h01_running_max.jsonl")
    head["options"]["table.exec.emit.early-fire.enabled"] = "true"
    head["options"]["table.exec.emit.early-fire.delay"] = "0 ms"
    with pytest.raises(ValueError, match="legacy group window"):
        run(head, steps)


def test_bad_steps_name_the_setting():
    with pytest.raises(ValueError, match="pipeline.auto-watermark-interval"):
        source_steps([{"arrival": 1}], -5)


def test_bad_window_names_the_field():
    with pytest.raises(ValueError, match="window kind"):
        window_spec({"kind": "slide"})
    with pytest.raises(ValueError, match="multiple of its slide"):
        window_spec({"kind": "hop", "size": 10, "slide": 3})
