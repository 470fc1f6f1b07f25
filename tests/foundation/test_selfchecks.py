"""ruff (lint and import order) and mypy are configured in pyproject.toml and run by .ci/run
before the tests (tests/foundation/test_readme.py checks the order). Here: the configuration
catches what it is meant to catch, and the code passes ruff (mypy's full run is CI's step)."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "pyproject.toml"


def _run(tool: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    pytest.importorskip(tool, reason=f"{tool} comes with the lint extra (pip install '.[lint]')")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_config_selects_lint_and_import_order_and_types():
    tools = tomllib.loads(CONFIG.read_text())["tool"]
    assert {"E", "F", "I", "B"} <= set(tools["ruff"]["lint"]["select"])
    assert tools["mypy"]["files"] == ["toolkit"]


def test_ruff_finds_unsorted_imports_and_an_unused_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nimport os\n\nprint(os.sep)\n")
    done = _run("ruff", "check", "--config", str(CONFIG), "--no-cache", str(bad), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "I001" in done.stdout and "F401" in done.stdout


def test_mypy_finds_a_type_error(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def half(x: int) -> int:\n    return x // 2\n\n\nhalf(1, 2)\nhalf(1).numerator.nope\n")
    done = _run("mypy", "--config-file", str(CONFIG), "--cache-dir", str(tmp_path / "cache"), str(bad), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[call-arg]" in done.stdout and "[attr-defined]" in done.stdout


def test_the_code_passes_ruff():
    done = _run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr
