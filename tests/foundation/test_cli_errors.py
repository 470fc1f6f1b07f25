"""No Python traceback reaches a command-line user: every failure of every command is one
``error:`` line on stderr with an exit code, and ``--debug`` (anywhere) shows the traceback."""
from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import toolkit.commands
from toolkit.cli import main

REPO = Path(__file__).resolve().parents[2]
COMMANDS = sorted(m.name for m in pkgutil.iter_modules(toolkit.commands.__path__) if not m.name.startswith("_"))

FAILURES = [
    (OSError(28, "No space left on device", "out/emissions.csv"), 2, "error: No space left on device: out/emissions.csv"),
    (PermissionError(13, "Permission denied", "data/x.csv"), 2, "error: Permission denied: data/x.csv"),
    (MemoryError(), 2, "error: out of memory: the log or the settings need more memory than this machine has; "
     "use fewer records, a longer --interval or a larger slide, or run the sweep on Spark (--master)"),
    (OverflowError("Python int too large to convert to C long"), 2,
     "error: a number is out of range (Python int too large to convert to C long); check the times and durations "
     "of the log and settings"),
    (KeyError("partition"), 1, "error: unexpected KeyError: 'partition' (run again with --debug for the traceback, "
     "and please report it)"),
    (RuntimeError("line one\nline two"), 1, "error: unexpected RuntimeError: line one line two (run again with "
     "--debug for the traceback, and please report it)"),
]


def test_every_command_is_covered() -> None:
    assert {"describe", "generate", "replay", "report", "sweep", "scenario", "watermarks", "valve", "bench",
            "demo"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("exc, code, line", FAILURES, ids=[type(f[0]).__name__ for f in FAILURES])
def test_a_failure_is_one_error_line(command, exc, code, line, monkeypatch, capsys) -> None:
    module = importlib.import_module(f"toolkit.commands.{command}")

    def fail(*args):
        raise exc

    if hasattr(module, "run"):
        monkeypatch.setattr(module, "run", fail)
    else:  # the conformance commands share one runner
        monkeypatch.setattr(importlib.import_module("toolkit.commands._conformance"), "run", fail)
    argv = {"describe": ["x.csv"], "generate": ["sample", "--out", "x.csv"], "replay": ["x.csv"], "report": ["x.csv"],
            "sweep": ["x.csv"], "scenario": ["x.jsonl"], "watermarks": ["x.jsonl"], "valve": ["x.jsonl"],
            "multiplexer": ["x.jsonl"], "compare": ["x.csv"],
            "bench": ["engine"]}.get(command, [])
    rc = main([command, *argv])
    err = capsys.readouterr().err
    assert rc == code and err == line + "\n"
    with pytest.raises(type(exc)):
        main([command, *argv, "--debug"])


def test_debug_shows_the_traceback_and_a_plain_run_does_not(tmp_path) -> None:
    (tmp_path / "f").write_text("x")
    out = str(tmp_path / "f" / "out.csv")  # a file as a folder: NotADirectoryError
    cmd = [sys.executable, "-m", "toolkit", "generate", "sample", "--records", "10", "--out", out]
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    plain = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env)
    debug = subprocess.run(cmd + ["--debug"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert plain.returncode == 2 and plain.stderr.startswith("error: ") and plain.stderr.count("\n") == 1
    assert "Traceback" not in plain.stderr and str(tmp_path / "f") in plain.stderr
    assert "Traceback" in debug.stderr and debug.returncode == 1


def test_a_real_os_error_names_the_file(tmp_path, capsys) -> None:
    assert main(["replay", str(tmp_path / "missing.csv")]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    (tmp_path / "f").write_text("x")
    p = tmp_path / "one.csv"
    p.write_text("event_time,arrival_time,key,partition,value\n1000,1200,a,0,1\n")
    assert main(["replay", str(p), "--out", str(tmp_path / "f" / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(tmp_path / "f") in err and err.count("\n") == 1
