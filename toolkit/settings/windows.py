"""Windows: the window values (Flink's assigners, Kafka Streams' sliding windows, the global
window, an engine object kept as it is) with their spellings, and the stagger of a tumbling
window.

Spellings: ``tumbling:SIZE[,OFFSET]``, ``sliding:SIZE/SLIDE[,OFFSET]``,
``cumulate:SIZE/STEP[,OFFSET]``, ``session:GAP``,
``dynamic_session:COLUMN``, ``kafka_sliding:DIFF``, ``global``, ``global_eos``; stagger
``aligned``, ``natural``, ``random`` or ``random:SEED``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from toolkit.settings.durations import did_you_mean, duration, format_duration
from toolkit.settings.names import SettingError


@dataclass(frozen=True)
class Tumbling:
    """``TumblingEventTimeWindows.of(size, offset)``: ``tumbling:SIZE[,OFFSET]``."""

    size: int
    offset: int = 0

    def __post_init__(self) -> None:
        if self.size <= 0:
            raise SettingError("window", f"window size must be > 0, got {self.size}")
        if abs(self.offset) >= self.size:
            raise SettingError("window", f"window offset must satisfy |offset| < size, got offset {self.offset}, size {self.size}")

    def __str__(self) -> str:
        off = f",{format_duration(self.offset)}" if self.offset else ""
        return f"tumbling:{format_duration(self.size)}{off}"

    def to_dict(self) -> dict:
        return {"type": "tumbling", "size": self.size, "offset": self.offset}


@dataclass(frozen=True)
class Sliding:
    """``SlidingEventTimeWindows.of(size, slide, offset)``: ``sliding:SIZE/SLIDE[,OFFSET]``."""

    size: int
    slide: int
    offset: int = 0

    def __post_init__(self) -> None:
        if self.size <= 0 or self.slide <= 0:
            raise SettingError("window", f"window size and slide must be > 0, got size {self.size}, slide {self.slide}")
        if abs(self.offset) >= self.slide:
            raise SettingError("window", f"window offset must satisfy |offset| < slide, got offset {self.offset}, slide {self.slide}")

    def __str__(self) -> str:
        off = f",{format_duration(self.offset)}" if self.offset else ""
        return f"sliding:{format_duration(self.size)}/{format_duration(self.slide)}{off}"

    def to_dict(self) -> dict:
        return {"type": "sliding", "size": self.size, "slide": self.slide, "offset": self.offset}


@dataclass(frozen=True)
class Cumulate:
    """Flink SQL's ``CUMULATE(TABLE t, DESCRIPTOR(ts), step, size[, offset])``:
    ``cumulate:SIZE/STEP[,OFFSET]``. Windows of ``step``, ``2 * step``, ... ``size`` share their
    start (a multiple of ``size`` shifted by ``offset``); each is a window of its own."""

    size: int
    step: int
    offset: int = 0

    def __post_init__(self) -> None:
        if self.size <= 0 or self.step <= 0:
            raise SettingError("window", f"window size and step must be > 0, got size {self.size}, step {self.step}")
        if self.step > self.size:
            raise SettingError("window", f"window cumulate: the step ({format_duration(self.step)}) must not exceed "
                               f"the size ({format_duration(self.size)})")
        if abs(self.offset) >= self.size:
            raise SettingError("window", f"window offset must satisfy |offset| < size, got offset {self.offset}, size {self.size}")

    def __str__(self) -> str:
        off = f",{format_duration(self.offset)}" if self.offset else ""
        return f"cumulate:{format_duration(self.size)}/{format_duration(self.step)}{off}"

    def to_dict(self) -> dict:
        return {"type": "cumulate", "size": self.size, "step": self.step, "offset": self.offset}


@dataclass(frozen=True)
class Session:
    """``EventTimeSessionWindows.withGap(gap)``: ``session:GAP``."""

    gap: int

    def __post_init__(self) -> None:
        if self.gap <= 0:
            raise SettingError("window", f"session gap must be > 0, got {self.gap}")

    def __str__(self) -> str:
        return f"session:{format_duration(self.gap)}"

    def to_dict(self) -> dict:
        return {"type": "session", "gap": self.gap}


@dataclass(frozen=True)
class DynamicSession:
    """``EventTimeSessionWindows.withDynamicGap(extractor)``: each record's gap (ms, > 0) is read
    from the log column ``column``: ``dynamic_session:COLUMN``. Load the log with
    ``keep=[COLUMN]`` (the command line keeps it by itself)."""

    column: str

    def __post_init__(self) -> None:
        c = self.column
        if not isinstance(c, str) or not c.strip() or c != c.strip() or any(ch in c for ch in " =,\t\n"):
            raise SettingError("window", f"dynamic_session:COLUMN needs a log column name (no spaces, '=' or ','), got {c!r}")

    def __str__(self) -> str:
        return f"dynamic_session:{self.column}"

    def to_dict(self) -> dict:
        return {"type": "dynamic_session", "gap_field": self.column}


@dataclass(frozen=True)
class KafkaSliding:
    """Kafka Streams' ``SlidingWindows.ofTimeDifferenceAndGrace(timeDifference, grace)``:
    ``kafka_sliding:DIFF`` (windows ``[t - DIFF, t]`` placed by the records themselves, both ends
    inclusive; ``sliding:SIZE/ADVANCE`` is Kafka's hopping ``TimeWindows.advanceBy``)."""

    time_difference: int

    def __post_init__(self) -> None:
        if self.time_difference <= 0:
            raise SettingError("window", f"kafka_sliding time difference must be > 0, got {self.time_difference}")

    def __str__(self) -> str:
        return f"kafka_sliding:{format_duration(self.time_difference)}"

    def to_dict(self) -> dict:
        return {"type": "kafka_sliding", "time_difference": self.time_difference}


@dataclass(frozen=True)
class Global:
    """``GlobalWindows``: ``global`` (never fires by itself) or ``global_eos`` (fires at end of input)."""

    end_of_stream: bool = False

    def __str__(self) -> str:
        return "global_eos" if self.end_of_stream else "global"

    def to_dict(self) -> dict:
        return {"type": "global", "end_of_stream_trigger": self.end_of_stream}


@dataclass(frozen=True, eq=False)
class Custom:
    """An engine object the user built (assigner, trigger, evictor, function or watermark
    strategy): kept as it is, compared by identity, written as its ``repr``."""

    obj: Any

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Custom) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __str__(self) -> str:
        return repr(self.obj)

    def to_dict(self) -> None:
        return None


