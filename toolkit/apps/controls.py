"""The explorer's controls, generated from the settings' declarations.

Every setting an engine reads (the common ones it names in ``Semantics.shared``, declared in
:data:`toolkit.settings.COMMON_OPTIONS`, and its own ``options``) becomes one widget, chosen by
its declaration's ``control``: ``choice`` a dropdown of its ``choices``; ``duration`` a slider
of preset durations where the explorer has presets for it (:data:`LOOKS`), else a text box;
``int`` a number box (a dropdown with the unset value first when the default is unset);
``bool`` a checkbox; ``text`` a text box read by the declaration's parser. :data:`LOOKS` only
dresses a setting (its label, slider stops, a picker of common values, the window kinds it
applies to); a setting it does not list, such as one of an engine added later, gets the plain
widget its declaration names. Nothing here names an engine.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ipywidgets as w  # the package's __init__ names the extra when it is missing

from toolkit.durations import parse_duration
from toolkit.settings import COMMON_OPTIONS, MORE_OPTIONS, Option, format_duration

DELAYS = ["0ms", "50ms", "100ms", "200ms", "500ms", "1s", "2s", "5s", "10s"]
LATENESS = ["0ms", "100ms", "500ms", "1s", "2s", "5s", "10s", "30s"]
INTERVALS = ["0ms", "50ms", "100ms", "200ms", "500ms", "1s"]
IDLENESS = ["off", "500ms", "1s", "2s", "5s", "10s", "30s", "1min"]
TRIGGER_INTERVALS = ["100ms", "200ms", "500ms", "1s", "2s", "5s", "10s"]
INT_STEPS = (1, 2, 4, 8)
"""The values of an integer setting whose default is unset (a dropdown: unset, 1, 2, 4, 8)."""
STAGES_HINT = "e.g. window=tumbling:5s"
BEAM_TRIGGER_HINT = "e.g. after_watermark(early=after_count:5)"
CUSTOM = "custom"  # a picker's entry for a value typed in its text box
BEAM_TRIGGERS: tuple[tuple[str, str], ...] = (
    ("at the watermark (default)", "default"),
    ("late: every late record", "after_watermark(late=after_count:1)"),
    ("early every 1 s, late each", "after_watermark(early=after_processing_time:1s,late=after_count:1)"),
    ("early every 10, late each", "after_watermark(early=after_count:10,late=after_count:1)"),
    ("every 10 records", "repeatedly(after_count:10)"),
    ("every 5 s, processing time", "repeatedly(after_processing_time:5s)"),
    ("custom (type it below)", CUSTOM),
)
"""The Beam trigger picker: (label, ``beam_trigger`` spelling). Picking one writes its spelling
into the ``beam_trigger`` text box, where any trigger Beam's parser (``toolkit.semantics.beam.trigger.parse_beam_trigger``)
accepts can be typed; "early every 1 s" is ``after_processing_time`` (processing time = arrival)."""
WINDOW_TRIGGERS: tuple[tuple[str, str], ...] = (
    ("at the watermark (default)", "default"),
    ("every 10 records", "count:10"),
    ("every 10, purging", "purging:count:10"),
    ("every 1 s event time", "continuous:1s"),
    ("processing time", "processing_time"),
    ("custom (type it below)", CUSTOM),
)
"""The window trigger picker (``trigger``): (label, spelling), written into the trigger box; the
box below shows the spelling. Labels are short: the picker's box holds about 26 characters."""


@dataclass(frozen=True)
class Look:
    """How the explorer dresses one setting beyond its declaration (every field optional)."""

    label: str = ""  #: the description (default: the name, with spaces)
    presets: tuple[str, ...] = ()  #: a duration's slider stops
    unset: str = "default"  #: how an unset value (None) reads
    hint: str = ""  #: a text box's placeholder
    rows: int = 1  #: a text box's lines (more: a text area that wraps)
    picker: tuple[tuple[str, str], ...] = ()  #: (label, value) entries that fill the text box
    picker_label: str = ""  #: the picker's description
    windows: tuple[str, ...] = ()  #: the window kinds the setting applies to (empty: every kind)


