"""The one timing helper of the benchmarks: wall and CPU seconds of a block of code.

Wall time is ``time.perf_counter``; CPU time is ``time.process_time`` (this process, all
threads), the fairer figure on a shared machine.
"""
from __future__ import annotations

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
