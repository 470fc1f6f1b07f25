"""Settings: what a user writes becomes small, validated, comparable values.

One vocabulary everywhere (``toolkit.replay``, ``toolkit.sweep``, the explorer, the report
and every command line), in Flink's words:

``window, trigger, evictor, lateness, function, accumulation`` (the window operator),
``strategy, delay, interval, idleness, source_parallelism, partitions_as_sources`` (the
watermarks), the strategy's own parameters (``step`` for ``idle_advance``, ``marker`` for
``punctuated``, ``quantile, quantile_window, min_delay, max_delay`` for ``adaptive``) and an
optional second windowed stage (``second_window, second_lateness``) or any number of downstream
stages (``stages``: each a :class:`Stage` with its own window, trigger, lateness, function and
accumulation, written ``"window=tumbling:5s lateness=1s"``; ``second_window=W
second_lateness=L`` is the alias of ``stages=["window=W lateness=L"]``).

Spellings (durations as ``"500ms"``, ``"2s"``, ``"1min"`` or integer ms):

- window: ``tumbling:1s``, ``tumbling:1s,250ms`` (offset), ``sliding:10s/5s[,offset]``,
  ``session:30s``, ``dynamic_session:COLUMN`` (each record's gap in ms from that log column),
  ``global``, ``global_eos`` (global window fired at end of input);
- stagger (tumbling windows): ``aligned`` (default), ``natural``, ``random`` or ``random:SEED``;
- trigger: ``default`` (the window's own), ``event_time``, ``processing_time``, ``count:N``,
  ``continuous:5s`` (``ContinuousEventTimeTrigger``), ``continuous_processing:5s``,
  ``purging:<trigger>``, ``never``, ``end_of_stream``;
- evictor: ``none``, ``count:N``, ``time:5s``, with ``,after`` to evict after the function;
- function: ``count_sum`` (default) or ``values``; accumulation: ``accumulating``,
  ``discarding``, ``retracting`` (Beam's accumulating-and-retracting);
- strategy: ``bounded`` (``max - delay - 1``, Flink's ``forBoundedOutOfOrderness``),
  ``legacy`` (``max - delay``), ``monotonous``, ``time_lag`` (processing time - delay),
  ``punctuated`` (a marked record emits ``ts - delay``), ``idle_advance`` (``step``),
  ``adaptive`` (Watermark Lab extension; ``delay`` is its initial delay).

Every value type validates on construction, compares by value, ``str()`` writes the spelling
above and ``parse()`` reads it back (``parse(str(x)) == x``). :class:`Setting` is one
configuration; :func:`grid` expands lists into settings. Engine objects (an assigner, a
trigger, a watermark strategy or a window function built by hand) are accepted too and kept
as they are. Old spellings (``generator=``, ``parallelism=``, ``accumulating_and_retracting``,
``bounded_out_of_orderness`` ...) are read as aliases.
"""
from __future__ import annotations

import difflib
import importlib
import itertools
import math
import sys
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Iterable, Union

import numpy as np

from toolkit.durations import parse_duration
from toolkit.engine.flink.pipeline import window_timer_targets
from toolkit.engine.flink.timeline import TimerTargets

_LOADING = True  # this module is being imported (see _check_engine)

#: Durations above this are refused as absurd (10 years): they can only be a unit mistake.
MAX_SETTING_MS = 10 * 366 * 24 * 3600 * 1000

#: when a source split (a log partition) is registered: at job start, or just before its first
#: record (Flink's dynamic split assignment); toolkit.engine.flink.sources.SPLIT_DISCOVERY
SPLIT_DISCOVERIES = ("at_start", "at_first_record")
STRATEGIES = ("bounded", "legacy", "monotonous", "time_lag", "punctuated", "idle_advance", "adaptive")
ACCUMULATIONS = ("accumulating", "discarding", "retracting")
FUNCTIONS = ("count_sum", "values")

_STRATEGY_ALIASES = {
    "bounded_out_of_orderness": "bounded",
    "for_bounded_out_of_orderness": "bounded",
    "legacy_bounded_out_of_orderness": "legacy",
    "ascending": "monotonous",
    "for_monotonous_timestamps": "monotonous",
    "monotonous_timestamps": "monotonous",
}
_ACCUMULATION_ALIASES = {"accumulating_and_retracting": "retracting"}
_FUNCTION_ALIASES = {"aggregate": "count_sum", "process": "values"}

#: keyword aliases: old or Flink-API spelling -> the one name
ALIASES = {
    "generator": "strategy",
    "watermark_strategy": "strategy",
    "parallelism": "source_parallelism",
    "idle_timeout": "idleness",
    "allowed_lateness": "lateness",
    "max_out_of_orderness": "delay",
    "lag": "delay",
    "assigner": "window",
    "auto_watermark_interval": "interval",
    "initial_delay": "delay",
}


class SettingError(ValueError):
    """A setting the user gave is wrong; ``setting`` is its name (``delay``, ``window`` ...).

    The message is written with the name as the user spelled it: the Python keyword, or the
    command-line option when the command line parsed it (``label``)."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(message)
        self.setting = setting


def cli_option(name: str) -> str:
    """The command-line spelling of a setting (``second_lateness`` -> ``--second-lateness``)."""
    return "--" + name.replace("_", "-")


# ----------------------------------------------------------------------------------------
# durations
# ----------------------------------------------------------------------------------------

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


def _duration(value: Any, name: str, *, positive: bool = False, allow_negative: bool = False) -> int:
    try:
        ms = parse_duration(value, name=name, allow_negative=allow_negative)
    except ValueError as exc:
        raise SettingError(name, str(exc)) from None
    if positive and ms <= 0:
        raise SettingError(name, f"{name} must be > 0, got {value!r}")
    if abs(ms) > MAX_SETTING_MS:
        raise SettingError(name, f"{name} of {value!r} is absurd (more than 10 years); check the unit")
    return ms


def _int(value: Any, name: str, *, minimum: int) -> int:
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value.strip())
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise SettingError(name, f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _choice(value: Any, name: str, choices: tuple[str, ...], aliases: dict[str, str]) -> str:
    text = str(value).strip().lower()
    text = aliases.get(text, text)
    if text not in choices:
        raise SettingError(name, f"{name} {value!r}: choose one of {', '.join(choices)}{_did_you_mean(text, choices + tuple(aliases))}")
    return text


def _did_you_mean(word: str, candidates: Iterable[str]) -> str:
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


def format_setting_value(name: str, value: Any) -> str:
    """A setting's value as ``str(setting)`` writes it (durations in their largest exact unit)."""
    return _text(name, value)


# ----------------------------------------------------------------------------------------
# declarations: every setting once (name, default, parser, help, unit, control)
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One setting, declared once: read by the parser, the grid, the sweep table, the explorer
    and the docs. The common settings are :data:`COMMON_OPTIONS`; each engine declares its own
    in its ``toolkit.semantics`` package.

    ``parse(value, name)`` turns what the user wrote into the value a :class:`Setting` holds (an
    error names ``name``); ``default`` is the value when not given; ``unit`` is ``"ms"`` for
    durations (the row column is then ``NAME_ms``); ``control`` is the explorer's widget:
    ``"choice"`` (with ``choices``), ``"duration"``, ``"int"``, ``"bool"`` or ``"text"``; ``help``
    is what ``--help`` and the explorer's tooltips say."""

    name: str
    default: Any
    parse: Any
    help: str
    unit: str = ""
    control: str = "text"
    choices: tuple = ()
    #: its spelling has commas: on the command line a list repeats the option instead
    commas: bool = False

    @property
    def column(self) -> str:
        """The sweep result column of this setting."""
        return f"{self.name}_ms" if self.unit == "ms" else self.name


# ----------------------------------------------------------------------------------------
# the engines: each validates and owns its settings (installed by toolkit.semantics)
# ----------------------------------------------------------------------------------------


class _Engines:
    """What the settings ask of the engine registry (``toolkit.semantics``), which installs it:
    the settings layer does not import the engines, the engines' package installs itself here."""

    def __init__(self, get: Any, names: Any, aliases: Any, owner: Any) -> None:
        self.get, self.names, self.aliases, self.owner = get, names, aliases, owner

    def canonical(self, value: Any) -> str:
        """The engine's name of what the user wrote for ``semantics``."""
        return _choice(value, "semantics", self.names(), self.aliases())

    def option(self, name: str) -> Any:
        """The declaration of an engine's own setting ``name`` (None for a common setting)."""
        eng = self.owner(name)
        return None if eng is None else next(o for o in eng.options if o.name == name)

    def option_names(self, *, exclude: str | None = None) -> tuple[str, ...]:
        """Every engine's own settings, but ``exclude``'s."""
        return tuple(o.name for n in self.names() if n != exclude for o in self.get(n).options)


