"""Beam's closed form (``path="fast"``, ``toolkit.semantics.beam.fast``) gives the replay's figures:
on every real-Beam conformance case it covers (each case's elements, watermarks and processing
time as a log and a timeline), on random logs under hypothesis (whole, in random key shards, and
through ``toolkit.sweep`` in-process with ``shards`` > 1), and its figures are real Beam's panes
counted. Which rows take it, and what ``path`` says."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import toolkit
from toolkit.engine.flink.timeline import TickShape, WatermarkTimeline
from toolkit.fast.evaluate import Shard
from toolkit.log import EventLog
from toolkit.metrics.summary import SUMMARY_COLUMNS, merge_config, partial_rows
from toolkit.semantics.beam import fast
from toolkit.semantics.beam.sweep import beam_partial, shardable
from toolkit.settings import Setting, SettingError
from toolkit.sweeps.timelines import build_timelines, local_sources

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "beam" / "corpus"

#: the triggers of the closed form, as ``beam_trigger`` spells them
TRIGGERS = ["default", "after_watermark", "after_watermark(late=after_count:1)", "after_watermark(late=default)",
            "after_watermark(late=repeatedly(after_count:1))"]


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9 * max(1.0, abs(a))
    return a == b


def _figures(parts: list[dict], tl) -> dict:
    rows = pd.concat([partial_rows(0, p) for p in parts], ignore_index=True)
    return merge_config(rows, start_time=tl.start_time, end_time=tl.end_time)


def _diff(a: dict, b: dict) -> list:
    return [(c, a[c], b[c]) for c in SUMMARY_COLUMNS if not _same(a[c], b[c])]


# -- the real-Beam conformance corpus as logs ---------------------------------------------------


def _trigger_words(spec: dict | None) -> str:
    if spec is None or spec["type"] == "default":
        return "default"
    if spec["type"] == "after_count":
        return f"after_count:{spec['n']}"
    if spec["type"] == "repeatedly":
        return f"repeatedly({_trigger_words(spec['trigger'])})"
    if spec["type"] == "after_watermark":
        parts = [f"{k}={_trigger_words(spec[k])}" for k in ("early", "late") if k in spec]
        return "after_watermark" + (f"({','.join(parts)})" if parts else "")
    return spec["type"]  # not a closed-form trigger: the case is left out


def _case_setting(case: dict) -> Setting | None:
    """The case's ``WindowInto`` as a setting, None when the closed form does not cover it."""
    w = case["window"]
    if w["type"] == "fixed":
        window = f"tumbling:{w['size']}ms,{w.get('offset', 0)}ms"
    elif w["type"] == "sliding":
        window = f"sliding:{w['size']}ms/{w['period']}ms,{w.get('offset', 0)}ms"
    else:
        return None
    try:
        s = Setting.parse(semantics="beam", window=window, beam_trigger=_trigger_words(case.get("trigger")),
                          lateness=f"{case.get('allowed_lateness_ms', 0)}ms",
                          accumulation=case.get("accumulation", "accumulating"),
                          timestamp_combiner=case.get("timestamp_combiner", "end_of_window"))
    except SettingError:  # e.g. sliding windows shorter than their period (refused for Beam)
        return None
    return s if fast.fast_applies(s) else None


def _case_log(case: dict) -> tuple[Shard, WatermarkTimeline, list]:
    """The case's elements as records (arrival = the processing time, values as given) and its
    watermark advances as the operator timeline (Beam's ``w`` is Flink's ``w - 1``), each after
    the element before it."""
    clock, recs, times, after, wms = 0, [], [], [], []
    for ev in case["events"]:
        if "processing_time_advance" in ev:
            clock += ev["processing_time_advance"]
        elif "element" in ev:
            e = ev["element"]
            recs.append((str(e["key"]), e["ts"], clock, e["value"]))
        elif not wms or ev["watermark"] - 1 > wms[-1]:
            times.append(clock)
            after.append(len(recs) - 1)
            wms.append(ev["watermark"] - 1)
    keys, ts, arr, values = zip(*recs)
    shard = Shard(np.asarray(keys, dtype=object), ts, arr, np.arange(len(recs)))
    shape = TickShape(np.asarray(times, dtype=np.int64), np.asarray(after, dtype=np.int64))
    tl = WatermarkTimeline(shape, np.asarray(wms, dtype=np.int64), int(min(arr)), clock)
    return shard, tl, list(values)


CASES = [(p, s) for p in sorted(CORPUS.glob("*.json"))
         if "failed" not in (c := json.loads(p.read_text())) and (s := _case_setting(c)) is not None]


