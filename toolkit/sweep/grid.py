"""Sweep grids: what the user writes (any setting may be a list) -> validated configurations.

Window specs are written ``"tumbling:1s"``, ``"tumbling:1s,250ms"`` (offset),
``"sliding:10s/5s"`` (size/slide, optional ``,offset``) or ``"session:30s"`` (gap), as
``toolkit.replay`` reads them; the
``toolkit.fast.FixedWindows`` / ``toolkit.metrics.truth.Sessions`` objects are accepted too.
"""
from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Any, Iterable

from toolkit.durations import parse_duration
from toolkit.fast.evaluate import FixedWindows
from toolkit.metrics.truth import Sessions

STRATEGIES = ("bounded", "legacy", "monotonous")
ACCUMULATIONS = ("accumulating", "discarding", "accumulating_and_retracting")
TRIGGERS = ("event_time", "processing_time", "never", "end_of_stream")
CONFIG_COLUMNS = [
    "window",
    "delay_ms",
    "lateness_ms",
    "interval_ms",
    "strategy",
    "idleness_ms",
    "partitions_as_sources",
    "source_parallelism",
    "trigger",
    "accumulation",
]


def parse_window(spec: Any) -> FixedWindows | Sessions:
    """``"tumbling:1s"`` | ``"sliding:10s/5s"`` | ``"session:30s"``; an offset follows a comma
    (``"tumbling:1s,250ms"``, ``"sliding:10s/5s,1s"``, as ``toolkit.replay`` writes it) or a plus."""
    if isinstance(spec, (FixedWindows, Sessions)):
        return spec
    text = str(spec).strip()
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    if not rest:
        raise ValueError(f"window {text!r}: write it like 'tumbling:1s', 'sliding:10s/5s' or 'session:30s'")
    offset = 0
    if kind in ("tumbling", "sliding"):
        for sep in (",", "+"):
            if sep in rest:
                rest, _, off = rest.partition(sep)
                offset = parse_duration(off.strip(), name=f"window {text!r} offset", allow_negative=True)
                break
    if kind == "tumbling":
        size = parse_duration(rest, name=f"window {text!r} size")
        if size <= 0:
            raise ValueError(f"window {text!r}: size must be positive")
        return FixedWindows(size, size, offset)
    if kind == "sliding":
        parts = rest.split("/")
        if len(parts) != 2:
            raise ValueError(f"window {text!r}: write a sliding window as 'sliding:SIZE/SLIDE', e.g. 'sliding:10s/5s'")
        size = parse_duration(parts[0], name=f"window {text!r} size")
        slide = parse_duration(parts[1], name=f"window {text!r} slide")
        return FixedWindows(size, slide, offset)
    if kind == "session":
        return Sessions(parse_duration(rest, name=f"window {text!r} gap"))
    raise ValueError(f"window {text!r}: unknown kind {kind!r}; use tumbling, sliding or session")


def window_name(window: FixedWindows | Sessions) -> str:
    """The canonical spec string of a window (round-trips through ``parse_window``)."""
    if isinstance(window, Sessions):
        return f"session:{window.gap}ms"
    off = f",{window.offset}ms" if window.offset else ""
    if window.tumbling:
        return f"tumbling:{window.size}ms{off}"
    return f"sliding:{window.size}ms/{window.slide}ms{off}"


@dataclass(frozen=True)
class Config:
    """One point of a sweep grid (all durations in ms)."""

    window: str
    delay_ms: int
    lateness_ms: int
    interval_ms: int
    strategy: str = "bounded"
    idleness_ms: int | None = None
    partitions_as_sources: bool = True
    source_parallelism: int = 1
    trigger: str = "event_time"
    accumulation: str = "accumulating"

    @property
    def window_obj(self) -> FixedWindows | Sessions:
        return parse_window(self.window)

    @property
    def fast_applies(self) -> bool:
        """Closed form: tumbling/sliding, event-time trigger, accumulating (optionally retracting)."""
        return (
            isinstance(self.window_obj, FixedWindows)
            and self.trigger == "event_time"
            and self.accumulation in ("accumulating", "accumulating_and_retracting")
        )

    def timeline_key(self) -> tuple:
        """Settings that determine the watermark timeline (besides the delay)."""
        return (self.interval_ms, self.strategy, self.idleness_ms, self.partitions_as_sources, self.source_parallelism)

    def as_row(self) -> dict:
        return asdict(self)


def _as_list(value: Any) -> list:
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
    elif hasattr(value, "__iter__") and not isinstance(value, (str, bytes, dict)) and hasattr(value, "__len__"):
        items = list(value)
    else:
        items = [value]
    if not items:
        raise ValueError("a sweep setting was given as an empty list")
    return items


def _durations(values: Any, name: str, *, optional: bool = False) -> list:
    out = []
    for v in _as_list(values):
        if optional and (v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "off"))):
            out.append(None)
            continue
        d = parse_duration(v, name=name)
        if name == "idleness" and d == 0:
            out.append(None)
            continue
        out.append(d)
    return list(dict.fromkeys(out))


def build_grid(
    *,
    window: Any,
    delay: Any = 0,
    lateness: Any = 0,
    interval: Any = 200,
    strategy: Any = "bounded",
    idleness: Any = None,
    partitions_as_sources: Any = True,
    source_parallelism: Any = 1,
    trigger: Any = "event_time",
    accumulation: Any = "accumulating",
) -> list[Config]:
    """Every combination of the given settings (lists), validated, duplicates removed."""
    windows = [window_name(parse_window(w)) for w in _as_list(window)]
    delays = _durations(delay, "delay")
    latenesses = _durations(lateness, "lateness")
    intervals = _durations(interval, "interval")
    idles = _durations(idleness, "idleness", optional=True)
    strategies = []
    for s in _as_list(strategy):
        s = str(s).lower()
        s = {"bounded_out_of_orderness": "bounded", "legacy_bounded_out_of_orderness": "legacy", "ascending": "monotonous"}.get(s, s)
        if s not in STRATEGIES:
            raise ValueError(f"strategy {s!r}: choose one of {', '.join(STRATEGIES)}")
        strategies.append(s)
    parts = [bool(p) for p in _as_list(partitions_as_sources)]
    pars = []
    for p in _as_list(source_parallelism):
        if isinstance(p, bool) or int(p) != p or int(p) < 1:
            raise ValueError(f"source_parallelism must be a positive integer, got {p!r}")
        pars.append(int(p))
    triggers = []
    for t in _as_list(trigger):
        t = "event_time" if t in (None, "default") else str(t)
        if t not in TRIGGERS:
            raise ValueError(f"trigger {t!r}: choose one of {', '.join(TRIGGERS)}")
        triggers.append(t)
    accs = []
    for a in _as_list(accumulation):
        a = {"retracting": "accumulating_and_retracting"}.get(str(a), str(a))
        if a not in ACCUMULATIONS:
            raise ValueError(f"accumulation {a!r}: choose one of {', '.join(ACCUMULATIONS)}")
        accs.append(a)
    grid = []
    for combo in itertools.product(
        windows, delays, latenesses, intervals, dict.fromkeys(strategies), idles, dict.fromkeys(parts),
        dict.fromkeys(pars), dict.fromkeys(triggers), dict.fromkeys(accs),
    ):
        grid.append(Config(*combo))
    return list(dict.fromkeys(grid))


def grid_frame(configs: Iterable[Config]):
    import pandas as pd

    return pd.DataFrame([c.as_row() for c in configs], columns=CONFIG_COLUMNS)
