"""Synthetic logs: deterministic, and each model shows the property it is named for."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit import synth


def test_same_seed_same_log_other_seed_other_log():
    a = synth.generate("steady", 2000, seed=3).table
    b = synth.generate("steady", 2000, seed=3).table
    c = synth.generate("steady", 2000, seed=4).table
    pd.testing.assert_frame_equal(a, b)
    assert not a["event_time"].equals(c["event_time"])


@pytest.mark.parametrize("model", sorted(synth.MODELS))
def test_every_model_gives_a_canonical_log_in_arrival_order(model):
    log = synth.generate(model, 3000, seed=1)
    t = log.table
    assert isinstance(log, toolkit.EventLog) and log.n_records == 3000 and log.n_invalid == 0
    assert list(t.columns) == ["row", "event_time", "arrival_time", "key", "partition", "value"]
    assert t.dtypes.astype(str).tolist() == ["int64", "int64", "int64", "object", "int64", "int64"]
    assert t["row"].tolist() == list(range(3000))
    assert (np.diff(t["arrival_time"].to_numpy()) >= 0).all()
    assert log.arrival_order().tolist() == list(range(3000))
    assert t["value"].between(1, 100).all()


def test_steady_rate_and_exponential_delay_mean():
    t = synth.generate("steady", 20_000, seed=2, rate=500).table
    span_s = (t["event_time"].max() - t["event_time"].min()) / 1000
    assert 20_000 / span_s == pytest.approx(500, rel=0.03)
    delay = t["arrival_time"] - t["event_time"]
    assert delay.mean() == pytest.approx(50, abs=2)  # floor of each time: the mean moves by < 1 ms
    assert (delay >= 0).all()


def test_pareto_delays_are_heavy_tailed_with_a_minimum():
    t = synth.generate("pareto", 50_000, seed=2).table
    d = (t["arrival_time"] - t["event_time"]).to_numpy()
    assert d.min() >= 9  # scale 10 ms, floors of two times can take 1 ms off
    assert np.quantile(d, 0.999) > 20 * np.median(d)


def test_bursts_raise_the_rate_inside_the_burst_window():
    t = synth.generate("bursty", 57_000, seed=2).table  # three whole periods of 19,000 events
    offset = (t["event_time"] - synth.DEFAULT_START) % 10_000
    inside = (offset < 1_000).mean()
    assert inside == pytest.approx(10 / 19, abs=0.02)  # 10x rate for 1 s of every 10 s


def test_zipf_keys_are_skewed():
    t = synth.generate("skewed", 50_000, seed=2).table
    counts = t["key"].value_counts()
    assert counts.index[0] == "k00"
    assert counts.iloc[0] / counts.iloc[9] == pytest.approx(10**1.2, rel=0.15)


def test_silent_partition_sends_nothing_during_its_silence():
    t = synth.generate("silent", 60_000, seed=2).table
    rel = t["event_time"] - synth.DEFAULT_START
    quiet = t[(t["partition"] == 2) & (rel >= 20_000) & (rel < 50_000)]
    assert len(quiet) == 0
    assert t["partition"].value_counts().sort_index().index.tolist() == [0, 1, 2]


def test_lagging_partition_clock_skew_and_arrival_lag():
    t = synth.generate("lagging", 40_000, seed=2).table
    d = (t["arrival_time"] - t["event_time"]).groupby(t["partition"]).median()
    assert d[3] - d[0] == pytest.approx(2_500, abs=10)  # 2 s skew + 500 ms lag


def test_nexmark_holds_back_a_share_of_events():
    t = synth.generate("nexmark", 40_000, seed=2).table
    d = t["arrival_time"] - t["event_time"]
    assert (d > 6).mean() == pytest.approx(0.1 * (1 - 1 / 2000), abs=0.01)
    assert d.max() <= 2_005 + 1


def test_config_validation():
    with pytest.raises(ValueError, match="unknown synthetic model 'nope'; models: steady"):
        synth.generate("nope")
    with pytest.raises(ValueError, match="unknown parameter"):
        synth.generate("steady", 10, colour="red")
    with pytest.raises(ValueError, match=r"silent_partition=5 is not one of the 3 partitions \(0\.\.2\)"):
        synth.generate("silent", 10, silent_partition=5)
    with pytest.raises(ValueError, match="records must be at least 1"):
        synth.generate("steady", 0)
    cfg = synth.config("silent", silent_for="30s", silent_from="1min")
    assert (cfg.silent_for, cfg.silent_from) == (30_000, 60_000)


def test_bad_rows_round_trip_through_the_quarantine(tmp_path):
    log = synth.generate("sample", 1000, seed=9)
    path = tmp_path / "s.csv"
    synth.write(log, path, bad_rows=5, seed=9)
    loaded = toolkit.load_log(path, max_invalid_fraction=0.01)
    assert loaded.n_records == 995
    assert sorted(loaded.quarantine["column"] + ": " + loaded.quarantine["reason"]) == sorted(
        ["event_time: null", "event_time: unparsable time", "value: not a number",
         "arrival_time: unparsable time", "key: null"]
    )
    good = loaded.table.set_index("row")
    pd.testing.assert_frame_equal(good, log.table.set_index("row").loc[good.index])


def test_iso_time_format_round_trips(tmp_path):
    log = synth.generate("steady", 500, seed=1)
    path = tmp_path / "s.jsonl"
    synth.write(log, path, time_format="iso")
    assert path.read_text().splitlines()[0].startswith('{"event_time":"2023-11-14T22:13:20.')
    pd.testing.assert_frame_equal(toolkit.load_log(path).table, log.table)


def test_year_model_fills_a_year_with_named_airports_and_silent_nights(tmp_path):
    from helpers.spans import year_log

    log = year_log()
    t = log.table
    event = pd.to_datetime(t["event_time"], unit="ms", utc=True)
    assert event.min() < pd.Timestamp("2023-01-02", tz="UTC") and event.max() > pd.Timestamp("2023-12-20", tz="UTC")
    assert not event.dt.hour.isin([23, 0, 1, 2, 3, 4]).any()  # no departure from 23:00 to 05:00
    assert event.dt.hour.isin([5, 22]).sum() > 2 * 40_000 / 18 * 0.8  # the active hours are all used
    assert log.partition_names == ["EWR", "JFK", "LGA"]
    described = log.describe(silence="4h")
    assert [p.silences for p in described.partitions] == pytest.approx([364] * 3, abs=15)  # one a night
    path = tmp_path / "year.csv"
    synth.write(log, path)
    assert pd.read_csv(path, nrows=5)["partition"].isin(["EWR", "JFK", "LGA"]).all()
    loaded = toolkit.load_log(path)
    assert loaded.partition_names == ["EWR", "JFK", "LGA"]
    pd.testing.assert_frame_equal(loaded.table, t)


def test_nightly_silence_wraps_midnight_and_is_checked():
    t = synth.generate("steady", 20_000, seed=3, rate=0.2, nightly=("22h", "8h")).table  # 22:00 to 06:00
    hours = pd.to_datetime(t["event_time"], unit="ms", utc=True).dt.hour
    assert not hours.isin([22, 23, 0, 1, 2, 3, 4, 5]).any()
    assert hours.nunique() == 16
    day = synth.generate("steady", 20_000, seed=3, rate=0.2, nightly=("1h", "2h")).table  # 01:00 to 03:00
    assert not pd.to_datetime(day["event_time"], unit="ms", utc=True).dt.hour.isin([1, 2]).any()
    with pytest.raises(ValueError, match="nightly=.from, duration. needs"):
        synth.generate("steady", 10, nightly=("1h", "25h"))
    with pytest.raises(ValueError, match="partition_names must be 2 distinct names in sorted order"):
        synth.generate("steady", 10, partitions=2, partition_names=("b", "a"))
