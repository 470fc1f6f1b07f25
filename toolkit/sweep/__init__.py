"""Sweeps: many watermark settings over one log, in-process or on Spark.

``sweep(log, window=..., delay=[...], lateness=[...], interval=[...], ...)`` evaluates every
combination (any setting may be a list) with the closed-form fast path when it applies
(tumbling/sliding windows, event-time trigger, accumulating) and the reference engine
otherwise, and returns one row per configuration. ``frontier`` and ``recommend`` read it.

``toolkit.sweep`` is both this package and the function: once a submodule such as
``toolkit.sweep.grid`` is imported, Python binds the package to ``toolkit.sweep``, so the
package itself is made callable (``toolkit.sweep(log, ...)`` always runs a sweep).
"""
from toolkit.sweep.choose import frontier, recommend
from toolkit.sweep.core import RESULT_COLUMNS, sweep
from toolkit.sweep.grid import Config, build_grid, parse_window


def distribute(log, *, shards=None, spark=None, master=None):
    """Hash-partition the log by key in Spark and cache it, so repeated sweeps skip the shuffle."""
    from toolkit.sweep.spark_exec import distribute as _distribute

    return _distribute(log, shards=shards, spark=spark, master=master)


__all__ = ["Config", "RESULT_COLUMNS", "build_grid", "distribute", "frontier", "parse_window", "recommend", "sweep"]

from toolkit._callable import make_module_callable  # noqa: E402

make_module_callable(__name__, "sweep")
