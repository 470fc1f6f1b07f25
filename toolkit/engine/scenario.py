"""Old home of the window-scenario runner, now ``toolkit.engine.scenarios`` and ``config``.

Kept only for ``toolkit/replay.py`` (the lead removes this shim when replay imports from
``toolkit.engine.config``)."""
from .config import assigner_from_dict as build_assigner, evictor_from_dict as build_evictor, trigger_from_dict as build_trigger  # noqa: F401  (shim, lead removes)
