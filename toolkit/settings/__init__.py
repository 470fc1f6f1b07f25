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
second_lateness=L`` is the alias of ``stages=["window=W lateness=L"]``). Each engine's own
settings are declared in its ``toolkit.semantics`` package.

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
  ``discarding``, ``retracting`` (accumulating-and-retracting);
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

The modules, one concept each: :mod:`~toolkit.settings.names` (the error, aliases),
:mod:`~toolkit.settings.durations` (one value), :mod:`~toolkit.settings.windows`,
:mod:`~toolkit.settings.triggers`, :mod:`~toolkit.settings.stages`,
:mod:`~toolkit.settings.options` (the declarations), :mod:`~toolkit.settings.engines` (the
installed registry), :mod:`~toolkit.settings.setting` (one configuration),
:mod:`~toolkit.settings.grids`, :mod:`~toolkit.settings.describe`, :mod:`~toolkit.settings.limits`.
"""
from __future__ import annotations

from typing import Any

from toolkit.settings.describe import describe_setting, result_notes
from toolkit.settings.durations import (
    MAX_SETTING_MS,
    as_bool,
    choice,
    did_you_mean,
    duration,
    format_duration,
    integer,
    optional_duration,
)
from toolkit.settings.engines import install_semantics, semantics_changed, semantics_names
from toolkit.settings.grids import grid
from toolkit.settings.limits import Limits, format_bytes, machine_memory, windows_per_record
from toolkit.settings.names import ALIASES, SettingError, cli_option
from toolkit.settings.options import (
    COMMON_OPTIONS,
    MORE_OPTIONS,
    SPLIT_DISCOVERIES,
    STRATEGIES,
    STRATEGY_PARAMETERS,
    Option,
    common_option,
)
from toolkit.settings.setting import Setting, config_columns, format_setting_value, split_text
from toolkit.settings.stages import STAGE_FIELDS, Stage, parse_stage, parse_stages
from toolkit.settings.triggers import (
    ACCUMULATIONS,
    FUNCTIONS,
    EvictorSpec,
    TriggerSpec,
    parse_evictor,
    parse_function,
    parse_trigger,
)
from toolkit.settings.windows import (
    EVENT_TIME_WINDOWS,
    SESSION_WINDOWS,
    STAGGERS,
    Cumulate,
    Custom,
    DynamicSession,
    Global,
    KafkaSliding,
    Session,
    Sliding,
    Tumbling,
    WindowSpec,
    parse_stagger,
    parse_window,
    stagger_assigner,
    staggered_offset,
)

__all__ = [
    "ACCUMULATIONS", "ALIASES", "KafkaSliding", "install_semantics", "semantics_changed", "semantics_names", "CONFIG_COLUMNS", "Cumulate", "Custom",
    "EvictorSpec", "FUNCTIONS", "Global", "MAX_SETTING_MS", "STRATEGIES", "STRATEGY_PARAMETERS", "STAGGERS", "Session", "DynamicSession",
    "SESSION_WINDOWS", "EVENT_TIME_WINDOWS", "Setting", "SettingError", "Sliding", "TriggerSpec", "Tumbling",
    "WindowSpec", "SPLIT_DISCOVERIES", "Option", "COMMON_OPTIONS", "common_option", "cli_option", "describe_setting",
    "result_notes", "parse_stagger", "staggered_offset", "split_text", "format_duration", "grid", "parse_evictor",
    "parse_function", "parse_trigger", "STAGE_FIELDS", "Stage", "parse_stage", "parse_stages", "parse_window",
    "Limits", "windows_per_record", "machine_memory",
    # the readers an engine's own settings are parsed with, and what the rest of the toolkit writes with
    "MORE_OPTIONS", "choice", "optional_duration", "integer", "as_bool", "duration", "did_you_mean",
    "format_setting_value", "format_bytes", "stagger_assigner", "config_columns",
]


def __getattr__(name: str) -> Any:
    """``CONFIG_COLUMNS``: the sweep row's columns, which include the engines' own settings, so
    they are asked of the registry when first read (it is installed after this package loads)."""
    if name == "CONFIG_COLUMNS":
        return config_columns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
