"""Every dropped record of the demo log gets suggestions that, replayed, keep it (issue 13).

The demo setting (``python -m toolkit demo``'s replay: 1 s tumbling windows, 500 ms delay,
1 s allowed lateness, 200 ms interval) drops 297 records of ``data/sample.csv``. For each one
``drops()`` names the smallest delay and the smallest allowed lateness that keep it. Here every
one is replayed with ``toolkit.replay``: with its suggestion it is kept, one millisecond below
it is still dropped (the delay and lateness suggestions are exact).

Replaying only what is needed: a record's fate depends on its window and on the operator
watermark when it arrives, and with bounded out-of-orderness watermarks (no idleness) that
watermark is the minimum over partitions of their largest event time before the last periodic
tick, minus the delay. So a replay that checks records ``R`` keeps the first record (it fixes
the tick schedule), ``R`` and, per partition and record, the one record that holds that
largest event time. ``test_reduced_replays_see_the_full_watermark`` checks the reduction
against the full log; the full log is also replayed at a few values.
The recommendation's setting (with a 2 s idle timeout) is checked the same way for its idle
timeout suggestions, on the full log up to its last drop.
"""
from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.log.model import EventLog

from helpers.explain_demo import DEMO, demo_log


@cache
def demo() -> tuple[toolkit.ReplayResult, pd.DataFrame]:
    r = toolkit.replay(demo_log(), **DEMO)
    return r, r.drops(fates=("dropped",))


@cache
def _arrays() -> dict:
    log = demo_log()
    r, _ = demo()
    t = log.table.iloc[log.arrival_order()]
    arr = t["arrival_time"].to_numpy()
    g = np.searchsorted(r.timeline.tick_time, arr, side="left")  # records of group k come before tick k
    part = t["partition"].to_numpy()
    et = t["event_time"].to_numpy()
    holders = {}
    for p in np.unique(part).tolist():
        idx = np.flatnonzero(part == p)
        run = np.maximum.accumulate(et[idx])
        at_max = np.maximum.accumulate(np.where(et[idx] == run, np.arange(len(idx)), 0))
        holders[p] = (idx, g[idx], at_max)
    return {"table": t, "g": g, "holders": holders, "pos": pd.Series(np.arange(len(t)), index=t["row"].to_numpy())}


def reduced_log(rows: np.ndarray) -> EventLog:
    """The demo log cut down to what decides the fate of ``rows`` (see the module doc)."""
    a = _arrays()
    t = a["table"]
    pos = a["pos"].loc[np.asarray(rows)].to_numpy()
    keep = {0, *pos.tolist()}
    for idx, g_p, at_max in a["holders"].values():
        c = np.searchsorted(g_p, a["g"][pos], side="left")  # records of p before the record's last tick
        keep.update(idx[at_max[c[c > 0] - 1]].tolist())
    return EventLog(t.iloc[sorted(keep)], demo_log().quarantine.iloc[:0])


def kept(result: toolkit.ReplayResult, rows: np.ndarray) -> np.ndarray:
    fate = result.fates.set_index("row")["fate"]
    return (fate.loc[np.asarray(rows)] != "dropped").to_numpy()


def test_demo_drops_are_explained() -> None:
    r, d = demo()
    assert len(d) == 297 == r.summary()["dropped"]
    assert d["exact"].all() and d["windows"].eq(1).all()
    assert (d["behind_cleanup_ms"] >= 0).all()  # Flink's rule: cleanup time <= watermark
    assert (d["cleanup_time"] == d["window_end"] - 1 + 1000).all()
    assert (d["delay_to_keep_ms"] == 500 + d["behind_cleanup_ms"] + 1).all()
    assert (d["lateness_to_keep_ms"] == d["behind_end_ms"] + 1).all()
    assert d["idleness_to_keep_ms"].isna().all()  # no idleness: an idle timeout only raises watermarks
    # the late side output saw the same watermark
    late = r.late.set_index("row").loc[d["row"].to_numpy()]
    assert (late["watermark"].to_numpy() == d["watermark"].to_numpy()).all()


def test_reduced_replays_see_the_full_watermark() -> None:
    r, d = demo()
    rows = d["row"].to_numpy()
    small = toolkit.replay(reduced_log(rows), **DEMO)
    assert len(small.fates) < len(r.fates) // 5
    sd = small.drops(fates=("dropped",)).set_index("row").loc[rows]
    assert (sd["watermark"].to_numpy() == d["watermark"].to_numpy()).all()
    assert not kept(small, rows).any()


