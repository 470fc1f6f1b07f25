"""Watermark Lab: replay event logs through Flink's event-time windowing, exactly.

The public API is imported lazily so that ``import toolkit`` stays cheap (no Spark,
no Altair) and each layer is loaded only when it is used.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> (module, attribute); attribute None means the module itself
_EXPORTS: dict[str, tuple[str, str | None]] = {
    "load_log": ("toolkit.log", "load_log"),
    "EventLog": ("toolkit.log", "EventLog"),
    "synth": ("toolkit.log.synth", None),
    "incidents": ("toolkit.incidents", None),
    "engine": ("toolkit.engine", None),
    "semantics": ("toolkit.semantics", None),
    "replay": ("toolkit.replays", "replay"),
    "pyspark_snippet": ("toolkit.semantics.structured_streaming.pyspark_code", "pyspark_snippet"),
    "ReplayResult": ("toolkit.replays", "ReplayResult"),
    "explain": ("toolkit.replays.explain", "explain"),
    "compare_engines": ("toolkit.replays.compare", "compare_engines"),
    "translate": ("toolkit.replays.translate", "translate"),
    "drop_causes": ("toolkit.replays.explain", "drop_causes"),
    "sweep": ("toolkit.sweeps", "sweep"),
    "frontier": ("toolkit.sweeps", "frontier"),
    "recommend": ("toolkit.sweeps", "recommend"),
    "distribute": ("toolkit.sweeps", "distribute"),
    "Setting": ("toolkit.settings", "Setting"),
    "Stage": ("toolkit.settings", "Stage"),
    "grid": ("toolkit.settings", "grid"),
    "settings": ("toolkit.settings", None),
    "metrics": ("toolkit.metrics", None),
    "viz": ("toolkit.viz", None),
    "explore": ("toolkit.apps.explore", "explore"),
    "explore_sweep": ("toolkit.apps.explore", "explore_sweep"),
    "report": ("toolkit.reports.report", "report"),
    "spark_session": ("toolkit.spark", "spark_session"),
    "deploy": ("toolkit.deployment", "deploy"),
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    try:
        module_name, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'toolkit' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
