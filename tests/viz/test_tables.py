"""toolkit.viz.readable and summary_table: a replay's tables and figures in readable units,
never Long.MAX / raw epoch ms / raw fractions."""
from __future__ import annotations

import pandas as pd
import pytest

import toolkit
import toolkit.viz as viz

from helpers.fakes import MAX, MIN, fake_result, small_log

EPOCH = 1_700_000_000_000  # 2023-11-14 22:13:20 UTC


def test_readable_emissions_show_end_of_input_and_plain_ms_for_worked_examples():
    em = fake_result(small_log()).emissions
    shown = viz.readable(em)
    assert list(shown.columns) == [c.replace("_", " ") for c in em.columns] and list(shown.index) == list(em.index)
    assert shown.loc[3, "watermark"] == "end of input"  # Long.MAX: Flink's final watermark
    assert shown.loc[0, "window end"] == "t=500 ms" and shown.loc[0, "emit time"] == "t=800 ms"
    assert shown.loc[0, "window start"] == "t=0"
    assert shown.loc[0, "count"] == "3" and shown.loc[0, "key"] == "a" and shown.loc[3, "at end"]
    assert em.loc[3, "watermark"] == MAX  # the result's own table is left raw


def test_readable_epoch_times_are_utc_timestamps_and_markers_words():
    wm = pd.DataFrame({"level": ["operator"] * 4, "id": [0] * 4,
                       "time": pd.array([EPOCH, EPOCH + 200, EPOCH + 400, None], dtype="Int64"),
                       "watermark": pd.array([MIN, EPOCH + 1_092, MAX, None], dtype="Int64")})
    shown = viz.readable(wm)
    assert shown["time"].tolist() == ["2023-11-14 22:13:20.000", "2023-11-14 22:13:20.200", "2023-11-14 22:13:20.400", ""]
    assert shown["watermark"].tolist() == ["no watermark yet", "2023-11-14 22:13:21.092", "end of input", ""]
    # a slice that holds only the end-of-input marker still reads as a timestamp table
    assert viz.readable(wm.iloc[[2]], epoch=True)["time"].iloc[0] == "2023-11-14 22:13:20.400"


def test_readable_durations_carry_their_unit_and_drop_ms_from_the_name():
    df = pd.DataFrame({"delay_ms": [2000, 250], "latency_p99_ms": [2613.0, float("nan")], "records": [10, 29_994],
                       "idleness_ms": pd.array([None, 2000], dtype="Int64"), "completeness_first": [0.999967, 0.5],
                       "mean_state_records": [469.0178, 1.5]})
    shown = viz.readable(df)
    assert list(shown.columns) == ["delay", "p99 result latency", "records", "idle timeout", "first-result completeness",
                                   "mean buffered records"]  # headers in words, as the charts name them
    assert shown["delay"].tolist() == ["2 s", "250 ms"] and shown["p99 result latency"].tolist() == ["2.613 s", ""]
    assert shown["idle timeout"].tolist() == ["no idleness", "2 s"] and shown["records"].tolist() == ["10", "29,994"]
    assert shown["first-result completeness"].tolist() == ["99.997%", "50.00%"]
    assert shown["mean buffered records"].iloc[0] == "469.02"
    # a table with the readable column already (drops(): delay_to_keep) keeps only that one
    both = viz.readable(pd.DataFrame({"delay_to_keep_ms": [1479], "delay_to_keep": ["1.479 s"]}))
    assert list(both.columns) == ["delay to keep"] and both["delay to keep"].iloc[0] == "1.479 s"


def test_readable_refuses_what_is_not_a_table():
    with pytest.raises(TypeError, match="readable: expected a pandas DataFrame"):
        viz.readable({"watermark": [MAX]})


def test_readable_of_a_real_replay_flink_and_kafka_streams():
    rows = [(EPOCH + 100 * i, EPOCH + 100 * i + 5, "k", 0, 1) for i in range(30)]
    log = toolkit.load_log(pd.DataFrame(rows, columns=["event_time", "arrival_time", "key", "partition", "value"]))
    r = toolkit.replay(log, window="tumbling:1s")
    em = viz.readable(r.emissions)
    assert "9223372036854775807" not in em.to_string() and (em.loc[r.emissions["at_end"], "watermark"] == "end of input").all()
    assert em["window start"].iloc[0] == "2023-11-14 22:13:20.000"
    k = toolkit.replay(log, window="tumbling:1s", semantics="kafka_streams")
    kem = viz.readable(k.emissions)
    assert kem["timestamp"].iloc[0].startswith("2023-11-14 22:13:2") and kem["kafka window end"].iloc[0].startswith("2023-11-14")


def test_summary_table_reads_shares_durations_and_the_setting():
    rows = [(EPOCH + 100 * i, EPOCH + 100 * i + 5, "<b>k</b>", 0, 1) for i in range(30)]
    log = toolkit.load_log(pd.DataFrame(rows, columns=["event_time", "arrival_time", "key", "partition", "value"]))
    r = toolkit.replay(log, window="tumbling:1s", delay="500ms")
    t = viz.summary_table(r)
    rows = dict(t.rows)
    assert rows["on time"] == "30 (100.00%)" and rows["dropped"] == "0 (0.00%)"
    assert rows["first-result completeness"] == "100.00%"
    assert rows["p99 result latency"].endswith(" ms") or rows["p99 result latency"].endswith(" s")
    assert "settings" not in rows and t.caption == "replay: window=tumbling:1s delay=500ms"
    html = t._repr_html_()
    assert "<table" in html and "first-result completeness" in html and "100.00%" in html
    text = str(t)
    assert text.splitlines()[0] == t.caption and "p99 result latency" in text
    assert viz.summary_table(r.summary()).rows == t.rows  # the dict itself works too
    with pytest.raises(TypeError, match="summary_table: expected a replay result"):
        viz.summary_table(42)


def test_summary_table_shows_a_flag_as_yes_or_no():
    rows = dict(viz.summary_table({"records": 3, "on_time": 3, "stalled": False}).rows)
    assert rows["stalled"] == "no"


def test_readable_values_stay_on_one_line_in_a_notebook():
    """JupyterLab lets table cells wrap: a narrow column broke "100 ms" into "100" / "ms" (issue 30)."""
    shown = viz.readable(pd.DataFrame({"delay_ms": [100, 2_500], "window_start": [1_700_000_000_000, 1_700_000_001_000]}))
    assert isinstance(shown, pd.DataFrame) and shown["delay"].tolist() == ["100 ms", "2.5 s"]
    page = shown._repr_html_()
    assert page.startswith("<style>table.wl-readable td { white-space: nowrap; }</style>")
    assert 'class="dataframe wl-readable"' in page and "<td>100 ms</td>" in page
    assert type(shown.tail(1)) is type(shown)  # a slice of it reads the same way
