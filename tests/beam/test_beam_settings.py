"""``semantics="beam"`` settings: Beam's own (``beam_trigger``, ``timestamp_combiner``), the ones
shared with Flink (lateness, accumulation, the watermark), refusals naming the option, text
round trips and grids over a semantics axis."""
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from toolkit.semantics.beam.trigger import BeamTrigger, parse_beam_trigger
from toolkit.settings import Setting, SettingError, grid


def test_beam_setting_round_trips_through_text():
    s = Setting.parse(semantics="beam", window="tumbling:10s", beam_trigger="after_watermark(early=processing:5s, late=count:1)",
                      lateness="1min", accumulation="discarding", timestamp_combiner="earliest", delay="2s")
    assert str(s.beam_trigger) == "after_watermark(early=after_processing_time:5s,late=after_count:1)"
    assert Setting.parse(str(s)) == s
    assert Setting.from_row(s.row()) == s
    d = Setting.parse(semantics="beam")
    assert d.beam_trigger == BeamTrigger("default") and d.timestamp_combiner == "end_of_window"
    assert Setting.parse(str(d)) == d


@pytest.mark.parametrize("text,spec", [
    ("default", None),
    ("after_count:3", {"type": "after_count", "n": 3}),
    ("repeatedly(after_count:3)", {"type": "repeatedly", "trigger": {"type": "after_count", "n": 3}}),
    ("after_processing_time:5s", {"type": "after_processing_time", "delay_ms": 5000}),
    ("after_watermark(early=processing:5s,late=count:1)",
     {"type": "after_watermark", "early": {"type": "after_processing_time", "delay_ms": 5000},
      "late": {"type": "after_count", "n": 1}}),
    ("after_any(after_count:2,watermark)", {"type": "after_any", "triggers": [{"type": "after_count", "n": 2},
                                                                             {"type": "after_watermark"}]}),
    ("orfinally(repeatedly(count:2),after_count:5)",
     {"type": "orfinally", "main": {"type": "repeatedly", "trigger": {"type": "after_count", "n": 2}},
      "finally": {"type": "after_count", "n": 5}}),
])
def test_beam_trigger_spellings_give_the_scenario_spec(text, spec):
    t = parse_beam_trigger(text)
    assert t.to_spec() == spec
    assert parse_beam_trigger(str(t)) == t


@pytest.mark.parametrize("given,option,words", [
    ({"semantics": "beam", "trigger": "count:3"}, "trigger", "beam_trigger"),
    ({"beam_trigger": "default"}, "beam_trigger", "semantics='beam'"),
    ({"timestamp_combiner": "earliest"}, "timestamp_combiner", "semantics='beam'"),
    ({"semantics": "beam", "beam_trigger": "after_count:0"}, "beam_trigger", "positive"),
    ({"semantics": "beam", "beam_trigger": "after_processing_time:500ms"}, "beam_trigger", "whole seconds"),
    # real Beam fails on these (tests/fixtures/beam/corpus/fail_*): refused with its reason
    ({"semantics": "beam", "beam_trigger": "after_processing_time:1500ms"}, "beam_trigger",
     "TypeError: 'float' object cannot be interpreted as an integer (transforms/trigger.py"),
    ({"semantics": "beam", "beam_trigger": "after_watermark(early=processing:1500ms)"}, "beam_trigger", "TypeError"),
    ({"semantics": "beam", "window": "sliding:2s/5s"}, "window",
     "gets no window, and real Beam (2.77, streaming DirectRunner) then fails the job (IndexError"),
    ({"semantics": "beam", "beam_trigger": "repeatedly(after_count:3"}, "beam_trigger", "missing ')'"),
    ({"semantics": "beam", "beam_trigger": "afterr_count:3"}, "beam_trigger", "did you mean 'after_count'"),
    ({"semantics": "beam", "accumulation": "retracting"}, "accumulation", "discarding"),
    ({"semantics": "beam", "window": "global"}, "window", "FixedWindows"),
    ({"semantics": "beam", "grace": "1s"}, "grace", "Kafka Streams"),
    ({"semantics": "beam", "output_mode": "update"}, "output_mode", "not a Beam setting"),
    ({"semantics": "beam", "evictor": "count:3"}, "evictor", "not a Beam setting"),
    ({"semantics": "beam", "timestamp_combiner": "median"}, "timestamp_combiner", "end_of_window"),
])
def test_what_beam_has_no_counterpart_for_is_refused_naming_the_option(given, option, words):
    with pytest.raises(SettingError) as e:
        Setting.parse(**given)
    assert e.value.setting == option
    assert words in str(e.value)