WindowSpec = Union[Tumbling, Sliding, Cumulate, Session, DynamicSession, KafkaSliding, Global, Custom]
_WINDOW_KINDS = ("tumbling", "sliding", "cumulate", "session", "dynamic_session", "kafka_sliding", "global", "global_eos")
#: session windows, fixed or dynamic gap
SESSION_WINDOWS = (Session, DynamicSession)
#: event-time windows with the event-time trigger as their own
EVENT_TIME_WINDOWS = (Tumbling, Sliding, Session, DynamicSession)


def parse_window(spec: Any, name: str = "window") -> WindowSpec:
    """A window from its spelling, a scenario-format dict, a window value or an assigner object."""
    if isinstance(spec, (Tumbling, Sliding, Cumulate, Session, DynamicSession, KafkaSliding, Global, Custom)):
        return spec
    if isinstance(spec, dict):
        return _window_from_dict(spec, name)
    if not isinstance(spec, str):
        from toolkit.engine.flink.assigners import WindowAssigner

        if isinstance(spec, WindowAssigner):
            d = _assigner_dict(spec)
            return _window_from_dict(d, name) if d is not None else Custom(spec)
        raise SettingError(name, f"{name} must be written like 'tumbling:1s' (or be an assigner object), got {spec!r}")
    text = spec.strip()
    kind, _, arg = text.partition(":")
    kind = kind.strip().lower()
    try:
        if kind in ("global", "global_eos") and not arg:
            return Global(kind == "global_eos")
        if kind not in _WINDOW_KINDS:
            raise SettingError(name, f"{name} {spec!r}: unknown kind {kind!r}; use tumbling:1s, sliding:10s/5s, cumulate:1h/10min, "
                               f"session:30s, dynamic_session:COLUMN, kafka_sliding:1s, global or global_eos{did_you_mean(kind, _WINDOW_KINDS)}")
        if kind == "dynamic_session":
            if not arg.strip():
                raise SettingError(name, f"{name} {spec!r}: name the log column that holds each record's gap in ms, "
                                   "e.g. 'dynamic_session:gap_ms'")
            return DynamicSession(arg.strip())
        if not arg.strip():
            raise SettingError(name, f"{name} {spec!r}: give a size, e.g. 'tumbling:1s', 'sliding:10s/5s', 'session:30s'")
        offset = 0
        if kind in ("tumbling", "sliding", "cumulate"):
            for sep in (",", "+"):
                if sep in arg:
                    arg, _, off = arg.partition(sep)
                    offset = duration(off.strip(), f"{name} offset", allow_negative=True)
                    break
        if kind == "tumbling":
            return Tumbling(duration(arg.strip(), f"{name} size", positive=True), offset)
        if kind == "sliding":
            size, sep, slide = arg.partition("/")
            if not sep:
                raise SettingError(name, f"{name} {spec!r}: write a sliding window as 'sliding:SIZE/SLIDE', e.g. 'sliding:10s/5s'")
            return Sliding(duration(size.strip(), f"{name} size", positive=True),
                           duration(slide.strip(), f"{name} slide", positive=True), offset)
        if kind == "cumulate":
            size, sep, step = arg.partition("/")
            if not sep:
                raise SettingError(name, f"{name} {spec!r}: write a cumulating window as 'cumulate:SIZE/STEP', e.g. "
                                   "'cumulate:1h/10min'")
            return Cumulate(duration(size.strip(), f"{name} size", positive=True),
                            duration(step.strip(), f"{name} step", positive=True), offset)
        if kind == "session":
            return Session(duration(arg.strip(), f"{name} gap", positive=True))
        if kind == "kafka_sliding":
            return KafkaSliding(duration(arg.strip(), f"{name} time difference", positive=True))
        raise SettingError(name, f"{name} {spec!r}: {kind} takes no argument")
    except SettingError as exc:
        raise SettingError(name, str(exc).replace("window", name, 1) if name != "window" else str(exc)) from None


