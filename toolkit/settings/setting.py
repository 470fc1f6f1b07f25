"""One configuration: :class:`Setting`, every setting of one replay (integers in ms), read from
what users write (:meth:`Setting.parse`), written back (``str``), changed (:meth:`Setting.replace`)
and stored as a sweep result row (:meth:`Setting.row`, :meth:`Setting.from_row`), with what the
engine needs of it in common (its watermark strategy; an engine's own rules, such as Flink's window
operator, live in its ``toolkit.semantics`` package)."""
from __future__ import annotations

import functools
import math
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from toolkit.settings import engines as _registry
from toolkit.settings.durations import did_you_mean, format_duration
from toolkit.settings.engines import _check_engine, _engines
from toolkit.settings.names import ALIASES, SettingError
from toolkit.settings.options import (
    COMMON_OPTIONS,
    MORE_OPTIONS,
    SPLIT_DISCOVERIES,
    STRATEGIES,
    STRATEGY_PARAMETERS,
    Option,
)
from toolkit.settings.stages import Stage
from toolkit.settings.triggers import ACCUMULATIONS, EvictorSpec, TriggerSpec
from toolkit.settings.windows import EVENT_TIME_WINDOWS, STAGGERS, Custom, DynamicSession, Tumbling, WindowSpec


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
    # the engines' own settings (each declared, parsed and checked by its engine in toolkit.semantics):
    # (name, value) pairs in the registry's order, unset ones left out; read as attributes (s.grace:
    # None when unset) and given as keywords (Setting(grace=1000)), like the fields
    own: tuple[tuple[str, Any], ...] = ()
    # when a partition's source split is registered (toolkit.engine.flink.sources.SPLIT_DISCOVERY)
    split_discovery: str = "at_start"

    def __post_init__(self) -> None:
        object.__setattr__(self, "own", _own_pairs(self.own))
        if isinstance(self.trigger, TriggerSpec) and self.trigger.kind == "default" and isinstance(self.window, EVENT_TIME_WINDOWS):
            object.__setattr__(self, "trigger", TriggerSpec("event_time"))  # an event-time window's own trigger
        s = self.strategy
        if isinstance(s, str):
            if s not in STRATEGIES:
                raise SettingError("strategy", f"strategy {s!r}: choose one of {', '.join(STRATEGIES)}")
            params = {"idle_advance": ("step",), "punctuated": ("marker",),
                      "adaptive": ("quantile", "quantile_window", "min_delay", "max_delay")}.get(s, ())
            for p in ("step", "marker", "quantile", "quantile_window", "min_delay", "max_delay"):
                if getattr(self, p) is not None and p not in params:
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
        # an engine's check fills its defaults as on any frozen dataclass (object.__setattr__):
        # they join the engines' own settings
        filled = {k: self.__dict__.pop(k) for k in [k for k in self.__dict__ if k not in _FIELD_SET]}
        if filled:
            object.__setattr__(self, "own", _own_pairs({**dict(self.own), **filled}))

    def __getattr__(self, name: str) -> Any:
        """An engine's own setting (``s.grace``): its value, None when unset."""
        if name.startswith("__") or name == "own":  # pickling and copying ask for hooks
            raise AttributeError(name)
        for k, v in self.__dict__.get("own", ()):
            if k == name:
                return v
        if name in _own_names():
            return None
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def named_values(self) -> list[tuple[str, Any]]:
        """Every setting as (name, value), the engines' own ones included (None when unset), in
        the order of :func:`setting_names`."""
        fields_, own = self.__dict__, dict(self.own)
        return [(n, fields_[n] if n in fields_ else own.get(n)) for n in setting_names()]

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{n}={v!r}' for n, v in self.named_values())})"

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
        current = dict(self.named_values())
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
        for name, v in self.named_values():
            if name == "window":
                continue
            if v == _DEFAULTS.get(name) or (name == "trigger" and v == TriggerSpec("event_time") and isinstance(self.window, EVENT_TIME_WINDOWS)):
                continue  # an engine's own setting's default here is None: unset
            parts.append(f"{name}={_text(name, v)}")
        return " ".join(parts)

    # -- what the engine needs --------------------------------------------------------------

    @property
    def strategy_name(self) -> str:
        """The strategy with its own non-default parameters: ``idle_advance(step=100ms)``."""
        if isinstance(self.strategy, Custom):
            return str(self.strategy)
        own = [(p, getattr(self, p)) for p in STRATEGY_PARAMETERS]
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

    def timer_targets(self, event_time: Any, gaps: Any = None) -> Any:
        """The event-time timers this setting's engine can set for records with these event
        times, or None when it cannot list them (``Semantics.timer_targets``)."""
        return _engines().get(self.semantics).timer_targets(self, event_time, gaps)

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
        """The configuration columns of a sweep result row (``CONFIG_COLUMNS``): one per declared
        setting (:func:`row_columns`), named by its ``Option.column``, written by its kind;
        ``strategy`` carries the strategy's own parameters (:attr:`strategy_name`)."""
        out, fields_, own = {}, self.__dict__, dict(self.own)
        for name, column, kind in row_columns():
            v = fields_[name] if name in fields_ else own.get(name)
            out[column] = (v if kind in ("number", "flag") else self.strategy_name if kind == "strategy"
                           else _text_cell(v))
        return out

    @classmethod
    def from_row(cls, row: Any) -> "Setting":
        """The setting of a sweep result row (a dict or a pandas row), e.g. a recommendation: each
        declared column read back (:func:`_read_cell`; a missing, NaN or ``"none"`` cell is not
        given), the strategy's parameters from its ``strategy`` text."""
        get = row.get if hasattr(row, "get") else (lambda k, d=None: getattr(row, k, d))
        strategy = str(get("strategy", "bounded"))
        name, _, params = strategy.partition("(")
        given: dict[str, Any] = {"window": get("window"), "strategy": name}
        for key, column, kind in row_columns():
            if key not in given:
                v = get(column, None)
                if not (v is None or _isna(v) or (isinstance(v, str) and v == "none")):
                    given[key] = _read_cell(kind, v)
        if params:
            given.update(split_text(params.rstrip(")").replace(",", " ")))
        if given.get("strategy") == "monotonous":
            given.pop("delay", None)
        return cls.parse(given)




