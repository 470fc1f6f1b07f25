"""Complete mode, window offsets (startTime), per-record session gaps and inputs that never speak.

Each rule was observed on real PySpark 4.3 (the ``corner_*`` and generated fixtures named in
the tests, produced by ``oracles/spark/spark_oracle.py``; the conformance test replays all of
them). These tests state the rules on small logs, as named tests and hypothesis properties.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import toolkit
from toolkit.engine.microbatch import MicroBatchConfig, MicroBatchConfigError, run_microbatch
from toolkit.engine.microbatch.aggregation import window_pairs
from toolkit.engine.microbatch.run import DROPPED, NO_SESSION
from toolkit.settings import SettingError

B = 1_000_000


def _run(cfg, rows, gap=None):
    """rows: (tick number, key, event offset, partition); arrival 300 ms before the tick (1 s trigger)."""
    ts = np.array([B + r[2] for r in rows], dtype=np.int64)
    arr = np.array([B + r[0] * 1000 - 300 for r in rows], dtype=np.int64)
    keys = np.array([r[1] for r in rows], dtype=object)
    part = np.array([r[3] for r in rows], dtype=np.int64)
    vals = np.arange(1, len(rows) + 1, dtype=np.int64)
    return run_microbatch(cfg, ts, arr, keys, vals, partition=part, gap=gap)


LATE = [(1, "a", 10_000, 0), (2, "a", 5_000, 0), (3, "a", 9_999, 0), (3, "a", 9_000, 0), (6, "a", 30_000, 0),
        (8, "a", 1_000, 0)]


def test_complete_mode_has_no_late_filter():
    """corner_complete_late_complete: rows behind the watermark are still counted (append drops them)."""
    t10 = dict(window_kind="tumbling", size=10_000)
    comp = _run(MicroBatchConfig(**t10, output_mode="complete"), LATE)
    app = _run(MicroBatchConfig(**t10, output_mode="append"), LATE)
    assert (comp.fate != DROPPED).all() and comp.rows_dropped_by_watermark.sum() == 0
    assert (app.fate == DROPPED).sum() == 3
    last = [r for r in comp.batch_rows()[-1]["rows"] if r[1] == B]
    assert last[0][3] == 4  # all four rows of [0 s, 10 s) although the watermark passed 10 s


def test_complete_mode_reemits_everything_and_runs_no_no_data_batch():
    """Every batch emits every window in state; no-data batches never run (append runs one here)."""
    t10 = dict(window_kind="tumbling", size=10_000)
    comp = _run(MicroBatchConfig(**t10, output_mode="complete"), LATE)
    app = _run(MicroBatchConfig(**t10, output_mode="append"), LATE)
    assert comp.batches.is_data.all() and not app.batches.is_data.all()
    seen = set()
    for b, batch in enumerate(comp.batch_rows()):
        seen |= {(r[0], r[1]) for r in batch["rows"]}
        assert len(batch["rows"]) == len(seen)  # nothing evicted, everything re-emitted
    assert (comp.windows["emit_batch"] == len(comp.batches)).all()


def test_complete_mode_sessions_keep_the_late_filter_but_never_close():
    """corner_complete_session_*: a late row (ts + gap <= watermark) is dropped; a row that reaches a
    session whose end the watermark passed merges into it (append mode starts a new session)."""
    rows = [(1, "a", 5_000, 0), (2, "b", 30_000, 0), (3, "c", 31_000, 0), (4, "a", 10_000, 0), (5, "a", 1_000, 0),
            (6, "d", 45_000, 0), (7, "a", 12_000, 0)]
    s = dict(window_kind="session", gap=6_000, delay=18_000)
    comp = _run(MicroBatchConfig(**s, output_mode="complete"), rows)
    app = _run(MicroBatchConfig(**s, output_mode="append"), rows)
    a_comp = [r for r in comp.batch_rows()[-1]["rows"] if r[0] == "a"]
    assert a_comp == [["a", B + 5_000, B + 18_000, 3, 1 + 4 + 7]]  # [5 s, 11 s) passed the watermark at batch 2
    assert comp.fate[4] == DROPPED and app.fate[4] == DROPPED
    a_app = sorted((int(s_), int(e)) for k, s_, e in zip(app.keys[app.windows["key"]], app.windows["start"],
                                                           app.windows["end"]) if k == "a")
    assert a_app == [(B + 5_000, B + 11_000), (B + 10_000, B + 18_000)]  # evicted, then a new session


def test_update_mode_with_sessions_is_refused_naming_both_modes_spark_allows():
    with pytest.raises(MicroBatchConfigError, match="output_mode.*'append' or 'complete'"):
        MicroBatchConfig("session", gap=1000, output_mode="update")


@pytest.mark.parametrize("offset,equivalent", [(2_000, 2_000), (-8_000, 2_000), (-2_500, 7_500)])
def test_negative_offset_is_offset_plus_slide(offset, equivalent):
    """corner_offset_tumbling_pos / _neg: window(ts, 10 s, 10 s, -8 s) == window(ts, 10 s, 10 s, 2 s)."""
    ts = np.array([B, B + 1_999, B + 2_000, B + 11_999, B + 12_000, B - 7_000], dtype=np.int64)
    assert np.array_equal(window_pairs(ts, 10_000, 10_000, offset)[1], window_pairs(ts, 10_000, 10_000, equivalent)[1])
    starts = window_pairs(ts, 10_000, 10_000, offset)[1]
    assert ((starts - offset) % 10_000 == 0).all() and ((starts <= ts) & (ts < starts + 10_000)).all()


def test_sliding_offset_windows_match_spark():
    """Real Spark 4.3: window(ts, 10 s, 5 s, 2 s) puts t=0 in [-3 s, 7 s) and [-8 s, 2 s)."""
    rec, start = window_pairs(np.array([0, 2_000], dtype=np.int64), 10_000, 5_000, 2_000)
    assert sorted(start[rec == 0].tolist()) == [-8_000, -3_000]
    assert sorted(start[rec == 1].tolist()) == [-3_000, 2_000]


@pytest.mark.parametrize("kind,size,slide,offset", [("tumbling", 10_000, 0, 10_000), ("sliding", 10_000, 5_000, -5_000)])
def test_offset_not_below_the_slide_is_refused(kind, size, slide, offset):
    """corner_offset_refused_*: Spark: DATATYPE_MISMATCH.PARAMETER_CONSTRAINT_VIOLATION, |startTime| < slide."""
    with pytest.raises(MicroBatchConfigError, match=r"window: .*\|offset\| < slide"):
        MicroBatchConfig(kind, size=size, slide=slide, offset=offset)


GAP_ROWS = [(1, "a", 1_000, 0), (1, "a", 2_000, 0), (1, "b", 2_000, 0), (1, "c", 2_000, 0), (2, "a", 20_000, 0),
            (3, "a", 1_500, 0)]


@pytest.mark.parametrize("gaps", [
    np.array([3_000, 0, -1_000, None, 3_000, None], dtype=object),
    np.array([3_000, 0, -1_000, np.nan, 3_000, np.nan]),
])
def test_null_zero_and_negative_gaps_give_no_session(gaps):
    """corner_gap_null_*: such rows are in no session and not counted as dropped, but move the watermark."""
    r = _run(MicroBatchConfig("session"), GAP_ROWS, gap=gaps)
    assert r.fate.tolist() == [0, NO_SESSION, NO_SESSION, NO_SESSION, 0, NO_SESSION]
    assert r.rows_dropped_by_watermark.sum() == 0
    assert int(r.batches.watermark[1]) == B + 2_000  # batch 0's max event time is a no-session row's
    assert r.windows["count"].tolist() == [1, 1] and r.windows["start"].tolist() == [B + 1_000, B + 20_000]


def test_per_record_gap_must_fit_the_log():
    with pytest.raises(MicroBatchConfigError, match="per-record session gap has 2 values for 6"):
        _run(MicroBatchConfig("session"), GAP_ROWS, gap=np.array([1, 2]))
    with pytest.raises(MicroBatchConfigError, match="positive gap or a per-record gap"):
        _run(MicroBatchConfig("session"), GAP_ROWS)


@pytest.mark.parametrize("mode", ["append", "complete"])
def test_an_input_that_never_speaks_holds_the_min_watermark_at_zero(mode):
    """corner_never_speaks_min_*: a declared input without rows proposes 0 for the whole run;
    corner_never_speaks_max_*: the max policy ignores it."""
    rows = [(1, "a", 1_000, 0), (2, "a", 12_000, 1), (3, "a", 25_000, 0), (5, "a", 40_000, 1)]
    base = dict(window_kind="tumbling", size=10_000, output_mode=mode, partitions_as_sources=True, sources=(0, 1, 2))
    mn = _run(MicroBatchConfig(**base, multiple_watermark_policy="min"), rows)
    mx = _run(MicroBatchConfig(**base, multiple_watermark_policy="max"), rows)
    assert (mn.batches.watermark == 0).all()
    # append runs a closing no-data batch with the last watermark; complete mode runs none
    assert mx.batches.watermark.max() == (B + 40_000 if mode == "append" else B + 25_000)


# ---------------------------------------------------------------------------- properties
recs = st.lists(st.tuples(st.integers(0, 60_000), st.integers(0, 30_000), st.sampled_from("abc"), st.integers(1, 9)),
                min_size=1, max_size=50)


def _cols(rs):
    ts = np.array([r[0] for r in rs], dtype=np.int64) + B
    return ts, ts + np.array([r[1] for r in rs], dtype=np.int64), np.array([r[2] for r in rs], dtype=object), \
        np.array([r[3] for r in rs], dtype=np.int64)


@settings(max_examples=80, deadline=None)
@given(rs=recs, window=st.sampled_from([(10_000, 10_000), (10_000, 5_000), (6_000, 2_000)]),
       delay=st.sampled_from([0, 2_000, 20_000]), interval=st.sampled_from([500, 1_000, 5_000]))
def test_complete_mode_last_batch_is_the_batch_answer(rs, window, delay, interval):
    """Complete mode drops nothing: its last batch holds every (key, window) with its full count and sum."""
    ts, arr, keys, vals = _cols(rs)
    r = run_microbatch(MicroBatchConfig("sliding", size=window[0], slide=window[1], delay=delay,
                                        trigger_interval=interval, output_mode="complete"), ts, arr, keys, vals)
    rec, start = window_pairs(ts, *window)
    truth = pd.DataFrame({"k": keys[rec], "s": start, "v": vals[rec]}).groupby(["k", "s"])["v"].agg(["count", "sum"])
    last = r.batch_rows()[-1]["rows"]
    assert sorted((str(k), s, c, v) for k, s, _, c, v in last) == sorted(
        (str(k), s, int(c), int(v)) for (k, s), (c, v) in truth.iterrows())


@settings(max_examples=80, deadline=None)
@given(rs=recs, offset=st.integers(-4_999, 4_999), mode=st.sampled_from(["append", "update", "complete"]))
def test_an_offset_shifts_the_windows_and_nothing_else(rs, offset, mode):
    """Windows with startTime o over event times t are the windows without offset over t - o, moved by o
    (the watermark and the trigger move with them: arrival times shift too)."""
    ts, arr, keys, vals = _cols(rs)
    cfg = dict(window_kind="sliding", size=10_000, slide=5_000, delay=2_000, output_mode=mode)
    cfg_b = dict(cfg, trigger_interval=1)  # so shifted arrivals keep their batches
    a = run_microbatch(MicroBatchConfig(**cfg_b, offset=offset), ts, arr, keys, vals)
    b = run_microbatch(MicroBatchConfig(**cfg_b), ts - offset, arr - offset, keys, vals)
    assert np.array_equal(a.fate, b.fate)
    assert np.array_equal(a.emissions.start, b.emissions.start + offset)
    assert np.array_equal(a.emissions.count, b.emissions.count)


# ---------------------------------------------------------------------------- the public API
def _log():
    rows = [(1, "a", 10_000), (2, "a", 5_000), (3, "a", 9_999), (3, "b", 12_000), (6, "a", 30_000), (8, "a", 1_000)]
    return toolkit.EventLog.from_arrays([B + r[2] for r in rows], [B + r[0] * 1000 - 300 for r in rows],
                                        key=[r[1] for r in rows])


def test_replay_complete_mode_and_offsets():
    log = _log()
    r = toolkit.replay(log, semantics="spark", window="tumbling:10s,-2500ms", delay="0", output_mode="complete")
    assert set((r.emissions["window_start"].astype("int64") - 7_500) % 10_000) == {0}
    assert r.summary()["dropped"] == 0 and r.summary()["late_firings"] > 0
    assert set(r.emissions["timing"]) <= {"early", "on_time", "late"}
    app = toolkit.replay(log, semantics="spark", window="tumbling:10s,-2500ms", delay="0")
    assert app.summary()["dropped"] > 0 and app.summary()["late_firings"] == 0


def test_setting_errors_name_the_option():
    with pytest.raises(SettingError, match="output_mode"):
        toolkit.replay(_log(), semantics="spark", window="session:5s", output_mode="update")
    with pytest.raises(SettingError, match="output_mode"):
        toolkit.replay(_log(), semantics="spark", window="tumbling:10s", output_mode="full")
    with pytest.raises(SettingError, match="window"):
        toolkit.replay(_log(), semantics="spark", window="sliding:10s/5s,5s")


def test_replay_with_a_declared_silent_input():
    """``microbatch_parts(..., sources=...)``: a declared partition without valid rows holds the min watermark."""
    from toolkit.replays.arrays import log_arrays
    from toolkit.semantics import get
    from toolkit.semantics.structured_streaming.replay import microbatch_parts
    from toolkit.settings import Setting

    log = _log()
    s = Setting.parse(semantics="spark", window="tumbling:10s", partitions_as_sources=True)
    a = log_arrays(log, s, get(s.semantics))
    held = microbatch_parts(log, s, a, sources=[0, 1])
    free = microbatch_parts(log, s, a)
    op = lambda p: p["watermarks"].query("level == 'operator'")["watermark"].astype("int64")  # noqa: E731
    assert (op(held) == 0).all() and op(free).max() > 0


@pytest.mark.parametrize("kind", ["tumbling", "session"])
def test_complete_mode_output_too_large_is_refused_naming_output_mode(monkeypatch, kind):
    from toolkit.engine.microbatch import aggregation

    monkeypatch.setattr(aggregation, "MAX_COMPLETE_ROWS", 5)
    cfg = MicroBatchConfig(kind, size=10_000 if kind == "tumbling" else 0, gap=5_000 if kind == "session" else 0,
                           output_mode="complete")
    with pytest.raises(MicroBatchConfigError, match="output_mode: complete mode re-emits .* result rows"):
        _run(cfg, LATE)


def test_replay_parts_with_per_record_gaps():
    """``microbatch_parts(..., gap=...)`` (the hook for a per-record gap setting): rows without a
    session are ``invalid``; with a delay nothing passes, every session is exact at its first result."""
    from toolkit.replays.arrays import log_arrays
    from toolkit.semantics import get
    from toolkit.semantics.structured_streaming.replay import microbatch_parts
    from toolkit.settings import Setting

    log = _log()
    s = Setting.parse(semantics="spark", window="session:1s", delay="1h")
    a = log_arrays(log, s, get(s.semantics))
    gaps = np.array([4_000, np.nan, 6_000, 0, 2_000, -5], dtype=float)
    p = microbatch_parts(log, s, a, gap=gaps)
    summ = p["_summary"]
    assert summ["invalid"] == 3 and summ["dropped"] == 0 and summ["on_time"] + summ["late_accepted"] == 3
    assert summ["records"] == 6 and summ["exact_windows"] == 1.0 and summ["completeness_final"] == 1.0
    assert (p["fates"]["fate"] == "invalid").sum() == 3