def test_the_corpus_has_closed_form_cases_of_every_kind():
    kinds = {(type(s.window).__name__, str(s.beam_trigger), s.accumulation) for _, s in CASES}
    assert len(CASES) >= 30
    assert {t for _, t, _ in kinds} >= {"default", "after_watermark", "after_watermark(late=after_count:1)"}
    assert {w for w, _, _ in kinds} == {"Tumbling", "Sliding"} and {a for _, _, a in kinds} == {"accumulating", "discarding"}


@pytest.mark.parametrize("path, s", CASES, ids=[p.stem for p, _ in CASES])
def test_corpus_case_closed_form_equals_the_replay_and_real_beams_panes(path, s):
    case = json.loads(path.read_text())
    shard, tl, values = _case_log(case)
    got = _figures([fast.partial(shard, s, tl)], tl)
    assert not _diff(got, _figures([beam_partial(shard, s, "beam", tl)], tl))
    # real Beam's panes, counted: panes, LATE panes, and each record's fate (values are unique)
    panes = case["expected"]
    assert got["firings"] == len(panes) and got["late_firings"] == sum(p["timing"] == "LATE" for p in panes)
    assert len(set(values)) == len(values)
    on = {v for p in panes if p["timing"] != "LATE" for v in p["values"]}
    taken = {v for p in panes for v in p["values"]}
    assert (got["on_time"], got["late_accepted"], got["dropped"]) == (len(on), len(taken - on), len(values) - len(taken))


# -- random logs (hypothesis) -----------------------------------------------------------------


@st.composite
def beam_logs(draw):
    n = draw(st.integers(1, 70))
    arrival = np.sort(np.asarray(draw(st.lists(st.integers(0, 3_000), min_size=n, max_size=n)), dtype=np.int64))
    late = np.asarray(draw(st.lists(st.sampled_from([0, 0, 7, 40, 150, 600, 1_500]), min_size=n, max_size=n)))
    keys = np.asarray(draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=n, max_size=n)), dtype=object)
    part = np.asarray(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64)
    return EventLog.from_arrays(1_000_000 + arrival - late, arrival_time=1_000_000 + arrival, key=keys, partition=part)


@st.composite
def beam_settings(draw):
    size = draw(st.sampled_from([50, 100, 250]))
    if draw(st.booleans()):
        window = f"tumbling:{size}ms,{draw(st.integers(0, size - 1))}ms"
    else:
        window = f"sliding:{size}ms/{draw(st.sampled_from([d for d in (25, 50, 100, 250) if d <= size]))}ms"
    return Setting.parse(semantics="beam", window=window, beam_trigger=draw(st.sampled_from(TRIGGERS)),
                         accumulation=draw(st.sampled_from(["accumulating", "discarding"])),
                         lateness=f"{draw(st.sampled_from([0, 1, 30, 200, 1_000]))}ms",
                         delay=f"{draw(st.sampled_from([0, 1, 20, 100]))}ms",
                         interval=f"{draw(st.sampled_from([0, 10, 200]))}ms",
                         idleness=draw(st.sampled_from([None, "300ms"])))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log=beam_logs(), s=beam_settings(), shards=st.integers(1, 4), seed=st.integers(0, 99))
def test_closed_form_equals_the_replay_in_any_key_shards(log, s, shards, seed):
    """fast == replay on the whole log, and the closed form's partials of random key shards
    merge to the same figures."""
    t = log.table
    tl = build_timelines([s], local_sources(t))[0]
    keys = t["key"].to_numpy(dtype=object)
    whole = Shard(keys, t["event_time"], t["arrival_time"], t["row"])
    want = _figures([beam_partial(whole, s, "beam", tl)], tl)
    assert not _diff(_figures([fast.partial(whole, s, tl)], tl), want)
    codes = np.random.default_rng(seed).integers(0, shards, 4)[pd.factorize(keys, sort=True)[0]]
    parts = [fast.partial(Shard(keys[codes == i], t["event_time"][codes == i], t["arrival_time"][codes == i],
                                t["row"][codes == i]), s, tl) for i in range(shards)]
    assert not _diff(_figures(parts, tl), want)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log=beam_logs(), configs=st.lists(beam_settings(), min_size=1, max_size=4, unique=True))
