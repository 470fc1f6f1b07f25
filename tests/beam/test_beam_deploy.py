"""``toolkit.deploy(setting, engine="beam")``: the Python SDK code that runs a Beam setting.

``tests/fixtures/beam/deploy_snippets.json`` holds what real Beam (apache-beam 2.77.0,
BundleBasedDirectRunner) emitted when the Beam oracle exec'd each printed snippet and ran a
TestStream through the ``windowing`` it defines (``oracles/beam/deploy_snippets.py`` and
``beam_oracle.py snippets``). Here, without Beam: the snippet is still exactly what
``toolkit.deploy`` prints for that setting, and the engine (``toolkit.engine.beam``) configured
from the setting gives the same panes, so the printed code configures what the replay modelled."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import toolkit
from toolkit.engine.beam import run_scenario
from toolkit.settings import Setting, SettingError

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "beam" / "deploy_snippets.json"
CASES = json.loads(FIXTURE.read_text())["cases"]


def _per_key(panes):
    out = {}
    for p in panes:
        out.setdefault(p["key"], []).append({k: p[k] for k in ("window", "timestamp_us", "timing", "is_first", "is_last",
                                                                "index", "nonspeculative_index", "values")})
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_deploy_snippet_run_by_real_beam(case):
    s = Setting.parse(case["setting"])
    assert toolkit.deploy(s, engine="beam").code == case["code"]  # the code Beam ran is what deploy prints
    panes, stalled, _ = run_scenario(case)
    assert _per_key(panes) == _per_key(case["expected"])
    assert stalled == case["stalled"]


def test_deploy_snippets_cover_the_settings_vocabulary():
    text = " ".join(c["code"] for c in CASES)
    for name in ("FixedWindows", "SlidingWindows", "Sessions", "AfterWatermark", "AfterProcessingTime", "AfterCount",
                 "Repeatedly", "AfterAny", "AfterEach", "DISCARDING", "ACCUMULATING", "OUTPUT_AT_EARLIEST",
                 "OUTPUT_AT_LATEST", "OUTPUT_AT_EOW", "offset="):
        assert name in text, name


def test_deploy_beam_code_is_python_and_names_the_watermark():
    d = toolkit.deploy(semantics="beam", window="sliding:10s/2500ms,1s", delay="2s", lateness="30s",
                       beam_trigger="orfinally(repeatedly(count:2),after_watermark)", accumulation="discarding")
    ast.parse(d.code)
    assert "window.SlidingWindows(10, 2.5, offset=1)" in d.code
    assert "trigger=OrFinally(Repeatedly(AfterCount(2)), AfterWatermark())" in d.code
    assert "allowed_lateness=30" in d.code and "AccumulationMode.DISCARDING" in d.code
    assert "TimestampedValue" in d.code and "max event time seen - 2 s" in d.code
    assert d.exact and d.language == "python"
    idle = toolkit.deploy(semantics="beam", idleness="5s")
    assert not idle.exact and "idleness" in idle.notes[0]
    assert toolkit.deploy(semantics="beam").engine == "beam"  # the default engine of a Beam setting
    with pytest.raises(SettingError):
        toolkit.deploy(semantics="beam", engine="flink")
