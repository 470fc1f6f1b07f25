"""Limits: what a replay or sweep may cost, checked before any work starts (a window's fan-out
and the estimated memory, by a cost model measured on 1 M-record replays and sweeps)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from toolkit.settings.durations import _int, format_duration
from toolkit.settings.names import SettingError
from toolkit.settings.setting import Setting
from toolkit.settings.windows import Sliding

#: Rough cost model of :meth:`Limits.check_cost` (bytes; measured on 1 M-record replays and sweeps)
_BYTES_PER_RECORD = {"replay": 1500, "sweep": 400}
_BYTES_PER_WINDOW_ASSIGNMENT = {"replay": 150, "sweep": 64}
_BYTES_PER_WATERMARK_CALL = 120
#: a processing-time watermark replayed sparsely: about 2.4 calls a record, each a change at
#: every level (bench span: time_lag, 1 M records over 30 days at 1 ms, +3.5 GB over bounded)
_BYTES_PER_RECORD_SPARSE_CALLS = {"replay": 3600, "sweep": 600}
_SIZE_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
               "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def windows_per_record(window: Any) -> int:
    """How many windows one record is assigned to: ``ceil(size / slide)`` for a sliding
    window (Flink's ``SlidingEventTimeWindows``), 1 for the others."""
    if isinstance(window, Sliding):
        return -(-window.size // window.slide)
    return 1


def machine_memory() -> int:
    """This machine's physical memory in bytes (0 when unknown)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return 0


def format_bytes(n: float) -> str:
    """``1.5 GB``-style size (decimal units)."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{int(n)} B"


def _size(value: Any, name: str) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value > 0:
        return int(value)
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", str(value))
    if not m or m.group(2).lower() not in _SIZE_UNITS or float(m.group(1)) <= 0:
        raise SettingError(name, f"{name} must be a size like 8GB, 512MiB or a number of bytes, got {value!r}")
    return int(float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()])


@dataclass(frozen=True)
class Limits:
    """Guards against a replay or sweep that would run away, checked before any work starts.

    ``max_windows_per_record``: windows one record may be assigned to (a sliding window's
    ``size / slide``, each stage); ``max_memory``: what the estimated memory may reach (bytes
    or ``"8GB"``; default this machine's memory). Raise them with the keywords of ``replay``,
    ``sweep`` and ``report`` or ``--max-windows-per-record`` / ``--max-memory``."""

    max_windows_per_record: int = 10_000
    max_memory: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_windows_per_record",
                           _int(self.max_windows_per_record, "max_windows_per_record", minimum=1))
        if self.max_memory is not None:
            object.__setattr__(self, "max_memory", _size(self.max_memory, "max_memory"))

    @classmethod
    def of(cls, max_windows_per_record: Any = None, max_memory: Any = None) -> "Limits":
        """Limits from optional keywords (``None`` = the default)."""
        return cls(cls.max_windows_per_record if max_windows_per_record is None else max_windows_per_record, max_memory)

    def check_settings(self, settings: Iterable[Setting]) -> None:
        """Refuse a window fan-out above ``max_windows_per_record``."""
        for s in settings:
            named = [("window", s.window), ("second_window", s.second_window)] + [("stages", st.window) for st in s.stages]
            for name, w in named:
                n = windows_per_record(w)
                if n > self.max_windows_per_record:
                    raise SettingError(
                        name, f"{name} {w} assigns every record to {n:,} windows (size / slide), more than the "
                        f"limit of {self.max_windows_per_record:,}: use a larger slide, or raise the limit with "
                        f"max_windows_per_record={n} (--max-windows-per-record {n})")

    def estimate(self, setting: Setting, records: int, span_ms: int, what: str = "replay") -> tuple[int, str]:
        """Estimated peak memory (bytes) of one setting over ``records`` arriving over
        ``span_ms``, and the setting that dominates it (``window``, ``interval`` or ``log``)."""
        fan = windows_per_record(setting.window) + sum(windows_per_record(st.window) for st in setting.pipeline_stages)
        base = records * _BYTES_PER_RECORD[what]
        windows = records * fan * _BYTES_PER_WINDOW_ASSIGNMENT[what]
        calls = 0
        # a processing-time watermark moves at every periodic call, records or not
        if not setting.sparse_calls:
            calls = (max(int(span_ms), 0) // setting.interval + 1) * _BYTES_PER_WATERMARK_CALL
        elif setting.strategy in ("time_lag", "idle_advance") and setting.interval > 0:
            base += records * _BYTES_PER_RECORD_SPARSE_CALLS[what]  # the calls it runs follow the records
        total = base + windows + calls
        dominant = "interval" if calls > max(base, windows) else "window" if windows > base else "max_memory"
        return total, dominant

    def check_cost(self, settings: Iterable[Setting], records: int, span_ms: int, what: str = "replay") -> None:
        """Refuse a replay/sweep whose estimated memory exceeds ``max_memory`` (the machine)."""
        cap = self.max_memory or machine_memory()
        if not cap:
            return
        for s in settings:
            need, name = self.estimate(s, records, span_ms, what)
            if need <= cap:
                continue
            why = {
                "interval": f"strategy {s.strategy} moves the watermark at every {format_duration(s.interval)} call "
                            f"over {span_ms / 86_400_000:,.1f} days of arrivals, and every call is run because this "
                            f"setting's event-time timers cannot be listed ahead (a processing-time or continuous "
                            f"trigger, a window, trigger or function object, a staggered window, a dynamic session "
                            f"in a sweep, or several stages); use a longer interval",
                "window": f"window {s.window} assigns each of {records:,} records to "
                          f"{windows_per_record(s.window):,} windows; use a larger slide",
                "max_memory": f"{records:,} records; use fewer records or a Spark sweep",
            }[name]
            raise SettingError(
                name, f"this {what} would need about {format_bytes(need)} of memory, more than "
                f"{'the limit' if self.max_memory else 'this machine'}'s {format_bytes(cap)}: {why}, or raise "
                f"max_memory{'' if name == 'max_memory' else ' (--max-memory)'} if the estimate is too cautious")



__all__ = ["Limits", "windows_per_record", "machine_memory", "format_bytes"]
