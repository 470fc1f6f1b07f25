"""Every committed real-Beam case (tests/fixtures/beam/corpus, produced by
oracles/beam/beam_oracle.py with apache-beam 2.77.0's BundleBasedDirectRunner) reproduces
exactly: per key, the same panes in the same order with the same window, PaneInfo (timing,
first/last, index, non-speculative index), output timestamp (µs) and values; and the same
verdict on whether the pipeline stalls (a watermark hold never released). Where real Beam fails
(``failed``: an element in no window, a fractional processing-time delay) the engine raises
``PipelineFailure`` with the same error, message and place. Elements the
engine drops never appear in the window they were dropped from."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.engine.beam import PipelineFailure, run_scenario

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "beam" / "corpus"
CASES = sorted(CORPUS.glob("*.json"))


def _per_key(panes: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for p in panes:
        out.setdefault(p["key"], []).append(p)
    return out


def test_corpus_is_a_few_hundred_cases():
    assert len(CASES) >= 650


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_beam_corpus_case(path: Path):
    case = json.loads(path.read_text())
    if "failed" in case:  # real Beam fails on this case: the engine fails the same way
        with pytest.raises(PipelineFailure) as err:
            run_scenario(case)
        assert err.value.failure.as_record() == {k: case["failed"][k] for k in ("error", "message", "where")}
        return
    panes, stalled, step = run_scenario(case)
    assert _per_key(panes) == _per_key(case["expected"])
    assert stalled == case["stalled"]
    # How drops are counted: Beam does not report them, so an element the engine drops from
    # a window (expired, or the window's trigger finished) must never appear in any pane of
    # that window in real Beam's output.
    seen = {(p["key"], tuple(p["window"]), v) for p in case["expected"] for v in p["values"]}
    for d in step.drops:
        assert (d.key, (d.window_start // 1000, d.window_end // 1000), d.value) not in seen