_ENGINES: _Engines | None = None


def install_semantics(get: Any, names: Any, aliases: Any, owner: Any) -> None:
    """Called once by ``toolkit.semantics`` (imported by ``import toolkit``): the registry."""
    global _ENGINES
    _ENGINES = _Engines(get, names, aliases, owner)


def _engines() -> _Engines:
    """The installed registry. The first setting that needs an engine loads the registry (which
    installs itself): the engines are plug-ins above this layer, loaded by name on first use, as
    pandas' ``get_engine`` loads a parquet engine, so ``import toolkit`` stays light."""
    if _ENGINES is None:
        importlib.import_module("toolkit.semantics")
    if _ENGINES is None:  # pragma: no cover - the registry always installs itself
        raise RuntimeError("toolkit.semantics did not install the engines")
    return _ENGINES


def semantics_names() -> tuple[str, ...]:
    """The registered engines' names (``semantics=``), in the registry's stable order."""
    return tuple(_engines().names())


def _a(words: str) -> str:
    return ("an " if words[:1] in "AEIOU" else "a ") + words


def _check_engine(s: Any) -> None:
    """Refuse another engine's own settings (naming them), then let the setting's engine check it."""
    if _ENGINES is None and (_LOADING or "toolkit.semantics" in sys.modules):
        return  # the default setting built while this module or the registry is being imported
    engines = _engines()
    engine = engines.get(s.semantics)
    for name in engines.option_names(exclude=engine.name):
        if getattr(s, name) is not None:
            other = engines.owner(name)
            raise SettingError(name, f"{name} is {_a(other.title)} setting, not {_a(engine.short_title)} setting; give "
                               f"semantics={other.name!r} to replay the log the way {other.title} would")
    engine.check(s)


# ----------------------------------------------------------------------------------------
# windows
# ----------------------------------------------------------------------------------------


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


WindowSpec = Union[Tumbling, Sliding, Session, DynamicSession, KafkaSliding, Global, Custom]
_WINDOW_KINDS = ("tumbling", "sliding", "session", "dynamic_session", "kafka_sliding", "global", "global_eos")
#: session windows, fixed or dynamic gap
SESSION_WINDOWS = (Session, DynamicSession)
#: event-time windows with the event-time trigger as their own
EVENT_TIME_WINDOWS = (Tumbling, Sliding, Session, DynamicSession)


def parse_window(spec: Any, name: str = "window") -> WindowSpec:
    """A window from its spelling, a scenario-format dict, a window value or an assigner object."""
    if isinstance(spec, (Tumbling, Sliding, Session, DynamicSession, KafkaSliding, Global, Custom)):
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
            raise SettingError(name, f"{name} {spec!r}: unknown kind {kind!r}; use tumbling:1s, sliding:10s/5s, session:30s, "
                               f"dynamic_session:COLUMN, kafka_sliding:1s, global or global_eos{_did_you_mean(kind, _WINDOW_KINDS)}")
        if kind == "dynamic_session":
            if not arg.strip():
                raise SettingError(name, f"{name} {spec!r}: name the log column that holds each record's gap in ms, "
                                   "e.g. 'dynamic_session:gap_ms'")
            return DynamicSession(arg.strip())
        if not arg.strip():
            raise SettingError(name, f"{name} {spec!r}: give a size, e.g. 'tumbling:1s', 'sliding:10s/5s', 'session:30s'")
        offset = 0
        if kind in ("tumbling", "sliding"):
            for sep in (",", "+"):
                if sep in arg:
                    arg, _, off = arg.partition(sep)
                    offset = _duration(off.strip(), f"{name} offset", allow_negative=True)
                    break
        if kind == "tumbling":
            return Tumbling(_duration(arg.strip(), f"{name} size", positive=True), offset)
        if kind == "sliding":
            size, sep, slide = arg.partition("/")
            if not sep:
                raise SettingError(name, f"{name} {spec!r}: write a sliding window as 'sliding:SIZE/SLIDE', e.g. 'sliding:10s/5s'")
            return Sliding(_duration(size.strip(), f"{name} size", positive=True),
                           _duration(slide.strip(), f"{name} slide", positive=True), offset)
        if kind == "session":
            return Session(_duration(arg.strip(), f"{name} gap", positive=True))
        if kind == "kafka_sliding":
            return KafkaSliding(_duration(arg.strip(), f"{name} time difference", positive=True))
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


# ----------------------------------------------------------------------------------------
# triggers and evictors
# ----------------------------------------------------------------------------------------

_TRIGGER_KINDS = ("default", "event_time", "processing_time", "count", "continuous", "continuous_processing",
                  "purging", "never", "end_of_stream")


@dataclass(frozen=True)
class TriggerSpec:
    """A trigger: ``kind`` plus ``count`` (count) / ``interval`` (continuous) / ``inner`` (purging)."""

    kind: str
    count: int | None = None
    interval: int | None = None
    inner: "TriggerSpec | None" = None

    def __post_init__(self) -> None:
        if self.kind not in _TRIGGER_KINDS:
            raise SettingError("trigger", f"unknown trigger kind {self.kind!r}")
        if self.kind == "count" and (self.count is None or self.count <= 0):
            raise SettingError("trigger", f"trigger count:N needs a positive N, got {self.count!r}")
        if self.kind in ("continuous", "continuous_processing") and (self.interval is None or self.interval <= 0):
            raise SettingError("trigger", f"trigger {self.kind}:INTERVAL needs a positive interval, got {self.interval!r}")
        if self.kind == "purging" and (self.inner is None or self.inner.kind in ("default", "purging")):
            raise SettingError("trigger", "purging:<trigger> needs an inner trigger such as purging:count:5")

    def __str__(self) -> str:
        if self.kind == "count":
            return f"count:{self.count}"
        if self.kind in ("continuous", "continuous_processing"):
            return f"{self.kind}:{format_duration(self.interval)}"
        if self.kind == "purging":
            return f"purging:{self.inner}"
        return self.kind

    def to_dict(self) -> dict | None:
        """The scenario format (``None`` = the window's default trigger)."""
        if self.kind == "default":
            return None
        if self.kind == "count":
            return {"type": "count", "count": self.count}
        if self.kind == "continuous":
            return {"type": "continuous_event_time", "interval": self.interval}
        if self.kind == "continuous_processing":
            return {"type": "continuous_processing_time", "interval": self.interval}
        if self.kind == "purging":
            return {"type": "purging", "inner": self.inner.to_dict()}
        return {"type": self.kind}


def parse_trigger(spec: Any, name: str = "trigger") -> TriggerSpec | Custom:
    if spec is None:
        return TriggerSpec("default")
    if isinstance(spec, (TriggerSpec, Custom)):
        return spec
    if isinstance(spec, dict):
        return _trigger_from_dict(spec, name)
    if not isinstance(spec, str):
        from toolkit.engine.flink.triggers import Trigger

        if isinstance(spec, Trigger):
            return Custom(spec)
        raise SettingError(name, f"{name} must be written like 'count:5' (or be a Trigger object), got {spec!r}")
    text = spec.strip()
    kind, _, arg = text.partition(":")
    kind = kind.strip().lower()
    kind = {"": "default", "continuous_event_time": "continuous", "continuous_processing_time": "continuous_processing"}.get(kind, kind)
    if kind not in _TRIGGER_KINDS:
        raise SettingError(name, f"unknown {name} {spec!r}; use default, event_time, processing_time, count:N, continuous:5s, "
                           f"continuous_processing:5s, purging:<trigger>, never or end_of_stream{_did_you_mean(kind, _TRIGGER_KINDS)}")
    if kind == "count":
        if not arg.strip().isdigit() or int(arg) <= 0:
            raise SettingError(name, f"{name} {spec!r}: count must be a positive integer, e.g. count:5")
        return TriggerSpec("count", count=int(arg))
    if kind in ("continuous", "continuous_processing"):
        return TriggerSpec(kind, interval=_duration(arg.strip(), f"{name} interval", positive=True))
    if kind == "purging":
        return TriggerSpec("purging", inner=parse_trigger(arg or "event_time", name))
    if arg:
        raise SettingError(name, f"{name} {spec!r}: {kind} takes no argument")
    return TriggerSpec(kind)


