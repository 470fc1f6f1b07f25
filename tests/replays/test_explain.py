"""``ReplayResult.drops()`` / ``explain(row)`` / ``drop_causes()`` beyond the demo log:
sliding windows, several source subtasks, the legacy and time-lag strategies, sessions,
sliding-window gaps, logs without arrival times, and a property test on random logs."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import toolkit
from toolkit.log.model import EventLog
from toolkit.replays.explain import COLUMNS, duration_text, instant_text, keep_text

from helpers.explain_demo import DEMO, demo_log


def kept(result: toolkit.ReplayResult, rows) -> np.ndarray:
    fate = result.fates.set_index("row")["fate"]
    return (fate.loc[np.asarray(rows)] != "dropped").to_numpy()


def check_exact(log: EventLog, setting: dict, what: str, *, tight: bool = True) -> int:
    """Replay each distinct ``what`` suggestion (and 1 ms less): kept with it, dropped below."""
    r = toolkit.replay(log, **setting)
    d = r.drops(fates=("dropped",))
    d = d[d[f"{what}_to_keep_ms"].notna()]
    need = d[f"{what}_to_keep_ms"].astype("int64").to_numpy()
    rows = d["row"].to_numpy()
    for v in np.unique(need).tolist():
        sel = need == v
        assert kept(toolkit.replay(log, **{**setting, what: v}), rows[sel]).all(), f"{what}={v}"
        if tight:
            assert not kept(toolkit.replay(log, **{**setting, what: v - 1}), rows[sel]).any(), f"{what}={v - 1}"
    return len(d)


@pytest.fixture(scope="module")
def mixed() -> EventLog:
    """6 s of a NEXMark-like stream: 10% of the events held back up to 2 s, 4 partitions."""
    return toolkit.synth.generate("nexmark", 600, seed=5, partitions=4, rate=100)


def test_sliding_windows_four_partitions_two_subtasks(mixed: EventLog) -> None:
    s = dict(window="sliding:1s/500ms", delay="100ms", lateness="200ms", interval="100ms", source_parallelism=2)
    r = toolkit.replay(mixed, **s)
    d = r.drops()
    assert list(d.columns) == COLUMNS
    assert set(d["fate"]) == {"dropped", "late_accepted"}
    assert len(d) == (r.fates["fate"] != "on_time").sum()
    assert d["windows"].eq(2).all()  # 1 s / 500 ms
    assert (d["window_end"] - d["window_start"] == 1000).all()
    assert (d["subtask"] == d["partition"] % 2).all()
    held = d["holder_partition"].notna()
    assert held.all() and (d.loc[held, "holder_subtask"] == d.loc[held, "holder_partition"] % 2).all()
    assert (d["holder_watermark"] >= d["watermark"]).all()
    assert d["holder_partition"].nunique() > 1
    assert check_exact(mixed, s, "delay") >= 5
    assert check_exact(mixed, s, "lateness") >= 5


def test_legacy_strategy_delay_is_exact(mixed: EventLog) -> None:
    s = dict(window="tumbling:1s", strategy="legacy", delay="300ms", interval="200ms")
    assert check_exact(mixed, s, "delay") >= 3


def test_monotonous_strategy_suggests_a_bounded_delay(mixed: EventLog) -> None:
    s = dict(window="tumbling:1s", strategy="monotonous", interval="200ms")
    r = toolkit.replay(mixed, **s)
    d = r.drops(fates=("dropped",))
    assert len(d) > 3
    assert "a bounded out-of-orderness delay of at least" in r.explain(int(d["row"].iloc[0])).text
    bounded = dict(s, strategy="bounded")
    for v, rows in d.groupby("delay_to_keep_ms")["row"]:
        assert kept(toolkit.replay(mixed, **bounded, delay=int(v)), rows).all()
        assert not kept(toolkit.replay(mixed, **bounded, delay=int(v) - 1), rows).any()


def test_time_lag_strategy_delay_is_exact(mixed: EventLog) -> None:
    s = dict(window="tumbling:1s", strategy="time_lag", delay="1s", interval="200ms")
    assert check_exact(mixed, s, "delay") >= 3


def test_session_suggestions_are_sufficient() -> None:
    mixed = toolkit.synth.generate("nexmark", 250, seed=5, partitions=2, rate=100)
    s = dict(window="session:300ms", delay="200ms", interval="200ms")
    d = toolkit.replay(mixed, **s).drops(fates=("dropped",))
    assert len(d) and not d["exact"].any()
    assert (d["window_end"] - d["window_start"] == 300).all()  # the record's own window
    check_exact(mixed, s, "delay", tight=False)
    check_exact(mixed, s, "lateness", tight=False)
    assert "merge" in toolkit.replay(mixed, **s).explain(int(d["row"].iloc[0])).text


def test_sliding_window_gap_has_no_window_and_no_suggestion() -> None:
    log = EventLog.from_arrays([100, 700, 1200, 150], [100, 700, 1200, 1300], key="k")
    r = toolkit.replay(log, window="sliding:500ms/1s", interval=0)
    d = r.drops()
    gap = d[d["windows"] == 0]
    assert set(gap["event_time"]) == {700}
    assert gap["delay_to_keep_ms"].isna().all() and gap["lateness_to_keep_ms"].isna().all()
    assert gap["window"].iloc[0].startswith("no window")
    assert "gap between the sliding windows" in r.explain(int(gap["row"].iloc[0])).text


def test_explain_in_words_and_data() -> None:
    # two partitions; partition 1 is 3 s behind: it holds the watermark
    et = [0, 5000, 1000, 6000, 2000, 100, 9000, 2500]
    arr = [0, 10, 20, 30, 2000, 2100, 2200, 2300]
    part = [0, 0, 1, 0, 1, 0, 0, 1]
    log = EventLog.from_arrays(et, arr, key="k", partition=part)
    r = toolkit.replay(log, window="tumbling:1s", delay="100ms", lateness="200ms", interval="100ms")
    d = r.drops(fates=("dropped",))
    row = int(d.loc[d["event_time"] == 100, "row"].iloc[0])
    e = r.explain(row)
    assert e.fate == "dropped" and str(e) == e.text and e.data["row"] == row
    assert e.data["holder_partition"] == 1 and e.data["holder_watermark"] == 2000 - 101
    assert e.data["holder_behind_ms"] == (6000 - 101) - (2000 - 101)
    assert e.data["delay_to_keep_ms"] == 100 + (1899 - 1199) + 1
    assert e.data["lateness_to_keep_ms"] == 1899 - 999 + 1
    for words in ("was dropped", "t=2.1 s", "[t=0, t=1 s)", "held by partition 1 (4 s below the next-lowest partition)",
                  "a delay of at least 801 ms (now 100 ms)", "an allowed lateness of at least 901 ms (now 200 ms)"):
        assert words in e.text, words
    on_time = r.explain(0)
    assert on_time.fate == "on_time" and "was on time" in on_time.text
    with pytest.raises(ValueError, match="row 99 was not replayed"):
        r.explain(99)
    with pytest.raises(ValueError, match="row: expected a row number"):
        r.explain("x")
    with pytest.raises(ValueError, match="fates: 'late'"):
        r.drops(fates=("late",))


def test_no_arrival_times_uses_record_positions() -> None:
    log = EventLog.from_arrays([0, 3000, 500, 4000])
    r = toolkit.replay(log, window="tumbling:1s", delay="1s")
    d = r.drops()
    assert list(d["row"]) == [2] and d["arrival"].iloc[0] == "record #2"
    assert d["arrival_time"].isna().all()
    assert d["delay_to_keep_ms"].iloc[0] == 1000 + (3000 - 1001 - 999) + 1


def test_records_a_trigger_or_evictor_left_out_are_not_late() -> None:
    log = toolkit.synth.generate("nexmark", 300, seed=5, partitions=2, rate=100)
    r = toolkit.replay(log, window="tumbling:1s", evictor="count:2", delay="100ms", interval="200ms")
    d = r.drops(fates=("dropped",))
    not_late = d[d["behind_cleanup_ms"].isna() | (d["behind_cleanup_ms"] < 0)]
    assert len(not_late) > 50 and not_late["delay_to_keep_ms"].isna().all() and not_late["lateness_to_keep_ms"].isna().all()
    assert "not late" in r.explain(int(not_late["row"].iloc[0])).text
    causes = r.drop_causes()
    assert causes[0].startswith(f"{len(not_late)} of {len(d)} drops were not late: the trigger (event_time) or the evictor (count:2)")
    assert causes[-1].startswith(f"The {len(d) - len(not_late)} late ones: a delay of")
    check_exact(log, dict(window="tumbling:1s", evictor="count:2", delay="100ms", interval="200ms"), "delay")


def test_global_windows_cannot_be_explained() -> None:
    log = EventLog.from_arrays([0, 10], [0, 10])
    with pytest.raises(toolkit.settings.SettingError, match="window"):
        toolkit.replay(log, window="global_eos").drops()


def test_readable_units() -> None:
    assert [duration_text(v) for v in (0, 250, 1200, 39268, 303_000, 7_500_000, 90_000_000)] == [
        "0 ms", "250 ms", "1.2 s", "39.27 s", "5 min 3 s", "2 h 5 min", "1 d 1 h"]
    assert instant_text(1_700_000_000_024, True) == "2023-11-14 22:13:20.024"
    assert instant_text(5000, False) == "t=5 s"
    assert instant_text(-(2**63), True) == "no watermark yet"


def test_drop_causes_on_the_demo_log() -> None:
    r = toolkit.replay(demo_log(), **DEMO)
    causes = r.drop_causes()
    counts = [int(c.split(" of ")[0].replace(",", "")) for c in causes[:-1]]
    assert sum(counts) == 297 and all(" of 297 drops" in c for c in causes[:-1])
    d = r.drops(fates=("dropped",))
    top = keep_text(int(d["delay_to_keep_ms"].max()))
    assert causes[-1] == (f"All 297: a delay of {top} (now 500 ms) or an allowed lateness of "
                          f"{keep_text(int(d['lateness_to_keep_ms'].max()))} (now 1 s) keeps every one.")
    idle = toolkit.replay(demo_log(), **DEMO, idleness="2s").drop_causes()
    line = next(c for c in idle if "marked idle" in c)
    assert "partition 2 was silent" in line and "keeps them all" in line
    assert toolkit.replay(demo_log(), window="tumbling:1s", delay="10s").drop_causes() == ["No record was dropped."]


events = st.lists(st.tuples(st.integers(0, 6000), st.integers(0, 300), st.integers(0, 2)), min_size=2, max_size=40)


@settings(max_examples=25, deadline=None)
@given(events, st.integers(0, 800), st.integers(0, 800), st.sampled_from([0, 50, 200]),
       st.sampled_from(["tumbling:1s", "sliding:1s/500ms", "tumbling:700ms,100ms"]), st.integers(1, 2), st.booleans())
def test_property_suggestions_are_exact(ev, delay, lateness, interval, window, par, per_partition) -> None:
    """Random logs: every dropped record is kept with its delay / lateness suggestion and
    dropped with 1 ms less."""
    ev = sorted(ev, key=lambda x: x[0] + x[1])  # arrival order
    et = np.array([e for e, _, _ in ev])
    arr = et + np.array([a for _, a, _ in ev])
    order = np.argsort(arr, kind="stable")
    log = EventLog.from_arrays(et[order], arr[order], key="k", partition=np.array([p for *_, p in ev])[order])
    s = dict(window=window, delay=delay, lateness=lateness, interval=interval, source_parallelism=par,
             partitions_as_sources=per_partition)
    check_exact(log, s, "delay")
    check_exact(log, s, "lateness")
