#!/usr/bin/env python3
"""Run Flink 2.3's watermark alignment (real SourceOperator and SourceCoordinator) on scenario files.

Usage::

    python oracles/flink_alignment/flink_alignment_oracle.py build
    python oracles/flink_alignment/flink_alignment_oracle.py run OUT_DIR SCENARIO.jsonl|DIR...

The Flink jars come from the PyPI package ``apache-flink`` (2.3.0) installed once by the
project's Flink oracle (``python3 ../shared/oracle/flink_oracle.py setup``, under
``$ORACLE_HOME``, default ``~/.cache/flink-oracle``); ``FLINK_LIB`` overrides the folder that
holds them. The Java sources (``java/alignoracle``) are compiled into
``$ORACLE_HOME/flink-alignment-build``, never into the project. Only the standard library is
used. See README.md for what runs and the formats.
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = Path(os.environ.get("ORACLE_HOME") or Path.home() / ".cache" / "flink-oracle")
BUILD = WORK / "flink-alignment-build"
JARS = ("flink-dist-*.jar", "log4j-*.jar")
#: Flink's own JVM options for Java 17 (its config.yaml), needed by its serializers.
JVM_OPTS = ["--add-opens=java.base/" + p + "=ALL-UNNAMED" for p in (
    "java.lang", "java.net", "java.io", "java.nio", "sun.nio.ch", "java.lang.reflect", "java.text",
    "java.time", "java.util", "java.util.concurrent", "java.util.concurrent.atomic",
    "java.util.concurrent.locks")]


def flink_lib() -> Path:
    """The folder holding Flink's jars (pyflink/lib of the oracle's venv, or $FLINK_LIB)."""
    if os.environ.get("FLINK_LIB"):
        return Path(os.environ["FLINK_LIB"])
    found = sorted(glob.glob(str(WORK / ".venv" / "lib" / "python3*" / "site-packages" / "pyflink" / "lib")))
    if not found:
        sys.exit("flink_alignment_oracle: no pyflink/lib under %s; run `python3 ../shared/oracle/flink_oracle.py "
                 "setup` first (or set FLINK_LIB)" % WORK)
    return Path(found[0])


def classpath() -> str:
    lib = flink_lib()
    jars = [j for pat in JARS for j in sorted(glob.glob(str(lib / pat)))]
    return os.pathsep.join([str(BUILD / "classes")] + jars)


def build() -> None:
    """Compile java/ against the jars; copy the logging configuration."""
    out = BUILD / "classes"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    sources = sorted(str(p) for p in (HERE / "java").rglob("*.java"))
    subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "--release", "17", "-cp", classpath(),
                    "-d", str(out)] + sources, check=True)
    shutil.copy(HERE / "java" / "log4j2.properties", out / "log4j2.properties")


def needs_build() -> bool:
    stamp = BUILD / "classes" / "alignoracle" / "AlignOracle.class"
    if not stamp.exists():
        return True
    return any(p.stat().st_mtime > stamp.stat().st_mtime for p in (HERE / "java").rglob("*") if p.is_file())


def scenario_files(paths: list[str]) -> list[str]:
    """The scenario files named or held by folders (``*.jsonl``, never ``*.out.jsonl``)."""
    files: list[str] = []
    for p in map(Path, paths):
        found = sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
        files += [str(f) for f in found if not f.name.endswith(".out.jsonl")]
    return files


def run(out_dir: str, scenarios: list[str]) -> int:
    """Run each scenario as its own local job (one JVM); NAME.out.jsonl per scenario in out_dir."""
    scenarios = scenario_files(scenarios)
    if not scenarios:
        sys.exit("flink_alignment_oracle: no scenario files (NAME.jsonl) given")
    if needs_build():
        build()
    cmd = [os.environ.get("JAVA", "java")] + JVM_OPTS + ["-cp", classpath(), "alignoracle.AlignOracle", out_dir]
    return subprocess.run(cmd + scenarios).returncode


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv[0] == "build":
        build()
        return 0
    if argv[0] == "run" and len(argv) >= 3:
        return run(argv[1], argv[2:])
    sys.exit("flink_alignment_oracle: unknown command %r (build | run OUT_DIR SCENARIO...)" % " ".join(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
