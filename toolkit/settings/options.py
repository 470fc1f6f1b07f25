"""Declarations: every common setting once (name, default, parser, help, unit, control).

:class:`Option` is one setting; :data:`COMMON_OPTIONS` are the window operator's and the
watermarks' settings an engine may read (``Semantics.shared``), :data:`MORE_OPTIONS` the other
common ones (a strategy's own parameters, the second-stage alias, the engine). Each engine
declares its own in its ``toolkit.semantics`` package. Reading a setting
(:meth:`toolkit.settings.Setting.parse`), its sweep row and its text are generated from these.

strategy: ``bounded`` (``max - delay - 1``, Flink's ``forBoundedOutOfOrderness``), ``legacy``
(``max - delay``), ``monotonous``, ``time_lag`` (processing time - delay), ``punctuated`` (a
marked record emits ``ts - delay``), ``idle_advance`` (``step``), ``adaptive`` (Watermark Lab
extension; ``delay`` is its initial delay).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolkit.durations import parse_duration
from toolkit.settings.durations import _bool, _choice, _int, _opt_duration, duration
from toolkit.settings.engines import _engines
from toolkit.settings.names import SettingError
from toolkit.settings.stages import parse_stages
from toolkit.settings.triggers import (
    ACCUMULATIONS,
    FUNCTIONS,
    parse_accumulation,
    parse_evictor,
    parse_function,
    parse_trigger,
)
from toolkit.settings.windows import STAGGERS, Custom, parse_stagger, parse_window

#: when a source split (a log partition) is registered: at job start, or just before its first
#: record (Flink's dynamic split assignment); toolkit.engine.flink.sources.SPLIT_DISCOVERY
SPLIT_DISCOVERIES = ("at_start", "at_first_record")
STRATEGIES = ("bounded", "legacy", "monotonous", "time_lag", "punctuated", "idle_advance", "adaptive")

_STRATEGY_ALIASES = {
    "bounded_out_of_orderness": "bounded",
    "for_bounded_out_of_orderness": "bounded",
    "legacy_bounded_out_of_orderness": "legacy",
    "ascending": "monotonous",
    "for_monotonous_timestamps": "monotonous",
    "monotonous_timestamps": "monotonous",
}
_SPLIT_ALIASES = {"start": "at_start", "first_record": "at_first_record", "dynamic": "at_first_record"}


@dataclass(frozen=True)
class Option:
    """One setting, declared once: read by the parser, the grid, the sweep table, the explorer
    and the docs. The common settings are :data:`COMMON_OPTIONS`; each engine declares its own
    in its ``toolkit.semantics`` package.

    ``parse(value, name)`` turns what the user wrote into the value a :class:`Setting` holds (an
    error names ``name``); ``default`` is the value when not given; ``unit`` is ``"ms"`` for
    durations (the row column is then ``NAME_ms``); ``control`` is the explorer's widget:
    ``"choice"`` (with ``choices``), ``"duration"``, ``"int"``, ``"bool"`` or ``"text"``; ``help``
    is what ``--help`` and the explorer's tooltips say; ``read_when`` ``(setting, values)``: the
    setting is read only when that other setting has one of ``values`` (a strategy's own
    parameters; the explorer shows its control only then)."""

    name: str
    default: Any
    parse: Any
    help: str
    unit: str = ""
    control: str = "text"
    choices: tuple = ()
    #: its spelling has commas: on the command line a list repeats the option instead
    commas: bool = False
    read_when: tuple[str, tuple[str, ...]] | None = None

    @property
    def column(self) -> str:
        """The sweep result column of this setting."""
        return f"{self.name}_ms" if self.unit == "ms" else self.name


# -- the common settings' parsers: what the user wrote -> the value a Setting holds ----------------


def _second_window(v: Any, name: str) -> Any:
    """A second stage's window; ``None``, ``""`` or ``"none"``: no second stage."""
    return None if (v is None or str(v).lower() in ("", "none")) else parse_window(v, name)


def _strategy(v: Any, name: str) -> Any:
    """A strategy's name (aliases read), or a ``WatermarkStrategy`` object kept as it is."""
    from toolkit.engine.flink.watermarks import WatermarkStrategy

    return v if isinstance(v, Custom) else Custom(v) if isinstance(v, WatermarkStrategy) else _choice(v, name, STRATEGIES, _STRATEGY_ALIASES)


def _is_zero(v: Any) -> bool:
    try:
        return v is not None and not (isinstance(v, str) and v.strip().lower() in ("none", "off", "")) and parse_duration(v, name="idleness") == 0
    except ValueError:
        return False


def _idleness(v: Any, name: str) -> int | None:
    """An idle timeout; 0, ``none`` or ``off``: no timeout."""
    return None if _is_zero(v) else _opt_duration(v, name, positive=True)


def _quantile(v: Any, name: str) -> float | None:
    """A number (its range is checked by the setting)."""
    try:
        return None if v is None else float(v)
    except (TypeError, ValueError):
        raise SettingError(name, f"quantile must be a number within [0, 1], got {v!r}") from None