LOOKS: dict[str, Look] = {
    "delay": Look(presets=tuple(DELAYS)),
    "lateness": Look("allowed lateness", presets=tuple(LATENESS)),
    "interval": Look(presets=tuple(INTERVALS)),
    "idleness": Look(presets=tuple(IDLENESS), unset="off"),
    "trigger_interval": Look(presets=tuple(TRIGGER_INTERVALS)),
    "grace": Look(presets=tuple(DELAYS)),
    "multiple_watermark_policy": Look("watermark policy"),
    "partitions_as_sources": Look("partitions as sources"),
    "stages": Look("next stages", hint=STAGES_HINT),
    "stagger": Look(windows=("tumbling",)),
    "tasks": Look(unset="as partitions"),
    "trigger": Look("trigger spec", hint="e.g. count:10", picker=WINDOW_TRIGGERS, picker_label="trigger"),
    "evictor": Look(hint="e.g. count:10 or time:5s"),
    "step": Look("idle step", presets=tuple(DELAYS[1:])),
    "marker": Look(hint="column marking watermark records", unset="marker"),
    "quantile": Look(hint="e.g. 0.99"),
    "quantile_window": Look("quantile over"),
    "min_delay": Look("min delay", presets=tuple(DELAYS)),
    "max_delay": Look("max delay", presets=tuple(DELAYS[1:]) + ("30s", "1min")),
    "beam_trigger": Look("trigger spec", hint=BEAM_TRIGGER_HINT, rows=3, picker=BEAM_TRIGGERS,
                         picker_label="beam trigger"),
}
"""The explorer's dress of the settings it has presets or words for, by setting name."""


def look(name: str) -> Look:
    """The dress of setting ``name`` (plain when :data:`LOOKS` does not list it)."""
    return LOOKS.get(name, Look())


def label(name: str) -> str:
    """The description of setting ``name``'s control."""
    return look(name).label or name.replace("_", " ")


def declared(engines: Any) -> dict[str, Option]:
    """Every setting a registered engine reads, by name: the common ones in :data:`COMMON_OPTIONS`'
    and :data:`MORE_OPTIONS`' order (the window excepted: the explorer draws it from several controls), then each engine's
    own in the registry's order."""
    read = {n for e in engines for n in e.shared}
    out = {o.name: o for o in COMMON_OPTIONS + MORE_OPTIONS if o.name in read and o.name != "window"}
    for e in engines:
        for o in e.options:
            out.setdefault(o.name, o)
    return out


def reads(engine: Any, options: dict[str, Option]) -> list[str]:
    """The settings of ``options`` that ``engine`` reads, in the controls' order."""
    mine = set(engine.shared) | set(engine.option_names())
    return [n for n in options if n in mine]


def one_line(text: Any) -> str:
    """A text area's value without its line breaks (it wraps; a typed Enter is no part of it)."""
    return "".join(str(text).split())


def _ms(text: Any) -> int:
    return parse_duration(text, name="duration")


def with_option(options: list[str] | tuple[str, ...], value: Any, unset: str = "off") -> list[str]:
    """Duration presets sorted by duration, with ``value`` added when it is not one of them."""
    value = str(value)
    if value in options:
        return list(options)
    out = list(options) + [value]
    return sorted(out, key=lambda v: -1 if v == unset else _ms(v))


def _text_of(value: Any) -> str:
    """A parsed value as the text box shows it (reads back through the parser)."""
    if value is None:
        return ""
    if isinstance(value, tuple):
        return " | ".join(map(str, value))
    return str(value)


def _duration_control(o: Option, v: int | None, lk: Look) -> w.ValueWidget:
    if not lk.presets:
        return w.Text(value="" if v is None else format_duration(v), placeholder=lk.unset, continuous_update=False)
    presets = list(lk.presets)
    if o.default is None and lk.unset not in presets:
        presets.insert(0, lk.unset)
    if v is None:
        text = lk.unset
    else:
        text = next((p for p in presets if p != lk.unset and _ms(p) == v), format_duration(v))
    return w.SelectionSlider(options=with_option(presets, text, lk.unset), value=text, continuous_update=False)


