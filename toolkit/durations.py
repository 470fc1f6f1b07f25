"""Durations and times written by users ("200ms", "5s", "1min", 250) as integer milliseconds.

Parsing is done by pandas (``pd.Timedelta``), never by hand. This is an edge module:
the engine takes plain integers.
"""
from __future__ import annotations

import math
import numbers
import re

import pandas as pd


def parse_duration(value: object, *, name: str = "duration", allow_negative: bool = False) -> int:
    """Return ``value`` as whole milliseconds.

    Integers are taken as milliseconds; strings use pandas' units ("ms", "s", "min", "h",
    "d"); ``pd.Timedelta``/``datetime.timedelta`` are accepted. A bare numeric string is
    milliseconds. Fractions of a millisecond are an error.
    """
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{name}: expected a duration like '200ms', '5s' or an integer of ms, got {value!r}")
    if isinstance(value, numbers.Integral):
        ms = int(value)
    elif isinstance(value, numbers.Real):
        if float(value) != int(float(value)):
            raise ValueError(f"{name}: {value!r} is not a whole number of milliseconds")
        ms = int(float(value))
    else:
        text = str(value).strip()
        try:
            if text.lstrip("+-").isdigit():
                ms = int(text)
            else:
                td = pd.Timedelta(text)
                ns = td.value
                if ns % 1_000_000:
                    raise ValueError(f"{name}: {value!r} is not a whole number of milliseconds")
                ms = ns // 1_000_000
        except (ValueError, TypeError) as exc:
            if "whole number" in str(exc):
                raise
            raise ValueError(
                f"{name}: cannot read {value!r} as a duration; write it like '200ms', '5s', '1min' or an integer of ms"
            ) from None
    if ms < 0 and not allow_negative:
        raise ValueError(f"{name} must not be negative, got {value!r}")
    return ms


def parse_duration_list(text: str, *, name: str = "duration") -> list[int]:
    """Parse a comma-separated list such as ``"0,250ms,1s"``."""
    items = [t for t in (s.strip() for s in str(text).split(",")) if t]
    if not items:
        raise ValueError(f"{name}: empty list")
    return [parse_duration(t, name=name) for t in items]


def _significant(x: float, digits: int = 4) -> str:
    """``x`` (below 1,000 in size) with ``digits`` significant digits, never in exponent form."""
    text = f"{x:.{digits}g}"
    if "e" in text:  # rounded up to a power of ten: write it out
        text = f"{x:.{max(0, digits - 1 - math.floor(math.log10(abs(x))))}f}"
    return text


def readable(ms: float) -> str:
    """A duration in ms as a person reads it: ``250 ms``, ``1.5 s``, ``39.27 s``, ``5 min 3 s``,
    ``2 h 5 min``, ``3 d 4 h`` (4 significant digits below a minute; whole seconds above)."""
    x = float(ms)
    if math.isinf(x) or math.isnan(x):
        return str(x)
    sign, a = ("-" if x < 0 else ""), abs(x)
    if a < 1000:
        return f"{sign}{int(a) if a.is_integer() else _significant(a)} ms"
    if a < 60_000:
        return f"{sign}{_significant(a / 1000)} s"
    s = round(a / 1000)
    if s < 3600:
        m, s = divmod(s, 60)
        return f"{sign}{m} min" + (f" {s} s" if s else "")
    if s < 86_400:
        h, m = divmod(s // 60, 60)
        return f"{sign}{h} h" + (f" {m} min" if m else "")
    d, h = divmod(s // 3600, 24)
    return f"{sign}{d:,} d" + (f" {h} h" if h else "")


def readable_up(ms: float) -> str:
    """``readable(ms)`` rounded up, never down, to what it shows: the text names a duration of
    at least ``ms`` (advice such as "a delay of X keeps it" must hold for the X it prints:
    3 h 0 min 0.001 s reads ``3 h 1 min``, not ``3 h``)."""
    x = float(ms)
    if math.isinf(x) or math.isnan(x) or x <= 0:
        return readable(x)
    for _ in range(8):  # a carry (59.999 s -> 1 min) may land in a coarser unit: round again
        step = _step(x)
        up = math.ceil(x / step - 1e-9) * step
        if up == x:
            break
        x = up
    return readable(x)


def _step(x: float) -> float:
    """The resolution (ms) at which ``readable`` shows a positive ``x``."""
    if x < 1000:
        return 1.0 if x >= 1 else 10.0 ** (math.floor(math.log10(x)) - 3)
    if x < 60_000:
        return 10.0 ** (math.floor(math.log10(x / 1000)) - 3) * 1000
    if x < 3_600_000:
        return 1000.0
    if x < 86_400_000:
        return 60_000.0
    return 3_600_000.0


_NUMBER_UNIT = re.compile(r"(\d) (ms|s|min|h|d|%)(?![\w])")


def glued(text: str) -> str:
    """``text`` with each number and its unit (``0 ms``, ``97.01 %``) joined by a no-break space,
    so that wrapping (``textwrap`` breaks only at ASCII whitespace) never parts them; undo with
    ``.replace("\\u00a0", " ")``."""
    return _NUMBER_UNIT.sub("\\1\u00a0\\2", text)
