"""Beam's own trigger transcripts (apache_beam/testing/data/trigger_transcripts.yaml, copied
into tests/fixtures/beam/trigger_transcripts.json by ``oracles/beam/beam_oracle.py
transcripts``) replayed through toolkit.engine.beam the way Beam's
``TestStreamTranscriptTest`` replays them: each ``input`` is one bundle per key, the outputs
produced since the previous ``expect`` must match it (same count; every output matches an
expected pane on the fields the transcript gives), nothing may be left unexpected before the
next action; outputs at the final advance to the end of time are not checked. Windows are
``[start, max timestamp]`` and times whole transcript units (1 unit = 1 ms here, 1 s in
Beam: the granularity is far below both, so the rules are the same).

Order-agnostic transcripts (default trigger, accumulating) also run reversed, one element
per bundle and two per bundle, as Beam does. The negative transcripts (``error:``) must be
rejected with the message Beam's checker gives. Transcripts outside the model are listed in
the fixture with the reason (``outside``) and asserted to be exactly those.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.engine.beam.driver import ACCUMULATING
from toolkit.engine.beam.pane import EARLY, LATE
from toolkit.engine.beam.runner import GroupByKeyStep
from toolkit.engine.beam.scenario import BeamScenario

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "beam" / "trigger_transcripts.json"
TRANSCRIPTS = json.loads(FIXTURE.read_text())["transcripts"]
RUNNABLE = [t for t in TRANSCRIPTS if "spec" in t]
UNIT = 1000  # ticks (µs) per transcript unit (ms)


class TranscriptMismatch(AssertionError):
    pass


def _info(p) -> dict:
    return {"window": [p.window_start // UNIT, (p.window_end - 1) // UNIT],
            "values": sorted(p.values), "timestamp": p.timestamp // UNIT,
            "index": p.pane.index, "nonspeculative_index": p.pane.nonspeculative_index,
            "early": p.pane.timing == EARLY, "late": p.pane.timing == LATE, "final": p.pane.is_last}


def _check(actual: list[dict], expected: list[dict], key: str) -> None:
    """Beam's ``_windowed_value_info_check``."""
    if len(actual) > len(expected):
        raise TranscriptMismatch(f"Unexpected output for {key}: expected {expected} but got {actual}")
    if len(expected) > len(actual):
        raise TranscriptMismatch(f"Unmatched output for {key}: expected {expected} but got {actual}")
    for out in actual:
        if not any(all(out[k] == exp[k] for k in exp if k in out) for exp in expected):
            raise TranscriptMismatch(f"Unmatched output for {key}: {out} not found in {expected}")


def _bundlings(t: dict) -> dict:
    spec = t["spec"]
    agnostic = spec["trigger"]["type"] == "default" and spec["accumulation"] == ACCUMULATING
    if not agnostic:
        return {"key1": lambda vs: [vs]}
    return {"original": lambda vs: [vs], "reversed": lambda vs: [vs[::-1]],
            "one-element-bundles": lambda vs: [[v] for v in vs],
            "one-element-bundles-reversed": lambda vs: [[v] for v in vs[::-1]],
            "two-element-bundles": lambda vs: [vs[i:i + 2] for i in range(0, len(vs), 2)]}


def replay(t: dict) -> None:
    """Replay one transcript; raises TranscriptMismatch as Beam's checker would."""
    sc = BeamScenario.from_dict({**t["spec"], "events": []})
    for key, bundling in _bundlings(t).items():
        step = GroupByKeyStep(sc.windowing)
        pending: list = []
        for action in t["transcript"]:
            (kind, params), = action.items()
            if kind == "expect":
                _check([_info(p) for p in pending], params, key)
                pending = []
                continue
            _check([_info(p) for p in pending], [], key)
            if kind == "input":
                for b in bundling(list(params)):
                    pending += step.bundle(key, [(v, v * UNIT) for v in b])
            elif kind == "watermark":
                pending += step.advance_watermark(params * UNIT)
            elif kind == "clock":
                pending += step.advance_processing_time(params * UNIT)
            elif kind != "state":  # state: implementation details, skipped by Beam too
                raise ValueError(f"unknown transcript action {kind}")
        _check([_info(p) for p in pending], [], key)


def test_transcripts_outside_the_model_are_the_known_ones():
    outside = {t["fixture_name"] for t in TRANSCRIPTS if "spec" not in t}
    assert outside == {"timestamp_combiner_custom_timestamping_earliest_2",  # OUTPUT_AT_EARLIEST_TRANSFORMED
                       "bad_output"}  # no window_fn: GlobalWindows


@pytest.mark.parametrize("t", [t for t in RUNNABLE if "error" not in t],
                         ids=[t["fixture_name"] for t in RUNNABLE if "error" not in t])
def test_trigger_transcript(t):
    replay(t)


@pytest.mark.parametrize("t", [t for t in RUNNABLE if "error" in t],
                         ids=[t["fixture_name"] for t in RUNNABLE if "error" in t])
def test_trigger_transcript_rejected(t):
    with pytest.raises(TranscriptMismatch, match=t["error"]):
        replay(t)
