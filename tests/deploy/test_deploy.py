"""toolkit.deploy: the Flink DataStream and Flink SQL code of a setting, its exactness rules, and the CLI."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings as hsettings, strategies as st

import toolkit
from toolkit.cli import main
from toolkit.deployment import Deployment, deploy, engines, java_duration, sql_interval
from toolkit.durations import parse_duration
from toolkit.settings import Setting, SettingError, grid


def test_flink_datastream_names_every_part_of_the_setting():
    d = deploy("window=tumbling:1s delay=2s lateness=5s idleness=2s interval=500ms")
    code = d.code
    assert "WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofSeconds(2))" in code
    assert ".withIdleness(Duration.ofSeconds(2))" in code
    assert ".window(TumblingEventTimeWindows.of(Duration.ofSeconds(1)))" in code
    assert ".allowedLateness(Duration.ofSeconds(5))" in code
    assert "PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(500)" in code
    assert ".trigger(" not in code and ".evictor(" not in code  # the window's own trigger, no evictor
    assert d.exact and d.language == "java"


def test_flink_datastream_trigger_evictor_and_windows():
    code = deploy(window="sliding:10s/5s,1s", trigger="purging:count:5", evictor="time:3s,after").code
    assert "SlidingEventTimeWindows.of(Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(1))" in code
    assert ".trigger(PurgingTrigger.of(CountTrigger.of(5)))" in code
    assert ".evictor(TimeEvictor.of(Duration.ofSeconds(3), true))" in code
    assert "EventTimeSessionWindows.withGap(Duration.ofSeconds(30))" in deploy(window="session:30s").code
    assert "GlobalWindows.createWithEndOfStreamTrigger()" in deploy(window="global_eos").code
    assert "ContinuousEventTimeTrigger.of(Duration.ofSeconds(5))" in deploy(window="global", trigger="continuous:5s").code


def test_legacy_strategy_is_bounded_minus_one_millisecond():
    # legacy watermark = max - delay = forBoundedOutOfOrderness(delay - 1) (which is max - (delay - 1) - 1)
    assert "forBoundedOutOfOrderness(Duration.ofMillis(499))" in deploy(strategy="legacy", delay="500ms").code
    assert "forMonotonousTimestamps()" in deploy(strategy="monotonous").code


def test_extensions_and_interval_zero_are_notes_not_code():
    d = deploy(strategy="adaptive", delay="1s")
    assert not d.exact and any("Watermark Lab extension" in n for n in d.notes)
    d = deploy(delay="1s", interval=0)
    assert any("onEvent" in n for n in d.notes)
    assert "// NOTE:" in str(d)
    d = deploy(delay="1s", accumulation="retracting")
    assert any("accumulation=retracting" in n for n in d.notes)


def test_flink_sql_watermark_is_the_expression_itself():
    """Flink SQL is ``semantics="flink_sql"``'s target: the SQL printed is the setting replayed."""
    d = deploy("window=tumbling:1s delay=2s idleness=2s semantics=flink_sql", engine="flink-sql")
    assert "WATERMARK FOR ts AS ts - INTERVAL '2' SECOND" in d.code  # the expression itself: max - 2 s
    assert "SET 'table.exec.source.idle-timeout' = '2000 ms';" in d.code
    assert "SET 'pipeline.auto-watermark-interval' = '200 ms';" in d.code
    assert "FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))" in d.code
    assert d.exact and d.language == "sql"
    hop = deploy(window="sliding:10s/5s", semantics="flink_sql").code
    assert "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)" in hop  # slide, then size
    assert "SESSION(TABLE events PARTITION BY `key`, DESCRIPTOR(ts), INTERVAL '30' SECOND)" in deploy(
        window="session:30s", semantics="flink_sql").code


