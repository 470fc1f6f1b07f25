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

Spellings (``docs/incidents.md`` states each model exactly; aliases in brackets):

- ``stall:partition=P,at=T,duration=D,drain=R/s`` [drain_rate, rate] (:mod:`~toolkit.incidents.backlog`)
- ``restart:at=T,downtime=D,replay_from=B,source_rate=R/s,duplicates=false`` [replay, backlog; rate]
- ``clock_skew:partition=P,offset=O`` or ``clock_skew:key=K,offset=O`` [skew] (:mod:`~toolkit.incidents.skew`)
- ``late_upload:fraction=F,delay=D,seed=S``, D ``10min``, ``exponential:10min`` or ``uniform:1min..1h``
  (:mod:`~toolkit.incidents.late`)
- ``silence:partition=P,at=T,duration=D``, ``burst:factor=F,at=T,duration=D`` (:mod:`~toolkit.incidents.spans`)

joined by ``+`` (grammar: :mod:`~toolkit.incidents.grammar`). The shared rules (time origin,
row identity, ``duplicate_of``), composition and parsing are in :mod:`~toolkit.incidents.base`,
the backlog drain rule in :mod:`~toolkit.incidents.drain`.
"""
from __future__ import annotations

from toolkit.incidents.backlog import Restart, Stall, restart, stall
from toolkit.incidents.base import DUPLICATE_OF, KINDS, Composite, Incident, collect, parse_incident
from toolkit.incidents.late import Delay, LateUpload, late_upload
from toolkit.incidents.skew import ClockSkew, clock_skew
from toolkit.incidents.spans import Burst, Silence, burst, silence

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
