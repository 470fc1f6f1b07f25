"""Watermark alignment against real Flink 2.3: every case under tests/fixtures/flink_alignment.

Each ``NAME.jsonl`` (written by ``oracles/flink_alignment/generate_cases.py``) was run by
``oracles/flink_alignment`` (Flink's own SourceOperator, SourceCoordinator and watermark
generators on a local MiniCluster, driven on a simulated clock); ``NAME.out.jsonl`` is what it
observed. The model (``toolkit.engine.flink.alignment``) must give the same reads (which record
when), pauses and resumes, announced maximal watermarks, source watermarks and finished splits,
in the same order.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from toolkit.engine.flink.alignment import WatermarkAlignment, aligned_reads
from toolkit.engine.flink.watermarks import BoundedOutOfOrderness

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "flink_alignment"
NAMES = sorted(p.name[: -len(".jsonl")] for p in CASES.glob("*.jsonl") if not p.name.endswith(".out.jsonl"))


def load(name: str) -> tuple[dict, list[dict], list[dict]]:
    lines = [json.loads(x) for x in (CASES / f"{name}.jsonl").read_text().splitlines() if x.strip()]
    out = [json.loads(x) for x in (CASES / f"{name}.out.jsonl").read_text().splitlines() if x.strip()]
    return lines[0], [x["record"] for x in lines[1:]], out


def model(head: dict, recs: list[dict]) -> list[tuple]:
    """The model's observations in the oracle's order and spelling (split ids as the scenario names them)."""
    names = head["splits"]
    ids = {p: i for i, p in enumerate(names)}
    arr = np.array([r["arrival"] for r in recs])
    res = aligned_reads(np.array([r["t"] for r in recs]), arr, np.array([ids[r["p"]] for r in recs]),
                        BoundedOutOfOrderness(head["delay"]), interval=head["interval"], parallelism=1,
                        alignment=WatermarkAlignment(head["drift"], head["update"], head["buffer"]),
                        partitions=range(len(names)))
    events = []
    for e in res.events:
        if e[0] == "pause_resume":
            events.append(("pause_resume", e[1], sorted(names[i] for i in e[2]), sorted(names[i] for i in e[3])))
        elif e[0] == "finished":
            events.append(("finished", e[1], names[e[2]]))
        else:
            events.append((e[0], e[1], e[3]))
    return [("read", int(t), i) for t, i in sorted(zip(res.read_time.tolist(), range(len(recs))))] + events


def observed(out: list[dict]) -> list[tuple]:
    reads = sorted(("read", o["at"], o["idx"]) for o in out if o["kind"] == "read")
    events = []
    for o in out:
        if o["kind"] == "pause_resume":
            events.append(("pause_resume", o["at"], o["pause"], o["resume"]))
        elif o["kind"] == "finished":
            events.append(("finished", o["at"], o["split"]))
        elif o["kind"] in ("max_desired", "watermark"):
            events.append((o["kind"], o["at"], o["ts"]))
    return reads + events


def test_the_corpus_is_there_and_pauses():
    assert len(NAMES) >= 20
    paused = [n for n in NAMES if any(o["kind"] == "pause_resume" for o in load(n)[2])]
    assert len(paused) >= 15  # most cases exercise split-level alignment
    assert not [n for n in NAMES if any(o["kind"] == "error" for o in load(n)[2])]


@pytest.mark.parametrize("name", NAMES)
def test_alignment_matches_real_flink(name):
    head, recs, out = load(name)
    assert model(head, recs) == observed(out)


def test_reads_keep_the_log_order_among_records_read_together():
    head, recs, out = load("a01_fast_slow_buffer1")
    in_order = [o["idx"] for o in out if o["kind"] == "read"]
    by_time = [i for _, _, i in sorted(("read", o["at"], o["idx"]) for o in out if o["kind"] == "read")]
    assert in_order == by_time