def test_flink_sql_refuses_what_it_cannot_express_and_datastream_settings_are_not_sql():
    with pytest.raises(SettingError, match="engine 'flink-sql' deploys semantics='flink_sql'") as e:
        deploy("window=tumbling:1s delay=2s lateness=5s", engine="flink-sql")
    assert e.value.setting == "engine"
    for kwargs, named in ((dict(lateness="5s"), "lateness"), (dict(trigger="count:3"), "trigger"),
                         (dict(window="sliding:10s/3s"), "window"), (dict(window="global"), "window")):
        with pytest.raises(SettingError) as e:
            deploy(semantics="flink_sql", **kwargs)
        assert e.value.setting == named


@hsettings(max_examples=60, deadline=None)
@given(ms=st.integers(min_value=0, max_value=10 * 24 * 3600 * 1000))
def test_duration_literals_read_back(ms):
    m = re.fullmatch(r"Duration\.(ZERO|of(Hours|Minutes|Seconds|Millis)\((\d+)\))", java_duration(ms))
    assert m
    unit = {"Hours": 3_600_000, "Minutes": 60_000, "Seconds": 1000, "Millis": 1, None: 0}[m.group(2)]
    assert (int(m.group(3)) * unit if m.group(3) else 0) == ms
    if ms:
        lit = re.fullmatch(r"INTERVAL '(\d+)(?:\.(\d{3}))?' (HOUR|MINUTE|SECOND)", sql_interval(ms))
        assert lit
        size = {"HOUR": 3_600_000, "MINUTE": 60_000, "SECOND": 1000}[lit.group(3)]
        assert int(lit.group(1)) * size + int(lit.group(2) or 0) == ms


def test_every_grid_setting_renders_in_every_engine():
    for s in grid(window=["tumbling:1s", "sliding:2s/1s", "session:1s", "global"], delay=[0, 1500],
                  lateness=[0, "1s"], strategy=["bounded", "legacy", "monotonous", "time_lag"],
                  idleness=[None, "2s"], interval=[0, 200]):
        assert list(engines(s)) == ["flink"]
        for engine in engines(s):
            d = deploy(s, engine=engine)
            assert d.code and d.setting == s


def test_deploy_takes_a_recommendation_or_a_sweep_row_and_names_bad_engines():
    import pandas as pd

    row = pd.Series(Setting.parse(window="tumbling:1s", delay="2s", lateness="1s").row())
    assert deploy(row).setting.delay == 2000
    rec = {"setting": Setting.parse(delay="300ms"), "reason": "...", "config": {}}
    assert "Duration.ofMillis(300)" in deploy(rec).code
    with pytest.raises(ValueError, match="did you mean 'flink-sql'"):
        deploy(delay="1s", engine="flink_sql")
    assert isinstance(toolkit.deploy(delay="1s"), Deployment) and isinstance(deploy(), Deployment)


