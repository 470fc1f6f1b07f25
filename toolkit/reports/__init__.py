"""The offline HTML report: ``toolkit.report(log, ...)`` (:mod:`toolkit.reports.report`), with its
page in :mod:`toolkit.reports.template`.

It needs no notebook extra: it calls the computation through the public API (``toolkit.replay``,
``toolkit.sweep``, ``toolkit.recommend``), draws with :mod:`toolkit.viz` and formats numbers and
HTML tables with :mod:`toolkit.viz._format`. This package re-exports nothing, so that
``toolkit.report`` stays the function.
"""
