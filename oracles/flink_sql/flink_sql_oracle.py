#!/usr/bin/env python3
"""Run real Flink SQL (Flink 2.3's table planner and runtime) on Flink SQL scenario files.

Usage::

    python oracles/flink_sql/flink_sql_oracle.py build
    python oracles/flink_sql/flink_sql_oracle.py run OUT_DIR SCENARIO.jsonl|DIR...

The Flink jars come from the PyPI package ``apache-flink`` (2.3.0) installed once by the
project's Flink oracle (``python3 ../shared/oracle/flink_oracle.py setup``, under
``$ORACLE_HOME``, default ``~/.cache/flink-oracle``); ``FLINK_LIB`` overrides the folder that
holds them. The Java sources here (``java/sqloracle``) are compiled into
``$ORACLE_HOME/flink-sql-build``, never into the project. Only the standard library is used.
See README.md for what runs and the scenario format.
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
BUILD = WORK / "flink-sql-build"
#: The jars used: the runtime (flink-dist), the Table API bridge and planner (the loader keeps
#: the Scala planner in its own class loader), the table runtime and CEP (the planner links
#: MATCH_RECOGNIZE's classes), logging.
JARS = ("flink-dist-*.jar", "flink-table-api-java-uber-*.jar", "flink-table-planner-loader-*.jar",
        "flink-table-runtime-*.jar", "flink-cep-*.jar", "log4j-*.jar")
#: Flink's own JVM options for Java 17 (its config.yaml), needed by its serializers.
JVM_OPTS = ["--add-opens=java.base/" + p + "=ALL-UNNAMED" for p in (
    "java.lang", "java.net", "java.io", "java.nio", "sun.nio.ch", "java.lang.reflect", "java.text",
    "java.time", "java.util", "java.util.concurrent", "java.util.concurrent.atomic",
    "java.util.concurrent.locks")] + ["--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
                                      "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED"]


def flink_lib() -> Path:
    """The folder holding Flink's jars (pyflink/lib of the oracle's venv, or $FLINK_LIB)."""
    if os.environ.get("FLINK_LIB"):
        return Path(os.environ["FLINK_LIB"])
    found = sorted(glob.glob(str(WORK / ".venv" / "lib" / "python3*" / "site-packages" / "pyflink" / "lib")))
    if not found:
        sys.exit("flink_sql_oracle: no pyflink/lib under %s; run `python3 ../shared/oracle/flink_oracle.py "
                 "setup` first (or set FLINK_LIB)" % WORK)
    return Path(found[0])


def classpath() -> str:
    lib = flink_lib()
    jars = [j for pat in JARS for j in sorted(glob.glob(str(lib / pat)))]
    return os.pathsep.join([str(BUILD / "classes")] + jars)


def build() -> None:
    """Compile java/ against the jars; copy the service files and the logging configuration."""
    out = BUILD / "classes"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    sources = sorted(str(p) for p in (HERE / "java").rglob("*.java"))
    subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "--release", "17", "-cp", classpath(),
                    "-d", str(out)] + sources, check=True)
    shutil.copytree(HERE / "java" / "META-INF", out / "META-INF")
    shutil.copy(HERE / "java" / "log4j2.properties", out / "log4j2.properties")


def needs_build() -> bool:
    stamp = BUILD / "classes" / "sqloracle" / "SqlOracle.class"
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
    """Run the scenarios in one JVM (one MiniCluster); NAME.out.jsonl per scenario in out_dir."""
    scenarios = scenario_files(scenarios)
    if not scenarios:
        sys.exit("flink_sql_oracle: no scenario files (NAME.jsonl) given")
    if needs_build():
        build()
    cmd = [os.environ.get("JAVA", "java")] + JVM_OPTS + ["-cp", classpath(), "sqloracle.SqlOracle", out_dir]
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
    sys.exit("flink_sql_oracle: unknown command %r (build | run OUT_DIR SCENARIO...)" % " ".join(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
