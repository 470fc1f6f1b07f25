"""One figure, one meaning: ``replay(...).summary()`` of every registered engine has the same
counts for every log, with and without arrival times, with and without quarantined rows:
``records`` = the log's rows (quarantined ones included) = ``on_time + late_accepted +
dropped + invalid``, as a sweep row counts them. Engines that need arrival times refuse a log
without them with an error that says so."""
from __future__ import annotations

import pandas as pd
import pytest

import toolkit
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.semantics import all_semantics
from toolkit.settings import SettingError

COUNTS = ("records", "on_time", "late_accepted", "dropped", "invalid", "firings", "late_firings", "at_end_firings")
ROWS = 30
BAD_ROWS = (3, 5)      # an empty and an unreadable event time: quarantined


def _frame(arrival: bool, quarantined: bool) -> pd.DataFrame:
    df = pd.DataFrame({"event_time": [1000 + 100 * i for i in range(ROWS)],
                       "arrival_time": [1100 + 100 * i + 50 * (i % 3) for i in range(ROWS)],
                       "key": [f"k{i % 2}" for i in range(ROWS)], "value": [1] * ROWS})
    if quarantined:
        df = df.astype({"event_time": object})
        df.loc[BAD_ROWS[0], "event_time"] = None
        df.loc[BAD_ROWS[1], "event_time"] = "x"
    return df if arrival else df.drop(columns="arrival_time")


LOGS = {(arrival, quarantined): toolkit.load_log(_frame(arrival, quarantined), max_invalid_fraction=0.5)
        for arrival in (True, False) for quarantined in (True, False)}


def _summary(engine: str, arrival: bool, quarantined: bool, **setting) -> dict | SettingError:
    try:
        return toolkit.replay(LOGS[(arrival, quarantined)], window="tumbling:1s", semantics=engine, **setting).summary()
    except SettingError as err:
        return err


@pytest.mark.parametrize("engine", [s.name for s in all_semantics()])
def test_every_engine_counts_every_row_the_same_way(engine: str) -> None:
    keys = {}
    for (arrival, quarantined), log in LOGS.items():
        s = _summary(engine, arrival, quarantined)
        if isinstance(s, SettingError):
            assert not arrival, f"{engine} refused a log with arrival times: {s}"
            assert "arrival" in str(s) and "load it with an arrival-time column" in str(s)
            continue
        invalid = len(BAD_ROWS) if quarantined else 0
        assert log.n_invalid == invalid
        assert set(COUNTS) <= set(s), (engine, arrival, quarantined, sorted(s))
        assert s["records"] == ROWS and s["invalid"] == invalid
        assert s["on_time"] + s["late_accepted"] + s["dropped"] + s["invalid"] == s["records"]
        keys[(arrival, quarantined)] = set(s)
    # quarantined rows change no key; a log without arrival times only lacks the figures
    # that need processing time (completeness, latency, state: the sweep's columns; the latency tail's words)
    assert keys[(True, True)] == keys[(True, False)]
    if (False, False) in keys:
        assert keys[(False, True)] == keys[(False, False)] <= keys[(True, False)]
        assert keys[(True, False)] - keys[(False, False)] <= set(SUMMARY_COLUMNS) | {"latency_tail"}


def test_a_setting_without_sweep_figures_counts_quarantined_rows_too() -> None:
    """Global windows with a count trigger have no sweep figures: the counts still add up."""
    for arrival in (True, False):
        s = toolkit.replay(LOGS[(arrival, True)], window="global", trigger="count:3").summary()
        assert "completeness_first" not in s
        assert (s["records"], s["invalid"]) == (ROWS, len(BAD_ROWS))
        assert s["on_time"] + s["late_accepted"] + s["dropped"] + s["invalid"] == ROWS
