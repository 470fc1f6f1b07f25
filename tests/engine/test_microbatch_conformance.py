"""Conformance: every Spark case under tests/fixtures/spark reproduces real Spark 4.3 exactly.

The cases (``NAME.jsonl``, made by ``generate.py`` there) and real Spark's outputs beside them
(``NAME.out.jsonl``, made by ``oracles/spark/spark_oracle.py``): per executed micro-batch its
trigger tick, watermark, input rows, ``numRowsDroppedByWatermark`` and the emitted rows (key,
window start/end, count, sum; in update mode every emission of every window). A case Spark
refused (update mode with sessions) must be refused by our configuration checks with the same
error class. The suite never needs Spark for these.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.engine.microbatch.cases import run_case, same_output

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "spark"
CASES = sorted(p for p in FIXTURES.glob("*.jsonl")
               if not p.name.endswith(".out.jsonl") and (FIXTURES / (p.name[:-6] + ".out.jsonl")).exists())


def _spark(case: Path) -> list[dict]:
    out = FIXTURES / (case.name[:-6] + ".out.jsonl")
    return [json.loads(s) for s in out.read_text().splitlines() if s.strip()]


def test_corpus_is_there():
    assert len(CASES) >= 100, f"only {len(CASES)} Spark cases with outputs under {FIXTURES}"
    kinds = {c.name.split("_")[0] for c in CASES}
    assert {"tumbling", "sliding", "session", "sessiongap"} <= kinds


@pytest.mark.parametrize("case", CASES, ids=[c.name[:-6] for c in CASES])
def test_case_reproduces_real_spark(case):
    diff = same_output(run_case(case), _spark(case))
    assert diff is None, f"{case.name}: {diff}"


def test_cases_the_docs_cite_are_in_the_corpus():
    """docs/spark_semantics.md backs each rule with fixture names: they must exist with Spark's output."""
    import re

    doc = (FIXTURES.parent.parent.parent / "docs" / "spark_semantics.md").read_text()
    names = {m for m in re.findall(r"`([a-z0-9]+(?:_[a-z0-9]+)+)`", doc)
             if re.match(r"(corner|tumbling3?|sliding6?|session(gap)?|complete|off(tumbling|sliding)(neg)?|sessiongapnull)_", m)
             and m != "session_window"}
    assert len(names) >= 20
    have = {c.name[:-6] for c in CASES}
    assert names <= have, f"cited but missing: {sorted(names - have)}"


PT = sorted(FIXTURES.glob("*.pt.jsonl"))


@pytest.mark.parametrize("run", PT, ids=[p.name[:-9] for p in PT])
def test_real_processing_time_run_reproduces(run):
    """``NAME.pt.jsonl``: a real ``trigger(processingTime=...)`` run of case NAME in wall time
    (``spark_oracle.py --processing-time``): the same batches as the engine, none more (complete
    mode: no no-data batch at the quiet ticks where append mode would run one)."""
    ours = run_case(FIXTURES / (run.name[:-9] + ".jsonl"))
    real = [json.loads(s) for s in run.read_text().splitlines() if s.strip()]
    fields = ("watermark", "input_rows", "rows_dropped_by_watermark", "rows")
    assert [[b[f] for f in fields] for b in ours] == [[b[f] for f in fields] for b in real]