def _trigger_from_dict(d: dict, name: str) -> TriggerSpec:
    t = d.get("type", "default")
    if t == "count":
        return TriggerSpec("count", count=int(d["count"]))
    if t == "continuous_event_time":
        return TriggerSpec("continuous", interval=int(d["interval"]))
    if t == "continuous_processing_time":
        return TriggerSpec("continuous_processing", interval=int(d["interval"]))
    if t == "purging":
        return TriggerSpec("purging", inner=_trigger_from_dict(d.get("inner") or {"type": "event_time"}, name))
    if t in _TRIGGER_KINDS:
        return TriggerSpec(t)
    raise SettingError(name, f"unknown {name} type {t!r}")

# -- Beam triggers (semantics="beam") -------------------------------------------------------

_BEAM_KINDS = ("default", "after_watermark", "after_count", "after_processing_time", "repeatedly", "after_any",
               "after_all", "after_each", "orfinally")
_BEAM_ALIASES = {"count": "after_count", "processing": "after_processing_time", "processing_time": "after_processing_time",
                 "watermark": "after_watermark", "after_first": "after_any", "after_pane_element_count": "after_count",
                 "after_end_of_window": "after_watermark", "or_finally": "orfinally"}


@dataclass(frozen=True)
class BeamTrigger:
    """A Beam trigger tree, written like ``after_watermark(early=after_processing_time:5s,late=after_count:1)``,
    ``repeatedly(after_count:3)``, ``after_any(after_count:2,after_processing_time:1s)`` or ``default``
    (short forms ``count:N``, ``processing:5s``, ``watermark``). ``AfterProcessingTime`` takes whole
    seconds: the Python SDK keeps ``delay // 1 s`` of it."""

    kind: str
    n: int | None = None  # after_count
    delay: int | None = None  # after_processing_time, ms (whole seconds)
    children: tuple["BeamTrigger", ...] = ()  # repeatedly: 1; after_any/all/each: >= 1; orfinally: (main, final)
    early: "BeamTrigger | None" = None
    late: "BeamTrigger | None" = None

    def __str__(self) -> str:
        if self.kind == "after_count":
            return f"after_count:{self.n}"
        if self.kind == "after_processing_time":
            return f"after_processing_time:{format_duration(self.delay)}"
        if self.kind == "after_watermark":
            args = [f"{k}={v}" for k, v in (("early", self.early), ("late", self.late)) if v is not None]
            return "after_watermark" + (f"({','.join(args)})" if args else "")
        if self.children:
            return f"{self.kind}({','.join(str(c) for c in self.children)})"
        return self.kind

    def to_spec(self) -> dict | None:
        """The Beam scenario format (oracles/beam/README.md; ``None`` = the default trigger)."""
        if self.kind == "default":
            return None
        if self.kind == "after_count":
            return {"type": "after_count", "n": self.n}
        if self.kind == "after_processing_time":
            return {"type": "after_processing_time", "delay_ms": self.delay}
        if self.kind == "after_watermark":
            d: dict = {"type": "after_watermark"}
            for k in ("early", "late"):
                v = getattr(self, k)
                if v is not None:
                    d[k] = v.to_spec() or {"type": "default"}
            return d
        if self.kind == "repeatedly":
            return {"type": "repeatedly", "trigger": self.children[0].to_spec() or {"type": "default"}}
        if self.kind == "orfinally":
            return {"type": "orfinally", "main": self.children[0].to_spec() or {"type": "default"},
                    "finally": self.children[1].to_spec() or {"type": "default"}}
        return {"type": self.kind, "triggers": [c.to_spec() or {"type": "default"} for c in self.children]}

    @property
    def watermark_rooted(self) -> bool:
        """The default trigger or ``after_watermark(...)``: every window fires at the watermark."""
        return self.kind in ("default", "after_watermark")

    @property
    def uses_processing_time(self) -> bool:
        """An ``after_processing_time`` anywhere in the tree."""
        return self.kind == "after_processing_time" or any(
            t is not None and t.uses_processing_time for t in (*self.children, self.early, self.late))


def _split_args(text: str, where: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise SettingError(where, f"{where}: unbalanced ')' in {text!r}")
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if depth:
        raise SettingError(where, f"{where}: missing ')' in {text!r}")
    out.append(cur)
    return [a.strip() for a in out]


def parse_beam_trigger(spec: Any, name: str = "beam_trigger") -> BeamTrigger:
    """A :class:`BeamTrigger` from its spelling (errors name ``name`` and show the spellings)."""
    if spec is None:
        return BeamTrigger("default")
    if isinstance(spec, BeamTrigger):
        return spec
    if not isinstance(spec, str):
        raise SettingError(name, f"{name} is written like 'after_watermark(early=after_count:2,late=after_count:1)', got {spec!r}")
    text = spec.strip().replace(" ", "")
    head, paren, rest = text.partition("(")
    kind, _, arg = head.partition(":")
    kind = kind.lower() or "default"
    kind = _BEAM_ALIASES.get(kind, kind)
    if kind not in _BEAM_KINDS:
        raise SettingError(name, f"unknown {name} {spec!r}; use default, after_watermark(early=...,late=...), "
                           f"after_count:N, after_processing_time:5s, repeatedly(...), after_any(...,...), after_all(...), "
                           f"after_each(...), orfinally(main,final){_did_you_mean(kind, _BEAM_KINDS)}")
    args: list[str] = []
    if paren:
        if not rest.endswith(")"):
            raise SettingError(name, f"{name} {spec!r}: missing ')'")
        args = [a for a in _split_args(rest[:-1], name) if a]
        if kind in ("default", "after_count", "after_processing_time"):
            raise SettingError(name, f"{name} {spec!r}: {kind} takes no (...)")
    if kind == "after_count":
        if not arg.isdigit() or int(arg) <= 0:
            raise SettingError(name, f"{name} {spec!r}: after_count needs a positive count, e.g. after_count:3")
        return BeamTrigger("after_count", n=int(arg))
    if kind == "after_processing_time":
        d = _duration(arg, f"{name} delay")
        if d % 1000:
            raise SettingError(name, f"{name} {spec!r}: Beam's Python SDK keeps whole seconds of an AfterProcessingTime "
                               f"delay ({format_duration(d)} would become {d // 1000}s); give whole seconds")
        return BeamTrigger("after_processing_time", delay=d)
    if arg:
        raise SettingError(name, f"{name} {spec!r}: {kind} takes no ':' argument")
    if kind == "after_watermark":
        given: dict[str, BeamTrigger] = {}
        for a in args:
            k, eq, v = a.partition("=")
            if not eq or k not in ("early", "late") or k in given:
                raise SettingError(name, f"{name} {spec!r}: after_watermark takes early=... and/or late=..., got {a!r}")
            given[k] = parse_beam_trigger(v, name)
        return BeamTrigger("after_watermark", early=given.get("early"), late=given.get("late"))
    children = tuple(parse_beam_trigger(a, name) for a in args)
    if kind == "repeatedly" and len(children) != 1:
        raise SettingError(name, f"{name} {spec!r}: repeatedly takes one trigger, e.g. repeatedly(after_count:3)")
    if kind in ("after_any", "after_all", "after_each") and not children:
        raise SettingError(name, f"{name} {spec!r}: {kind} takes one or more triggers, e.g. {kind}(after_count:2,watermark)")
    if kind == "orfinally" and len(children) != 2:
        raise SettingError(name, f"{name} {spec!r}: orfinally takes two triggers (main, final)")
    if kind == "default" and children:
        raise SettingError(name, f"{name} {spec!r}: default takes no (...)")
    return BeamTrigger(kind, children=children)


@dataclass(frozen=True)
class EvictorSpec:
    """``CountEvictor.of(max)`` (``count:N``) or ``TimeEvictor.of(keep)`` (``time:5s``);
    ``after`` evicts after the window function (``,after``)."""

    kind: str
    size: int
    after: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("count", "time"):
            raise SettingError("evictor", f"unknown evictor kind {self.kind!r}; use count:N or time:5s")
        if self.kind == "count" and self.size <= 0:
            raise SettingError("evictor", f"evictor count:N needs a positive N, got {self.size}")
        if self.kind == "time" and self.size < 0:
            raise SettingError("evictor", f"evictor time:KEEP must not be negative, got {self.size}")

    def __str__(self) -> str:
        arg = str(self.size) if self.kind == "count" else format_duration(self.size)
        return f"{self.kind}:{arg}" + (",after" if self.after else "")

    def to_dict(self) -> dict:
        key = "max" if self.kind == "count" else "keep"
        return {"type": self.kind, key: self.size, "after": self.after}


def parse_evictor(spec: Any, name: str = "evictor") -> EvictorSpec | Custom | None:
    if spec is None or isinstance(spec, (EvictorSpec, Custom)):
        return spec
    if isinstance(spec, dict):
        kind = spec.get("type")
        return EvictorSpec(kind, int(spec.get("max", spec.get("keep", 0))), bool(spec.get("after", False)))
    if not isinstance(spec, str):
        from toolkit.engine.flink.evictors import Evictor

        if isinstance(spec, Evictor):
            return Custom(spec)
        raise SettingError(name, f"{name} must be written like 'count:100' or 'time:5s', got {spec!r}")
    text = spec.strip()
    if text.lower() in ("", "none", "off"):
        return None
    kind, _, arg = text.partition(":")
    arg, _, after = arg.partition(",")
    kind = kind.strip().lower()
    if after.strip().lower() not in ("", "after"):
        raise SettingError(name, f"{name} {spec!r}: only ',after' may follow the size")
    if kind == "count":
        if not arg.strip().isdigit() or int(arg) <= 0:
            raise SettingError(name, f"{name} {spec!r}: count must be a positive integer, e.g. count:100")
        return EvictorSpec("count", int(arg), bool(after.strip()))
    if kind == "time":
        return EvictorSpec("time", _duration(arg.strip(), f"{name} keep"), bool(after.strip()))
    raise SettingError(name, f"unknown {name} {spec!r}; use count:N or time:5s (append ',after' to evict after the function){_did_you_mean(kind, ('count', 'time', 'none'))}")


def parse_function(spec: Any, name: str = "function") -> str | Custom:
    if spec is None:
        return "count_sum"
    if isinstance(spec, Custom):
        return spec
    if isinstance(spec, str):
        return _choice(spec, name, FUNCTIONS, _FUNCTION_ALIASES)
    from toolkit.engine.flink.functions import WindowFunction

    if isinstance(spec, WindowFunction):
        return Custom(spec)
    raise SettingError(name, f"{name} must be 'count_sum', 'values' or a window function object, got {spec!r}")


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
                           f"{_did_you_mean(kind, STAGGERS)}")
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


