"""DESIGN.md's layering: the engine imports only the standard library and numpy."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "toolkit"
ENGINE_ALLOWED = {"numpy", "toolkit"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _engine_files() -> list[Path]:
    return sorted((PKG / "engine").rglob("*.py")) if (PKG / "engine").exists() else []


@pytest.mark.parametrize("path", _engine_files(), ids=lambda p: p.name)
def test_engine_imports_only_stdlib_and_numpy(path):
    bad = {n for n in _imports(path) if n not in sys.stdlib_module_names and n not in ENGINE_ALLOWED}
    assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("path", _engine_files(), ids=lambda p: p.name)
def test_engine_imports_no_upper_layer(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("toolkit."):
            assert node.module.startswith("toolkit.engine"), f"{path.name} imports {node.module}"


def test_import_toolkit_is_light():
    import subprocess

    code = "import sys, toolkit; print(sorted(m for m in ('pyspark', 'altair', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_module_and_function_names_both_work():
    import subprocess

    code = (
        "import toolkit.replay, toolkit.sweep.grid, toolkit.apps.report, toolkit\n"
        "assert callable(toolkit.replay) and callable(toolkit.sweep) and callable(toolkit.report)\n"
        "assert toolkit.sweep.frontier is toolkit.frontier\n"
        "print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_engine_exports_resolve():
    import toolkit.engine as engine

    missing = [n for n in engine.__all__ if not hasattr(engine, n)]
    assert not missing