@pytest.mark.parametrize("what", ["delay", "lateness"])
def test_every_drop_is_kept_by_its_suggestion_and_not_below(what: str) -> None:
    _, d = demo()
    need = d[f"{what}_to_keep_ms"].astype("int64").to_numpy()
    rows = d["row"].to_numpy()
    checked_kept = np.zeros(len(d), bool)
    checked_dropped = np.zeros(len(d), bool)
    for v in np.unique(np.r_[need, need - 1]).tolist():
        sel = (need == v) | (need == v + 1)  # the records whose suggestion v pins
        res = toolkit.replay(reduced_log(rows[sel]), **{**DEMO, what: int(v)})
        k = kept(res, rows[sel])
        assert (k == (need[sel] <= v)).all(), f"{what}={v} ms: rows {rows[sel][k != (need[sel] <= v)]}"
        checked_kept[sel & (need == v)] = True
        checked_dropped[sel & (need == v + 1)] = True
    assert checked_kept.all() and checked_dropped.all()


@pytest.mark.parametrize("what", ["delay", "lateness"])
def test_full_log_replays_agree(what: str) -> None:
    """On the whole log: each value keeps exactly the drops whose suggestion it reaches."""
    _, d = demo()
    need = d[f"{what}_to_keep_ms"].astype("int64").to_numpy()
    rows = d["row"].to_numpy()
    for v in (int(np.median(need)) - 1, int(need.max())):
        res = toolkit.replay(demo_log(), **{**DEMO, what: v})
        assert (kept(res, rows) == (need <= v)).all()
    assert res.summary()["dropped"] == 0 if what == "lateness" else True


IDLE = dict(DEMO, idleness="2s")


def test_idle_timeout_suggestions_keep_the_records_they_name() -> None:
    """With a 2 s idle timeout partition 2's 40 s silence drops records: each is kept by its
    suggested idle timeout (or only without idleness), and not by the 2 s one."""
    log = demo_log()
    r = toolkit.replay(log, **IDLE)
    d = r.drops(fates=("dropped",))
    idle = d[d["dropped_by_idleness"]]
    assert len(idle) >= 30 and set(idle["idle_partitions"]) == {"2"}
    assert (idle["idleness_to_keep_ms"].notna() | idle["idleness_to_keep"].eq("no idleness")).all()
    assert d.loc[~d["dropped_by_idleness"], "idleness_to_keep_ms"].isna().all()
    # the same records without idleness: kept
    last = idle["arrival_time"].max()
    prefix = EventLog(log.table[log.table["arrival_time"] <= last], log.quarantine.iloc[:0])
    rows = idle["row"].to_numpy()
    assert kept(toolkit.replay(prefix, **{**IDLE, "idleness": None}), rows).all()
    assert not kept(toolkit.replay(prefix, **IDLE), rows).any()  # the prefix replays the same
    with_t = idle[idle["idleness_to_keep_ms"].notna()]
    need = with_t["idleness_to_keep_ms"].astype("int64").to_numpy()
    for v in np.unique(need).tolist():
        sel = need <= v
        res = toolkit.replay(prefix, **{**IDLE, "idleness": int(v)})
        assert kept(res, with_t["row"].to_numpy()[sel]).all(), f"idleness={v} ms"
    # the smallest suggestion is tight: one interval less and the record is dropped again
    first = with_t[need == need.min()]["row"].to_numpy()
    res = toolkit.replay(prefix, **{**IDLE, "idleness": int(need.min()) - 200})
    assert not kept(res, first).any()


RECOMMENDED = dict(window="tumbling:1s", delay="2s", lateness="5s", idleness="2s", interval="200ms")


def test_the_recommendations_drops_are_kept_by_their_suggestions() -> None:
    """The demo sweep's recommendation (2 s delay, 5 s lateness, 2 s idle timeout, as issue 13
    quotes it) still drops a record: each suggestion, replayed on the whole log, keeps it."""
    log = demo_log()
    d = toolkit.replay(log, **RECOMMENDED).drops(fates=("dropped",))
    assert len(d) >= 1
    for what in ("delay", "lateness", "idleness"):
        col = d[f"{what}_to_keep_ms"]
        for v in sorted(set(col.dropna().astype(int))):
            rows = d.loc[col == v, "row"].to_numpy()
            assert kept(toolkit.replay(log, **{**RECOMMENDED, what: v}), rows).all(), f"{what}={v}"
            if what != "idleness":
                assert not kept(toolkit.replay(log, **{**RECOMMENDED, what: v - 1}), rows).any()
    assert d["delay_to_keep_ms"].notna().all() and d["lateness_to_keep_ms"].notna().all()
