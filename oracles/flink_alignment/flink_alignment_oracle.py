#!/usr/bin/env python3
"""Run Flink 2.3's watermark alignment (real SourceOperator and SourceCoordinator) on scenario files.

Usage::

    python oracles/flink_alignment/flink_alignment_oracle.py build
    python oracles/flink_alignment/flink_alignment_oracle.py run OUT_DIR SCENARIO.jsonl|DIR...

The Flink jars come from the PyPI package ``apache-flink`` (2.3.0) installed once by the
project's Flink oracle (``python3 ../shared/oracle/flink_oracle.py setup``, under
``$ORACLE_HOME``, default ``~/.cache/flink-oracle``); ``FLINK_LIB`` overrides the folder that
holds them (the Flink SQL oracle's ``flink_lib``). The Java sources (``java/alignoracle``) are compiled into
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
sys.path.insert(0, str(HERE.parent / "flink_sql"))
# the same jars, JVM options and scenario folders as the Flink SQL oracle
from flink_sql_oracle import JVM_OPTS, WORK, flink_lib, scenario_files  # noqa: E402

BUILD = WORK / "flink-alignment-build"
JARS = ("flink-dist-*.jar", "log4j-*.jar")


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
