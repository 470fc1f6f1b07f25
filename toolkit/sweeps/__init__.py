"""Sweeps: a replay over a grid of settings, in-process or on Spark.

``toolkit.sweep(log, window=..., delay=[...], lateness=[...], ...)`` evaluates every
combination (any setting ``toolkit.replay`` takes may be a list) with the closed-form path
when it applies and the reference engine otherwise, one row per configuration;
``toolkit.frontier`` and ``toolkit.recommend`` read it. (The package is a noun, the function a
verb: ``toolkit.sweep`` is always the function.)
"""
from toolkit.sweeps.choose import frontier, recommend
from toolkit.sweeps.single import record_fates, window_figures
from toolkit.sweeps.sweep import RESULT_COLUMNS, sweep


def distribute(log, *, shards=None, spark=None, master=None):
    """Hash-partition the log by key in Spark and cache it, so repeated sweeps skip the shuffle."""
    from toolkit.sweeps.spark import distribute as _distribute

    return _distribute(log, shards=shards, spark=spark, master=master)


__all__ = ["RESULT_COLUMNS", "distribute", "frontier", "recommend", "record_fates", "sweep", "window_figures"]
