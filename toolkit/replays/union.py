"""Several logs into one operator: Flink's ``a.union(b)`` (and the window join built on it).

In Flink a union feeds the downstream operator through one input gate: every upstream
subtask of every input is a channel of the operator's ``StatusWatermarkValve``
(``toolkit.engine.flink.valve``). So the union of ``k`` logs, each read by ``source_parallelism``
``P`` subtasks with its own per-partition generators, is replayed as one log read by ``k * P``
subtasks: input ``i``'s partition ``p`` becomes partition ``(p // P) * k * P + i * P + p % P``
(so it lands on subtask ``i * P + p % P``, and each subtask keeps its partitions in their
order). Arrival ties between inputs go to the earlier input (then row order). Rows are
numbered input after input; ``inputs`` maps them back.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from toolkit.settings import SettingError

#: how a replay combines several logs (``two_input=``)
TWO_INPUT_MODES = ("union", "join")


@dataclass
class UnionInputs:
    """Where each row of the combined log came from."""

    offsets: list[int]  # first combined row of each input
    n_inputs: int

    def input_of(self, rows: np.ndarray) -> np.ndarray:
        """Input index (0-based) of combined rows."""
        return np.searchsorted(np.asarray(self.offsets[1:], dtype=np.int64), np.asarray(rows, dtype=np.int64), side="right")

    def input_row(self, rows: np.ndarray) -> np.ndarray:
        """Row of each combined row in its own log."""
        rows = np.asarray(rows, dtype=np.int64)
        return rows - np.asarray(self.offsets, dtype=np.int64)[self.input_of(rows)]


def union_logs(logs: list[Any], parallelism: int, partitions_as_sources: bool) -> tuple[Any, UnionInputs]:
    """One log whose partitions map each input's subtasks onto their own valve channels (see
    the module doc); ``partitions_as_sources=False`` gives each input one generator first."""
    from toolkit.log.model import EventLog

    if len(logs) < 2:
        raise SettingError("log", f"a union needs at least two logs, got {len(logs)}")
    tables, quarantines, offsets = [], [], []
    has_arr = {bool(getattr(lg, "has_arrival_time", False)) for lg in logs}
    for i, lg in enumerate(logs):
        if not hasattr(lg, "table") or getattr(lg, "is_spark", False):
            raise SettingError("log", f"log {i + 1} of the union is not a local EventLog (load it with toolkit.load_log; "
                               "collect a Spark-backed log with log.to_pandas() first)")
    if len(has_arr) > 1:
        raise SettingError("log", "every log of a union needs arrival times (or none of them): the inputs are "
                           "interleaved by arrival time")
    k = len(logs)
    nxt = 0
    for i, lg in enumerate(logs):
        t = lg.table.copy()
        offsets.append(nxt)
        t["row"] = t["row"].to_numpy(dtype=np.int64) + nxt
        p = np.zeros(len(t), dtype=np.int64) if not partitions_as_sources else t["partition"].to_numpy(dtype=np.int64)
        t["partition"] = (p // parallelism) * (k * parallelism) + i * parallelism + p % parallelism
        tables.append(t)
        q = lg.quarantine.copy()
        quarantines.append(q)
        nxt += int(lg.n_input) if getattr(lg, "n_input", None) is not None else len(t)
        nxt = max(nxt, int(t["row"].max()) + 1 if len(t) else nxt)
    table = pd.concat(tables, ignore_index=True)
    quarantine = pd.concat(quarantines, ignore_index=True) if any(len(q) for q in quarantines) else quarantines[0]
    out = EventLog(table, quarantine, source="union(" + ", ".join(str(getattr(lg, "source", "?")) for lg in logs) + ")",
                   n_input=sum(int(lg.n_input) for lg in logs))
    return out, UnionInputs(offsets, k)


__all__ = ["TWO_INPUT_MODES", "UnionInputs", "union_logs"]
