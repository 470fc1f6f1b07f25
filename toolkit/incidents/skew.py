"""A producer whose clock is off: ``clock_skew``.

>>> from toolkit.incidents import clock_skew
>>> str(clock_skew(partition=1, offset="30s"))
'clock_skew:partition=1,offset=30s'
>>> str(clock_skew(key="k3", offset="-5min"))
'clock_skew:key=k3,offset=-5min'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from toolkit.incidents import base
from toolkit.incidents.base import Context, Incident
from toolkit.settings import SettingError


@dataclass(frozen=True)
class ClockSkew(Incident):
    """``clock_skew:partition=P,offset=O`` or ``clock_skew:key=K,offset=O``: a clock runs off.

    Every record of partition P (or of key K: give exactly one) gets ``event_time + O``: a
    positive offset is a producer clock running ahead, a negative one behind. Arrival times,
    arrival order and rows are unchanged (so the event order within the partition changes only
    relative to the records of other producers). An offset of zero changes nothing.
    """

    partition: int | str | None = None
    key: str | None = None
    offset: int = 0
    kind: ClassVar[str] = "clock_skew"
    aliases: ClassVar[dict[str, str]] = {'skew': 'offset'}

    def __post_init__(self) -> None:
        k = self.kind
        if (self.partition is None) == (self.key is None):
            raise SettingError(k, f"{k}: give exactly one of partition= or key= (whose clock is off)")
        if self.partition is not None:
            object.__setattr__(self, "partition", base.partition(k, self.partition))
        if self.key is not None:
            if not isinstance(self.key, str) or self.key == "":
                raise SettingError(k, f"{k}: key must be a non-empty string (keys are text), got {self.key!r}")
        object.__setattr__(self, "offset", base.duration(k, "offset", self.offset, allow_negative=True))

    def _spell(self, name: str, value: Any) -> str:
        if name == "offset":
            return base.spell_duration(value)
        return super()._spell(name, value)

    def _whose(self, ctx: Context | None = None) -> str:
        if self.key is not None:
            return f"key {self.key}'s"
        name = self.partition if ctx is None else ctx.log.partition_name(ctx.partition_code(self.kind, self.partition))
        return f"partition {name}'s"

    def _how(self) -> str:
        if self.offset == 0:
            return "was right"
        return f"ran {base.words_duration(abs(self.offset))} {'ahead' if self.offset > 0 else 'behind'}"

    def per_partition(self) -> bool:
        """Shifts each record's event time by its own partition or key."""
        return True

    def words(self) -> str:
        return f"{self._whose()} clock {self._how()}"

    def _transform(self, table: pd.DataFrame, ctx: Context) -> tuple[pd.DataFrame, str]:
        if self.key is not None:
            mask = (table["key"] == self.key).to_numpy()
        else:
            code = ctx.partition_code(self.kind, self.partition)
            mask = table["partition"].to_numpy(np.int64) == code
        out = table.copy()
        et = table["event_time"].to_numpy(np.int64).copy()
        et[mask] += self.offset
        out["event_time"] = et
        n = int(mask.sum())
        text = f"{self._whose(ctx)} clock {self._how()} ({base.records(n)} with event times shifted by " \
               f"{'+' if self.offset >= 0 else '-'}{base.words_duration(abs(self.offset))})"
        return out, text


def clock_skew(partition: int | str | None = None, key: str | None = None, offset: Any = 0) -> ClockSkew:
    """Event times of ``partition`` (or ``key``) shifted by ``offset`` (ahead > 0). See :class:`ClockSkew`."""
    return ClockSkew(partition, key, offset)