def _owner(param: str) -> str:
    return {"step": "idle_advance", "marker": "punctuated"}.get(param, "adaptive")


def _isna(v: Any) -> bool:
    try:
        return bool(v is None or (isinstance(v, float) and math.isnan(v)) or str(v) in ("<NA>", "nan", "NaT"))
    except Exception:  # pragma: no cover - exotic values
        return False


def _is_duration(name: str) -> bool:
    """Whether setting ``name`` is declared a duration (``unit="ms"``: a common or an engine's own)."""
    decl = _COMMON.get(name) or _engines().option(name)
    return decl is not None and decl.unit == "ms"


def _text(name: str, v: Any) -> str:
    if isinstance(v, int) and not isinstance(v, bool) and _is_duration(name):
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


#: the fields of a Setting (``own`` holds the engines' settings) and their defaults
_FIELDS = tuple(f.name for f in fields(Setting))
_FIELD_SET = frozenset(_FIELDS)
_DEFAULTS = {f.name: f.default if f.default_factory is MISSING else f.default_factory()  # type: ignore[misc]
             for f in fields(Setting) if f.name != "own"}


def setting_names() -> tuple[str, ...]:
    """Every setting's name: the fields, the registered engines' own settings (in the registry's
    order) where ``own`` stands."""
    def make() -> tuple[str, ...]:
        i = _FIELDS.index("own")
        return _FIELDS[:i] + _engines().option_names() + _FIELDS[i + 1:]
    return _engines().cached(("setting_names",), make)


def _own_names() -> frozenset[str]:
    """The engines' own settings' names."""
    return _engines().cached(("own_names",), lambda: frozenset(_engines().option_names()))


def _own_pairs(given: Any) -> tuple[tuple[str, Any], ...]:
    """The engines' own settings as :attr:`Setting.own` holds them: (name, value) in the
    registry's order, None left out; a name no engine declares is refused as the dataclass would."""
    given = dict(given)
    if not given:
        return ()
    known = _own_names()
    for k in given:
        if k not in known:
            raise TypeError(f"Setting.__init__() got an unexpected keyword argument {k!r}")
    return tuple((n, given[n]) for n in _engines().option_names() if given.get(n) is not None)


def _accept_own(init: Any) -> Any:
    """The dataclass __init__, taking the engines' own settings as keywords too (into ``own``)."""
    @functools.wraps(init)
    def __init__(self: Setting, *args: Any, own: Any = (), **settings: Any) -> None:
        given = {k: settings.pop(k) for k in [k for k in settings if k not in _FIELD_SET]}
        init(self, *args, own={**dict(own), **given}, **settings)
    return __init__


