"""Incidents over a span of arrival time: a producer outage (``silence``) and a ``burst``.

>>> from toolkit.incidents import silence, burst
>>> str(silence(partition=0, at="2min", duration="30s"))
'silence:partition=0,at=2min,duration=30s'
>>> str(burst(factor=4, at="1min", duration="1min"))
'burst:factor=4.0,at=1min,duration=1min'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from toolkit.incidents import base
from toolkit.incidents.base import Context, Incident


@dataclass(frozen=True)
class Silence(Incident):
    """``silence:partition=P,at=T,duration=D``: partition P's producer is down for D from T.

    The partition's records that arrive in ``[T, T+D)`` are removed (nothing is invented);
    every other record is unchanged. The partition stays one the job reads (declared) even
    when no record of it is left.
    """

    partition: int | str
    at: int
    duration: int
    kind: ClassVar[str] = "silence"

    def __post_init__(self) -> None:
        k = self.kind
        object.__setattr__(self, "partition", base.partition(k, self.partition))
        object.__setattr__(self, "at", base.duration(k, "at", self.at))
        object.__setattr__(self, "duration", base.duration(k, "duration", self.duration))

    def _spell(self, name: str, value: Any) -> str:
        if name in ("at", "duration"):
            return base.spell_duration(value)
        return super()._spell(name, value)

    def per_partition(self) -> bool:
        """Removes records by their own partition and arrival time."""
        return True

    def words(self) -> str:
        return f"partition {self.partition} went silent at {base.clock(self.at)} for {base.words_duration(self.duration)}"

    def removed(self, table: pd.DataFrame, ctx: Context) -> np.ndarray:
        """Mask of the rows of ``table`` this silence removes."""
        base.require_arrival(self.kind, table)
        code = ctx.partition_code(self.kind, self.partition)
        a = table["arrival_time"].to_numpy(np.int64)
        start = ctx.origin + self.at
        return (table["partition"].to_numpy(np.int64) == code) & (a >= start) & (a < start + self.duration)

    def _transform(self, table: pd.DataFrame, ctx: Context) -> tuple[pd.DataFrame, str]:
        gone = self.removed(table, ctx)
        name = ctx.log.partition_name(ctx.partition_code(self.kind, self.partition))
        text = (f"partition {name} went silent at {base.clock(self.at)} for {base.words_duration(self.duration)} "
                f"({base.records(int(gone.sum()))} removed)")
        return table.loc[~gone].copy(), text


@dataclass(frozen=True)
class Burst(Incident):
    """``burst:factor=F,at=T,duration=D``: arrivals in ``[T, T+D)`` come F times faster.

    Every partition's records arriving at ``a`` in the span arrive at
    ``T + floor((a - T) / F)``: the span is compressed into ``L = ceil(D / F)``; every later
    arrival moves by ``L - D`` (earlier for F > 1), so the stream continues right after the
    burst with its own spacing. F < 1 slows the span down instead. Event times and rows are
    unchanged; the arrival order is kept (records that come to share a millisecond are read in
    row order). F = 1 or D = 0 changes nothing.
    """

    factor: float
    at: int
    duration: int
    kind: ClassVar[str] = "burst"

    def __post_init__(self) -> None:
        k = self.kind
        object.__setattr__(self, "factor", base.number(k, "factor", self.factor, low=0.0, high=1e6, low_open=True))
        object.__setattr__(self, "at", base.duration(k, "at", self.at))
        object.__setattr__(self, "duration", base.duration(k, "duration", self.duration))

    def _spell(self, name: str, value: Any) -> str:
        if name in ("at", "duration"):
            return base.spell_duration(value)
        if name == "factor":
            return repr(float(value))
        return super()._spell(name, value)

    def per_partition(self) -> bool:
        """Moves each arrival by its own time only."""
        return True

    def words(self) -> str:
        return f"arrivals at {base.clock(self.at)} for {base.words_duration(self.duration)} came {self.factor:g} times faster"

    def _transform(self, table: pd.DataFrame, ctx: Context) -> tuple[pd.DataFrame, str]:
        base.require_arrival(self.kind, table)
        start = ctx.origin + self.at
        end = start + self.duration
        squeezed = int(np.ceil(np.round(self.duration / self.factor, 6)))
        a = table["arrival_time"].to_numpy(np.int64)
        inside = (a >= start) & (a < end)
        after = a >= end
        new = a.copy()
        new[inside] = start + np.floor(np.round((a[inside] - start) / self.factor, 6)).astype(np.int64)
        new[after] = a[after] + (squeezed - self.duration)
        out = table.copy()
        out["arrival_time"] = new
        shift = squeezed - self.duration
        text = (f"arrivals at {base.clock(self.at)} for {base.words_duration(self.duration)} came {self.factor:g} times "
                f"faster ({base.records(int(inside.sum()))} in {base.words_duration(squeezed)}; "
                f"{base.records(int(after.sum()))} after it moved by {'+' if shift >= 0 else '-'}"
                f"{base.words_duration(abs(shift))})")
        return out, text


def silence(partition: int | str, at: Any, duration: Any) -> Silence:
    """Partition ``partition``'s records arriving in ``[at, at+duration)`` are removed. See :class:`Silence`."""
    return Silence(partition, at, duration)


def burst(factor: Any, at: Any, duration: Any) -> Burst:
    """Arrivals in ``[at, at+duration)`` come ``factor`` times faster. See :class:`Burst`."""
    return Burst(factor, at, duration)
