"""Reading incidents: :func:`parse_incident` and the constructors (``stall(...)`` ...).

Every kind's parameters (aliases in brackets), in the order ``str()`` writes them:

- ``stall:partition=P,at=T,duration=D,drain=R/s``  [drain_rate, rate]
- ``restart:at=T,downtime=D,replay_from=B,source_rate=R/s,duplicates=false``  [replay, backlog; rate]
- ``clock_skew:partition=P,offset=O`` or ``clock_skew:key=K,offset=O``  [skew]
- ``late_upload:fraction=F,delay=D,seed=S``  (D: ``10min``, ``exponential:10min``, ``uniform:1min..1h``)
- ``silence:partition=P,at=T,duration=D``
- ``burst:factor=F,at=T,duration=D``

Unknown kinds and parameters get a "did you mean".
"""
from __future__ import annotations

import difflib
from dataclasses import MISSING, fields
from typing import Any

from toolkit.incidents.backlog import Restart, Stall
from toolkit.incidents.base import Composite, Incident
from toolkit.incidents.grammar import split_incident, split_incidents
from toolkit.incidents.late import LateUpload
from toolkit.incidents.skew import ClockSkew
from toolkit.incidents.spans import Burst, Silence
from toolkit.settings import SettingError

KINDS: dict[str, type[Incident]] = {c.kind: c for c in (Stall, Restart, ClockSkew, LateUpload, Silence, Burst)}

#: parameter aliases per kind: alias -> field name
ALIASES: dict[str, dict[str, str]] = {
    "stall": {"drain_rate": "drain", "rate": "drain"},
    "restart": {"replay": "replay_from", "backlog": "replay_from", "rate": "source_rate"},
    "clock_skew": {"skew": "offset"},
    "late_upload": {},
    "silence": {},
    "burst": {},
}
_KIND_ALIASES = {"skew": "clock_skew", "late": "late_upload", "outage": "silence", "crash": "restart"}


def _did_you_mean(word: str, candidates) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _usage(cls: type[Incident]) -> str:
    return f"{cls.kind}:" + ",".join(f"{f.name}=..." for f in fields(cls))  # type: ignore[arg-type]


def build(kind: str, params: dict[str, Any]) -> Incident:
    """An incident of ``kind`` from parameters by name (aliases accepted, every one checked)."""
    kind = _KIND_ALIASES.get(kind, kind)
    if kind not in KINDS:
        raise SettingError("incident", f"unknown incident {kind!r}: choose one of {', '.join(KINDS)}"
                           f"{_did_you_mean(kind, list(KINDS) + list(_KIND_ALIASES))}")
    cls = KINDS[kind]
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    aliases = ALIASES[kind]
    given: dict[str, Any] = {}
    for name, value in params.items():
        field = aliases.get(name, name)
        if field not in names:
            raise SettingError(kind, f"{kind}: unknown parameter {name!r}: choose among {', '.join(names)}"
                               f"{_did_you_mean(name, names + list(aliases))}")
        if field in given:
            raise SettingError(kind, f"{kind}: {field} is given twice")
        given[field] = value
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name not in given and f.default is MISSING:
            raise SettingError(kind, f"{kind}: {f.name}= is missing ({_usage(cls)})")
    return cls(**given)


def parse_incident(text: "str | Incident") -> Incident:
    """An incident (or a :class:`Composite` for ``a + b``) from its spelling.

    ``"stall:partition=2,at=1min,duration=2min,drain=500/s"``, the call-like
    ``"stall(partition=2, at=1min, duration=2min, drain=500/s)"``, or several joined by
    ``+``. ``parse_incident(str(x)) == x`` for every incident ``x``.
    """
    if isinstance(text, Incident):
        return text
    if not isinstance(text, str) or not text.strip():
        raise SettingError("incident", f"an incident is text like 'stall:partition=2,at=1min,duration=2min,drain=500/s', "
                                       f"got {text!r}")
    parts = split_incidents(text)
    if len(parts) > 1 or text.strip() == "none":
        return Composite(tuple(parse_incident(p) for p in parts if p != "none"))
    kind, pairs = split_incident(parts[0])
    params: dict[str, Any] = {}
    for name, value in pairs:
        if name in params:
            raise SettingError(kind, f"{kind}: {name} is given twice")
        params[name] = value
    return build(kind, params)


# ----------------------------------------------------------------------------------------
# constructors: what Python users call
# ----------------------------------------------------------------------------------------

def stall(partition: int | str, at: Any, duration: Any, drain: Any = None, *, drain_rate: Any = None) -> Stall:
    """Partition ``partition`` stalls at ``at`` for ``duration``, then drains at ``drain`` records/s
    (``"500/s"`` or a number; ``drain_rate=`` is the same). See :class:`Stall`."""
    if (drain is None) == (drain_rate is None):
        raise SettingError("stall", "stall: give the drain rate once (drain='500/s' or drain_rate=500)")
    return Stall(partition, at, duration, drain if drain is not None else drain_rate)


def restart(at: Any, downtime: Any = 0, replay_from: Any = None, source_rate: Any = None,
            duplicates: bool = False) -> Restart:
    """The job stops at ``at``, is down ``downtime``, re-reads from ``at - replay_from`` at
    ``source_rate`` records/s per partition; ``duplicates`` keeps the first readings too.
    See :class:`Restart`."""
    for name, v in (("replay_from", replay_from), ("source_rate", source_rate)):
        if v is None:
            raise SettingError("restart", f"restart: {name}= is missing")
    return Restart(at, downtime, replay_from, source_rate, duplicates)


def clock_skew(partition: int | str | None = None, key: str | None = None, offset: Any = 0) -> ClockSkew:
    """Event times of ``partition`` (or ``key``) shifted by ``offset`` (ahead > 0). See :class:`ClockSkew`."""
    return ClockSkew(partition, key, offset)


def late_upload(fraction: Any, delay: Any, seed: int = 0) -> LateUpload:
    """A seeded random ``fraction`` of records arrive ``delay`` later. See :class:`LateUpload`."""
    return LateUpload(fraction, delay, seed)


def silence(partition: int | str, at: Any, duration: Any) -> Silence:
    """Partition ``partition``'s records arriving in ``[at, at+duration)`` are removed. See :class:`Silence`."""
    return Silence(partition, at, duration)


def burst(factor: Any, at: Any, duration: Any) -> Burst:
    """Arrivals in ``[at, at+duration)`` come ``factor`` times faster. See :class:`Burst`."""
    return Burst(factor, at, duration)
