"""Bounded property tests: time round trips and describe() against a plain loop."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

import toolkit
from toolkit import synth

MS = st.integers(min_value=-(2**40), max_value=2**42)  # 1935 .. 2109
ERA = st.integers(min_value=946_684_800_000, max_value=4_102_444_800_000)  # 2000 .. 2100 in ms


@settings(max_examples=40, deadline=None)
@given(st.lists(MS, min_size=1, max_size=30), st.lists(ERA, min_size=1, max_size=30))
def test_iso_and_every_unit_round_trip(any_ms, ms):
    iso = toolkit.load_log(pd.DataFrame({"event_time": synth.iso_strings(np.array(any_ms, dtype=np.int64))}))
    assert iso.table["event_time"].tolist() == any_ms
    # epoch numbers of one era (a few years apart at most 1000x: no unit ambiguity)
    ms = np.array(ms, dtype=np.int64)
    expected = ms.tolist()
    for unit, factor in (("us", 1_000), ("ns", 1_000_000)):
        log = toolkit.load_log(pd.DataFrame({"event_time": ms * factor + 7}), time_unit=unit)
        assert log.table["event_time"].tolist() == expected
        as_text = toolkit.load_log(pd.DataFrame({"event_time": (ms * factor + 7).astype(str)}), time_unit=unit)
        assert as_text.table["event_time"].tolist() == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50), st.integers(0, 2)), min_size=1, max_size=40))
def test_describe_out_of_orderness_and_gaps_match_a_plain_loop(rows):
    event = [r[0] for r in rows]
    arrival = [r[1] for r in rows]
    part = [r[2] for r in rows]
    log = toolkit.EventLog.from_arrays(event, arrival_time=arrival, partition=part)
    d = log.describe(silence=10)
    order = sorted(range(len(rows)), key=lambda i: (arrival[i], i))
    running, lags = None, []
    for i in order:
        if running is not None and event[i] < running:
            lags.append(running - event[i])
        running = event[i] if running is None else max(running, event[i])
    assert d.behind == len(lags)
    if lags:
        assert d.behind_by["max"] == max(lags) and d.behind_by["min"] == min(lags)
        assert d.behind_by["p50"] == sorted(lags)[(len(lags) + 1) // 2 - 1]  # nearest rank
    for fig in d.partitions:
        times = sorted(arrival[i] for i in range(len(rows)) if part[i] == fig.partition)
        gaps = [b - a for a, b in zip(times, times[1:])]
        assert fig.records == len(times) and (fig.first, fig.last) == (times[0], times[-1])
        assert fig.max_gap == (max(gaps) if gaps else None)
        assert fig.silences == sum(g >= 10 for g in gaps) and fig.silent_ms == sum(g for g in gaps if g >= 10)
