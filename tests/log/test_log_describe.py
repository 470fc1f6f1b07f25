"""describe() against hand-computed figures."""
from __future__ import annotations

import re

import pandas as pd
import pytest

import toolkit
from toolkit.log.describe import PartitionFigures


def small_log():
    #          row:   0     1     2     3     4     5     6
    return toolkit.EventLog.from_arrays(
        event_time=[100, 50, 120, 110, 60, 130, 30],
        arrival_time=[1000, 1010, 1020, 1020, 5000, 5010, 5020],
        key=["a", "b", "a", "a", "c", "a", "b"],
        partition=[0, 1, 0, 1, 0, 1, 1],
    )


def test_describe_small_log_by_hand():
    d = small_log().describe()
    assert (d.records, d.invalid, d.input_rows, d.has_arrival_time) == (7, 0, 7, True)
    assert (d.event_time_min, d.event_time_max) == (30, 130)
    assert (d.arrival_time_min, d.arrival_time_max) == (1000, 5020)
    assert d.keys == 3 and d.top_keys == [("a", 4), ("b", 2), ("c", 1)]
    assert d.duplicates == 0
    # running max before each record: -, 100, 100, 120, 120, 120, 130 -> rows 1, 3, 4, 6 behind by 50, 10, 60, 100
    assert d.behind == 4 and d.behind_share == 4 / 7
    assert d.behind_by == {"min": 10, "p50": 50, "p90": 100, "p99": 100, "p99.9": 100, "max": 100}
    # delays 900, 960, 900, 910, 4940, 4880, 4990 (nearest rank: p50 = 4th of 7, p90 = 7th)
    assert d.delay == {"min": 900, "p50": 960, "p90": 4990, "p99": 4990, "p99.9": 4990, "max": 4990}
    assert d.arrival_before_event == 0
    # gaps: partition 0: 20, 3980; partition 1: 10, 3990, 10 -> median 20, 5 gaps -> silence max(1 s, 20 x 10)
    assert d.silence == 1000
    assert d.partitions == [
        PartitionFigures(0, "0", 3, 1000, 5000, 3 / 4.0, 3980, 1020, 1, 3980),
        PartitionFigures(1, "1", 4, 1010, 5020, 4 / 4.01, 3990, 1020, 1, 3990),
    ]


def test_describe_explicit_silence_threshold():
    d = small_log().describe(silence="5s")
    assert d.silence == 5000 and [p.silences for p in d.partitions] == [0, 0]
    d = small_log().describe(silence=15)
    assert [(p.silences, p.silent_ms) for p in d.partitions] == [(2, 4000), (1, 3990)]
    with pytest.raises(ValueError, match="silence must be positive"):
        small_log().describe(silence=0)


def test_describe_without_arrival_times_uses_row_order_and_event_time_axis():
    log = toolkit.EventLog.from_arrays([5, 3, 9, 1, 9])
    d = log.describe()
    assert d.behind == 2 and d.behind_by == {"min": 2, "p50": 2, "p90": 8, "p99": 8, "p99.9": 8, "max": 8}
    assert d.delay is None and d.arrival_time_min is None
    assert d.duplicates == 1
    assert d.partitions == [PartitionFigures(0, "0", 5, 1, 9, 5 / 0.008, 4, 5, 0, 0)]
    assert re.search(r"^arrival time +none \(processing order = row order\)$", str(d), re.M)


def test_describe_text_and_html_escape_names():
    log = toolkit.load_log(
        pd.DataFrame(
            {"event_time": [1, 2, 3], "key": ["<b>x</b>", "<b>x</b>", "y"], "partition": ["p&1", "p&1", "q"]}
        )
    )
    d = log.describe()
    text = str(d)
    assert "most frequent: <b>x</b> (2), y (1)" in text
    assert "partition 0 (p&1)" in text
    page = d._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt; (2)" in page and "<b>x</b>" not in page
    assert "partition 0 (p&amp;1)" in page


def test_describe_sample_figures_are_stable():
    d = toolkit.load_log(_data("sample.csv"), max_invalid_fraction=0.001).describe()
    assert (d.records, d.invalid, d.keys, len(d.partitions)) == (29_994, 6, 8, 3)
    silent = d.partitions[2]
    assert silent.max_gap > 30_000 and silent.silences >= 1


def _data(name):
    from pathlib import Path

    return Path(__file__).resolve().parents[2] / "data" / name


def test_duplicates_need_every_column_equal():
    log = toolkit.EventLog.from_arrays(
        [5, 5, 5, 5, 6], arrival_time=[9, 9, 9, 9, 9], key=["a", "b", "a", "a", "a"], value=[1, 1, 1, 2, 1]
    )
    assert log.describe().duplicates == 1  # only row 2 repeats row 0


def test_default_silence_follows_the_arrival_rate():
    """The default threshold is max(1 s, median gap x max(10, log2 gaps)): on a year of departures
    (2 an hour and airport, none from 23:00 to 05:00) it finds a silence on most nights, where
    100 x the median gap (35 h) found none; the same log 1,000 times faster has a 1,000 times
    shorter threshold (above the 1 s floor) and the same silences."""
    from toolkit.log.describe import resolve_silence

    from helpers.spans import year_log

    log = year_log()
    d = log.describe()
    assert 4 * 3_600_000 < d.silence < 6 * 3_600_000
    assert all(300 <= p.silences <= 366 for p in d.partitions), [p.silences for p in d.partitions]
    t = log.table
    fast = toolkit.EventLog.from_arrays(event_time=t["event_time"] // 1000, arrival_time=t["arrival_time"] // 1000,
                                        key=t["key"], partition=t["partition"])
    f = fast.describe()
    assert abs(f.silence - d.silence / 1000) <= 2 and [p.silences for p in f.partitions] == [p.silences for p in d.partitions]
    assert resolve_silence("auto", 20, 5) == 1000 and resolve_silence("auto", 1000, 2**20) == 20_000