def test_toolkit_deploy_is_the_function():
    """``toolkit.deploy`` is a plain function (the module is ``toolkit.deployment``), also once
    the module has been imported (a submodule named ``deploy`` would shadow the function)."""
    import importlib
    import subprocess
    import sys
    import types

    code = ("import toolkit, toolkit.deployment, types\n"
            "assert type(toolkit.deploy) is types.FunctionType and toolkit.deploy is toolkit.deployment.deploy\n"
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
    assert type(importlib.import_module("toolkit.deployment")) is types.ModuleType


def test_another_engine_brings_its_own_deploy_target():
    """An engine's deploy targets are its Semantics' (``deploy_targets`` and ``render``)."""
    from toolkit import semantics as engines_registry

    flink = engines_registry.get("flink")

    class WithTarget(type(flink)):
        deploy_targets = {**type(flink).deploy_targets, "test-engine": ("a test engine", "python")}

        def render(self, s, target):
            if target == "test-engine":
                return Deployment("test-engine", "python", f"delay={s.delay}\n", (), s)
            return super().render(s, target)

    engines_registry.register(WithTarget())
    try:
        assert engines()["test-engine"] == "a test engine"
        assert deploy(delay="1s", engine="test-engine").code == "delay=1000\n"
    finally:
        engines_registry.register(flink)
    assert "test-engine" not in engines()


def test_cli_prints_the_code(capsys):
    assert main(["deploy", "--window", "tumbling:1s", "--delay", "2s", "--lateness", "5s", "--idleness", "2s"]) == 0
    out = capsys.readouterr().out
    assert "forBoundedOutOfOrderness(Duration.ofSeconds(2))" in out and ".allowedLateness(Duration.ofSeconds(5))" in out
    assert main(["deploy", "--semantics", "flink_sql", "--delay", "2s", "--engine", "flink-sql"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("-- Watermark Lab setting") and "INTERVAL '2' SECOND" in out
    assert main(["deploy", "--semantics", "flink_sql", "--delay", "2s", "--engine", "all"]) == 0
    assert "FROM TABLE(TUMBLE(" in capsys.readouterr().out  # its one target


def test_cli_errors_name_the_option(capsys):
    assert main(["deploy", "--delay", "2x"]) == 2
    assert "--delay" in capsys.readouterr().err
    assert main(["deploy", "--engine", "spark"]) == 2
    assert "--engine 'spark'" in capsys.readouterr().err
    assert parse_duration("2s") == 2000


def test_spark_settings_deploy_as_pyspark_and_flink_ones_do_not():
    """A ``semantics="spark"`` setting deploys as the PySpark query the replay assumed
    (``toolkit.semantics.structured_streaming.pyspark_code``, run on real Spark in tests/replays/test_replay_spark.py); an engine
    of the other semantics is refused, naming the option."""
    s = Setting.parse(semantics="spark", window="tumbling:10s", delay="5s", trigger_interval="1s", output_mode="update")
    assert list(engines(s)) == ["spark"]
    d = deploy(s, engine="spark")
    assert d.language == "python" and d.exact
    assert '.withWatermark("event_time", "5 seconds")' in d.code and 'processingTime="1 seconds"' in d.code
    with pytest.raises(SettingError, match="engine 'flink' deploys semantics='flink'.*its engines: spark") as err:
        deploy(s, engine="flink")
    assert err.value.setting == "engine"
    with pytest.raises(SettingError, match="its engines: flink$"):
        deploy(delay="1s", engine="spark")


def test_cli_deploys_a_spark_setting(capsys):
    assert main(["deploy", "--semantics", "spark", "--window", "tumbling:10s", "--delay", "5s",
                 "--trigger-interval", "1s"]) == 0
    assert '.withWatermark("event_time", "5 seconds")' in capsys.readouterr().out
    assert main(["deploy", "--semantics", "spark", "--delay", "5s", "--engine", "flink"]) == 2
    assert "--engine" in capsys.readouterr().err


def test_dynamic_gap_and_stagger_in_flink_java_and_not_in_sql():
    d = deploy(window="dynamic_session:gap_ms", delay="1s")
    assert ".window(EventTimeSessionWindows.withDynamicGap((SessionWindowTimeGapExtractor<Event>) event -> event.gap_ms))" \
        in d.code and d.exact
    with pytest.raises(SettingError) as e:  # Flink SQL's SESSION has one gap
        deploy(window="dynamic_session:gap_ms", semantics="flink_sql")
    assert e.value.setting == "window"
    for stagger, java in (("natural", "NATURAL"), ("random:4", "RANDOM")):
        d = deploy(window="tumbling:10s,1s", stagger=stagger)
        assert f".window(TumblingEventTimeWindows.of(Duration.ofSeconds(10), Duration.ofSeconds(1), WindowStagger.{java}))" in d.code
        assert any("stagger" in n for n in d.notes)
        with pytest.raises(SettingError, match="TUMBLE takes a fixed offset") as e:
            deploy(window="tumbling:10s", stagger=stagger, semantics="flink_sql")
        assert e.value.setting == "stagger"
    assert "WindowStagger" not in deploy(window="tumbling:10s").code