# ----------------------------------------------------------------------------------------
# pipeline stages (the stages after the first: ``stages=[...]``, ``--stage``)
# ----------------------------------------------------------------------------------------

#: what a stage has (the first stage is the setting's own window, trigger, lateness ...)
STAGE_FIELDS = ("window", "trigger", "lateness", "function", "accumulation")


@dataclass(frozen=True)
class Stage:
    """One downstream windowed stage of a pipeline: ``window=tumbling:5s lateness=1s
    trigger=count:3 function=count_sum accumulation=accumulating`` (the window is required).

    It is fed by the previous stage's firings, Flink's rule: each result becomes a record with
    timestamp = the window's ``max_timestamp`` (``end - 1``) and value = its sum (a ``values``
    result: the sum of its values; a join: its number of pairs), keyed as before; the previous
    stage's watermark is forwarded after it processed it."""

    window: WindowSpec
    trigger: TriggerSpec | Custom = field(default_factory=lambda: TriggerSpec("default"))
    lateness: int = 0
    function: str | Custom = "count_sum"
    accumulation: str = "accumulating"

    def __post_init__(self) -> None:
        if isinstance(self.trigger, TriggerSpec) and self.trigger.kind == "default" and isinstance(self.window, (Tumbling, Sliding, Session)):
            object.__setattr__(self, "trigger", TriggerSpec("event_time"))
        if self.accumulation not in ACCUMULATIONS:
            raise SettingError("stages", f"stage accumulation {self.accumulation!r}: choose one of {', '.join(ACCUMULATIONS)}")
        if self.lateness < 0:
            raise SettingError("stages", f"stage lateness must not be negative, got {self.lateness}")

    def __str__(self) -> str:
        parts = [f"window={self.window}"]
        default = Stage(self.window)
        for name in STAGE_FIELDS[1:]:
            v = getattr(self, name)
            if v != getattr(default, name):
                parts.append(f"{name}={format_duration(v) if name == 'lateness' else v}")
        return ";".join(parts)

    def operator_kwargs(self) -> dict:
        """Keyword arguments of this stage's window operator (engine objects)."""
        from toolkit.engine.flink.config import assigner_from_dict, function_from_name, trigger_from_dict

        w, t, fn = self.window, self.trigger, self.function
        trigger = t.obj if isinstance(t, Custom) else trigger_from_dict(t.to_dict())
        if isinstance(t, TriggerSpec) and t.kind == "event_time" and isinstance(w, (Tumbling, Sliding, Session)):
            trigger = None
        return {"assigner": w.obj if isinstance(w, Custom) else assigner_from_dict(w.to_dict()), "trigger": trigger,
                "allowed_lateness": self.lateness, "function": fn.obj if isinstance(fn, Custom) else function_from_name(fn),
                "accumulation": "accumulating_and_retracting" if self.accumulation == "retracting" else self.accumulation}

    def scenario_config(self) -> dict:
        """The window-scenario config (``../shared/oracle`` format) of this stage."""
        if isinstance(self.window, Custom) or isinstance(self.trigger, Custom):
            raise ValueError("export needs the stage's window and trigger given as spellings")
        if self.accumulation != "accumulating":
            raise ValueError(f"export: Flink has no {self.accumulation} mode (a window keeps its contents until purged); "
                             "write the stage with a purging trigger instead")
        trig = None if self.trigger == TriggerSpec("event_time") and isinstance(self.window, (Tumbling, Sliding, Session)) else self.trigger.to_dict()
        return {"assigner": self.window.to_dict(), "trigger": trig, "evictor": None, "allowed_lateness": self.lateness,
                "side_output_late": True, "function": "aggregate"}


def parse_stage(spec: Any, name: str = "stages") -> Stage:
    """A stage from its text (``"window=tumbling:5s lateness=1s"``, fields separated by spaces
    or ``;``), a dict of the same names, or a :class:`Stage`."""
    if isinstance(spec, Stage):
        return spec
    if isinstance(spec, str):
        given: dict = {}
        for token in spec.replace(";", " ").split():
            k, sep, v = token.partition("=")
            if not sep:
                raise SettingError(name, f"{name}: cannot read {token!r} in {spec!r}; write a stage as "
                                   "'window=tumbling:5s lateness=1s' (names: " + ", ".join(STAGE_FIELDS) + ")")
            given[k.strip()] = v.strip()
    elif isinstance(spec, dict):
        given = dict(spec)
    else:
        raise SettingError(name, f"{name}: a stage is text like 'window=tumbling:5s lateness=1s' or a dict, got {spec!r}")
    given = {ALIASES.get(k, k): v for k, v in given.items()}
    unknown = [k for k in given if k not in STAGE_FIELDS]
    if unknown:
        raise SettingError(name, f"{name}: unknown stage setting {unknown[0]!r}{_did_you_mean(unknown[0], STAGE_FIELDS)}; "
                           f"a stage has {', '.join(STAGE_FIELDS)}")
    if "window" not in given:
        raise SettingError(name, f"{name}: the stage {spec!r} needs a window, e.g. 'window=tumbling:5s'")
    try:
        out: dict[str, Any] = {"window": parse_window(given["window"], "window")}
        if "trigger" in given:
            out["trigger"] = parse_trigger(given["trigger"], "trigger")
        if "lateness" in given:
            out["lateness"] = _duration(given["lateness"], "lateness")
        if "function" in given:
            out["function"] = parse_function(given["function"], "function")
        if "accumulation" in given:
            out["accumulation"] = _choice(given["accumulation"], "accumulation", ACCUMULATIONS, _ACCUMULATION_ALIASES)
        return Stage(**out)
    except SettingError as exc:
        raise SettingError(name, f"{name}: stage {spec!r}: {exc}") from None


