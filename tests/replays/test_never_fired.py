"""A count trigger that never reaches its count: in Flink the records sit in window state
(discarded at the window's cleanup, or left there at the end of a bounded job), never
emitted and never dropped for lateness. The replay reports them as ``dropped`` with reason
``never_fired`` (``toolkit.metrics.fates.DROP_REASONS``), in fates, summary and explain."""
from __future__ import annotations

import numpy as np
import pandas as pd

import toolkit
from toolkit.metrics.fates import DROP_REASONS, drop_reasons


def _log():
    # key a: 5 records in window [0, 1s); key b: 2 records; a late record of key a at the end
    rows = [(100 * i, 100 * i + 10, "a", 0, 1) for i in range(5)] + [(150, 160, "b", 0, 1), (250, 260, "b", 0, 1)]
    rows += [(5000, 5000, "c", 0, 1), (50, 5600, "a", 0, 1)]
    return toolkit.load_log(pd.DataFrame(rows, columns=["event_time", "arrival_time", "key", "partition", "value"]))


def test_count_trigger_that_never_fires_reports_never_fired_not_late():
    r = toolkit.replay(_log(), window="tumbling:1s", trigger="count:3")
    f = r.fates.set_index("row")
    # key a fires at its 3rd record; its 4th and 5th never reach another count of 3
    assert f.loc[[0, 1, 2], "fate"].tolist() == ["on_time"] * 3 or set(f.loc[[0, 1, 2], "fate"]) <= {"on_time", "late_accepted"}
    assert f.loc[[3, 4, 5, 6, 7], "reason"].tolist() == ["never_fired"] * 5
    assert f.loc[8, "reason"] == "late" and f.loc[8, "fate"] == "dropped"
    assert (f.loc[f["fate"] != "dropped", "reason"] == "").all()
    s = r.summary()
    assert s["dropped"] == 6 and s["never_fired"] == 5 and s["late_side_output"] == 1
    text = str(r.explain(4))
    assert "never_fired" in text and "never fired" in text and "not late" in text


def test_global_window_count_trigger_leaves_records_in_state():
    r = toolkit.replay(_log(), window="global", trigger="count:4")
    f = r.fates.set_index("row")
    assert set(f.loc[f["fate"] == "dropped", "reason"]) == {"never_fired"}
    assert r.summary()["never_fired"] == int((f["fate"] == "dropped").sum())


def test_reasons_rule():
    codes = np.array([0, 2, 2, 2, 1])
    got = drop_reasons(codes, np.array([0, 1, 0, 0, 0], bool), np.array([1, 1, 0, 1, 1], bool), False)
    assert got.tolist() == ["", "late", "no_window", "never_fired", ""]
    got = drop_reasons(codes, np.zeros(5, bool), np.ones(5, bool), True)
    assert got.tolist()[1] == "evicted_or_never_fired"
    assert set(DROP_REASONS) == {"late", "no_window", "never_fired", "evicted_or_never_fired"}


def test_sliding_gap_and_later_stages_have_reasons():
    r = toolkit.replay(_log(), window="sliding:200ms/1s")
    f = r.fates.set_index("row")
    assert f.loc[3, "reason"] == "no_window"  # event time 300: in no [k s, k s + 200ms)
    r2 = toolkit.replay(_log(), window="tumbling:200ms", stages=["window=tumbling:1s trigger=count:100"])
    st = r2.stage(2)
    assert "reason" in st.fates and set(st.fates["reason"]) == {"never_fired"}
    assert st.summary()["never_fired"] == len(st.fates)


def test_other_semantics_name_their_drops_late():
    r = toolkit.replay(_log(), semantics="kafka_streams", window="tumbling:1s")
    assert set(r.fates.loc[r.fates["fate"] == "dropped", "reason"]) <= {"late"}
    assert list(r.fates.columns) == list(toolkit.replay(_log(), window="tumbling:1s").fates.columns)


def test_drop_causes_and_drops_name_the_never_fired_in_words():
    r = toolkit.replay(_log(), window="tumbling:1s", trigger="count:3")
    causes = r.drop_causes()
    assert causes[0] == ("5 of 6 drops were not late but never emitted: the trigger (count:3) never fired after them, "
                         "so they stayed in window state (reason never_fired); no watermark setting changes that")
    assert "evictor (none)" not in " ".join(causes)
    assert causes[-1].startswith("The late one: a delay of")
    d = r.drops(fates=("dropped",)).set_index("row")
    assert d.loc[[3, 4, 5, 6, 7], "reason"].tolist() == ["never_fired"] * 5 and d.loc[8, "reason"] == "late"
