"""Backlogs: a stalled partition (``stall``) and a job restarted from a checkpoint (``restart``).

Both hold readers back and then drain what queued at a fixed rate, by the rule of
:mod:`toolkit.incidents.drain` (original arrival order, queued records read at most ``rate``
per second, later records queue behind until the reader has caught up).

>>> from toolkit.incidents import stall, restart
>>> str(stall(partition=2, at="1min", duration="2min", drain="500/s"))
'stall:partition=2,at=1min,duration=2min,drain=500/s'
>>> str(restart(at="2min", downtime="30s", replay_from="1min", source_rate="1000/s"))
'restart:at=2min,downtime=30s,replay_from=1min,source_rate=1000/s,duplicates=false'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from toolkit.incidents import base
from toolkit.incidents.base import Context, Incident
from toolkit.incidents.drain import drain
from toolkit.settings import SettingError


@dataclass(frozen=True)
class Stall(Incident):
    """``stall:partition=P,at=T,duration=D,drain=R/s``: partition P's consumer stops at T for D.

    The partition's records that arrive in ``[T, T+D)`` are read from ``T+D`` on, in their
    original arrival order, ``drain`` records per second; records of the partition that arrive
    while the backlog drains queue behind it until the consumer has caught up (a record read at
    its own arrival time), then the partition is read as before. Other partitions, event times
    and rows are unchanged. A stall of zero duration changes nothing.
    """

    partition: int | str
    at: int
    duration: int
    drain: float
    kind: ClassVar[str] = "stall"
    aliases: ClassVar[dict[str, str]] = {'drain_rate': 'drain', 'rate': 'drain'}

    def __post_init__(self) -> None:
        k = self.kind
        object.__setattr__(self, "partition", base.partition(k, self.partition))
        object.__setattr__(self, "at", base.duration(k, "at", self.at))
        object.__setattr__(self, "duration", base.duration(k, "duration", self.duration))
        object.__setattr__(self, "drain", base.rate(k, "drain", self.drain))

    def _spell(self, name: str, value: Any) -> str:
        if name in ("at", "duration"):
            return base.spell_duration(value)
        if name == "drain":
            return base.format_rate(value)
        return super()._spell(name, value)

    def per_partition(self) -> bool:
        """A stall moves one partition's records by that partition's own queue."""
        return True

    def words(self) -> str:
        return (f"partition {self.partition} stalled at {base.clock(self.at)} for {base.words_duration(self.duration)}, "
                f"drained at {base.words_rate(self.drain)}")

    def _transform(self, table: pd.DataFrame, ctx: Context) -> tuple[pd.DataFrame, str]:
        base.require_arrival(self.kind, table)
        code = ctx.partition_code(self.kind, self.partition)
        start = ctx.origin + self.at
        resume = start + self.duration
        a = table["arrival_time"].to_numpy(np.int64)
        mask = (table["partition"].to_numpy(np.int64) == code) & (a >= start)
        pos = base.arrival_sorted(table, mask)
        new = drain(a[pos], np.zeros(len(pos), dtype=np.int64), resume, self.drain)
        moved = new != a[pos]
        out = table.copy()
        arrival = a.copy()
        arrival[pos] = new
        out["arrival_time"] = arrival
        held = int(((a[pos] >= start) & (a[pos] < resume)).sum())
        caught = int(new[moved].max() - ctx.origin) if moved.any() else None
        text = (f"partition {ctx.log.partition_name(code)} stalled at {base.clock(self.at)} for "
                f"{base.words_duration(self.duration)}, drained at {base.words_rate(self.drain)} "
                f"({base.records(held)} held, {base.records(int(moved.sum()))} delayed"
                + (f", the last read at {base.clock(caught)})" if caught is not None else ")"))
        return out, text


@dataclass(frozen=True)
class Restart(Incident):
    """``restart:at=T,downtime=D,replay_from=B,source_rate=R/s,duplicates=false``: the job fails.

    The job stops at T; at T+D it restarts from its last checkpoint, taken at ``T - B``, and
    every partition re-reads the records that arrived from ``T - B`` on: a backlog each reader
    drains from T+D at ``source_rate`` records per second per partition (the drain rule of
    :mod:`toolkit.incidents.drain`; records arriving meanwhile queue behind it).

    The records that arrived in ``[T-B, T)`` had been read once before the crash:

    - ``duplicates=false`` (exactly once, the default): the first reading does not count (the
      state rolled back to the checkpoint); each such record is read only at its replayed time.
      No record is added or lost.
    - ``duplicates=true`` (at least once, what a non-transactional sink sees): the first reading
      stays at its original arrival time and the replayed reading is an extra row, numbered
      after the largest row, with ``duplicate_of`` naming the original row.

    Event times are unchanged. Records that arrived from T on (while the job was down) are
    delayed like any other backlog.
    """

    at: int
    downtime: int
    replay_from: int
    source_rate: float
    duplicates: bool = False
    kind: ClassVar[str] = "restart"
    aliases: ClassVar[dict[str, str]] = {'replay': 'replay_from', 'backlog': 'replay_from', 'rate': 'source_rate'}

    def __post_init__(self) -> None:
        k = self.kind
        object.__setattr__(self, "at", base.duration(k, "at", self.at))
        object.__setattr__(self, "downtime", base.duration(k, "downtime", self.downtime))
        object.__setattr__(self, "replay_from", base.duration(k, "replay_from", self.replay_from))
        object.__setattr__(self, "source_rate", base.rate(k, "source_rate", self.source_rate))
        object.__setattr__(self, "duplicates", base.boolean(k, "duplicates", self.duplicates))

    def _spell(self, name: str, value: Any) -> str:
        if name in ("at", "downtime", "replay_from"):
            return base.spell_duration(value)
        if name == "source_rate":
            return base.format_rate(value)
        return super()._spell(name, value)

    def per_partition(self) -> bool:
        """Each partition drains its own backlog; copies (``duplicates=true``) are numbered across
        the whole log, so only the exactly-once restart is per partition."""
        return not self.duplicates

    def adds_copies(self) -> bool:
        """With duplicates each partition drains its own backlog; the copies are numbered over the log."""
        return self.duplicates

    def words(self) -> str:
        return (f"the job restarted at {base.clock(self.at)} after {base.words_duration(self.downtime)} down, "
                f"re-reading {base.words_duration(self.replay_from)} of backlog at {base.words_rate(self.source_rate)} "
                f"per partition" + (" (replayed records duplicated)" if self.duplicates else ""))

    def _transform(self, table: pd.DataFrame, ctx: Context) -> tuple[pd.DataFrame, str]:
        base.require_arrival(self.kind, table)
        crash = ctx.origin + self.at
        resume = crash + self.downtime
        checkpoint = crash - self.replay_from
        a = table["arrival_time"].to_numpy(np.int64)
        part = table["partition"].to_numpy(np.int64)
        queued = np.flatnonzero(a >= checkpoint)
        r = table["row"].to_numpy(np.int64)
        pos = queued[np.lexsort((r[queued], a[queued], part[queued]))]  # by partition, then arrival order
        new = drain(a[pos], part[pos], resume, self.source_rate)
        again = a[pos] < crash  # read before the crash, read again now
        if self.duplicates:
            out = table.copy()
            arrival = a.copy()
            arrival[pos[~again]] = new[~again]
            out["arrival_time"] = arrival
            out = base.copies(out, pos[again], new[again], provisional=ctx.provisional_copies)
            added = f", {int(again.sum()):,} duplicate row{'' if again.sum() == 1 else 's'} added"
        else:
            out = table.copy()
            arrival = a.copy()
            arrival[pos] = new
            out["arrival_time"] = arrival
            added = ""
        kept = ~again if self.duplicates else np.ones(len(pos), dtype=bool)  # copies are not "delayed"
        delayed = int((new != a[pos])[kept].sum())
        text = (f"the job stopped at {base.clock(self.at)} and restarted after {base.words_duration(self.downtime)} "
                f"from the checkpoint at {base.clock(self.at - self.replay_from)}, every partition draining its "
                f"backlog at {base.words_rate(self.source_rate)} ({base.records(int(again.sum()))} read again, "
                f"{base.records(delayed)} delayed{added})")
        return out, text


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