def parse_stages(spec: Any, name: str = "stages") -> tuple[Stage, ...]:
    """Stages from a list (each as :func:`parse_stage` reads it) or one text with stages
    separated by ``|`` (as ``str(setting)`` writes them)."""
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("", "none")):
        return ()
    if isinstance(spec, (str, Stage, dict)):
        spec = [s for s in spec.split("|")] if isinstance(spec, str) else [spec]
    if not isinstance(spec, (list, tuple)):
        raise SettingError(name, f"{name} must be a list of stages such as ['window=tumbling:5s lateness=1s'], got {spec!r}")
    out = []
    for i, item in enumerate(spec):
        try:
            out.append(parse_stage(item, name))
        except SettingError as exc:
            raise SettingError(name, str(exc).replace(f"{name}: ", f"{name}[{i}] (stage {i + 2}): ", 1)) from None
    return tuple(out)


# ----------------------------------------------------------------------------------------
# one configuration
# ----------------------------------------------------------------------------------------


def _opt_duration(v: Any, name: str, *, positive: bool = False) -> int | None:
    if v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "off")):
        return None
    return _duration(v, name, positive=positive)


@dataclass(frozen=True)
class Setting:
    """One configuration: every setting of one replay (integers in ms).

    Build it with :meth:`parse` (user spellings, aliases, defaults) or directly with values.
    """

    window: WindowSpec = field(default_factory=lambda: Tumbling(1000))
    trigger: TriggerSpec | Custom = field(default_factory=lambda: TriggerSpec("default"))
    evictor: EvictorSpec | Custom | None = None
    lateness: int = 0
    function: str | Custom = "count_sum"
    accumulation: str = "accumulating"
    strategy: str | Custom = "bounded"
    delay: int = 0
    interval: int = 200
    idleness: int | None = None
    source_parallelism: int = 1
    partitions_as_sources: bool = True
    step: int | None = None
    marker: Any = None
    quantile: float | None = None
    quantile_window: int | None = None
    min_delay: int | None = None
    max_delay: int | None = None
    second_window: WindowSpec | None = None
    second_lateness: int = 0
    stages: tuple[Stage, ...] = ()
    semantics: str = "flink"
    stagger: str = "aligned"
    trigger_interval: int | None = None
    output_mode: str | None = None
    multiple_watermark_policy: str | None = None
    # the engines' own settings (toolkit.semantics: each declared by its engine); None = not given
    # (the engine's check fills its default)
    # Kafka Streams
    grace: int | None = None
    tasks: int | None = None
    repartition: bool | None = None
    emit: str | None = None
    retention: int | None = None
    # Apache Beam
    beam_trigger: BeamTrigger | None = None
    timestamp_combiner: str | None = None
    # when a partition's source split is registered (toolkit.engine.flink.sources.SPLIT_DISCOVERY)
    split_discovery: str = "at_start"

    def __post_init__(self) -> None:
        if isinstance(self.trigger, TriggerSpec) and self.trigger.kind == "default" and isinstance(self.window, EVENT_TIME_WINDOWS):
            object.__setattr__(self, "trigger", TriggerSpec("event_time"))  # an event-time window's own trigger
        s = self.strategy
        if isinstance(s, str):
            if s not in STRATEGIES:
                raise SettingError("strategy", f"strategy {s!r}: choose one of {', '.join(STRATEGIES)}")
            own = {"idle_advance": ("step",), "punctuated": ("marker",),
                   "adaptive": ("quantile", "quantile_window", "min_delay", "max_delay")}.get(s, ())
            for p in ("step", "marker", "quantile", "quantile_window", "min_delay", "max_delay"):
                if getattr(self, p) is not None and p not in own:
                    raise SettingError(p, f"{p} belongs to the {_owner(p)} strategy, not to {s!r}")
            if s == "idle_advance" and self.step is None:
                raise SettingError("step", "the idle_advance strategy needs a step (e.g. step='100ms')")
            if s == "monotonous" and self.delay:
                raise SettingError("delay", "the monotonous strategy has no delay (it is bounded with delay 0)")
        elif self.delay or any(getattr(self, p) is not None for p in ("step", "marker", "quantile", "quantile_window", "min_delay", "max_delay")) or self.idleness is not None:
            raise SettingError("strategy", "a WatermarkStrategy object carries its own parameters and idleness; "
                               "give delay/idleness/step... only with a named strategy")
        if self.accumulation not in ACCUMULATIONS:
            raise SettingError("accumulation", f"accumulation {self.accumulation!r}: choose one of {', '.join(ACCUMULATIONS)}")
        if self.interval < 0:
            raise SettingError("interval", f"interval must not be negative, got {self.interval}")
        if self.second_window is None and self.second_lateness:
            raise SettingError("second_lateness", "second_lateness needs a second_window")
        if self.stages and self.second_window is not None:
            raise SettingError("stages", "give either stages or second_window (a two-stage pipeline), not both")
        if self.quantile is not None and not 0.0 <= self.quantile <= 1.0:
            raise SettingError("quantile", f"quantile must be within [0, 1], got {self.quantile}")
        if self.max_delay is not None and self.min_delay is not None and self.max_delay < self.min_delay:
            raise SettingError("max_delay", "max_delay must be >= min_delay")
        if self.stagger not in STAGGERS and not self.stagger.startswith("random:"):
            raise SettingError("stagger", f"stagger {self.stagger!r}: choose one of aligned, natural, random or random:SEED")
        if self.stagger != "aligned" and not isinstance(self.window, Tumbling):
            raise SettingError("stagger", f"stagger {self.stagger} applies to tumbling windows (Flink's "
                               f"TumblingEventTimeWindows.of(size, offset, WindowStagger)); window {self.window} has none")
        if self.split_discovery not in SPLIT_DISCOVERIES:
            raise SettingError("split_discovery", f"split_discovery {self.split_discovery!r}: choose one of "
                               f"{', '.join(SPLIT_DISCOVERIES)}")
        _check_engine(self)

    # -- reading what users write ---------------------------------------------------------

    @classmethod
    def parse(cls, spec: "str | dict | Setting | None" = None, /, **settings: Any) -> "Setting":
        """A setting from keywords (``Setting.parse(window="tumbling:1s", delay="500ms")``), a
        dict of them, or the text ``str(setting)`` writes (``"window=tumbling:1s delay=500ms"``).
        Unknown names get a "did you mean"; every value is validated here."""
        if isinstance(spec, Setting):
            return spec.replace(**settings) if settings else spec
        given: dict[str, Any] = {}
        if isinstance(spec, str):
            given.update(split_text(spec))
        elif isinstance(spec, dict):
            given.update(spec)
        elif spec is not None:
            raise SettingError("setting", f"a setting is keywords, a dict or text like 'window=tumbling:1s delay=1s', got {spec!r}")
        given.update(settings)
        return cls(**_normalize(given))

    def replace(self, **settings: Any) -> "Setting":
        """A copy with some settings changed (user spellings accepted)."""
        current = {f.name: getattr(self, f.name) for f in fields(self)}
        current.update(_canonical_names(settings))
        if "semantics" in settings:  # another engine: the old engine's own settings go
            new = _engines().canonical(settings["semantics"])
            for p in _engines().option_names(exclude=new):
                if p not in settings:
                    current[p] = None
        if "strategy" in settings:  # a new strategy drops the old one's own parameters
            for p in ("step", "marker", "quantile", "quantile_window", "min_delay", "max_delay"):
                if p not in settings:
                    current[p] = None
        return Setting(**_normalize(current))

    def __str__(self) -> str:
        parts = [f"window={self.window}"]
        for f in fields(self):
            if f.name == "window":
                continue
            v = getattr(self, f.name)
            default = f.default if f.default_factory is MISSING else f.default_factory()  # type: ignore[misc]
            if v == default or (f.name == "trigger" and v == TriggerSpec("event_time") and isinstance(self.window, EVENT_TIME_WINDOWS)):
                continue
            parts.append(f"{f.name}={_text(f.name, v)}")
        return " ".join(parts)

    # -- what the engine needs --------------------------------------------------------------

    @property
    def strategy_name(self) -> str:
        """The strategy with its own non-default parameters: ``idle_advance(step=100ms)``."""
        if isinstance(self.strategy, Custom):
            return str(self.strategy)
        own = [(p, getattr(self, p)) for p in ("step", "marker", "quantile", "quantile_window", "min_delay", "max_delay")]
        args = ",".join(f"{p}={_text(p, v)}" for p, v in own if v is not None)
        return f"{self.strategy}({args})" if args else self.strategy

    @property
    def engine_accumulation(self) -> str:
        return "accumulating_and_retracting" if self.accumulation == "retracting" else self.accumulation

    def watermark_strategy(self):
        """The engine's ``WatermarkStrategy`` (with idleness when set)."""
        from toolkit.engine.flink.watermarks import make_strategy

        if isinstance(self.strategy, Custom):
            return self.strategy.obj
        s = self.strategy
        params: dict[str, Any] = {}
        if s in ("bounded", "legacy", "idle_advance", "punctuated"):
            params["delay"] = self.delay
        if s == "time_lag":
            params["lag"] = self.delay
        if s == "idle_advance":
            params["step"] = self.step
        if s == "punctuated":
            params["marker"] = self.marker if self.marker is not None else "marker"
        if s == "adaptive":
            params["initial_delay"] = self.delay
            for p, e in (("quantile", "quantile"), ("quantile_window", "window"), ("min_delay", "min_delay"), ("max_delay", "max_delay")):
                if getattr(self, p) is not None:
                    params[e] = getattr(self, p)
        if self.idleness is not None:
            params["idle_timeout"] = self.idleness
        return make_strategy(s, **params)

    @property
    def marker_source(self) -> Any:
        """What marks a punctuated record: a column name or a predicate (``None`` otherwise)."""
        if self.strategy != "punctuated":
            return None
        return self.marker if self.marker is not None else "marker"

    def operator_kwargs(self, *, stage: int = 1) -> dict:
        """Keyword arguments of the window operator of ``stage`` (engine objects)."""
        from toolkit.engine.flink.config import assigner_from_dict, evictor_from_dict, function_from_name, trigger_from_dict

        if stage == 2:
            if self.second_window is None:
                raise ValueError("this setting has no second stage")
            w = self.second_window
            return {"assigner": w.obj if isinstance(w, Custom) else assigner_from_dict(w.to_dict()),
                    "allowed_lateness": self.second_lateness, "function": function_from_name("count_sum")}
        w = self.window
        t = self.trigger
        e = self.evictor
        fn = self.function
        trigger = t.obj if isinstance(t, Custom) else trigger_from_dict(t.to_dict())
        if isinstance(t, TriggerSpec) and t.kind == "event_time" and isinstance(w, EVENT_TIME_WINDOWS):
            trigger = None  # the event-time window's own trigger: the same, and the fast loops know it
        if isinstance(w, Tumbling) and self.stagger != "aligned":
            assigner = stagger_assigner(w, self.stagger)
        else:
            assigner = w.obj if isinstance(w, Custom) else assigner_from_dict(w.to_dict())
        return {
            "assigner": assigner,
            "trigger": trigger,
            "evictor": e.obj if isinstance(e, Custom) else evictor_from_dict(e.to_dict() if e is not None else None),
            "allowed_lateness": self.lateness,
            "function": fn.obj if isinstance(fn, Custom) else function_from_name(fn),
            "accumulation": self.engine_accumulation,
        }

    def scenario_config(self, *, stage: int = 1) -> dict:
        """The window-scenario config (``../shared/oracle`` format) of ``stage``'s operator."""
        if stage == 2:
            if self.second_window is None:
                raise ValueError("this setting has no second stage")
            w, trig, ev, late = self.second_window, None, None, self.second_lateness
        else:
            w, late = self.window, self.lateness
            if isinstance(self.trigger, Custom) or isinstance(self.evictor, Custom):
                raise ValueError("a trigger or evictor object has no scenario form; write it as a spelling")
            trig = None if self.trigger == TriggerSpec("event_time") and isinstance(w, EVENT_TIME_WINDOWS) else self.trigger.to_dict()
            ev = self.evictor.to_dict() if self.evictor is not None else None
        if isinstance(w, Custom):
            raise ValueError("export needs a window given as a spelling or a built-in assigner")
        if stage == 1 and self.stagger != "aligned":
            raise ValueError(f"the scenario format has no WindowStagger: export stagger {self.stagger} as the offset "
                             "it resolves to (toolkit.settings.staggered_offset)")
        return {"assigner": w.to_dict(), "trigger": trig, "evictor": ev, "allowed_lateness": late,
                "side_output_late": True, "function": "aggregate"}

    @property
    def closed_form(self) -> bool:
        """The sweep's closed form applies (``toolkit.fast``): tumbling (aligned: a staggered
        one is resolved to its offset first) or sliding event-time windows, the event-time trigger, no evictor, accumulating or retracting, one stage."""
        trig = self.trigger
        return (
            isinstance(self.window, (Tumbling, Sliding)) and self.stagger == "aligned"
            and isinstance(trig, TriggerSpec) and trig.kind in ("default", "event_time")
            and self.evictor is None
            and self.accumulation in ("accumulating", "retracting")
            and self.second_window is None
            and not self.stages
        )

    @property
    def gap_column(self) -> str | None:
        """The log column of a dynamic session's gaps (``None`` for any other window)."""
        return self.window.column if isinstance(self.window, DynamicSession) else None

    @property
    def log_columns(self) -> tuple[str, ...]:
        """Log columns beyond the canonical ones this setting reads (a dynamic session's gaps,
        a punctuated strategy's marker column): what loading must keep."""
        out = []
        if self.gap_column is not None:
            out.append(self.gap_column)
        if isinstance(self.marker_source, str):
            out.append(self.marker_source)
        return tuple(out)

    @property
    def pipeline_stages(self) -> tuple[Stage, ...]:
        """The stages after the first: ``stages``, or the one ``second_window`` /
        ``second_lateness`` spell (its alias: a count/sum stage with the event-time trigger)."""
        if self.stages:
            return self.stages
        if self.second_window is not None:
            return (Stage(self.second_window, lateness=self.second_lateness),)
        return ()

    @property
    def fates_closed_form(self) -> bool:
        """Record fates follow the closed-form rule (``toolkit.metrics.fates``): as
        :attr:`closed_form`, any accumulation mode (fates do not depend on it)."""
        return (
            isinstance(self.window, (Tumbling, Sliding)) and self.stagger == "aligned"
            and isinstance(self.trigger, TriggerSpec) and self.trigger.kind in ("default", "event_time")
            and self.evictor is None
        )

    def timer_targets(self, event_time: Any, gaps: Any = None) -> Any:
        """The event-time timers this setting's window operator can set for records with these
        event times (``toolkit.engine.flink.pipeline.window_timer_targets``): with them, a watermark
        that moves with processing time (``time_lag``, ``idle_advance``) is replayed only at the
        calls that can change a result. ``None`` when they cannot be listed (a window,
        trigger or function object, a processing-time or continuous trigger, a staggered
        window, more than one stage, a dynamic session without its ``gaps``): every periodic
        call is then run."""
        trig = self.trigger
        if (self.pipeline_stages or self.stagger != "aligned" or not _engines().get(self.semantics).lists_timers
                or isinstance(self.function, Custom) or not isinstance(trig, TriggerSpec)):
            return None
        if trig.kind == "purging":
            trig = trig.inner
        if trig.kind not in ("default", "event_time", "count", "never", "end_of_stream"):
            return None
        w, late = self.window, self.lateness
        if isinstance(w, Tumbling):
            return window_timer_targets(event_time, size=w.size, offset=w.offset, lateness=late)
        if isinstance(w, Sliding):
            return window_timer_targets(event_time, size=w.size, slide=w.slide, offset=w.offset, lateness=late)
        if isinstance(w, Session):
            return window_timer_targets(event_time, gaps=w.gap, lateness=late)
        if isinstance(w, DynamicSession) and gaps is not None:
            return window_timer_targets(event_time, gaps=gaps, lateness=late)
        if isinstance(w, Global):
            return TimerTargets()  # not an event-time window: its timers are at the end of input
        return None

    def sparse_targets(self, event_time: Any, gaps: Any = None) -> Any:
        """:meth:`timer_targets` when the watermark moves with processing time (``time_lag``,
        ``idle_advance`` with a periodic interval), else None (no call to spare)."""
        if self.strategy not in ("time_lag", "idle_advance") or self.interval <= 0:
            return None
        return self.timer_targets(event_time, gaps)

    @property
    def sparse_calls(self) -> bool:
        """Periodic calls without records are run only where they can change something (always,
        but for a processing-time watermark only when :meth:`timer_targets` can be listed)."""
        if self.strategy not in ("time_lag", "idle_advance") or self.interval <= 0:
            return True
        return not isinstance(self.window, DynamicSession) and self.timer_targets([]) is not None

    @property
    def tick_table_timeline(self) -> bool:
        """The watermark timeline depends only on the max event time and first/last arrival
        per (tick, partition) (``toolkit.sweeps.timelines``): periodic emission and a
        generator that never emits on events nor looks at single records."""
        return self.interval > 0 and self.strategy in ("bounded", "legacy", "monotonous")

    def timeline_key(self) -> tuple:
        """The settings that determine the operator watermark timeline."""
        return (self.strategy, self.delay, self.interval, self.idleness, self.source_parallelism,
                self.partitions_as_sources, self.step, self.marker, self.quantile, self.quantile_window,
                self.min_delay, self.max_delay, self.split_discovery)

    def row(self) -> dict:
        """The configuration columns of a sweep result row (``CONFIG_COLUMNS``)."""
        return {
            "window": str(self.window),
            "delay_ms": self.delay,
            "lateness_ms": self.lateness,
            "interval_ms": self.interval,
            "strategy": self.strategy_name,
            "idleness_ms": self.idleness,
            "partitions_as_sources": self.partitions_as_sources,
            "source_parallelism": self.source_parallelism,
            "trigger": str(self.trigger),
            "evictor": "none" if self.evictor is None else str(self.evictor),
            "function": str(self.function),
            "accumulation": self.accumulation,
            "second_window": "none" if self.second_window is None else str(self.second_window),
            "second_lateness_ms": self.second_lateness,
            "stages": "none" if not self.stages else "|".join(str(st) for st in self.stages),
            "semantics": self.semantics,
            "stagger": self.stagger,
            "trigger_interval_ms": self.trigger_interval,
            "output_mode": "none" if self.output_mode is None else self.output_mode,
            "multiple_watermark_policy": "none" if self.multiple_watermark_policy is None else self.multiple_watermark_policy,
            "grace_ms": self.grace,
            "tasks": self.tasks,
            "repartition": "none" if self.repartition is None else str(self.repartition).lower(),
            "emit": "none" if self.emit is None else self.emit,
            "retention_ms": self.retention,
            "beam_trigger": "none" if self.beam_trigger is None else str(self.beam_trigger),
            "timestamp_combiner": "none" if self.timestamp_combiner is None else self.timestamp_combiner,
            "split_discovery": self.split_discovery,
        }

    @classmethod
    def from_row(cls, row: Any) -> "Setting":
        """The setting of a sweep result row (a dict or a pandas row), e.g. a recommendation."""
        get = row.get if hasattr(row, "get") else (lambda k, d=None: getattr(row, k, d))
        strategy = str(get("strategy", "bounded"))
        name, _, params = strategy.partition("(")
        given: dict[str, Any] = {"window": get("window"), "strategy": name}
        for col, key in (("delay_ms", "delay"), ("lateness_ms", "lateness"), ("interval_ms", "interval"),
                         ("second_lateness_ms", "second_lateness")):
            v = get(col, None)
            if v is not None and not _isna(v):
                given[key] = int(v)
        idle = get("idleness_ms", None)
        if idle is not None and not _isna(idle):
            given["idleness"] = int(idle)
        ti = get("trigger_interval_ms", None)
        if ti is not None and not _isna(ti):
            given["trigger_interval"] = int(ti)
        for col, key in (("grace_ms", "grace"), ("tasks", "tasks"), ("retention_ms", "retention")):  # Kafka Streams
            v = get(col, None)
            if v is not None and not _isna(v):
                given[key] = int(v)
        for key in ("repartition", "emit", "beam_trigger", "timestamp_combiner"):
            v = get(key, None)
            if v is not None and not _isna(v) and v != "none":
                given[key] = str(v)
        for key in ("semantics", "output_mode", "multiple_watermark_policy", "stagger", "split_discovery"):
            v = get(key, None)
            if v is not None and not _isna(v) and v != "none":
                given[key] = str(v)
        for key in ("partitions_as_sources", "source_parallelism", "trigger", "evictor", "function", "accumulation", "second_window",
                    "stages"):
            v = get(key, None)
            if v is not None and not _isna(v) and v != "none":
                given[key] = bool(v) if key == "partitions_as_sources" else (int(v) if key == "source_parallelism" else v)
        if params:
            given.update(split_text(params.rstrip(")").replace(",", " ")))
        if given.get("strategy") == "monotonous":
            given.pop("delay", None)
        return cls.parse(given)


