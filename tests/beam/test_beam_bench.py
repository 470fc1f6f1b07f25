"""``python -m toolkit bench beam``: its plumbing at a tiny size (not a timed test). The log as a
Beam scenario gives the same panes as ``toolkit.replay``; real Beam is faked (the oracle's
virtualenv is not part of the suite): missing, equal panes, different panes."""
from __future__ import annotations

import pytest

import toolkit
from toolkit.bench import beam as bench
from toolkit.cli import main
from toolkit.engine.beam import run_scenario
from toolkit.log.synth import generate
from toolkit.settings import Setting


@pytest.fixture(scope="module")
def log():
    return generate("sample", 150, seed=5)


@pytest.mark.parametrize("name", list(bench.CASES))
def test_the_log_as_a_scenario_gives_the_replays_panes(log, name):
    s = Setting.parse(semantics="beam", **bench.CASES[name])
    case = bench.scenario(log, s)
    elements = [e["element"] for e in case["events"] if "element" in e]
    assert len(elements) == log.n_records and sorted(e["value"] for e in elements) == list(range(log.n_records))
    wms = [e["watermark"] for e in case["events"] if "watermark" in e]
    assert wms == sorted(set(wms))  # TestStream: strictly increasing
    assert not any("processing_time_advance" in e for e in case["events"])  # no processing-time trigger
    panes, stalled, _ = run_scenario(case)
    assert panes and bench.same_panes(toolkit.replay(log, s), panes)
    assert not bench.same_panes(toolkit.replay(log, s.replace(delay=0)), panes) or name == "sessions"


def test_a_processing_time_trigger_advances_the_clock_to_each_arrival(log):
    s = Setting.parse(semantics="beam", window="tumbling:1s", delay="500ms",
                      beam_trigger="after_watermark(early=after_processing_time:1s)")
    case = bench.scenario(log, s)
    advances = [e["processing_time_advance"] for e in case["events"] if "processing_time_advance" in e]
    arrival = log.table["arrival_time"]
    assert advances[0] == int(arrival.min()) and sum(advances) >= int(arrival.max())  # the clock starts at 0
    panes, _, _ = run_scenario(case)
    assert bench.same_panes(toolkit.replay(log, s), panes)


def test_without_beams_virtualenv_it_says_so_and_prints_ours(monkeypatch, capsys):
    monkeypatch.setattr(bench, "beam_python", lambda: (None, "the Beam oracle's virtualenv is missing (here)"))
    assert main(["bench", "beam", "--records", "80", "--only", "default"]) == 0
    out = capsys.readouterr().out
    assert "80 records" in out and "load average" in out and "not run: the Beam oracle's virtualenv is missing" in out
    assert "toolkit.replay" in out and "records/cpu-s" in out and "real Beam /" not in out


def test_with_beam_it_prints_the_ratio_and_whether_the_panes_are_equal(monkeypatch, capsys):
    monkeypatch.setattr(bench, "beam_python", lambda: ("python-of-beam", "apache-beam (fake)"))
    answers = {}

    def fake(python, cases):  # real Beam's answer: ours, or ours with one pane changed
        out = []
        for c in cases:
            panes, stalled, _ = run_scenario(c)
            if answers.get("tamper"):
                panes[0] = dict(panes[0], count=panes[0]["count"] + 1)
            out.append({"panes": panes, "stalled": stalled, "wall": 2.0, "cpu": 1.0})
        return out

    monkeypatch.setattr(bench, "_run_beam", fake)
    assert main(["bench", "beam", "--records", "80", "--only", "default,sessions"]) == 0
    out = capsys.readouterr().out
    assert out.count("panes equal") == 2 and "real Beam / ours" in out and "x cpu" in out
    answers["tamper"] = True
    assert main(["bench", "beam", "--records", "80", "--only", "early_late"]) == 1
    got = capsys.readouterr()
    assert "panes DIFFER" in got.out and "conformance bug" in got.err


@pytest.mark.parametrize("argv, message", [(["--records", "50", "--only", "sessoins"], "--only sessoins"),
                                           (["--records", "0"], "--records must be >= 1")])
def test_bad_options_are_refused_naming_the_option(argv, message, capsys):
    assert main(["bench", "beam", *argv, "--no-beam"]) == 2
    assert message in capsys.readouterr().err


def test_no_beam_times_ours_alone(monkeypatch, capsys):
    monkeypatch.setattr(bench, "beam_python", lambda: pytest.fail("--no-beam must not look for real Beam"))
    assert main(["bench", "beam", "--records", "60", "--only", "sessions", "--no-beam"]) == 0
    assert "real Beam: not run: --no-beam; ours alone" in capsys.readouterr().out


def test_the_fast_case_prints_record_configurations_per_cpu_second_beside_the_replays(capsys):
    assert main(["bench", "beam", "--records", "300", "--only", "fast"]) == 0
    out = capsys.readouterr().out
    assert "fast: the fast path against the replay, 8 sweep rows x 300 records" in out
    assert "record-configurations per CPU-second (evaluation)" in out and "paths fast)" in out
    assert "replay (path='engine') on 8 of the rows" in out and "figures equal" in out
    assert "real Beam" not in out  # the fast cases do not ask real Beam


def test_a_fast_row_that_differs_from_the_replay_fails_the_benchmark(monkeypatch, capsys):
    from toolkit.semantics.beam import fast

    real = fast.partial

    def off_by_one(shard, setting, timeline):
        part = real(shard, setting, timeline)
        part["scalars"]["firings"] += 1
        return part

    monkeypatch.setattr(fast, "partial", off_by_one)
    assert main(["bench", "beam", "--records", "200", "--only", "fast"]) == 1
    assert "figures DIFFER" in capsys.readouterr().out


def test_the_year_case_is_a_year_like_log():
    assert bench.YEAR == dict(records=330_000, keys=16, partitions=3)
    rows = bench.fast_configs("fast_year")
    assert len(rows) == 8 and {str(r.window) for r in rows} == {"tumbling:1h", "sliding:1h/15min"}
    from toolkit.semantics.beam.fast import fast_applies

    assert all(fast_applies(r) for r in rows)
