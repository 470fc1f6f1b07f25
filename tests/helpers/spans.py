"""Logs of three spans for the tests of time axes and of long logs: 5 minutes, 1 day that
crosses midnight, and a year, all from the project's own generator (``toolkit.synth``), seeded,
so nothing large is committed.

The year is the ``year`` model: 40,000 departures over 2023 from three named airports (EWR,
JFK, LGA), none from 23:00 to 05:00 UTC (a silence every night), delays of minutes with a few
held back for hours (``python -m toolkit generate year --records 40000 --seed 2013`` writes it).
"""
from __future__ import annotations

from functools import cache

from toolkit.log import synth

YEAR_RECORDS = 40_000
YEAR_SEED = 2013


@cache
def year_log():
    """A year of departures (the ``year`` model, 40,000 records)."""
    return synth.generate("year", YEAR_RECORDS, seed=YEAR_SEED)


@cache
def day_log():
    """One day from 10:00 UTC to 10:00 the next day: the span crosses midnight (3,000 records)."""
    return synth.generate("lagging", 3000, seed=11, rate=3000 / 86_400.0, start=1_700_042_400_000,
                          delay_scale=20_000.0)


@cache
def five_minute_log():
    """Five minutes of the sample's shape (3,000 records at 10 per second)."""
    return synth.generate("sample", 3000, seed=5, rate=10.0)


#: name -> (log, replay setting): a window and delay that suit the span
SPANS = {
    "5 minutes": (five_minute_log, dict(window="tumbling:10s", delay="500ms", lateness="2s")),
    "1 day": (day_log, dict(window="tumbling:5min", delay="5s", lateness="0", partitions_as_sources=False)),
    "1 year": (year_log, dict(window="tumbling:1h", delay="10min", lateness="1h")),
}
