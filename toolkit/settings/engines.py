"""The engine registry as the settings see it: ``toolkit.semantics`` installs itself here
(:func:`install_semantics`), so this layer names no engine and imports none; an engine's own
settings are declared, parsed and checked by its package."""
from __future__ import annotations

import importlib
import sys
from typing import Any

from toolkit.settings.durations import _choice
from toolkit.settings.names import SettingError

#: the settings package is being imported (see :func:`_check_engine`); cleared at its end
_LOADING = True


class _Engines:
    """What the settings ask of the engine registry (``toolkit.semantics``), which installs it:
    the settings layer does not import the engines, the engines' package installs itself here."""

    def __init__(self, get: Any, names: Any, aliases: Any, owner: Any) -> None:
        self.get, self.names, self.aliases, self.owner = get, names, aliases, owner
        self._cache: dict[tuple, Any] = {}

    def changed(self) -> None:
        """An engine was registered, replaced or removed: what was derived from them goes."""
        self._cache.clear()

    def cached(self, what: tuple, make: Any) -> Any:
        """``make()``, kept under ``what`` until the registered engines change."""
        if what not in self._cache:
            self._cache[what] = make()
        return self._cache[what]

    def canonical(self, value: Any) -> str:
        """The engine's name of what the user wrote for ``semantics``."""
        return _choice(value, "semantics", self.names(), self.aliases())

    def option(self, name: str) -> Any:
        """The declaration of an engine's own setting ``name`` (None for a common setting)."""
        return self.cached(("by_name",), self._by_name).get(name)

    def _by_name(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for n in self.names():  # the first engine that declares a name owns it (as ``owner``)
            for o in self.get(n).options:
                out.setdefault(o.name, o)
        return out

    def takes_window(self, name: str, window: Any) -> bool:
        """Engine ``name`` runs ``window`` (``Semantics.window_types``; None: any window)."""
        types = self.get(name).window_types
        return types is None or isinstance(window, types)

    def option_names(self, *, exclude: str | None = None) -> tuple[str, ...]:
        """Every engine's own settings, but ``exclude``'s."""
        return self.cached(("names", exclude), lambda: tuple(
            o.name for n in self.names() if n != exclude for o in self.get(n).options))


_ENGINES: _Engines | None = None


def install_semantics(get: Any, names: Any, aliases: Any, owner: Any) -> None:
    """Called once by ``toolkit.semantics`` (imported by ``import toolkit``): the registry."""
    global _ENGINES
    _ENGINES = _Engines(get, names, aliases, owner)


def semantics_changed() -> None:
    """Called by ``toolkit.semantics`` when an engine is registered or removed after install."""
    if _ENGINES is not None:
        _ENGINES.changed()


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
    given = dict(s.own)  # the engines' own settings given (Setting.own)
    for name in engines.option_names(exclude=engine.name):
        if given.get(name) is not None:
            other = engines.owner(name)
            raise SettingError(name, f"{name} is {_a(other.title)} setting, not {_a(engine.short_title)} setting; give "
                               f"semantics={other.name!r} to replay the log the way {other.title} would")
    engine.check(s)
    if not engines.takes_window(engine.name, s.window):
        kind = str(s.window).partition(":")[0]
        takers = [engines.get(n) for n in engines.names() if engines.get(n).window_types is not None
                  and engines.takes_window(n, s.window)]
        hint = "; give " + " or ".join(f"semantics={t.name!r} ({t.title})" for t in takers) if takers else ""
        raise SettingError("window", f"window {s.window}: {engine.title} has no {kind} window{hint}")


def loaded() -> None:
    """The settings package finished importing: a setting built from now on is checked by its
    engine (the registry is loaded on first use)."""
    global _LOADING
    _LOADING = False


__all__ = ["install_semantics", "semantics_changed", "semantics_names"]
