"""Late uploads (``late_upload``) and the delay distributions they draw from.

A delay is written one of three ways:

- ``10min``: every chosen record is ``10min`` late (a fixed delay);
- ``exponential:10min``: exponentially distributed with mean ``10min``;
- ``uniform:1min..1h``: uniform between the two bounds (both included).

Draws are floored to whole milliseconds.

>>> from toolkit.incidents import late_upload
>>> str(late_upload(fraction=0.05, delay="exponential:10min", seed=7))
'late_upload:fraction=0.05,delay=exponential:10min,seed=7'
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from toolkit.incidents import base
from toolkit.incidents.base import Context, Incident
from toolkit.settings import SettingError

DISTRIBUTIONS = ("fixed", "exponential", "uniform")


@dataclass(frozen=True)
class Delay:
    """A delay distribution: ``kind`` fixed (``low``), exponential (mean ``low``) or uniform
    (``low..high``); ms. ``str()`` writes the spelling, :meth:`parse` reads it."""

    kind: str
    low: int
    high: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in DISTRIBUTIONS:
            raise SettingError("late_upload", f"late_upload: delay distribution {self.kind!r}: choose one of "
                               f"{', '.join(DISTRIBUTIONS)}")
        if (self.high is not None) != (self.kind == "uniform"):
            raise SettingError("late_upload", "late_upload: only a uniform delay has two bounds (uniform:LOW..HIGH)")
        if self.kind == "uniform" and self.high < self.low:
            raise SettingError("late_upload", f"late_upload: delay uniform:{base.spell_duration(self.low)}.."
                               f"{base.spell_duration(self.high)} has its bounds reversed")
        if self.kind == "exponential" and self.low <= 0:
            raise SettingError("late_upload", "late_upload: an exponential delay needs a mean > 0")

    @classmethod
    def parse(cls, value: "str | int | Delay") -> "Delay":
        if isinstance(value, Delay):
            return value
        if isinstance(value, str) and ":" in value:
            name, _, arg = value.strip().partition(":")
            name = name.strip().lower()
            if name == "exponential":
                return cls("exponential", base.duration("late_upload", "delay", arg))
            if name == "uniform":
                lo, sep, hi = arg.partition("..")
                if not sep:
                    raise SettingError("late_upload", f"late_upload: delay {value!r}: write uniform:LOW..HIGH "
                                       "(e.g. uniform:1min..1h)")
                return cls("uniform", base.duration("late_upload", "delay", lo), base.duration("late_upload", "delay", hi))
            close = difflib.get_close_matches(name, ["exponential", "uniform"], n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SettingError("late_upload", f"late_upload: delay distribution {name!r}: write a duration, "
                               f"exponential:MEAN or uniform:LOW..HIGH{hint}")
        return cls("fixed", base.duration("late_upload", "delay", value))

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` delays in whole ms."""
        if self.kind == "fixed":
            return np.full(n, self.low, dtype=np.int64)
        if self.kind == "exponential":
            return np.floor(rng.exponential(float(self.low), n)).astype(np.int64)
        return rng.integers(self.low, self.high + 1, size=n, dtype=np.int64)

    def words(self) -> str:
        if self.kind == "fixed":
            return base.words_duration(self.low)
        if self.kind == "exponential":
            return f"an exponential delay of mean {base.words_duration(self.low)}"
        return f"a delay uniform between {base.words_duration(self.low)} and {base.words_duration(self.high)}"

    def __str__(self) -> str:
        if self.kind == "fixed":
            return base.spell_duration(self.low)
        if self.kind == "exponential":
            return f"exponential:{base.spell_duration(self.low)}"
        return f"uniform:{base.spell_duration(self.low)}..{base.spell_duration(self.high)}"


@dataclass(frozen=True)
class LateUpload(Incident):
    """``late_upload:fraction=F,delay=D,seed=S``: clients that upload late.

    ``round(F * records)`` records, chosen uniformly without replacement by a NumPy generator
    seeded with S (over the records sorted by row, so the choice does not depend on the table's
    order), arrive later by a delay drawn from D (see the module docstring); their event times
    stay. Nothing is added or removed. The same seed on the same log gives the same result.
    """

    fraction: float
    delay: Delay
    seed: int = 0
    kind: ClassVar[str] = "late_upload"

    def __post_init__(self) -> None:
        k = self.kind
        object.__setattr__(self, "fraction", base.number(k, "fraction", self.fraction, low=0.0, high=1.0))
        object.__setattr__(self, "delay", Delay.parse(self.delay))
        object.__setattr__(self, "seed", base.integer(k, "seed", self.seed))

    def _spell(self, name: str, value: Any) -> str:
        if name == "fraction":
            return repr(float(value))
        return super()._spell(name, value)

    def words(self) -> str:
        return f"{self.fraction:.4g} of the records uploaded late by {self.delay.words()} (seed {self.seed})"

    def by_rank(self) -> bool:
        """It picks records by their rank in row order over the whole log (:meth:`draw`)."""
        return True

    def draw(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """For a log of ``n`` records: the ranks (in row order, ascending) of the records that upload
        late, ``round(fraction * n)`` of them chosen by ``default_rng(seed).choice`` without
        replacement, and their delays, drawn next from the same generator (the i-th delay is the
        i-th rank's)."""
        k = int(round(self.fraction * n))
        rng = np.random.default_rng(self.seed)
        ranks = np.sort(rng.choice(n, size=k, replace=False)).astype(np.int64) if k else np.zeros(0, dtype=np.int64)
        return ranks, self.delay.sample(rng, k)

    def apply_draw(self, table: pd.DataFrame, first_rank: int, drawn: tuple[np.ndarray, np.ndarray]) -> pd.DataFrame:
        """``table``, the records of ranks ``first_rank`` to ``first_rank + len(table) - 1`` in row order
        (the whole log: ``first_rank`` 0), with the drawn records' arrivals delayed."""
        ranks, delays = drawn
        by_row = np.argsort(table["row"].to_numpy(np.int64), kind="stable")
        lo, hi = np.searchsorted(ranks, [first_rank, first_rank + len(table)])
        arrival = table["arrival_time"].to_numpy(np.int64).copy()
        arrival[by_row[ranks[lo:hi] - first_rank]] += delays[lo:hi]
        out = table.copy()
        out["arrival_time"] = arrival
        return out

    def _transform(self, table: pd.DataFrame, ctx: Context) -> tuple[pd.DataFrame, str]:
        base.require_arrival(self.kind, table)
        n = len(table)
        ranks, delays = self.draw(n)
        k = len(ranks)
        out = self.apply_draw(table, 0, (ranks, delays))
        mean = f", {base.words_duration(int(delays.mean()))} late on average" if k and self.delay.kind != "fixed" else ""
        text = (f"{base.records(k)} ({self.fraction:.4g} of {n:,}) uploaded late by {self.delay.words()} "
                f"(seed {self.seed}{mean})")
        return out, text


def late_upload(fraction: Any, delay: Any, seed: int = 0) -> LateUpload:
    """A seeded random ``fraction`` of records arrive ``delay`` later. See :class:`LateUpload`."""
    return LateUpload(fraction, delay, seed)
