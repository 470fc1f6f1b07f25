"""Old home of :class:`EventLog`, now :mod:`toolkit.log.model`; import it from ``toolkit.log``.

Kept only so that ``toolkit/sweep`` (``core.py``, ``spark_exec.py``) keeps working until its
imports point at ``toolkit.log.model``; delete this file then.
"""
from toolkit.log.model import CANONICAL_COLUMNS, EventLog

__all__ = ["CANONICAL_COLUMNS", "EventLog"]
