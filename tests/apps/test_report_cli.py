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
