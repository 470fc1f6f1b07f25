"""How Altair charts are drawn in JupyterLab: offline, interactive, no CDN.

Altair 6 emits Vega-Lite 6 specs; JupyterLab 4 ships renderers up to Vega-Lite 5, so Altair's
default renderer falls back to loading Vega from a CDN and shows "Error loading script"
without a network. Inside a Jupyter kernel, importing :mod:`toolkit.viz` therefore switches
Altair to its ``"jupyter"`` renderer in offline mode: every chart is an ``altair.JupyterChart``
widget (anywidget, whose front-end ships in its wheel) carrying Vega, Vega-Lite and
vega-embed bundled by vl-convert. Charts keep tooltips, zoom and selections, and selections
can be read back in Python (``JupyterChart.selections``).

A renderer the user enabled before importing toolkit is kept; ``alt.renderers.enable(...)``
after it wins as usual. Outside a kernel (scripts, tests) nothing changes.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
from pathlib import Path
from typing import Any

import altair as alt

from toolkit.errors import MissingExtraError

RENDERER = "jupyter"
"""The Altair renderer toolkit enables in notebooks (with ``offline=True``)."""


def in_kernel() -> bool:
    """True when running in a Jupyter kernel (JupyterLab, Notebook, VS Code, nbval)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _cache_file() -> Path:
    """Where the bundled widget script is kept, keyed by the versions and the widget's source."""
    from altair.jupyter.jupyter_chart import load_js_src

    # alt.__version__ and vl_convert.__version__, which their type stubs do not declare
    versions = [importlib.metadata.version("altair"), importlib.metadata.version("vl-convert-python")]
    key = hashlib.sha256("|".join([*versions, load_js_src()]).encode()).hexdigest()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "watermark-lab" / f"jupyterchart-offline-{key[:16]}.js"


def _offline_widget_script() -> None:
    """Make JupyterChart offline, reusing the bundle a previous kernel made (vl-convert takes
    seconds to bundle Vega; the result only depends on the versions). Any cache problem falls
    back to Altair's own ``enable_offline``."""
    from altair import JupyterChart

    if getattr(JupyterChart, "_is_offline", False):
        return
    try:
        cached = _cache_file()
        if cached.is_file():
            JupyterChart._esm = cached.read_text(encoding="utf-8")
            JupyterChart._is_offline = True
            return
    except (OSError, ImportError, AttributeError, ValueError):
        cached = None
    JupyterChart.enable_offline(True)
    if cached is not None:
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(JupyterChart._esm, encoding="utf-8")
            tmp.replace(cached)
        except OSError:
            pass


def enable_offline_charts(force: bool = False) -> bool:
    """Draw Altair charts with the offline JupyterChart widget; returns whether it is enabled.

    Without ``force`` this only acts in a Jupyter kernel and only while Altair's renderer is
    still its ``"default"`` (a choice the user made is kept).
    """
    if not force and not (in_kernel() and alt.renderers.active == "default"):
        return uses_widgets()
    if importlib.util.find_spec("anywidget") is None:  # no notebook extra: Altair's own renderer stays
        if force:
            raise MissingExtraError("offline interactive charts", "notebook", "anywidget")
        return False
    _offline_widget_script()
    alt.renderers.enable(RENDERER, offline=True)
    return True


def uses_widgets() -> bool:
    """True when Altair's active renderer is the (offline) JupyterChart widget."""
    return alt.renderers.active == RENDERER


def widget_for(chart: Any, previous: Any = None) -> Any:
    """A JupyterChart showing ``chart``: ``previous`` updated in place when given (only the
    spec travels to the browser, not the bundled scripts again), else a new one."""
    from altair import JupyterChart

    if alt.renderers.options.get("offline", True):
        _offline_widget_script()
    if previous is not None:
        previous.chart = chart
        return previous
    return JupyterChart(chart, embed_options=alt.renderers.options.get("embed_options"))


__all__ = ["RENDERER", "enable_offline_charts", "in_kernel", "uses_widgets", "widget_for"]