def test_a_grid_leaves_out_the_beam_rows_real_beam_fails_on():
    rows = grid(semantics=["flink", "beam"], window=["sliding:2s/5s", "sliding:5s/2s"])
    beam = sorted(str(r.window) for r in rows if r.semantics == "beam")
    assert beam == ["sliding:5s/2s"]
    assert len([r for r in rows if r.semantics == "flink"]) == 2


def test_a_semantics_axis_keeps_each_engines_own_settings_on_its_own_rows():
    rows = grid(semantics=["flink", "spark", "kafka_streams", "beam"], window="tumbling:10s", delay=["1s", "2s"],
                lateness=["0s", "5s"], beam_trigger=["default", "repeatedly(after_count:2)"],
                accumulation=["accumulating", "retracting"], timestamp_combiner=["end_of_window", "latest"])
    by = {}
    for r in rows:
        by.setdefault(r.semantics, []).append(r)
    assert all(r.beam_trigger is None and r.timestamp_combiner is None for s in ("flink", "spark", "kafka_streams") for r in by[s])
    beam = by["beam"]
    assert len(beam) == 2 * 2 * 2 * 2  # delay x lateness x trigger x combiner; no retracting row
    assert {r.accumulation for r in beam} == {"accumulating"}
    assert {str(r.beam_trigger) for r in beam} == {"default", "repeatedly(after_count:2)"}
    assert len(by["flink"]) == 2 * 2 * 2  # Beam's axes collapse on Flink rows


def test_replace_to_another_engine_drops_beams_settings():
    s = Setting.parse(semantics="beam", beam_trigger="after_count:2", timestamp_combiner="latest", lateness="1s")
    f = s.replace(semantics="flink")
    assert f.beam_trigger is None and f.timestamp_combiner is None and f.lateness == 1000


_leaf = st.one_of(st.just("default"), st.just("after_watermark"), st.integers(1, 5).map(lambda n: f"after_count:{n}"),
                  st.integers(0, 20).map(lambda s: f"after_processing_time:{s}s"))


def _tree(children):
    return st.one_of(
        children.map(lambda c: f"repeatedly({c})"),
        st.lists(children, min_size=1, max_size=3).flatmap(
            lambda cs: st.sampled_from(["after_any", "after_all", "after_each"]).map(lambda k: f"{k}({','.join(cs)})")),
        st.tuples(children, children).map(lambda p: f"orfinally({p[0]},{p[1]})"),
        st.tuples(st.none() | children, st.none() | children).map(
            lambda p: "after_watermark(" + ",".join(f"{k}={v}" for k, v in zip(("early", "late"), p) if v) + ")"
            if any(p) else "after_watermark"),
    )


@hsettings(max_examples=150, deadline=None)
@given(st.recursive(_leaf, _tree, max_leaves=6))
def test_any_beam_trigger_text_round_trips_and_builds(text):
    from toolkit.engine.beam.triggers import trigger_from_spec

    t = parse_beam_trigger(text)
    assert parse_beam_trigger(str(t)) == t
    s = Setting.parse(semantics="beam", beam_trigger=text)
    assert Setting.parse(str(s)) == s
    trigger_from_spec(t.to_spec())  # the engine takes every spelling