def _int_control(o: Option, v: int | None, lk: Look, most: int) -> w.ValueWidget:
    if o.default is None:  # unset first: the engine's own default
        steps = sorted(set(INT_STEPS) | ({v} if v is not None else set()))
        return w.Dropdown(options=[(lk.unset, None)] + [(str(n), n) for n in steps], value=v)
    low = 1 if isinstance(o.default, int) and o.default >= 1 else 0
    return w.BoundedIntText(value=int(v), min=low, max=max(64, most, int(v)))


def _choice_control(o: Option, v: Any, lk: Look) -> w.ValueWidget:
    values = list(o.choices)
    if v is not None and v not in values:  # a value the parser accepts beyond the listed ones (stagger random:7)
        values.append(v)
    if v is None or not all(isinstance(c, str) for c in values):  # labelled: the unset entry, or not text
        return w.Dropdown(options=[(lk.unset, None)] * (v is None) + [(str(c), c) for c in values], value=v)
    return w.Dropdown(options=values, value=v)


def make_control(o: Option, value: Any, *, most: int = 64) -> w.ValueWidget:
    """The widget of setting ``o`` showing ``value`` (parsed first: a bad one raises the parser's
    SettingError, naming the setting); ``most``: the largest integer the log suggests."""
    lk, v = look(o.name), o.parse(value, o.name)
    if o.control == "duration":
        control = _duration_control(o, v, lk)
    elif o.control == "int":
        control = _int_control(o, v, lk, most)
    elif o.control == "bool":
        control = w.Checkbox(value=bool(v), indent=True)
    elif o.control == "choice" and o.choices:
        control = _choice_control(o, v, lk)
    elif lk.rows > 1:
        control = w.Textarea(value=_text_of(v), placeholder=lk.hint, rows=lk.rows, continuous_update=False)
    else:
        control = w.Text(value=_text_of(v), placeholder=lk.hint or lk.unset, continuous_update=False)
    control.description = label(o.name)
    control.tooltip = o.help
    return control


def make_picker(name: str, text: str, parse: Any) -> w.Dropdown | None:
    """The picker of common values that fills setting ``name``'s text box (None when it has none)."""
    lk = look(name)
    if not lk.picker:
        return None
    return w.Dropdown(options=list(lk.picker), value=preset_of(name, text, parse), description=lk.picker_label,
                      tooltip=f"pick a common {label(name)}, or type any in the box below")


def preset_of(name: str, text: str | None, parse: Any) -> str:
    """The picker entry of a value typed in setting ``name``'s box (:data:`CUSTOM` for another)."""
    if text is None:
        return CUSTOM
    for _, spec in look(name).picker:
        if spec != CUSTOM and str(parse(spec, name)) == text:
            return spec
    return CUSTOM


def is_box(control: w.Widget) -> bool:
    """Whether ``control`` is a text box (its value is parsed; an error shows under it)."""
    return isinstance(control, (w.Text, w.Textarea))


def read(o: Option, control: w.ValueWidget) -> Any:
    """The value of setting ``o`` its control holds, as the replay receives it (a duration's or a
    text's spelling, an int, a bool, a choice; None when unset)."""
    v = control.value
    if isinstance(control, w.SelectionSlider):
        return None if v == look(o.name).unset and o.default is None else v
    if isinstance(control, w.Textarea):
        return one_line(v)
    if isinstance(control, w.Text):
        return v.strip()
    return v


def is_default(o: Option, value: Any) -> bool:
    """Whether ``value`` reads as the declared default of ``o`` (left out of the replay's settings)."""
    try:
        return o.parse(value, o.name) == o.parse(o.default, o.name)
    except Exception:  # a value the parser refuses, or a default it does not read back: not the default
        return False
