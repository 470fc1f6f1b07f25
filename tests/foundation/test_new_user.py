"""Tried as a new user would: a CSV whose columns are named ``ts, ingest, user, part, amount`` is
described, replayed, swept and reported from the command line and from Python, using only the
options the ``--help`` pages show."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.cli import build_parser, main

COLUMNS = ["--event-time", "ts", "--arrival-time", "ingest", "--key", "user", "--partition", "part", "--value", "amount"]
LOG_OPTIONS = ("--event-time", "--arrival-time", "--key", "--partition", "--value", "--time-unit", "--max-invalid-fraction")
SETTING_OPTIONS = ("--window", "--trigger", "--evictor", "--lateness", "--function", "--accumulation", "--strategy",
                   "--delay", "--interval", "--idleness", "--source-parallelism", "--partitions-as-sources")


@pytest.fixture(scope="module")
def csv(tmp_path_factory):
    rng = np.random.default_rng(3)
    n = 400
    ingest = 1_700_000_000_000 + np.sort(rng.integers(0, 60_000, n))
    frame = pd.DataFrame({"ts": ingest - rng.integers(0, 3_000, n), "ingest": ingest,
                          "user": rng.choice(["ann", "bob", "cy"], n), "part": rng.integers(0, 2, n),
                          "amount": rng.integers(1, 100, n)})
    path = tmp_path_factory.mktemp("newuser") / "clicks.csv"
    frame.to_csv(path, index=False)
    return path


def _help(command: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices[command].format_help()


@pytest.mark.parametrize("command", ["describe", "replay", "sweep", "report"])
def test_help_pages_show_the_options(command):
    text = _help(command)
    missing = [o for o in LOG_OPTIONS if o not in text]
    if command != "describe":
        missing += [o for o in SETTING_OPTIONS if o not in text]
    assert not missing, f"{command} --help lacks {missing}"
    for old in ("--generator", "--parallelism ", "accumulating_and_retracting", "bounded_out_of_orderness"):
        assert old not in text, f"{command} --help shows the old spelling {old}"


def test_from_the_command_line(csv, tmp_path, capsys):
    assert main(["describe", str(csv), *COLUMNS]) == 0
    text = capsys.readouterr().out
    assert "400" in text and "ann" in text
    assert main(["replay", str(csv), *COLUMNS, "--window", "tumbling:5s", "--delay", "1s", "--lateness", "2s", "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["records"] == 400 and replayed["on_time"] + replayed["late_accepted"] + replayed["dropped"] == 400
    out = tmp_path / "results.csv"
    assert main(["sweep", str(csv), *COLUMNS, "--window", "tumbling:5s", "--delay", "0,1s,2s", "--lateness", "0,2s",
                 "--out", str(out), "--no-progress"]) == 0
    results = pd.read_csv(out)
    assert len(results) == 6
    row = results[(results["delay_ms"] == 1000) & (results["lateness_ms"] == 2000)].iloc[0]
    assert row["dropped"] == replayed["dropped"] and row["completeness_first"] == pytest.approx(replayed["completeness_first"])
    html = tmp_path / "report.html"
    assert main(["report", str(csv), *COLUMNS, "--window", "tumbling:5s", "--delay", "0,1s", "--out", str(html)]) == 0
    assert "clicks" in html.read_text(encoding="utf-8")


def test_from_python(csv, tmp_path):
    log = toolkit.load_log(str(csv), event_time="ts", arrival_time="ingest", key="user", partition="part", value="amount")
    assert log.describe().to_dict()
    r = toolkit.replay(log, window="tumbling:5s", delay="1s", lateness="2s")
    results = toolkit.sweep(log, window="tumbling:5s", delay=["0", "1s", "2s"], lateness=["0", "2s"])
    row = results[(results["delay_ms"] == 1000) & (results["lateness_ms"] == 2000)].iloc[0]
    assert r.summary()["dropped"] == row["dropped"]
    rec = toolkit.recommend(results, completeness=0.5)
    again = toolkit.replay(log, rec["setting"])
    assert again.summary()["latency_p99_ms"] == rec["row"]["latency_p99_ms"]
    path = toolkit.report(log, sweep=results, replay=r, out=tmp_path / "r.html")
    assert path.stat().st_size > 0


def test_unmapped_columns_are_named_not_ignored(csv, capsys):
    assert main(["describe", str(csv), "--event-time", "ts"]) == 0
    assert "columns not used: ingest, user, part, amount" in capsys.readouterr().out
    assert main(["replay", str(csv), "--event-time", "ts", "--arrival-time", "ingest"]) == 0
    assert "note: columns not used: user, part, amount" in capsys.readouterr().err
    log = toolkit.load_log(str(csv), event_time="ts", arrival_time="ingest", key="user")
    assert log.unused_columns == ["part", "amount"]


def test_misspelled_option_gets_a_suggestion(csv, capsys):
    with pytest.raises(SystemExit):
        main(["sweep", str(csv), *COLUMNS, "--dealy", "1s"])
    assert "did you mean --delay?" in capsys.readouterr().err
    assert main(["replay", str(csv), *COLUMNS, "--window", "tumbing:1s"]) == 2
    err = capsys.readouterr().err
    assert "--window" in err and "did you mean 'tumbling'" in err
    assert main(["sweep", str(csv), *COLUMNS, "--delay", "0,1x"]) == 2
    assert "--delay" in capsys.readouterr().err
    assert main(["replay", str(csv), "--event-time", "ts", "--key", "usr"]) == 2
    assert "--key: column 'usr'" in capsys.readouterr().err


def test_sweep_prints_a_readable_table_and_recommendation(csv, capsys):
    assert main(["sweep", str(csv), *COLUMNS, "--window", "tumbling:5s", "--delay", "0,1s,2s", "--lateness", "0,2s",
                 "--recommend", "0.9", "--no-progress"]) == 0
    base, *lines = capsys.readouterr().out.splitlines()
    assert base.startswith("On time, late accepted and dropped count the ") and base.endswith(" valid records; "
                                                                                          "completeness is a share of record-window pairs.")
    head = lines[0].split()
    assert head[:2] == ["delay", "lateness"] and "window" not in head  # the settings that vary, then the figures
    assert "completeness" in head and "latency" in head and "_ms" not in lines[0]
    body = "\n".join(lines[1:7])
    assert "1 s" in body and "%" in body and "1000" not in body and "0.9" not in body  # no raw ms, no raw fractions
    assert lines[7].startswith("(every column, in raw ms and fractions: --out FILE")
    rec = lines[8]
    assert rec.startswith(("recommended: ", "no recommendation: ")) and "_ms" not in rec and " %" in rec
