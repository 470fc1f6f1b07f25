"""Incidents as a sweep axis: every configuration evaluated on the recorded log and on each bad day.

``toolkit.sweep(log, ..., incidents=[None, stall(...), restart(...)])`` runs the sweep once per
variant of the log (``None``: the recorded log) and stacks the rows, each with an ``incident``
column: ``"recorded log"`` (:data:`RECORDED`) or the incident's spelling (``str(incident)``, read
back by :func:`toolkit.incidents.parse_incident`). An empty list is the plain sweep.

Where the variant is made (``docs/incidents.md``, "Incidents in a sweep"):

- a pandas-backed log: the incident is applied once, on the driver where the log already is,
  by its own vectorized transform (numpy arrays, no per-record Python objects); the variant then
  runs the sweep like any log: in-process, or shipped to Spark column by column as a plain
  sweep ships it. Applying it in every Spark task instead would repeat the same global work
  (the time origin, each partition's drain) in each task for no gain.
- a Spark-backed log: the incident is applied where the log lives
  (:mod:`toolkit.sweeps.spark_incidents`), and the variant is persisted for its sweep and
  released after it.

Either way a variant's figures are the figures of ``replay(incident.apply(log), setting)``:
in-process and Spark agree (tests/sweeps/test_sweep_incidents.py).
"""
from __future__ import annotations

from typing import Any, Callable

import pandas as pd

from toolkit.incidents import Composite, Incident, parse_incident
from toolkit.log import EventLog
from toolkit.settings import SettingError
from toolkit.sweeps.spark_incidents import apply_in_spark

#: the ``incident`` value of the rows of the recorded log (``None`` in ``incidents=``)
RECORDED = "recorded log"
#: the column a sweep with incidents adds, just before ``path``
INCIDENT_COLUMN = "incident"


def incident_list(incidents: Any) -> list[Incident | None]:
    """The incidents of a sweep, checked: each ``None`` (the recorded log), an incident or its
    spelling (``"stall:partition=2,at=1min,duration=2min,drain=500/s"``); duplicates by value
    dropped, order kept. One incident or spelling alone is a list of one."""
    if isinstance(incidents, (str, Incident)):
        incidents = [incidents]
    if not isinstance(incidents, (list, tuple)):
        raise SettingError("incidents", "incidents must be a list of incidents (toolkit.incidents: stall(...), "
                           f"restart(...), ...), their spellings, or None for the recorded log; got {incidents!r}")
    out: list[Incident | None] = []
    for item in incidents:
        if item is None or (isinstance(item, str) and item.strip().lower() in ("none", RECORDED)):
            x = None
        elif isinstance(item, (str, Incident)):
            try:
                x = parse_incident(item)
            except SettingError as exc:
                raise SettingError("incident", f"incident {item!r}: {exc}") from None
            if isinstance(x, Composite) and not x.incidents:
                x = None
        else:
            raise SettingError("incidents", f"incidents: {item!r} is not an incident (toolkit.incidents: stall(...), "
                               "restart(...), ...), its spelling, or None for the recorded log")
        if x not in out:
            out.append(x)
    return out


def label(incident: Incident | None) -> str:
    """The ``incident`` cell of a variant's rows: :data:`RECORDED` or the incident's spelling."""
    return RECORDED if incident is None else str(incident)


def sweep_variants(log: Any, incidents: list[Incident | None], run: Callable[[Any], pd.DataFrame]) -> pd.DataFrame:
    """``run`` (a plain sweep of one log) on each variant of ``log``; the rows stacked in the order
    of ``incidents``, each with its ``incident`` column before ``path``."""
    check_variant_log(log)
    frames = []
    for incident in incidents:
        variant = variant_log(log, incident)
        try:
            frame = run(variant)
        finally:
            if variant is not log and variant.is_spark:
                variant.spark_df.unpersist()
        frame.insert(list(frame.columns).index("path"), INCIDENT_COLUMN, label(incident))
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def check_variant_log(log: Any) -> None:
    """Incidents transform an EventLog: anything else is refused naming ``incidents``."""
    if not isinstance(log, EventLog):
        raise SettingError("incidents", "incidents transform an EventLog (toolkit.load_log or "
                           f"toolkit.EventLog.from_arrays), got {type(log).__name__}")


def variant_log(log: EventLog, incident: Incident | None) -> EventLog:
    """The log of one variant: ``log`` itself for the recorded log, else the incident applied
    (on the driver for a pandas-backed log, in Spark for a Spark-backed one)."""
    if incident is None:
        return log
    try:
        return apply_in_spark(log, incident) if log.is_spark else incident.apply(log)
    except SettingError as exc:
        if exc.setting == "incident":
            raise
        raise SettingError("incident", f"incident {incident}: {exc}") from None
