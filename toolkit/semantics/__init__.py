"""The registry of engine semantics: ``get(name)`` and the engines in a stable order.

Each engine is a :class:`toolkit.semantics.base.Semantics` in its own package here; the list
below is the one place that names them. ``register`` adds another (a plug-in, or a test's toy
engine): it then reaches ``replay``, ``sweep``, ``compare``, the explorer and the command line.
Importing this package installs the registry into ``toolkit.settings`` (which validates an
engine's own settings through it); the settings import it on the first setting that needs it.
"""
from __future__ import annotations

import importlib

from toolkit.semantics.base import Semantics
from toolkit.settings import Option, SettingError, install_semantics, semantics_changed

#: the built-in engines, in the order tables and menus list them: name -> module of its Semantics
BUILT_IN = {
    "flink": "toolkit.semantics.flink",
    "spark": "toolkit.semantics.structured_streaming",
    "kafka_streams": "toolkit.semantics.kafka_streams",
    "beam": "toolkit.semantics.beam",
    "flink_sql": "toolkit.semantics.flink_sql",
}

_REGISTRY: dict[str, Semantics] = {}


def register(semantics: Semantics) -> Semantics:
    """Add (or replace) an engine; its ``name`` becomes a value of ``semantics=``."""
    if not semantics.name or not semantics.title:
        raise ValueError("an engine needs a name and a title")
    _REGISTRY[semantics.name] = semantics
    semantics_changed()  # the settings re-read the engines' own settings
    return semantics


def unregister(name: str) -> None:
    """Remove an engine added with :func:`register` (the built-in ones stay)."""
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is built in")
    _REGISTRY.pop(name, None)
    semantics_changed()


def names() -> tuple[str, ...]:
    """Every registered engine's name, built-in ones first, in a stable order."""
    return tuple(_REGISTRY)


def all_semantics() -> tuple[Semantics, ...]:
    """Every registered engine, in :func:`names`' order."""
    return tuple(_REGISTRY.values())


def get(name: str) -> Semantics:
    """The engine registered as ``name`` (a :class:`SettingError` naming ``semantics`` if none)."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise SettingError("semantics", f"semantics {name!r}: choose one of {', '.join(_REGISTRY)}") from None


def aliases() -> dict[str, str]:
    """Other spellings of the engines' names -> the name."""
    return {a: s.name for s in _REGISTRY.values() for a in s.aliases}


def owner(option: str) -> Semantics | None:
    """The engine that owns setting ``option`` (None for a common setting)."""
    for s in _REGISTRY.values():
        if option in s.option_names():
            return s
    return None


for _name, _module in BUILT_IN.items():
    register(importlib.import_module(_module).SEMANTICS)
install_semantics(get, names, aliases, owner)

def options_table() -> str:
    """The engines' own settings as the rows of docs/settings.md's table (``| `name` | engine:
    what it is (choices) | default |``), in the registry's order, from their declarations."""
    from toolkit.settings import format_duration

    rows = []
    for e in _REGISTRY.values():
        for o in e.options:
            named = all(str(c) in o.help for c in o.choices)
            what = o.help + (f" ({', '.join(f'`{c}`' for c in o.choices)})" if o.choices and not named else "")
            what = what.replace("|", "\\|")  # a cell of a Markdown table
            if o.default is None:
                default = "unset"
            elif o.unit == "ms":
                default = f"`{format_duration(o.default)}`"
            else:
                default = f"`{o.default}`"
            rows.append(f"| `{o.name}` | {e.short_title}: {what} | {default} |")
    return "\n".join(rows)


__all__ = ["Option", "Semantics", "BUILT_IN", "register", "unregister", "names", "all_semantics", "get", "aliases",
           "owner", "options_table"]