CONFIG_COLUMNS = list(Setting().row())
_LOADING = False


def _common(name: str) -> Any:
    return lambda value, label=name: _normalize({name: value})[name]


#: the common settings (the window operator's and the watermarks'), declared once; an engine reads
#: those it names in ``Semantics.shared`` and declares its own in its package
COMMON_OPTIONS: tuple[Option, ...] = (
    Option("window", "tumbling:1s", _common("window"), "the window: tumbling:SIZE[,OFFSET], sliding:SIZE/SLIDE, "
           "session:GAP, dynamic_session:COLUMN, global", control="text"),
    Option("delay", 0, _common("delay"), "watermark delay (bounded out-of-orderness)", unit="ms", control="duration"),
    Option("lateness", 0, _common("lateness"), "allowed lateness of a window after the watermark passed its end",
           unit="ms", control="duration"),
    Option("strategy", "bounded", _common("strategy"), "watermark strategy", control="choice", choices=STRATEGIES),
    Option("interval", 200, _common("interval"), "periodic watermark interval (pipeline.auto-watermark-interval)",
           unit="ms", control="duration"),
    Option("idleness", None, _common("idleness"), "idle timeout of a source partition (withIdleness; off: none)",
           unit="ms", control="duration"),
    Option("source_parallelism", 1, _common("source_parallelism"), "source subtasks reading the partitions",
           control="int"),
    Option("partitions_as_sources", True, _common("partitions_as_sources"),
           "each log partition is a source split with its own watermark", control="bool"),
    Option("trigger", "default", _common("trigger"), "the window's trigger: default, event_time, processing_time, "
           "count:N, continuous:5s, purging:<trigger>, never, end_of_stream", control="text"),
    Option("evictor", None, _common("evictor"), "evictor: none, count:N, time:5s (',after' evicts after the function)",
           control="text"),
    Option("function", "count_sum", _common("function"), "window function", control="choice", choices=FUNCTIONS),
    Option("accumulation", "accumulating", _common("accumulation"), "what a later firing of a window emits",
           control="choice", choices=ACCUMULATIONS),
    Option("stagger", "aligned", _common("stagger"), "WindowStagger of tumbling windows", control="choice",
           choices=STAGGERS),
    Option("split_discovery", "at_start", _common("split_discovery"), "when a partition's source split is registered",
           control="choice", choices=SPLIT_DISCOVERIES),
    Option("stages", (), _common("stages"), "windowed stages after the first, e.g. 'window=tumbling:5s lateness=1s'",
           control="text"),
)


