"""``python -m toolkit bench sweep --only e``: one sweep row per engine on a year of data, in-process
on one core, the path each row took against that engine's own replay (issue 27's yardstick).

The log is the generator's ``year`` model grown to the issue's shape (330,000 records, 16 keys,
3 named partitions, nightly silences, arrivals minutes to hours out of order). Each engine in
the registry (``toolkit.settings.semantics_names()``) sweeps one row: ``window=tumbling:1h`` and
its own delay setting (``Semantics.delay_setting``: Flink's delay, Kafka Streams' grace, ...) at
15 minutes. For every row the table gives the CPU seconds of the whole in-process
``toolkit.sweep`` call (timelines included; imports and first calls are warmed up before), the path
it took, record-configurations per CPU-second, and the same row forced onto the engine's replay
(``path="engine"``) on the first ``replay_records`` records, per million records, with the
ratio and whether both paths give the same figures on that slice. Real engines are measured
by case ``c`` (Flink, Spark) and ``bench beam`` against the committed real-Beam answers.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

import toolkit
from toolkit.bench._timing import timed
from toolkit.log import EventLog
from toolkit.log.synth import generate
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.semantics import get
from toolkit.settings import SettingError, semantics_names

YEAR_HOURS = 365 * 18  # the year model's active hours (no departures from 23:00 to 05:00)


def year_log(records: int = 330_000, keys: int = 16, seed: int = 0) -> EventLog:
    """The issue's log: a year of departures of ``records`` records over ``keys`` carriers."""
    return generate("year", records, seed=seed, keys=keys, rate=records / (YEAR_HOURS * 3600.0))


@dataclass
class EngineRow:
    engine: str
    path: str
    seconds: float  # CPU seconds of the in-process sweep of the whole log
    rate: float  # record-configurations per CPU-second
    replay_per_m: float | None  # CPU seconds per million records on the replay, on the slice
    same: bool | None  # the chosen path's figures equal the replay's on the slice

    def figures(self) -> dict:
        return asdict(self)


def engine_setting(name: str) -> dict:
    """One row of ``name``: hourly tumbling windows, the engine's delay setting at 15 minutes."""
    return {"semantics": name, "window": "tumbling:1h", get(name).delay_setting: "15min"}


def _slice(log: EventLog, n: int) -> pd.DataFrame:
    return log.table.sort_values(["arrival_time", "row"], kind="mergesort").head(n).reset_index(drop=True)


def _row(log: EventLog, name: str, replay_records: int) -> EngineRow:
    setting = engine_setting(name)
    got, t = timed(lambda: toolkit.sweep(log, execution="local", progress=False, **setting))
    path = str(got["path"].iloc[0])
    part = _slice(log, replay_records)
    try:
        slow, r = timed(lambda: toolkit.sweep(part, execution="local", progress=False, path="engine", **setting))
    except SettingError:  # no engine path of its own to force
        return EngineRow(name, path, t.cpu, len(log.table) / max(t.cpu, 1e-9), None, None)
    fast = toolkit.sweep(part, execution="local", progress=False, **setting)
    same = bool(np.allclose(fast[SUMMARY_COLUMNS].to_numpy(float), slow[SUMMARY_COLUMNS].to_numpy(float),
                            rtol=1e-12, atol=1e-9, equal_nan=True))
    return EngineRow(name, path, t.cpu, len(log.table) / max(t.cpu, 1e-9), r.cpu * 1e6 / len(part), same)


def case_e(records: int = 330_000, keys: int = 16, seed: int = 0, replay_records: int = 30_000) -> list[EngineRow]:
    """Every engine's sweep row on the year log; prints the table, returns its rows."""
    log = year_log(records, keys, seed)
    print(f"(e) one sweep row per engine, in-process on one core: a year of data ({len(log.table):,} records, "
          f"{keys} keys, 3 partitions), window tumbling:1h, each engine's delay setting at 15 min; "
          f"the replay on the first {replay_records:,} records")
    warm = _slice(log, 200)  # each engine's imports and first calls, outside the timings
    for name in semantics_names():
        toolkit.sweep(warm, execution="local", progress=False, **engine_setting(name))
    rows = [_row(log, name, replay_records) for name in semantics_names()]
    print(_table(rows))
    return rows


def _table(rows: list[EngineRow]) -> str:
    head = ("engine", "path", "CPU s a row", "record-configs/CPU-s", "replay CPU s per M", "speed-up", "same")
    lines = [head]
    for r in rows:
        per_m = r.seconds * 1e6 / max(r.rate * r.seconds, 1)
        lines.append((get(r.engine).title, r.path, f"{r.seconds:.2f}", f"{r.rate / 1e6:.2f} M",
                      "-" if r.replay_per_m is None else f"{r.replay_per_m:.1f}",
                      "-" if r.replay_per_m is None else f"{r.replay_per_m / per_m:.0f}x",
                      "-" if r.same is None else ("yes" if r.same else "NO")))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths)))
                     for line in lines)
