"""The conda environment and pyproject.toml must pin the same packages."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pyproject_pins() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    reqs = list(data["project"]["dependencies"])
    for extra in data["project"].get("optional-dependencies", {}).values():
        reqs += extra
    pins = {}
    for req in reqs:
        name, sep, version = req.partition("==")
        assert sep, f"pyproject.toml: {req!r} is not pinned with =="
        pins[_norm(name)] = version.strip()
    return pins


def _conda_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "environment.yml").read_text().splitlines():
        m = re.match(r"^\s*-\s*([A-Za-z0-9_.\-]+)\s*==\s*(\S+)\s*$", line)
        if m:
            pins[_norm(m.group(1))] = m.group(2)
    return pins


def test_environment_yml_matches_pyproject():
    assert _conda_pins() == _pyproject_pins()


def test_environment_yml_has_java_and_python():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"^\s*-\s*openjdk=17\s*$", text, re.M)
    assert re.search(r"^\s*-\s*python=3\.11\s*$", text, re.M)


def test_pandas_stays_below_3_for_pyspark():
    assert _pyproject_pins()["pandas"].startswith("2.")