Setting.__init__ = _accept_own(Setting.__init__)  # type: ignore[method-assign]
#: the common settings' declarations by name
_COMMON = {o.name: o for o in COMMON_OPTIONS + MORE_OPTIONS}


def _canonical_names(given: dict) -> dict:
    """Keywords by their one name (aliases read); an unknown name or one given twice is refused."""
    names = setting_names()
    out: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for k, v in given.items():
        name = ALIASES.get(k, k)
        if name not in names:
            raise SettingError(k, f"unknown setting {k!r}{did_you_mean(k, names + tuple(ALIASES))}; the settings are {', '.join(names)}")
        if name in out:
            first, second = sorted((spelled[name], k), key=lambda x: x == name)
            raise SettingError(name, f"give either {first!r} or {second!r}, not both")
        out[name] = v
        spelled[name] = k
    return out


def _normalize(given: dict) -> dict:
    """User spellings -> the values :class:`Setting` holds, each read by its declaration (a
    common setting's, or its engine's; validated, errors name the setting)."""
    out: dict[str, Any] = {}
    for name, v in _canonical_names(given).items():
        if name in _COMMON:
            out[name] = _COMMON[name].parse(v, name)
        elif _engines().option(name) is not None:  # an engine's own setting, parsed as that engine declares
            out[name] = None if v is None else _engines().option(name).parse(v, name)
        else:  # pragma: no cover - every field is declared
            out[name] = v
    return out


def format_setting_value(name: str, value: Any) -> str:
    """A setting's value as ``str(setting)`` writes it (durations in their largest exact unit)."""
    return _text(name, value)


# -- the sweep result row ------------------------------------------------------------------------

#: the row's common columns before the engines' own ones, and after them, in the order sweeps
#: have always written them (files and tests compare ``CONFIG_COLUMNS``)
_ROW_HEAD = ("window", "delay", "lateness", "interval", "strategy", "idleness", "partitions_as_sources",
             "source_parallelism", "trigger", "evictor", "function", "accumulation", "second_window", "second_lateness",
             "stages", "semantics", "stagger")
_ROW_TAIL = ("split_discovery",)


def row_columns() -> list[tuple[str, str, str]]:
    """Every column of a sweep result row as (setting, column, kind), from the declarations: the
    common ones of ``_ROW_HEAD``, every registered engine's own settings in the registry's order,
    then ``_ROW_TAIL``. The column is ``Option.column`` (``NAME_ms`` for a duration); the kind says
    how the cell is written and read (:func:`_kind`)."""
    engines = _engines()

    def make() -> list[tuple[str, str, str]]:
        own = [(o, True) for n in engines.names() for o in engines.get(n).options]
        decls = [(_COMMON[n], False) for n in _ROW_HEAD] + own + [(_COMMON[n], False) for n in _ROW_TAIL]
        return [(d.name, d.column, _kind(d, own)) for d, own in decls]
    return engines.cached(("row_columns",), make)


def _kind(decl: Option, own: bool) -> str:
    """How a row cell holds a setting: ``number`` (durations in ms and counts; None when unset),
    ``flag`` (a common flag, a bool), ``strategy`` (:attr:`Setting.strategy_name`), else text
    (:func:`_text_cell`): ``text`` for a common setting (read back as it is), ``own_text`` for an
    engine's own (read back as str)."""
    if decl.name == "strategy":
        return "strategy"
    if decl.unit == "ms" or decl.control == "int":
        return "number"
    if decl.control == "bool" and not own:
        return "flag"
    return "own_text" if own else "text"


def _text_cell(v: Any) -> str:
    """A text cell: ``"none"`` when unset (None or no stages), a flag ``"true"`` / ``"false"``,
    stages joined by ``|``, anything else its ``str``."""
    if v is None or (isinstance(v, tuple) and not v):
        return "none"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, tuple):
        return "|".join(str(x) for x in v)
    return str(v)


def _read_cell(kind: str, v: Any) -> Any:
    """What a cell of ``kind`` holds, as the setting's parser reads it."""
    if kind == "number":
        return int(v)
    if kind == "flag":
        return bool(v)
    return str(v) if kind == "own_text" else v


def config_columns() -> list[str]:
    """The columns of a sweep result row (:meth:`Setting.row`) with the engines registered now."""
    return list(Setting().row())


_registry.loaded()
