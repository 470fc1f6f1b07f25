"""Properties of every incident on random logs: identity, counts, order, composition, seeds."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.incidents import (
    DUPLICATE_OF,
    Burst,
    ClockSkew,
    Delay,
    LateUpload,
    Restart,
    Silence,
    Stall,
    parse_incident,
)
from toolkit.incidents.base import Context
from toolkit.incidents.drain import drain

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TIME = st.integers(0, 20_000)
SPAN = st.integers(0, 8_000)
RATE = st.sampled_from([0.5, 1.0, 7.0, 100.0, 333.0, 1000.0, 2500.0])


@st.composite
def logs(draw):
    n = draw(st.integers(1, 50))
    arrival = np.array(draw(st.lists(TIME, min_size=n, max_size=n)), dtype=np.int64)
    lag = np.array(draw(st.lists(st.integers(0, 3000), min_size=n, max_size=n)), dtype=np.int64)
    part = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    keys = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    return toolkit.EventLog.from_arrays(arrival - lag, arrival_time=arrival, partition=part, key=keys)


def partitions_of(log):
    return st.sampled_from([int(p) for p in log.partitions])


def incidents_for(log):
    p = partitions_of(log)
    delay = st.one_of(SPAN.map(lambda ms: Delay("fixed", ms)), st.integers(1, 5000).map(lambda ms: Delay("exponential", ms)),
                      st.tuples(SPAN, SPAN).map(lambda t: Delay("uniform", min(t), max(t))))
    return st.one_of(
        st.builds(Stall, p, TIME, SPAN, RATE),
        st.builds(Restart, TIME, SPAN, SPAN, RATE, st.booleans()),
        st.builds(ClockSkew, p, st.none(), st.integers(-5000, 5000)),
        st.builds(ClockSkew, st.none(), st.sampled_from(["a", "b", "z"]), st.integers(-5000, 5000)),
        st.builds(LateUpload, st.floats(0, 1), delay, st.integers(0, 2**32)),
        st.builds(Silence, p, TIME, SPAN),
        st.builds(Burst, st.sampled_from([0.25, 0.5, 1.0, 2.0, 3.0, 10.0]), TIME, SPAN),
    )


def in_arrival_order(table):
    return table.iloc[np.lexsort((table["row"].to_numpy(), table["arrival_time"].to_numpy()))]


def origin_rows(table):
    dup = table[DUPLICATE_OF].to_numpy() if DUPLICATE_OF in table else np.full(len(table), -1)
    return np.where(dup >= 0, dup, table["row"].to_numpy())


@PROPS
@given(st.data())
def test_records_are_kept_moved_removed_or_copied_only_as_stated(data):
    log = data.draw(logs())
    incident = data.draw(incidents_for(log))
    t_in = log.table
    ctx = Context(log=log, origin=int(t_in["arrival_time"].min()))
    try:
        out = incident.apply(log)
    except toolkit.settings.SettingError as e:  # a silence may empty a one-partition log
        assert isinstance(incident, Silence) and "leaves no record" in str(e)
        return
    t = out.table
    rows_in = t_in["row"].to_numpy()
    assert t["row"].is_unique
    assert t.columns[:6].tolist() == t_in.columns.tolist()
    originals = t[t["row"].isin(rows_in)]
    copies = t[~t["row"].isin(rows_in)]
    if isinstance(incident, Silence):
        gone = incident.removed(t_in, ctx)
        assert sorted(originals["row"]) == sorted(rows_in[~gone]) and len(copies) == 0
    else:
        assert sorted(originals["row"]) == sorted(rows_in)
    if isinstance(incident, Restart) and incident.duplicates:
        assert (copies[DUPLICATE_OF].isin(rows_in)).all() and (originals[DUPLICATE_OF] == -1).all()
        crash = ctx.origin + incident.at
        a = t_in["arrival_time"].to_numpy()
        read_twice = rows_in[(a >= crash - incident.replay_from) & (a < crash)]
        assert sorted(copies[DUPLICATE_OF]) == sorted(read_twice)  # exactly one copy of each
        assert copies["row"].min() > rows_in.max() if len(copies) else True
    else:
        assert len(copies) == 0
    # every row names the input row it came from, and keeps its content but the incident's column
    src = t_in.set_index("row").loc[origin_rows(t)]
    changed = {"arrival_time"} if not isinstance(incident, ClockSkew) else {"event_time"}
    for c in {"event_time", "arrival_time", "key", "partition", "value"} - changed:
        assert (src[c].to_numpy() == t[c].to_numpy()).all(), c
    # arrivals only move later, except a burst, which pulls later arrivals forward
    if not isinstance(incident, (Burst, ClockSkew)):
        assert (t["arrival_time"].to_numpy() >= src["arrival_time"].to_numpy()).all()
    # in each partition, the records keep their arrival order except those an incident picks
    if isinstance(incident, (Stall, Restart, Burst, Silence)):
        kept = t[t["row"].isin(rows_in)]
        before = in_arrival_order(t_in[t_in["row"].isin(kept["row"])])
        new = kept.set_index("row")["arrival_time"]
        for _, g in before.groupby("partition"):
            assert np.all(np.diff(new.loc[g["row"]].to_numpy()) >= 0)
    assert len(out.incidents) == 1 and out.incidents[0] == incident.describe(log)


@PROPS
@given(st.data())
def test_zero_incidents_change_nothing(data):
    log = data.draw(logs())
    p = data.draw(partitions_of(log))
    at = data.draw(TIME)
    for nothing in (Stall(p, at, 0, data.draw(RATE)), Silence(p, at, 0), Burst(1.0, at, data.draw(SPAN)),
                    Burst(data.draw(st.sampled_from([0.5, 2.0])), at, 0), ClockSkew(p, None, 0),
                    LateUpload(0.0, Delay("fixed", 5), 1), LateUpload(1.0, Delay("fixed", 0), 1)):
        pd.testing.assert_frame_equal(nothing.apply(log).table, log.table, obj=str(nothing))


@PROPS
@given(st.data())
def test_composition_applies_in_order_and_reads_back(data):
    log = data.draw(logs())
    a = data.draw(incidents_for(log))
    b = data.draw(incidents_for(log))
    assert parse_incident(str(a + b)) == a + b
    assert parse_incident(str(a)) == a
    try:
        both = (a + b).apply(log)
        first = a.apply(log)
    except toolkit.settings.SettingError:
        return
    # b measures its times from the start of the log a + b was applied to
    origin = int(log.table["arrival_time"].min())
    step, texts = b._run(first.table, Context(log=log, origin=origin))
    pd.testing.assert_frame_equal(both.table, step.reset_index(drop=True))
    assert both.incidents == first.incidents + texts
    # the same incidents give the same log (seeds included)
    pd.testing.assert_frame_equal((a + b).apply(log).table, both.table)


def _drain_loop(arrival, resume, rate):
    out, last, done = [], None, False
    for a in arrival:
        if done:
            out.append(a)
            continue
        t = max(a, resume) if last is None else max(a, resume, last + 1000.0 / rate)
        t_ms = int(np.ceil(round(t, 6)))
        if t_ms == a and a >= resume:
            done = True
        out.append(t_ms)
        last = t
    return out


@PROPS
@given(st.lists(TIME, min_size=0, max_size=60).map(sorted), TIME, RATE)
def test_drain_matches_a_plain_loop(arrival, resume, rate):
    got = drain(np.array(arrival, dtype=np.int64), np.zeros(len(arrival), dtype=np.int64), resume, rate)
    assert got.tolist() == _drain_loop(arrival, resume, rate)
