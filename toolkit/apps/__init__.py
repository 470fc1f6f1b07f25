"""What a person looks at: the ipywidgets explorers and the offline HTML report.

- :mod:`toolkit.apps.explore`: ``toolkit.explore(log)`` and ``toolkit.explore_sweep(results)``;
- :mod:`toolkit.apps.report`: ``toolkit.report(log, ...)``, with its page in
  :mod:`toolkit.apps.report_template`.

The apps sit on top: they call the computation through the public API (``toolkit.replay``,
``toolkit.sweep``, ``toolkit.recommend``), draw with :mod:`toolkit.viz`, and format numbers and
HTML tables with :mod:`toolkit.viz._format`. This package re-exports nothing, so that
``toolkit.report`` and ``toolkit.explore`` stay the functions and the modules keep their own
names.
"""
