"""``python -m toolkit report``."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from toolkit.cli import main


@pytest.fixture(scope="module")
def csv_log(tmp_path_factory):
    n = 200
    arrival = 1_700_000_000_000 + np.arange(n) * 10
    event = arrival - (np.arange(n) % 7) * 15
    event[::40] -= 300
    path = tmp_path_factory.mktemp("cli") / "log.csv"
    pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": np.arange(n) % 3,
                  "partition": 0, "value": 1}).to_csv(path, index=False)
    return path


def test_report_command_writes_html(csv_log, tmp_path, capsys):
    out = tmp_path / "sub" / "r.html"
    code = main(["report", str(csv_log), "--window", "tumbling:100ms", "--delay", "0ms,100ms,400ms",
                 "--lateness", "0ms,1s", "--interval", "50ms", "--completeness", "0.95",
                 "--execution", "local", "--out", str(out), "--title", "CLI & test"])
    assert code == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed
    html = out.read_text()
    assert "<title>CLI &amp; test</title>" in html
    first_line = printed.splitlines()[0]
    import html as htmllib

    assert htmllib.escape(first_line, quote=False) in html  # the recommendation's reason
    assert html.count('<div class="chart"') == 13


def test_report_command_replays_the_given_setting(csv_log, tmp_path):
    out = tmp_path / "r.html"
    code = main(["report", str(csv_log), "--window", "tumbling:100ms", "--delay", "0ms,100ms",
                 "--lateness", "0ms", "--interval", "50ms", "--execution", "local",
                 "--replay", "delay=250ms lateness=1s", "--out", str(out)])
    assert code == 0
    html = out.read_text()
    assert "window=tumbling:100ms lateness=1s delay=250ms interval=50ms" in html


@pytest.mark.parametrize("argv, message", [
    (["--completeness", "1.5"], "--completeness must be between 0 and 1"),
    (["--delay", ","], "--delay ',': an empty item in the list"),
    (["--dleay", "1s"], None),
    (["--max-points", "0"], "--max-points must be at least 10"),
])
def test_report_command_rejects_bad_options(csv_log, tmp_path, capsys, argv, message):
    if message is None:  # a misspelled option: argparse exits with a suggestion
        with pytest.raises(SystemExit):
            main(["report", str(csv_log), "--out", str(tmp_path / "x.html")] + argv)
        assert "did you mean --delay?" in capsys.readouterr().err
        return
    code = main(["report", str(csv_log), "--out", str(tmp_path / "x.html")] + argv)
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_report_command_shows_progress_and_names_bad_log_levels(csv_log, tmp_path, capsys):
    out = tmp_path / "p.html"
    assert main(["report", str(csv_log), "--window", "tumbling:100ms", "--delay", "0ms,100ms", "--interval", "50ms",
                 "--execution", "local", "--out", str(out), "--results", str(tmp_path / "r.csv")]) == 0
    captured = capsys.readouterr()
    assert "report: 4/4 steps" in captured.err and "sweep 6 settings" in captured.err  # tqdm, on stderr
    assert f"wrote {tmp_path / 'r.csv'} (6 settings)" in captured.out
    assert main(["report", str(csv_log), "--out", str(out), "--no-progress", "--execution", "local",
                 "--window", "tumbling:100ms", "--delay", "0ms", "--lateness", "0ms"]) == 0
    assert "steps" not in capsys.readouterr().err
    assert main(["report", str(csv_log), "--spark-log-level", "loud"]) == 2
    assert "--spark-log-level 'loud' is not a log level" in capsys.readouterr().err


def test_spark_log_level_defaults_to_error_and_reaches_the_jvm_config(monkeypatch):
    from toolkit.errors import SetupError
    from toolkit.spark import LOG_LEVEL_ENV, _log4j_file, log_level

    monkeypatch.delenv(LOG_LEVEL_ENV, raising=False)
    assert log_level() == "ERROR"
    monkeypatch.setenv(LOG_LEVEL_ENV, "warn")
    assert log_level() == "WARN"
    monkeypatch.setenv(LOG_LEVEL_ENV, "chatty")
    with pytest.raises(SetupError, match="WATERMARK_LAB_SPARK_LOG_LEVEL"):
        log_level()
    text = open(_log4j_file("ERROR"), encoding="utf-8").read()
    assert "rootLogger.level = error" in text and "PythonGatewayServer" in text
