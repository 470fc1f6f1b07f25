"""Incidents as a sweep axis (issue 26, item 2): ``toolkit.sweep(log, ..., incidents=[...])``.

Properties: an empty incident list is the plain sweep; the recorded log's rows are the plain
sweep's; a variant's rows are the sweep of ``incident.apply(log)``; a stall of zero duration
changes nothing; no record is lost or invented (fates add up to the variant's records, and a
replay's fates name exactly the variant's rows). In-process equals Spark (one Spark test, a
pandas-backed and a Spark-backed log)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.incidents import burst, clock_skew, late_upload, restart, silence, stall
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.settings import SettingError, semantics_names
from toolkit.sweeps.variants import INCIDENT_COLUMN, RECORDED

BASE = 1_700_000_000_000
PROPS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GRID = dict(window="tumbling:1s", delay=[0, "500ms"], lateness=[0, "1s"], idleness=["none", "2s"])


def _log(seed: int, n: int = 120) -> toolkit.EventLog:
    rng = np.random.default_rng(seed)
    arrival = BASE + np.sort(rng.integers(0, 12_000, n))
    return toolkit.EventLog.from_arrays(arrival - rng.choice([0, 100, 700, 2_000], n), arrival_time=arrival,
                                        key=rng.choice(["a", "b", "c", "d"], n).astype(object),
                                        partition=rng.integers(0, 3, n), value=rng.integers(1, 9, n))


def _incidents(draw_at: int, draw_span: int) -> list:
    return [stall(partition=1, at=f"{draw_at}ms", duration=f"{draw_span}ms", drain="20/s"),
            restart(at=f"{draw_at + draw_span}ms", downtime="1s", replay_from=f"{draw_span}ms", source_rate="50/s"),
            restart(at=f"{draw_at}ms", downtime="500ms", replay_from="2s", source_rate="50/s", duplicates=True),
            silence(partition=0, at=f"{draw_at}ms", duration=f"{draw_span}ms"),
            burst(factor=3, at=f"{draw_at}ms", duration=f"{draw_span}ms"),
            clock_skew(partition=2, offset="-1500ms"),
            late_upload(fraction=0.1, delay="exponential:3s", seed=draw_at)]


def _figures(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=[INCIDENT_COLUMN]).reset_index(drop=True)


@PROPS
@given(seed=st.integers(0, 10_000), at=st.integers(0, 8_000), span=st.integers(1, 4_000))
def test_each_variant_is_the_sweep_of_its_log_and_nothing_is_lost_or_invented(seed, at, span):
    log = _log(seed)
    plain = toolkit.sweep(log, progress=False, **GRID)
    assert toolkit.sweep(log, progress=False, incidents=[], **GRID).equals(plain)  # no incidents: the plain sweep
    incidents = _incidents(at, span)
    got = toolkit.sweep(log, progress=False, incidents=[None] + incidents, **GRID)
    assert list(got.columns) == list(plain.columns[:plain.columns.get_loc("path")]) + [INCIDENT_COLUMN] + list(
        plain.columns[plain.columns.get_loc("path"):])
    labels = list(dict.fromkeys(got[INCIDENT_COLUMN]))
    assert labels == [RECORDED] + [str(i) for i in incidents]
    pd.testing.assert_frame_equal(_figures(got[got[INCIDENT_COLUMN] == RECORDED]), plain)
    for incident in incidents:
        worse = incident.apply(log)
        rows = _figures(got[got[INCIDENT_COLUMN] == str(incident)])
        pd.testing.assert_frame_equal(rows, toolkit.sweep(worse, progress=False, **GRID))
        # fates add up to the variant's records: only silence removes, only duplicates add
        assert (rows["on_time"] + rows["late_accepted"] + rows["dropped"] + rows["invalid"] == rows["records"]).all()
        copies = int((worse.table.get("duplicate_of", pd.Series([], dtype=np.int64)) >= 0).sum())
        removed = len(log.table) + copies - len(worse.table)
        assert (rows["records"] == len(log.table) + copies - removed).all()
        assert removed == 0 or incident.kind == "silence"
    # rows keep their identity: a replay of a variant has one fate per row of that variant, by row number
    worse = incidents[1].apply(log)
    fates = toolkit.replay(worse, window="tumbling:1s", delay="500ms").fates
    assert sorted(fates["row"].astype(int)) == sorted(log.table["row"].astype(int))


@PROPS
@given(seed=st.integers(0, 10_000), at=st.integers(0, 12_000))
def test_a_stall_of_zero_duration_changes_nothing(seed, at):
    log = _log(seed, 80)
    still = stall(partition=2, at=f"{at}ms", duration=0, drain="1/s")
    got = toolkit.sweep(log, progress=False, incidents=[None, still], **GRID)
    calm, stalled = (_figures(got[got[INCIDENT_COLUMN] == x]) for x in (RECORDED, str(still)))
    pd.testing.assert_frame_equal(calm, stalled)


def test_every_engine_rows_carry_the_incident_and_equal_the_sweep_of_the_variant():
    log = _log(3, 150)
    grid = dict(semantics=list(semantics_names()), window="tumbling:2s", delay=[0, "1s"])
    bad = stall(partition=0, at="2s", duration="4s", drain="5/s")
    got = toolkit.sweep(log, progress=False, incidents=[None, str(bad)], **grid)
    assert set(got["semantics"]) == set(semantics_names())
    assert got.groupby("semantics")[INCIDENT_COLUMN].nunique().eq(2).all()
    pd.testing.assert_frame_equal(_figures(got[got[INCIDENT_COLUMN] == str(bad)]),
                                  toolkit.sweep(bad.apply(log), progress=False, **grid))
    calm = got[got[INCIDENT_COLUMN] == RECORDED]
    assert not np.array_equal(calm["dropped"].to_numpy(), got[got[INCIDENT_COLUMN] == str(bad)]["dropped"].to_numpy())
    # one robust answer per engine; the frontier is one variant's (default: the recorded log's)
    recs = toolkit.recommend(got, 0.5, per="semantics", robust=0.5)
    assert set(recs) == set(semantics_names()) and all(r["variants"] == 1 for r in recs.values())
    pd.testing.assert_frame_equal(toolkit.frontier(got), toolkit.frontier(calm))
    assert set(toolkit.frontier(got, incident=str(bad))[INCIDENT_COLUMN]) == {str(bad)}
    with pytest.raises(ValueError, match="incident='calm'"):
        toolkit.frontier(got, incident="calm")


def test_incident_errors_name_the_incident():
    log = _log(1, 30)
    with pytest.raises(SettingError, match=r"incident 'stall:partition=1': stall: at= is missing") as e:
        toolkit.sweep(log, progress=False, incidents=["stall:partition=1"], delay=0)
    assert e.value.setting == "incident"
    with pytest.raises(SettingError, match=r"incident stall:partition=7.*partition 7 is not in the log"):
        toolkit.sweep(log, progress=False, incidents=[stall(partition=7, at=0, duration="1s", drain="1/s")], delay=0)
    with pytest.raises(SettingError, match="incidents must be a list"):
        toolkit.sweep(log, progress=False, incidents=5, delay=0)
    with pytest.raises(SettingError, match="incidents transform an EventLog"):
        toolkit.sweep(log.table, progress=False, incidents=[None], delay=0)


@pytest.mark.spark
def test_in_process_equals_spark_for_a_local_and_a_spark_backed_log(spark):
    log = _log(7, 200)
    bad = (stall(partition=1, at="2s", duration="3s", drain="10/s") + silence(partition=2, at="1s", duration="4s")
           + burst(factor=2, at="6s", duration="2s") + late_upload(fraction=0.2, delay="exponential:2s", seed=3)
           + restart(at="8s", downtime="1s", replay_from="2s", source_rate="40/s"))
    grid = dict(window="tumbling:1s", delay=[0, "500ms"], idleness=["none", "2s"])
    cols = SUMMARY_COLUMNS + [INCIDENT_COLUMN]
    local = toolkit.sweep(log, progress=False, execution="local", incidents=[None, bad], **grid)
    # a pandas-backed log on Spark: the variant is made on the driver, then shipped as a plain sweep ships a log
    on_spark = toolkit.sweep(log, progress=False, execution="spark", spark=spark, shards=2, incidents=[bad], **grid)
    pd.testing.assert_frame_equal(local[cols].iloc[len(on_spark):].reset_index(drop=True), on_spark[cols])
    # a Spark-backed log: the incident is applied in Spark (per source partition; late_upload by ranges of rows)
    distributed = toolkit.sweeps.distribute(log, shards=2, spark=spark)
    remote = toolkit.sweep(distributed, progress=False, spark=spark, shards=2, incidents=[None, bad], **grid)
    pd.testing.assert_frame_equal(local[cols], remote[cols])
    from toolkit.sweeps.variants import variant_log

    made = variant_log(distributed, bad)
    try:
        got = made.spark_df.toPandas().sort_values("row").reset_index(drop=True)
    finally:
        made.spark_df.unpersist()
    want = bad.apply(log).table.sort_values("row").reset_index(drop=True)
    for col in ("row", "event_time", "arrival_time", "partition"):
        assert got[col].astype(np.int64).tolist() == want[col].astype(np.int64).tolist(), col
    assert made.declared_partitions == (0, 1, 2) and made.n_records == len(want)
    # copies numbered over the whole log: copies of copies too (two restarts with duplicates)
    dup = (restart(at="3s", downtime="1s", replay_from="2s", source_rate="20/s", duplicates=True)
           + restart(at="5s", downtime="500ms", replay_from="3s", source_rate="30/s", duplicates=True))
    made = variant_log(distributed, dup)
    try:
        got = made.spark_df.toPandas().sort_values("row").reset_index(drop=True)
    finally:
        made.spark_df.unpersist()
    want = dup.apply(log).table.sort_values("row").reset_index(drop=True)
    assert (want["duplicate_of"] >= 0).sum() > 20
    for col in ("row", "event_time", "arrival_time", "partition", "duplicate_of"):
        assert got[col].astype(np.int64).tolist() == want[col].astype(np.int64).tolist(), col