def test_sweep_rows_take_the_fast_path_and_equal_the_replay(log, configs):
    """``toolkit.sweep`` in-process: fast rows unsharded and in 3 shards equal the replay's
    rows (``path="engine"``) and ``replay(...).summary()``."""
    fast_rows = toolkit.sweep(log, configs, progress=False)
    sharded = toolkit.sweep(log, configs, shards=3, progress=False)
    step = toolkit.sweep(log, configs, path="engine", progress=False)
    assert set(fast_rows["path"]) == {"fast"} and set(step["path"]) == {"beam"}
    for i, s in enumerate(configs):
        a, b, c = (f.iloc[i][SUMMARY_COLUMNS].to_dict() for f in (fast_rows, sharded, step))
        assert not _diff(a, c) and not _diff(b, c)
    summary = toolkit.replay(log, configs[0]).summary()
    assert not _diff(fast_rows.iloc[0][SUMMARY_COLUMNS].to_dict(), summary)


# -- which rows, which path --------------------------------------------------------------------


@pytest.mark.parametrize("kw, applies", [
    (dict(window="tumbling:1s"), True),
    (dict(window="sliding:2s/1s", accumulation="discarding", beam_trigger="after_watermark(late=count:1)"), True),
    (dict(window="tumbling:1s", beam_trigger="after_watermark"), True),
    (dict(window="tumbling:1s", beam_trigger="after_watermark(late=count:2)"), False),
    (dict(window="tumbling:1s", beam_trigger="after_watermark(early=count:2)"), False),
    (dict(window="tumbling:1s", beam_trigger="repeatedly(after_count:1)"), False),
    (dict(window="tumbling:1s", timestamp_combiner="earliest"), False),
    (dict(window="session:1s"), False),
])
def test_where_the_closed_form_applies(kw, applies):
    assert fast.fast_applies(Setting.parse(semantics="beam", **kw)) == applies


def test_event_times_near_beams_end_of_time_take_the_replay():
    s = Setting.parse(semantics="beam", window="tumbling:1s", lateness="1s")
    assert fast.fast_applies(s, (0, 10 ** 12))
    assert not fast.fast_applies(s, (0, fast.EVENT_TIME_BOUND - 1_000))
    assert not fast.fast_applies(s, (-fast.EVENT_TIME_BOUND + 1_500, 0))


def test_a_late_trigger_that_waits_is_evaluated_in_one_piece():
    """``late=after_count:2``: a late element's hold stays until its late pane, so keys are not
    independent; the row runs with every key in one step, sharded or not, and equals the replay."""
    rng = np.random.default_rng(3)
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 6_000, 300))
    log = EventLog.from_arrays(arrival - rng.choice([0, 300, 2_500], 300), arrival_time=arrival,
                               key=rng.choice(["k1", "k2", "k3"], 300).astype(object))
    s = Setting.parse(semantics="beam", window="tumbling:1s", lateness="2s", beam_trigger="after_watermark(late=count:2)")
    assert not shardable(s)
    row = toolkit.sweep(log, [s], shards=2, progress=False).iloc[0]
    assert row["path"] == "beam"
    assert not _diff(row[SUMMARY_COLUMNS].to_dict(), toolkit.replay(log, s).summary())


def test_path_fast_is_refused_naming_path_where_it_does_not_apply():
    log = EventLog.from_arrays(np.arange(20) * 100, arrival_time=np.arange(20) * 100 + 50, key=["a", "b"] * 10)
    with pytest.raises(SettingError) as err:
        toolkit.sweep(log, semantics="beam", window="tumbling:1s", beam_trigger="after_watermark(early=count:2)",
                      path="fast", progress=False)
    assert err.value.setting == "path" and "Beam" in str(err.value)
    assert toolkit.sweep(log, semantics="beam", window="tumbling:1s", path="fast", progress=False)["path"].tolist() == ["fast"]


@pytest.mark.spark
def test_fast_rows_on_spark_equal_the_replay(spark):
    """On Spark the closed form runs per key shard on the executors: the same figures as the
    replay's step in-process, and the rows say ``fast``."""
    rng = np.random.default_rng(8)
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 10_000, 400))
    log = EventLog.from_arrays(arrival - rng.choice([0, 40, 700, 3_000], 400), arrival_time=arrival,
                               key=rng.choice(["a", "b", "c", "d", "e"], 400).astype(object),
                               partition=rng.integers(0, 3, 400))
    configs = [Setting.parse(semantics="beam", window=w, beam_trigger=t, accumulation=a, lateness="1s", delay="200ms")
               for w in ("tumbling:1s", "sliding:1s/500ms") for t in ("default", "after_watermark")
               for a in ("accumulating", "discarding")]
    on_spark = toolkit.sweep(log, configs, execution="spark", spark=spark, shards=3, progress=False)
    step = toolkit.sweep(log, configs, path="engine", progress=False)
    assert set(on_spark["path"]) == {"fast"}
    for i in range(len(configs)):
        assert not _diff(on_spark.iloc[i][SUMMARY_COLUMNS].to_dict(), step.iloc[i][SUMMARY_COLUMNS].to_dict())