def _window_from_dict(d: dict, name: str) -> WindowSpec:
    t = d.get("type")
    try:
        if t == "tumbling":
            return Tumbling(int(d["size"]), int(d.get("offset", 0)))
        if t == "sliding":
            return Sliding(int(d["size"]), int(d["slide"]), int(d.get("offset", 0)))
        if t == "cumulate":
            return Cumulate(int(d["size"]), int(d["step"]), int(d.get("offset", 0)))
        if t == "session":
            return Session(int(d["gap"]))
        if t == "dynamic_session":
            return DynamicSession(str(d.get("gap_field", "gap")))
        if t == "kafka_sliding":
            return KafkaSliding(int(d["time_difference"]))
        if t == "global":
            return Global(bool(d.get("end_of_stream_trigger", False)))
    except KeyError as exc:
        raise SettingError(name, f"{name} {d!r}: missing {exc.args[0]!r}") from None
    from toolkit.engine.flink.config import assigner_from_dict

    return Custom(assigner_from_dict(d))


def _assigner_dict(a: Any) -> dict | None:
    """The scenario form of a built-in event-time assigner (None for any other)."""
    from toolkit.engine.flink.config import assigner_to_dict

    d = assigner_to_dict(a)
    return d if d is not None and d.get("type") in ("tumbling", "sliding", "session", "global") else None



STAGGERS = ("aligned", "natural", "random")


def parse_stagger(spec: Any, name: str = "stagger") -> str:
    """Flink's ``WindowStagger`` of a tumbling window: ``aligned`` (default), ``natural`` or
    ``random[:SEED]``. Flink draws RANDOM's offset once per window operator instance, at its
    first element, as ``(long) (ThreadLocalRandom.nextDouble() * size)``; a replay draws it
    from ``random.Random(SEED)`` (default seed 0), so a RANDOM replay is reproducible."""
    if spec is None:
        return "aligned"
    if hasattr(spec, "value") and type(spec).__name__ == "WindowStagger":  # the engine's enum
        spec = spec.value
    text = str(spec).strip().lower()
    kind, sep, seed = text.partition(":")
    kind = kind.strip()
    if kind not in STAGGERS:
        raise SettingError(name, f"{name} {spec!r}: choose one of aligned, natural, random or random:SEED"
                           f"{did_you_mean(kind, STAGGERS)}")
    if sep:
        if kind != "random":
            raise SettingError(name, f"{name} {spec!r}: only random takes a seed (random:SEED)")
        if not seed.strip().isdigit():
            raise SettingError(name, f"{name} {spec!r}: the seed must be a non-negative integer, e.g. random:7")
        return "random" if int(seed) == 0 else f"random:{int(seed)}"
    return kind


def stagger_assigner(window: Tumbling, stagger: str):
    """``TumblingEventTimeWindows.of(size, offset, WindowStagger.X)`` (RANDOM seeded)."""
    import random

    from toolkit.engine.flink.assigners import TumblingEventTimeWindows, WindowStagger

    kind, _, seed = stagger.partition(":")
    rng = random.Random(int(seed or 0)) if kind == "random" else None
    return TumblingEventTimeWindows(window.size, window.offset, WindowStagger(kind), rng=rng)


def staggered_offset(window: Tumbling, stagger: str, first_processing_time: int) -> int:
    """The offset a staggered tumbling window works with, as one window operator instance
    resolves it at its first element (processing time ``first_processing_time``):
    ``(offset + stagger offset) % size`` in Java's arithmetic (``TumblingEventTimeWindows``)."""
    a = stagger_assigner(window, stagger)
    a._resolve_stagger(int(first_processing_time))
    return int(a._eff_offset)



__all__ = ["Tumbling", "Sliding", "Session", "DynamicSession", "KafkaSliding", "Global", "Custom", "WindowSpec",
           "SESSION_WINDOWS", "EVENT_TIME_WINDOWS", "parse_window", "STAGGERS", "parse_stagger", "stagger_assigner",
           "staggered_offset"]
