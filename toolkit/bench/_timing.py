"""The one timing helper of the benchmarks: wall and CPU seconds of a block of code.

Wall time is ``time.perf_counter``; CPU time is ``time.process_time`` (this process, all
threads), the fairer figure on a shared machine.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable


class Timer:
    """``with Timer() as t: ...`` then ``t.wall`` and ``t.cpu`` (seconds; set when the block ends)."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self._wall0 = self._cpu0 = 0.0

    def __enter__(self) -> "Timer":
        self._cpu0 = time.process_time()
        self._wall0 = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.wall = time.perf_counter() - self._wall0
        self.cpu = time.process_time() - self._cpu0


def timed(fn: Callable[[], Any]) -> tuple[Any, Timer]:
    """Call ``fn()``; return its result and the :class:`Timer` of the call."""
    with Timer() as t:
        out = fn()
    return out, t


def rss_kib(pid: int) -> int:
    """A process's resident set size now, in KiB (Linux ``/proc``; 0 when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def process_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system, all threads) another process has used so far (Linux
    ``/proc/PID/stat``); None when it cannot be read. Timing a JVM the benchmark drives (Spark's
    gateway) by the difference of two readings is the CPU figure ``time.process_time`` cannot give."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None
