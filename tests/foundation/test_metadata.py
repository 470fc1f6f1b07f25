"""What people look for: the version in one place, metadata that names every engine, the
Apache-2.0 LICENSE and a CHANGELOG that starts with this release."""
from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import toolkit

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_version_is_written_once():
    project = PROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "toolkit.__version__"}


def test_python_m_toolkit_version_matches_the_installed_metadata():
    done = subprocess.run([sys.executable, "-m", "toolkit", "--version"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"watermark-lab {toolkit.__version__}"
    assert importlib.metadata.version("watermark-lab") == toolkit.__version__


def test_the_metadata_names_every_registered_engine():
    from toolkit.semantics import all_semantics

    project = PROJECT["project"]
    text = " ".join([project["description"], *project["keywords"]]).lower()
    for engine in all_semantics():
        assert engine.title.lower() in text, f"pyproject.toml's description and keywords do not name {engine.title}"
    assert {"Apache Flink", "Spark Structured Streaming", "Kafka Streams", "Apache Beam"} <= set(
        re.findall(r"Apache Flink|Spark Structured Streaming|Kafka Streams|Apache Beam", project["description"]))
    assert project["classifiers"] and project["urls"]


def test_the_license_is_apache_2():
    assert PROJECT["project"]["license"] == "Apache-2.0" and PROJECT["project"]["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text and "END OF TERMS AND CONDITIONS" in text


def test_the_changelog_starts_with_this_release():
    headings = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings and headings[0] == toolkit.__version__