def common_option(name: str) -> Option:
    """The declaration of a common setting (KeyError for another name)."""
    for o in COMMON_OPTIONS:
        if o.name == name:
            return o
    raise KeyError(name)

def _owner(param: str) -> str:
    return {"step": "idle_advance", "marker": "punctuated"}.get(param, "adaptive")


def _isna(v: Any) -> bool:
    try:
        return bool(v is None or (isinstance(v, float) and math.isnan(v)) or str(v) in ("<NA>", "nan", "NaT"))
    except Exception:  # pragma: no cover - exotic values
        return False


_DURATIONS = ("lateness", "delay", "interval", "idleness", "step", "min_delay", "max_delay", "second_lateness",
              "trigger_interval", "grace", "retention")


def _text(name: str, v: Any) -> str:
    if name in _DURATIONS and isinstance(v, int) and not isinstance(v, bool):
        return format_duration(v)
    if name == "marker" and callable(v):
        return getattr(v, "__name__", "predicate")
    if name == "stages":
        return "|".join(str(st) for st in v)
    return str(v)


def split_text(text: str) -> dict:
    """``"delay=500ms lateness=1s"`` -> ``{"delay": "500ms", "lateness": "1s"}`` (spellings kept)."""
    out = {}
    for token in text.split():
        k, sep, v = token.partition("=")
        if not sep:
            raise SettingError("setting", f"cannot read {token!r}: write settings as name=value, e.g. 'delay=500ms'")
        out[k.strip()] = v.strip()
    return out


_NAMES = tuple(f.name for f in fields(Setting))


