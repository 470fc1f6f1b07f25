"""Reading and writing one value: durations, integers, flags and choices.

Every reader names the setting in its error (a :class:`SettingError`) and suggests the closest
spelling of a choice. The public readers (:func:`duration`, :func:`optional_duration`,
:func:`integer`, :func:`as_bool`, :func:`choice`, :func:`did_you_mean`) are what an engine's own
settings are parsed with (``toolkit.semantics``).
"""
from __future__ import annotations

import difflib
from typing import Any, Iterable

import numpy as np

from toolkit.durations import parse_duration
from toolkit.settings.names import SettingError

#: Durations above this are refused as absurd (10 years): they can only be a unit mistake.
MAX_SETTING_MS = 10 * 366 * 24 * 3600 * 1000

_UNITS = (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000), ("s", 1000))


def format_duration(ms: int) -> str:
    """Integer ms in the largest unit that divides it exactly (``1500`` -> ``1500ms``,
    ``60000`` -> ``1min``); reads back with :func:`toolkit.durations.parse_duration`."""
    ms = int(ms)
    if ms == 0:
        return "0ms"
    for unit, size in _UNITS:
        if ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def duration(value: Any, name: str, *, positive: bool = False, allow_negative: bool = False) -> int:
    """A duration in integer ms (``"500ms"``, ``"2s"``, ``"1min"`` or ms); refused when not > 0
    with ``positive``, negative without ``allow_negative``, or above :data:`MAX_SETTING_MS`."""
    try:
        ms = parse_duration(value, name=name, allow_negative=allow_negative)
    except ValueError as exc:
        raise SettingError(name, str(exc)) from None
    if positive and ms <= 0:
        raise SettingError(name, f"{name} must be > 0, got {value!r}")
    if abs(ms) > MAX_SETTING_MS:
        raise SettingError(name, f"{name} of {value!r} is absurd (more than 10 years); check the unit")
    return ms


def _opt_duration(v: Any, name: str, *, positive: bool = False) -> int | None:
    if v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "off")):
        return None
    return duration(v, name, positive=positive)


def _int(value: Any, name: str, *, minimum: int) -> int:
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value.strip())
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise SettingError(name, f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _bool(v: Any, name: str) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):  # as the command line writes it
        return v.strip().lower() == "true"
    raise SettingError(name, f"{name} must be True or False, got {v!r}")


def _choice(value: Any, name: str, choices: tuple[str, ...], aliases: dict[str, str]) -> str:
    text = str(value).strip().lower()
    text = aliases.get(text, text)
    if text not in choices:
        raise SettingError(name, f"{name} {value!r}: choose one of {', '.join(choices)}{did_you_mean(text, choices + tuple(aliases))}")
    return text


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``candidates``, or an empty string."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# public spellings of the readers above, for the engines' own settings (toolkit.semantics)
def choice(value: Any, name: str, choices: tuple[str, ...], aliases: dict[str, str] | None = None) -> str:
    """``value`` as one of ``choices`` (an alias read as its choice; a did-you-mean otherwise)."""
    return _choice(value, name, choices, aliases or {})


def optional_duration(value: Any, name: str, *, positive: bool = False) -> int | None:
    """A duration in ms, or None for ``None`` / ``"none"`` / ``"off"``."""
    return _opt_duration(value, name, positive=positive)


def integer(value: Any, name: str, *, minimum: int) -> int:
    """An integer >= ``minimum`` (digits in a string accepted)."""
    return _int(value, name, minimum=minimum)


def as_bool(value: Any, name: str) -> bool:
    """``true``/``false`` (and the usual spellings) as a bool."""
    return _bool(value, name)


__all__ = ["MAX_SETTING_MS", "format_duration", "duration", "did_you_mean", "choice", "optional_duration", "integer",
           "as_bool"]
