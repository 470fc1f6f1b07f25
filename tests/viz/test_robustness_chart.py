"""The setting x incident heatmaps (``toolkit.viz.robustness``) and the report's section "How the
recommended setting holds up", from the API and the command line (issue 26, item 5)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import toolkit
from toolkit.cli import main
from toolkit.incidents import stall

ROOT = Path(__file__).resolve().parents[2]
STALL = stall(partition=2, at="1min", duration="2min", drain="200/s")
RESTART = "restart:at=3min,downtime=10s,replay_from=1min,source_rate=1000/s"


@pytest.fixture(scope="module")
def log():
    return toolkit.load_log(ROOT / "data" / "sample.csv", max_invalid_fraction=0.01)


@pytest.fixture(scope="module")
def results(log):
    return toolkit.sweep(log, window="tumbling:1s", delay=["250ms", "1s", "2s"], lateness=["0", "1s"],
                         incidents=[None, STALL, RESTART], progress=False)


def test_one_heatmap_per_metric_a_row_per_log_and_the_recommendation_outlined(results):
    rec = toolkit.recommend(results, completeness=0.99, robust=0.95)
    spec = toolkit.viz.robustness(results, recommendation=rec).to_dict()
    assert [p["title"]["text"] for p in spec["vconcat"]] == ["first-result completeness", "p99 result latency"]
    data = pd.concat([pd.DataFrame(v) for v in spec["datasets"].values()], ignore_index=True)  # one per panel
    assert list(dict.fromkeys(data["incident_text"].str.split("\n").str[0])) == [
        "recorded log", "partition 2 stalled at 0:01:00 for 2 min, drained at 200", "the job restarted at 0:03:00 "
        "after 10 s down, re-reading"]
    assert len(data) == 2 * len(results)  # every (setting, log) cell of both metrics
    chosen = data[data["chosen"]]
    assert set(chosen["setting"]) == {f"delay {toolkit.viz.sweep.value_text('delay_ms', rec['row']['delay_ms'])}, "
                                      f"allowed lateness {toolkit.viz.sweep.value_text('lateness_ms', rec['row']['lateness_ms'])}"}
    assert len(chosen) == 2 * 3  # its column in both panels, on the three logs
    cell = data[(data["metric"] == "completeness_first") & (data["incident_text"] == "recorded log")]
    assert cell["fill"].nunique() > 1  # coloured by value within a row


def test_a_sweep_without_incidents_is_refused_in_words(log):
    plain = toolkit.sweep(log, window="tumbling:1s", delay=["1s"], progress=False)
    with pytest.raises(ValueError, match="incidents=\\[None"):
        toolkit.viz.robustness(plain)


def test_the_report_shows_how_the_recommended_setting_holds_up(log, results, tmp_path):
    from toolkit.reports.report import build

    ctx = build(log, sweep=results)
    section = next(s for s in ctx["sections"] if s["anchor"] == "incidents")
    assert section["title"] == "How the recommended setting holds up"
    assert "at least 95% of the incident variants" in section["text"] and "when the job restarted" in section["text"]
    assert all(s["anchor"] != "incidents" for s in build(log, sweep=results[results["incident"] == "recorded log"])
               ["sections"])
    path = toolkit.report(log, out=tmp_path / "r.html", grid=dict(delay=["1s", "2s"], lateness=["0"]),
                          incidents=[STALL], robust=1.0)
    assert 'id="incidents"' in path.read_text()


def test_cli_report_takes_incidents_and_robust(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", str(ROOT / "data" / "sample.csv"), "--max-invalid-fraction", "0.01", "--delay", "1s,2s",
                 "--lateness", "0", "--incident", str(STALL), "--robust", "1", "--out", str(out), "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "incident variant" in said and 'id="incidents"' in out.read_text()
    assert main(["report", str(ROOT / "data" / "sample.csv"), "--incident", "stal:partition=2", "--out", str(out)]) == 2
    assert "--incident 'stal:partition=2'" in capsys.readouterr().err