def _canonical_names(given: dict) -> dict:
    out: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for k, v in given.items():
        name = ALIASES.get(k, k)
        if name not in _NAMES:
            raise SettingError(k, f"unknown setting {k!r}{_did_you_mean(k, _NAMES + tuple(ALIASES))}; the settings are {', '.join(_NAMES)}")
        if name in out:
            first, second = sorted((spelled[name], k), key=lambda x: x == name)
            raise SettingError(name, f"give either {first!r} or {second!r}, not both")
        out[name] = v
        spelled[name] = k
    return out


def _bool(v: Any, name: str) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):  # as the command line writes it
        return v.strip().lower() == "true"
    raise SettingError(name, f"{name} must be True or False, got {v!r}")


def _normalize(given: dict) -> dict:
    """User spellings -> the values :class:`Setting` holds (validated; errors name the setting)."""
    g = _canonical_names(given)
    out: dict[str, Any] = {}
    for name, v in g.items():
        if name in ("window", "second_window"):
            out[name] = None if (name == "second_window" and (v is None or str(v).lower() in ("", "none"))) else parse_window(v, name)
        elif name == "stages":
            out[name] = parse_stages(v, name)
        elif name == "trigger":
            out[name] = parse_trigger(v, name)
        elif name == "evictor":
            out[name] = parse_evictor(v, name)
        elif name == "function":
            out[name] = parse_function(v, name)
        elif name == "accumulation":
            out[name] = _choice(v, name, ACCUMULATIONS, _ACCUMULATION_ALIASES)
        elif name == "stagger":
            out[name] = parse_stagger(v, name)
        elif name == "split_discovery":
            out[name] = _choice(v, name, SPLIT_DISCOVERIES, {"start": "at_start", "first_record": "at_first_record",
                                                             "dynamic": "at_first_record"})
        elif name == "strategy":
            from toolkit.engine.flink.watermarks import WatermarkStrategy

            out[name] = v if isinstance(v, Custom) else Custom(v) if isinstance(v, WatermarkStrategy) else _choice(v, name, STRATEGIES, _STRATEGY_ALIASES)
        elif name in ("lateness", "delay", "interval", "second_lateness"):
            out[name] = _duration(v, name)
        elif name in ("idleness", "step"):
            out[name] = _opt_duration(v, name, positive=True) if not (name == "idleness" and _is_zero(v)) else None
        elif name in ("min_delay", "max_delay"):
            out[name] = _opt_duration(v, name)
        elif name == "source_parallelism":
            out[name] = _int(v, name, minimum=1)
        elif name == "quantile_window":
            out[name] = None if v is None else _int(v, name, minimum=1)
        elif name == "quantile":
            try:
                out[name] = None if v is None else float(v)
            except (TypeError, ValueError):
                raise SettingError(name, f"quantile must be a number within [0, 1], got {v!r}") from None
        elif name == "partitions_as_sources":
            out[name] = _bool(v, name)
        elif name == "semantics":
            out[name] = _engines().canonical(v)
        elif _engines().option(name) is not None:  # an engine's own setting, parsed as that engine declares
            out[name] = None if v is None else _engines().option(name).parse(v, name)
        elif name == "marker":
            if v is not None and not (isinstance(v, str) or callable(v)):
                raise SettingError(name, "marker must be a column name or a predicate f(ts, key, value) -> bool")
            out[name] = v
        else:  # pragma: no cover - every field is handled above
            out[name] = v
    return out


def _is_zero(v: Any) -> bool:
    try:
        return v is not None and not (isinstance(v, str) and v.strip().lower() in ("none", "off", "")) and parse_duration(v, name="idleness") == 0
    except ValueError:
        return False


# ----------------------------------------------------------------------------------------
# grids
# ----------------------------------------------------------------------------------------


def _as_list(value: Any, name: str) -> list:
    if isinstance(value, (list, tuple, set, frozenset)) or (
        hasattr(value, "__iter__") and hasattr(value, "__len__") and not isinstance(value, (str, bytes, dict))
    ):
        items = list(value)
        if not items:
            raise SettingError(name, f"{name} was given as an empty list")
        return items
    return [value]


def grid(**settings: Any) -> list[Setting]:
    """Every combination of the given settings (any of them may be a list), validated,
    duplicates removed, in the order the lists give (the last setting varies fastest)."""
    names = list(_canonical_names(settings))
    axes = []
    for (k, v), name in zip(settings.items(), names):
        # stages: one list of stages is one value; a list of such lists is an axis
        values = [v] if name == "stages" and not (isinstance(v, (list, tuple)) and v and all(
            isinstance(x, (list, tuple)) for x in v)) else _as_list(v, k)
        parsed = []
        for item in values:
            parsed.append(_normalize({name: item})[name])
        axes.append(list(dict.fromkeys(parsed)))
    fitted = [_fit(dict(zip(names, combo))) for combo in itertools.product(*axes)]
    out = [Setting(**f) for f in fitted if f is not None]
    if not out:  # every row left out: let the first combination say why
        Setting(**dict(zip(names, next(itertools.product(*axes)))))
    return list(dict.fromkeys(out))


_OWN_PARAMS = {"idle_advance": ("step",), "punctuated": ("marker",),
               "adaptive": ("quantile", "quantile_window", "min_delay", "max_delay")}


def _fit(values: dict) -> dict | None:
    """In a grid, a strategy takes only its own parameters: the others' are left out, and
    ``monotonous`` (bounded with delay 0) ignores the delay axis."""
    sem = values.get("semantics", "flink")
    for p in _engines().option_names(exclude=sem):  # a semantics axis: an engine's own settings apply to its rows only
        values.pop(p, None)
    values = _engines().get(sem).fit_grid(values)
    if values is None:
        return None
    if "stagger" in values and not isinstance(values.get("window", Tumbling(1000)), Tumbling):
        values.pop("stagger")  # a stagger axis applies to the tumbling rows of a grid only
    strategy = values.get("strategy", "bounded")
    if isinstance(strategy, str):
        own = _OWN_PARAMS.get(strategy, ())
        for p in ("step", "marker", "quantile", "quantile_window", "min_delay", "max_delay"):
            if p in values and p not in own:
                values.pop(p)
        if strategy == "monotonous":
            values.pop("delay", None)
    return values


def result_notes(setting: Setting) -> list[str]:
    """What a reader of this setting's figures should know, in words (empty when nothing), as
    its engine says (``Semantics.result_notes``: e.g. Kafka Streams with ``emit="update"``, whose
    first results are partial by design). ``describe_setting`` and the replay summary carry them
    as ``notes``; charts may show them."""
    return list(_engines().get(setting.semantics).result_notes(setting))


def describe_setting(setting: Setting) -> dict:
    """A plain dict of the setting (JSON-ready): durations as integer ms, flags as booleans,
    windows, triggers, evictors, functions and strategies in their spelling; ``notes``
    (:func:`result_notes`) when the figures need one."""
    out: dict[str, Any] = {}
    for f in fields(setting):
        v = getattr(setting, f.name)
        if v is None or isinstance(v, (bool, int, float)):
            out[f.name] = v
        elif f.name == "marker" and callable(v):
            out[f.name] = getattr(v, "__name__", "predicate")
        elif f.name == "stages":
            out[f.name] = [str(st) for st in v]
        else:
            out[f.name] = str(v)
    out["strategy"] = setting.strategy_name
    out["text"] = str(setting)
    notes = result_notes(setting)
    if notes:
        out["notes"] = notes
    return out


__all__ = [
    "ACCUMULATIONS", "ALIASES", "BeamTrigger", "parse_beam_trigger", "KafkaSliding", "install_semantics", "semantics_names", "CONFIG_COLUMNS", "Custom", "EvictorSpec", "FUNCTIONS", "Global", "MAX_SETTING_MS",
    "STRATEGIES", "STAGGERS", "Session", "DynamicSession", "SESSION_WINDOWS", "EVENT_TIME_WINDOWS", "Setting", "SettingError", "Sliding", "TriggerSpec", "Tumbling", "WindowSpec",
    "SPLIT_DISCOVERIES", "Option", "COMMON_OPTIONS", "common_option", "cli_option", "describe_setting", "result_notes", "parse_stagger", "staggered_offset", "split_text", "format_duration", "grid", "parse_evictor", "parse_function", "parse_trigger",
    "STAGE_FIELDS", "Stage", "parse_stage", "parse_stages",
    "parse_window",
]


# ----------------------------------------------------------------------------------------
# limits: what a replay or sweep may cost, checked before any work starts
# ----------------------------------------------------------------------------------------

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
    import os

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
    import re

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


__all__ += ["Limits", "windows_per_record", "machine_memory"]
