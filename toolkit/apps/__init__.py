"""What a person explores in a notebook: the ipywidgets apps.

- :mod:`toolkit.apps.explore`: ``toolkit.explore(log)`` and ``toolkit.explore_sweep(results)``;
- :mod:`toolkit.apps.controls`: one widget per declared setting.

The apps need the ``notebook`` extra (ipywidgets): importing this package without it raises
:class:`toolkit.errors.MissingExtraError`, one line naming the extra. The offline HTML report
needs no extra and lives in :mod:`toolkit.reports`. The apps call the computation through the
public API and draw with :mod:`toolkit.viz`; this package re-exports nothing, so that
``toolkit.explore`` stays the function.
"""
from toolkit.errors import MissingExtraError

try:
    import ipywidgets  # noqa: F401  (checked here so that the first import names the extra)
except ImportError as exc:
    raise MissingExtraError("toolkit.apps (toolkit.explore, toolkit.explore_sweep)", "notebook", exc.name) from None
