"""Incidents: what a bad day does to a recorded log, as transforms of the log.

Each incident is a small frozen value in the settings' style (validated on construction,
compared by value, ``str()`` writes its spelling and :func:`parse_incident` reads it back);
``incident.apply(log)`` returns a new :class:`~toolkit.log.EventLog` (the input is unchanged)
whose ``describe()`` lists what was applied, and ``incident.describe(log)`` says it in words.
``a + b`` applies ``a`` then ``b``.

>>> import toolkit
>>> from toolkit.incidents import stall, restart, parse_incident
>>> log = toolkit.EventLog.from_arrays(event_time=[0, 1000, 2000, 3000], arrival_time=[10, 1010, 2010, 3010],
...                                    partition=[0, 1, 0, 1])
>>> bad_day = stall(partition=0, at="1s", duration="2s", drain="1/s") + restart(
...     at="3s", downtime="1s", replay_from="2s", source_rate="10/s", duplicates=True)
>>> str(bad_day)
'stall:partition=0,at=1s,duration=2s,drain=1/s + restart:at=3s,downtime=1s,replay_from=2s,source_rate=10/s,duplicates=true'
>>> parse_incident(str(bad_day)) == bad_day
True
>>> worse = bad_day.apply(log)
>>> worse.table[["row", "arrival_time", "partition", "duplicate_of"]].values.tolist()
[[0, 10, 0, -1], [1, 1010, 1, -1], [2, 4010, 0, -1], [3, 4110, 1, -1], [4, 4010, 1, 1]]
>>> print(worse.incidents[0])
partition 0 stalled at 0:00:01 for 2 s, drained at 1 records/s (1 record held, 1 record delayed, the last read at 0:00:03)

Kinds (see ``docs/incidents.md`` for the exact models): :class:`Stall` (``stall``),
:class:`Restart` (``restart``), :class:`ClockSkew` (``clock_skew``), :class:`LateUpload`
(``late_upload``), :class:`Silence` (``silence``), :class:`Burst` (``burst``); shared rules
(time origin, row identity, ``duplicate_of``) in :mod:`toolkit.incidents.base`.
"""
from __future__ import annotations

from toolkit.incidents.backlog import Restart, Stall
from toolkit.incidents.base import DUPLICATE_OF, Composite, Incident, collect
from toolkit.incidents.late import Delay, LateUpload
from toolkit.incidents.parse import (
    KINDS,
    burst,
    clock_skew,
    late_upload,
    parse_incident,
    restart,
    silence,
    stall,
)
from toolkit.incidents.skew import ClockSkew
from toolkit.incidents.spans import Burst, Silence

__all__ = [
    "DUPLICATE_OF",
    "KINDS",
    "Burst",
    "ClockSkew",
    "Composite",
    "Delay",
    "Incident",
    "LateUpload",
    "Restart",
    "Silence",
    "Stall",
    "burst",
    "clock_skew",
    "collect",
    "late_upload",
    "parse_incident",
    "restart",
    "silence",
    "stall",
]
