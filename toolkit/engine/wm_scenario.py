"""Old home of the watermark and valve scenario runners, now ``toolkit.engine.scenarios``.

Kept only for ``toolkit/replay.py`` (the lead removes this shim when replay imports
``toolkit.engine.scenarios.jsonl.dumps``)."""
from .scenarios.jsonl import dumps  # noqa: F401  (shim, lead removes)
