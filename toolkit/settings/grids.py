"""Grids: every combination of lists of settings (:func:`grid`), each fitted to its engine and
strategy (an axis that does not apply to a row is left out of it)."""
from __future__ import annotations

import itertools
from typing import Any

from toolkit.settings.engines import _engines
from toolkit.settings.names import SettingError
from toolkit.settings.options import STRATEGY_PARAMETERS, common_option
from toolkit.settings.setting import Setting, _canonical_names, _normalize
from toolkit.settings.windows import Tumbling


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




def _fit(values: dict) -> dict | None:
    """In a grid, a strategy takes only its own parameters: the others' are left out, and
    ``monotonous`` (bounded with delay 0) ignores the delay axis."""
    sem = values.get("semantics", common_option("semantics").default)
    for p in _engines().option_names(exclude=sem):  # a semantics axis: an engine's own settings apply to its rows only
        values.pop(p, None)
    if "window" in values and not _engines().takes_window(sem, values["window"]):
        return None  # a window kind the engine does not have: no such row
    values = _engines().get(sem).fit_grid(values)
    if values is None:
        return None
    if "stagger" in values and not isinstance(values.get("window", Tumbling(1000)), Tumbling):
        values.pop("stagger")  # a stagger axis applies to the tumbling rows of a grid only
    strategy = values.get("strategy", common_option("strategy").default)
    if isinstance(strategy, str):
        for p in STRATEGY_PARAMETERS:  # a strategy's own parameters (Option.read_when) on its rows only
            if p in values and strategy not in common_option(p).read_when[1]:
                values.pop(p)
        if strategy == "monotonous":
            values.pop("delay", None)
    return values



__all__ = ["grid"]
