"""Beam beside the other engines: translation (``toolkit.replays.translate``), record-by-record
comparison (``toolkit.compare_engines``), per-engine recommendations and the report's engines
section."""
from __future__ import annotations

import numpy as np

import toolkit
from toolkit.log import EventLog
from toolkit.replays.translate import translatable, translate
from toolkit.settings import Setting, semantics_names

T0 = 1_700_000_000_000


def _boundary_log():
    """Window [0, 1 s), delay 0, a watermark after every record. Row 2 (event 999) arrives when the
    largest event time is 1000 = end + delay + lateness: Flink's watermark 999 has cleaned the
    window up (maxTimestamp 999 <= 999), Beam's 1000 is not past the end (1000 > 1000 is false):
    Beam takes it, in a LATE pane. Row 4 (event 998) comes when the maximum is 2000: both drop it."""
    ts = T0 + np.array([500, 1000, 999, 2000, 998])
    return EventLog.from_arrays(ts, arrival_time=T0 + 5000 + np.arange(5), key=["a"] * 5)


def test_beam_takes_a_record_one_millisecond_later_than_flink():
    log = _boundary_log()
    c = toolkit.compare_engines(log, window="tumbling:1s", interval="0ms", semantics=["flink", "beam"])
    assert list(c.fates["fate_flink"]) == ["on_time", "on_time", "dropped", "on_time", "dropped"]
    assert list(c.fates["fate_beam"]) == ["on_time", "on_time", "late_accepted", "on_time", "dropped"]
    d = c.differences("beam", "flink")
    assert list(d["row"]) == [2]
    assert "1 ms later" in " ".join(c.translations["beam"].notes)
    beam = c.results["beam"]
    late = beam.emissions[beam.emissions["beam_timing"] == "LATE"]
    assert len(late) == 1 and int(late["count"].iloc[0]) == 2  # accumulating: the on-time record and row 2
    assert beam.late["reason"].tolist() == ["expired"]
    assert beam.late["watermark"].tolist() == [T0 + 2000]  # Beam's watermark: Flink's + 1 ms


def test_why_beam_dropped_a_record_names_its_watermark_and_the_delay_that_keeps_it():
    log = _boundary_log()
    c = toolkit.compare_engines(log, window="tumbling:1s", interval="0ms", semantics=["beam", "flink"])
    assert not len(c.differences("flink", "beam"))
    beam = toolkit.replay(log, semantics="beam", window="tumbling:1s", interval="0ms")
    from toolkit.semantics import get

    texts, keep = get("beam").why_dropped(beam, np.array([4]))
    assert "expired" in texts[0] and "Beam's watermark was" in texts[0]
    assert keep == [1000]  # a 1 s delay: Beam's watermark 1000 is not past the end
    kept = toolkit.replay(log, semantics="beam", window="tumbling:1s", interval="0ms", delay="1s")
    assert kept.fates["fate"].iloc[4] != "dropped"
    assert toolkit.replay(log, semantics="beam", window="tumbling:1s", interval="0ms", delay="999ms").fates["fate"].iloc[4] == "dropped"


def test_translation_to_and_from_beam():
    assert "beam" in translatable() and list(translatable())[: len(semantics_names())] == list(semantics_names())
    f = Setting.parse(window="tumbling:10s,2s", delay="1s", lateness="5s", idleness="3s", interval="100ms")
    b = translate(f, "beam").setting
    assert (b.semantics, str(b.window), b.delay, b.lateness, b.idleness, b.interval) == ("beam", "tumbling:10s,2s", 1000,
                                                                                          5000, 3000, 100)
    assert str(b.beam_trigger) == "default" and b.accumulation == "accumulating"
    back = translate(Setting.parse(semantics="beam", window="session:5s", delay="2s", lateness="1s",
                                   beam_trigger="after_watermark(early=count:3)", accumulation="discarding",
                                   timestamp_combiner="earliest"), "flink")
    assert (back.setting.semantics, back.setting.delay, back.setting.lateness) == ("flink", 2000, 1000)
    notes = " ".join(back.notes)
    assert "after_watermark(early=after_count:3)" in notes and "discarding" in notes and "earliest" in notes
    k = translate(b.replace(window="tumbling:10s"), "kafka_streams").setting
    assert k.semantics == "kafka_streams" and k.grace == 1000


def test_a_four_engine_sweep_recommends_per_engine_and_the_report_shows_beam(tmp_path):
    from toolkit.log.synth import generate

    log = generate("sample", 1500, seed=3)
    res = toolkit.sweep(log, semantics=list(semantics_names()), window="tumbling:10s", delay=["0s", "1s", "3s"],
                        grace=["0s", "1s", "3s"], beam_trigger=["default", "after_watermark(early=count:50)"],
                        progress=False)
    recs = toolkit.recommend(res, 0.95, per="semantics")
    assert list(recs) == list(semantics_names())
    beam = recs["beam"]
    assert beam["reason"].startswith("Apache Beam: ") and beam["setting"].semantics == "beam"
    assert "beam.WindowInto(" in beam["deploy"]["beam"]
    got = toolkit.replay(log, beam["setting"]).summary()
    assert got["latency_p99_ms"] == beam["row"]["latency_p99_ms"]
    html = toolkit.report(log, sweep=res, out=tmp_path / "r.html").read_text()
    section = html[html.index('id="engines"'):]
    assert "Apache Beam" in section and "beam.WindowInto(" in section
    assert "kept by" in section.lower() or "Apache Beam" in section


def test_the_explorer_flips_to_beam_with_the_watermark_and_lateness_controls():
    n = 400
    rng = np.random.default_rng(12)
    arrival = T0 + np.arange(n, dtype=np.int64) * 50
    event = arrival - rng.integers(0, 800, n)
    event[::40] -= 3000
    log = EventLog.from_arrays(event, arrival, key=np.array(["a", "b"] * (n // 2), dtype=object), partition=np.arange(n) % 2)
    app = toolkit.explore(log, debounce_ms=0, renderer="svg", window="tumbling:1s", delay="500ms", lateness="1s")
    app.controls["semantics"].value = "beam"
    assert app.error is None and app.result.setting.semantics == "beam" and app.result.setting.lateness == 1000
    want = toolkit.replay(log, window="tumbling:1s", delay="500ms", lateness="1s", semantics="beam")
    assert app.result.summary()["dropped"] == want.summary()["dropped"]
