"""``toolkit.replay(log, ...)``: replay an event log through one engine's event-time semantics.

Settings are ``toolkit.settings``' one vocabulary (the window operator's, the watermarks' and
each engine's own), as keywords or as a :class:`toolkit.settings.Setting`; ``semantics=``
chooses the engine (Flink's by default; ``toolkit.semantics.names()`` lists them). The replay
parses the setting, looks the engine up in the registry and asks it: each engine's rules live
in its package under ``toolkit/semantics/``. Several logs (``replay([log_a, log_b],
two_input=...)``) are a union, a join or an interval join, for the engines that model them.
"""
from __future__ import annotations

from typing import Any

from toolkit.replays.result import ReplayResult, StageResult
from toolkit.semantics import get
from toolkit.settings import Limits, Setting, SettingError

__all__ = ["replay", "ReplayResult", "StageResult"]


def _explicit(setting: Any, settings: dict, name: str) -> bool:
    """Whether the user gave setting ``name`` (as a keyword, in a dict or text, or off its default)."""
    return name in settings or (isinstance(setting, dict) and name in setting) or (
        isinstance(setting, str) and f"{name}=" in setting) or (
        isinstance(setting, Setting) and getattr(setting, name) != getattr(Setting(), name))


def replay(log: Any, setting: Any = None, /, **settings: Any) -> ReplayResult:
    """Replay ``log`` (an :class:`toolkit.log.EventLog`, or a list of them) under one setting.

    ``max_windows_per_record=`` and ``max_memory=`` raise the guards checked before any work
    starts (:class:`toolkit.settings.Limits`); ``two_input=`` says how several logs combine."""
    limits = Limits.of(settings.pop("max_windows_per_record", None), settings.pop("max_memory", None))
    two_input = settings.pop("two_input", None)
    s = Setting.parse(setting, **settings)
    engine = get(s.semantics)

    def explicit(name: str) -> bool:
        return _explicit(setting, settings, name)

    if isinstance(log, (list, tuple)) and (len(log) != 1 or two_input is not None):
        limits.check_settings([s])
        result = engine.replay_inputs(list(log), s, two_input, limits=limits, explicit=explicit)
    else:
        if isinstance(log, (list, tuple)):
            log = log[0]
        elif two_input is not None:
            raise SettingError("two_input", "two_input needs a list of logs, e.g. replay([log_a, log_b], two_input='join')")
        if getattr(log, "is_spark", False) or getattr(log, "_table", 1) is None:
            raise SettingError("log", "replay needs a local log; collect a Spark-backed log with log.to_pandas() first")
        limits.check_settings([s])
        # declared partitions (load_log(..., partitions=...)): each is a source, with records or not
        sources = getattr(log, "declared_partitions", None) if s.partitions_as_sources else None
        result = engine.replay(log, s, limits=limits, sources=sources, explicit=explicit)
        result.partition_names = getattr(log, "partition_names", None)
        if log.has_arrival_time:  # what the latency tail finds silences in
            t = log.table
            result.arrivals = (t["arrival_time"].to_numpy(dtype="int64"), t["partition"].to_numpy(dtype="int64"))
    result.engine = engine
    logs = log if isinstance(log, (list, tuple)) else [log]
    result.invalid = sum(int(getattr(one, "n_invalid", 0) or 0) for one in logs)
    return result