def _marker(v: Any, name: str) -> Any:
    """A punctuated strategy's marker: a column name or a predicate ``f(ts, key, value) -> bool``."""
    if v is not None and not (isinstance(v, str) or callable(v)):
        raise SettingError(name, "marker must be a column name or a predicate f(ts, key, value) -> bool")
    return v


def _ms(v: Any, name: str) -> int:
    return duration(v, name)


#: the common settings (the window operator's and the watermarks'), declared once; an engine reads
#: those it names in ``Semantics.shared`` and declares its own in its package
COMMON_OPTIONS: tuple[Option, ...] = (
    Option("window", "tumbling:1s", parse_window, "the window: tumbling:SIZE[,OFFSET], sliding:SIZE/SLIDE, "
           "session:GAP, dynamic_session:COLUMN, global", control="text"),
    Option("delay", 0, _ms, "watermark delay (bounded out-of-orderness)", unit="ms", control="duration"),
    Option("lateness", 0, _ms, "allowed lateness of a window after the watermark passed its end",
           unit="ms", control="duration"),
    Option("strategy", "bounded", _strategy, "watermark strategy", control="choice", choices=STRATEGIES),
    Option("interval", 200, _ms, "periodic watermark interval (pipeline.auto-watermark-interval)",
           unit="ms", control="duration"),
    Option("idleness", None, _idleness, "idle timeout of a source partition (withIdleness; off: none)",
           unit="ms", control="duration"),
    Option("source_parallelism", 1, lambda v, n: _int(v, n, minimum=1), "source subtasks reading the partitions",
           control="int"),
    Option("partitions_as_sources", True, _bool,
           "each log partition is a source split with its own watermark", control="bool"),
    Option("trigger", "default", parse_trigger, "the window's trigger: default, event_time, processing_time, "
           "count:N, continuous:5s, purging:<trigger>, never, end_of_stream", control="text"),
    Option("evictor", None, parse_evictor, "evictor: none, count:N, time:5s (',after' evicts after the function)",
           control="text"),
    Option("function", "count_sum", parse_function, "window function", control="choice", choices=FUNCTIONS),
    Option("accumulation", "accumulating", parse_accumulation, "what a later firing of a window emits",
           control="choice", choices=ACCUMULATIONS),
    Option("stagger", "aligned", parse_stagger, "WindowStagger of tumbling windows", control="choice",
           choices=STAGGERS),
    Option("split_discovery", "at_start", lambda v, n: _choice(v, n, SPLIT_DISCOVERIES, _SPLIT_ALIASES),
           "when a partition's source split is registered", control="choice", choices=SPLIT_DISCOVERIES),
    Option("stages", (), parse_stages, "windowed stages after the first, e.g. 'window=tumbling:5s lateness=1s'",
           control="text"),
)

#: the other common settings: a strategy's own parameters, the second-stage alias and the engine
#: (STRATEGY_PARAMETERS: the first six)
MORE_OPTIONS: tuple[Option, ...] = (
    Option("step", None, lambda v, n: _opt_duration(v, n, positive=True),
           "idle_advance: how far the watermark moves on a stalled stream", unit="ms", control="duration",
           read_when=("strategy", ("idle_advance",))),
    Option("marker", None, _marker, "punctuated: the column (or predicate) that marks watermark records",
           read_when=("strategy", ("punctuated",))),
    Option("quantile", None, _quantile, "adaptive: lateness quantile the delay follows",
           read_when=("strategy", ("adaptive",))),
    Option("quantile_window", None, lambda v, n: None if v is None else _int(v, n, minimum=1),
           "adaptive: records the quantile looks back over", control="int", read_when=("strategy", ("adaptive",))),
    Option("min_delay", None, _opt_duration, "adaptive: lower bound of the delay", unit="ms", control="duration",
           read_when=("strategy", ("adaptive",))),
    Option("max_delay", None, _opt_duration, "adaptive: upper bound of the delay", unit="ms", control="duration",
           read_when=("strategy", ("adaptive",))),
    Option("second_window", None, _second_window, "a second windowed stage fed by the first stage's results"),
    Option("second_lateness", 0, _ms, "allowed lateness of the second stage", unit="ms", control="duration"),
    Option("semantics", "flink", lambda v, n: _engines().canonical(v), "whose event-time semantics to replay",
           control="choice"),
)

STRATEGY_PARAMETERS: tuple[str, ...] = ("step", "marker", "quantile", "quantile_window", "min_delay", "max_delay")
_BY_NAME: dict[str, Option] = {o.name: o for o in COMMON_OPTIONS + MORE_OPTIONS}


def common_option(name: str) -> Option:
    """The declaration of a common setting (KeyError for another name)."""
    return _BY_NAME[name]


def option(name: str) -> Option | None:
    """The declaration of setting ``name``: a common one, or an engine's own (None if neither)."""
    return _BY_NAME.get(name) or _engines().option(name)


__all__ = ["Option", "COMMON_OPTIONS", "MORE_OPTIONS", "STRATEGY_PARAMETERS", "common_option", "STRATEGIES", "SPLIT_DISCOVERIES"]
