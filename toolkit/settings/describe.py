"""A setting described for readers: a JSON-ready dict (:func:`describe_setting`) and what its
figures' reader should know (:func:`result_notes`, as its engine says)."""
from __future__ import annotations

from typing import Any

from toolkit.settings.engines import _engines
from toolkit.settings.setting import Setting


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
    for name, v in setting.named_values():
        if v is None or isinstance(v, (bool, int, float)):
            out[name] = v
        elif name == "marker" and callable(v):
            out[name] = getattr(v, "__name__", "predicate")
        elif name == "stages":
            out[name] = [str(st) for st in v]
        else:
            out[name] = str(v)
    out["strategy"] = setting.strategy_name
    out["text"] = str(setting)
    notes = result_notes(setting)
    if notes:
        out["notes"] = notes
    return out



__all__ = ["describe_setting", "result_notes"]
