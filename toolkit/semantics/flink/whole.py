"""Flink rows of a sweep evaluated in one piece: settings whose records move by the whole log's
watermarks (``alignment``) take the replay's own figures, so the sweep row equals the replay."""
from __future__ import annotations

from typing import Any

import pandas as pd

from toolkit.log import EventLog
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.semantics.flink.replay import replay_flink
from toolkit.settings import Limits


def whole_figures(table: pd.DataFrame, s: Any, invalid: int, sources: Any) -> dict:
    """A sweep row in one piece: the figures ``replay(log, s).summary()`` gives on this table."""
    log = EventLog(table, pd.DataFrame(index=range(invalid)))
    res = replay_flink(log, s, limits=Limits(), sources=sources, explicit=lambda name: True)
    figures = res.summary()
    return {k: figures[k] for k in SUMMARY_COLUMNS}
