"""A real Spark standalone cluster on 127.0.0.1 for tests: a master and workers started from the
PySpark distribution (``spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker``),
and Python interpreters that have pandas, numpy and pyarrow but not ``toolkit``.

Everything started here runs in its own process group and is stopped by :meth:`Cluster.stop`
(SIGTERM to the group, then SIGKILL): the workers' executors and Python workers go with them.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

#: what a worker Python must be able to import (the libraries a sweep needs), and must not
NEEDED = ("pandas", "numpy", "pyarrow")


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def python_without_toolkit(folder: Path, *, drop: tuple[str, ...] = ()) -> Path:
    """An executable ``folder/bin/python3`` that runs this interpreter with ``-S`` (no site-packages,
    so no editable-install finder and no ``.pth`` files) and, at the end of ``PYTHONPATH``, a folder
    of links to this environment's site-packages minus Watermark Lab (and minus the libraries in
    ``drop``, e.g. ``("pyarrow",)``). Spark's own ``PYTHONPATH`` (pyspark.zip, py4j, the shipped
    files) still comes first."""
    site = Path(sysconfig.get_paths()["purelib"])
    libs = folder / "site"
    libs.mkdir(parents=True, exist_ok=True)
    dropped = {d.lower() for d in drop}
    for entry in site.iterdir():
        name = entry.name.lower()
        stem = name.split("-")[0].split(".")[0]
        if name.endswith(".pth") or name.startswith("__editable__") or stem in ("toolkit", "watermark_lab"):
            continue
        if stem in dropped:
            continue
        (libs / entry.name).symlink_to(entry)
    bin_dir = folder / "bin"
    bin_dir.mkdir(exist_ok=True)
    exe = bin_dir / "python3"
    exe.write_text(
        "#!/bin/sh\n"
        f'PYTHONPATH="${{PYTHONPATH:+$PYTHONPATH:}}{libs}" exec "{sys.executable}" -S "$@"\n'
    )
    exe.chmod(0o755)
    return exe


def worker_env(python_bin: Path) -> dict[str, str]:
    """The environment of the master and workers: no PYTHONPATH or PYSPARK_PYTHON of ours, the
    worker Python first on PATH (it is the cluster's ``python3``), everything on 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON",
                                                            "VIRTUAL_ENV", "SPARK_MASTER")}
    env["PATH"] = f"{python_bin.parent}{os.pathsep}{env.get('PATH', '')}"
    env["SPARK_HOME"] = str(spark_home())
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    env["SPARK_DAEMON_MEMORY"] = "256m"
    env["SPARK_NO_DAEMONIZE"] = "1"
    return env


class Cluster:
    """``Cluster(folder, python_bin, workers=2).start()``; ``.url``; ``.stop()`` (idempotent)."""

    def __init__(self, folder: Path, python_bin: Path, *, workers: int = 2, worker_memory: str = "1g") -> None:
        self.folder = folder
        self.env = worker_env(python_bin)
        self.n_workers = workers
        self.worker_memory = worker_memory
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        self.url = ""

    def _spawn(self, name: str, args: list[str]) -> Path:
        log = self.folder / f"{name}.log"
        with open(log, "wb") as out:
            p = subprocess.Popen([str(spark_home() / "bin" / "spark-class"), *args], env=self.env, cwd=self.folder,
                                 stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
        self.procs.append(p)
        self.logs.append(log)
        return log

    def _wait_for(self, log: Path, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in log.read_text(errors="replace"):
                return
            if any(p.poll() is not None for p in self.procs):
                break
            time.sleep(0.25)
        raise RuntimeError(f"{log.name}: no {text!r} within {timeout:.0f} s:\n{self.tail()}")

    def start(self, timeout: float = 90) -> "Cluster":
        try:
            port = free_port()
            master = self._spawn("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                            "--port", str(port), "--webui-port", "0"])
            self.url = f"spark://127.0.0.1:{port}"
            self._wait_for(master, "I have been elected leader", timeout)
            logs = []
            for i in range(self.n_workers):
                work = self.folder / f"work-{i}"
                work.mkdir(exist_ok=True)
                logs.append(self._spawn(f"worker-{i}", [
                    "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--port", "0",
                    "--webui-port", "0", "--cores", "1", "--memory", self.worker_memory,
                    "--work-dir", str(work), self.url]))
            for log in logs:
                self._wait_for(log, "Successfully registered with master", timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def tail(self, n: int = 30) -> str:
        out = []
        for log in self.logs:
            lines = log.read_text(errors="replace").splitlines() if log.exists() else []
            out.append(f"--- {log.name}\n" + "\n".join(lines[-n:]))
        return "\n".join(out)

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in reversed(self.procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait(timeout=10)
            # executors started by a worker are in its process group; make sure none is left
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.procs.clear()
