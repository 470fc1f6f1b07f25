from __future__ import annotations

import subprocess
import sys

import pytest

from toolkit.cli import main
from toolkit.durations import parse_duration, parse_duration_list


def test_help_lists_subcommands(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert "COMMAND" in capsys.readouterr().out


def test_python_dash_m_toolkit_runs():
    out = subprocess.run([sys.executable, "-m", "toolkit", "--version"], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout.startswith("watermark-lab ")


@pytest.mark.parametrize(
    "text,ms",
    [("200ms", 200), ("5s", 5000), ("1min", 60000), (250, 250), ("0", 0), ("1.5s", 1500), ("2h", 7_200_000)],
)
def test_parse_duration(text, ms):
    assert parse_duration(text) == ms


@pytest.mark.parametrize(
    "text,message",
    [
        ("-5s", "must not be negative"),
        ("soon", "cannot read 'soon' as a duration"),
        ("0.5ms", "not a whole number of milliseconds"),
        (None, "expected a duration"),
    ],
)
def test_parse_duration_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_duration(text, name="delay")


def test_parse_duration_list():
    assert parse_duration_list("0, 250ms,1s") == [0, 250, 1000]


def _env_without_java(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME",)}
    env["PATH"] = str(tmp_path)  # an empty folder: no java on PATH
    return env


def test_demo_without_java_says_how_to_install(tmp_path):
    out = subprocess.run([sys.executable, "-m", "toolkit", "demo"], capture_output=True, text=True,
                         env=_env_without_java(tmp_path))
    assert out.returncode == 2
    assert "Java was not found" in out.stderr and "openjdk-17" in out.stderr


def _pytest_without_java(tmp_path, *extra_env: tuple[str, str]):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = _env_without_java(tmp_path)
    env.pop("WATERMARK_LAB_REQUIRE_SPARK", None)
    env.update(extra_env)
    files = ["tests/log/test_log_describe.py", "tests/log/test_log_spark.py"]  # pandas only; Spark only
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:randomly", *files],
                          capture_output=True, text=True, cwd=root, env=env)


def test_pytest_without_java_skips_the_spark_tests_with_the_install_hint(tmp_path):
    out = _pytest_without_java(tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert " passed" in out.stdout and "7 skipped" in out.stdout
    assert "Java was not found" in out.stdout and "openjdk-17" in out.stdout


def test_pytest_without_java_fails_the_spark_tests_when_spark_is_required(tmp_path):
    out = _pytest_without_java(tmp_path, ("WATERMARK_LAB_REQUIRE_SPARK", "1"))
    assert out.returncode != 0
    assert "skipped" not in out.stdout and "7 error" in out.stdout
    assert "Java was not found" in out.stdout + out.stderr
