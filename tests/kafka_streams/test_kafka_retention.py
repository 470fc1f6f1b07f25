"""The window store's retention (``Materialized.withRetention``, setting ``retention``).

Kafka's rules (``WindowStoreMaterializer``, ``SlidingWindowStoreMaterializer``,
``SessionStoreMaterializer``): the retention defaults to, and may not be below, size + grace
(TimeWindows), 2 x timeDifference + grace (SlidingWindows), inactivityGap + grace
(SessionWindows); below it building the topology throws ``IllegalArgumentException``. The store
forgets windows that lie ``retention`` behind its newest window; an on-close aggregation emits
from the store, so a closed window the once-a-second emission did not reach before the store
forgot it is never emitted: a longer retention keeps it. Kafka's own retention tests are
re-expressed on the engine in ``test_kafka_windowed_streams.py`` and ``test_kafka_window_aggregate.py``;
these check the ``retention`` setting end to end.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.cli import main
from toolkit.engine.kafka_streams import Emit, SessionWindows, SlidingWindows, TimeWindows, run_windowed_aggregation
from toolkit.errors import UserError
from toolkit.semantics.kafka_streams import min_retention as kafka_min_retention
from toolkit.settings import Setting, SettingError

BASE = 1_700_000_000_000  # a multiple of 10 s: Kafka's TimeWindows start at multiples of the advance from 0


def test_setting_refuses_a_retention_kafka_throws_on():
    """``SlidingWindowedKStreamImplTest.shouldThrowIllegalArgumentWhenRetentionIsTooSmall`` (the
    engine's form: ``tests/kafka_streams/test_kafka_windowed_streams.py``) as a setting: the
    option is named."""
    with pytest.raises(UserError, match="retention"):
        SlidingWindows.of_time_difference_and_grace(100, 1000).with_retention(1)
    with pytest.raises(SettingError, match="too small") as e:
        Setting.parse(semantics="kafka_streams", window="kafka_sliding:100ms", grace="1s", retention="1ms")
    assert e.value.setting == "retention"
    assert "2 x time difference + grace" in str(e.value)


@pytest.mark.parametrize("window, low, rule", [
    ("tumbling:10s", 12_000, "window size + grace"),                # WindowStoreMaterializer
    ("sliding:10s/5s", 12_000, "window size + grace"),
    ("kafka_sliding:10s", 22_000, "2 x time difference + grace"),   # SlidingWindowStoreMaterializer
    ("session:10s", 12_000, "inactivity gap + grace"),              # SessionStoreMaterializer
])
def test_retention_minimum_is_the_store_materializers_rule(window, low, rule):
    s = Setting.parse(semantics="kafka_streams", window=window, grace="2s")
    assert kafka_min_retention(s) == (low, rule)
    assert Setting.parse(semantics="kafka_streams", window=window, grace="2s", retention=low).retention == low
    with pytest.raises(SettingError, match=rule.replace("+", r"\+")) as e:
        Setting.parse(semantics="kafka_streams", window=window, grace="2s", retention=low - 1)
    assert e.value.setting == "retention"


def test_retention_is_kafka_streams_own_setting():
    with pytest.raises(SettingError) as e:
        Setting.parse(window="tumbling:10s", retention="1min")
    assert e.value.setting == "retention"
    s = Setting.parse(semantics="kafka_streams", window="tumbling:10s", retention="1min", emit="final")
    assert Setting.from_row(s.row()) == s and s.row()["retention_ms"] == 60_000
    # a grid over semantics: retention applies to the Kafka Streams rows only
    rows = toolkit.settings.grid(semantics=["flink", "kafka_streams"], window="tumbling:10s", retention=["20s", "1min"])
    assert sorted(str(r.retention) for r in rows) == ["20000", "60000", "None"]


def _throttled_log() -> pd.DataFrame:
    """Key k: a record in window [0 s, 10 s), then 100 ms of arrival time later one at 30 s. The
    on-close emission looks at most once per second of (arrival) time, so at the 30 s record
    it does not look; the store's newest window is then [30 s, 40 s)."""
    return pd.DataFrame({"event_time": BASE + np.array([5_000, 30_000, 31_000]),
                         "arrival_time": BASE + np.array([0, 100, 5_000]), "key": ["k", "k", "k"],
                         "partition": [0, 0, 0]})


def test_emit_final_loses_a_window_the_store_no_longer_keeps_and_retention_keeps_it():
    log = toolkit.load_log(_throttled_log(), time_unit="ms")
    kw = dict(semantics="kafka_streams", window="tumbling:10s", emit="final")
    short = toolkit.replay(log, **kw)
    long_ = toolkit.replay(log, **kw, retention="40s")
    # default retention 10 s: [0 s, 10 s) is older than 30 s - 10 s when the emission next looks: never emitted
    assert short.summary()["completeness_final"] == pytest.approx(2 / 3)
    assert (short.emissions["window_start"] == BASE).sum() == 0
    # retention 40 s: the store still returns it, and it is emitted with its count
    assert long_.summary()["completeness_final"] == 1.0
    first = long_.emissions[long_.emissions["window_start"] == BASE]
    assert first["count"].tolist() == [1] and not first["at_end"].any()
    assert ".withRetention(Duration.ofSeconds(40))" in toolkit.deploy(long_.setting, engine="kafka-streams").code


def test_suppress_and_update_do_not_depend_on_retention_for_time_windows():
    """A TimeWindows store forgets a window only once its task's stream time has closed it
    (store time <= stream time): with updates forwarded at once (update, suppress) nothing waits
    in the store, so every retention Kafka accepts gives the same results."""
    log = toolkit.load_log(_throttled_log(), time_unit="ms")
    for emit in ("update", "suppress"):
        a = toolkit.replay(log, semantics="kafka_streams", window="tumbling:10s", emit=emit).summary()
        b = toolkit.replay(log, semantics="kafka_streams", window="tumbling:10s", emit=emit, retention="1h").summary()
        assert a["completeness_final"] == b["completeness_final"] == 1.0
        assert a["firings"] == b["firings"]


def test_retention_is_swept_and_sharded_like_the_replay():
    log = toolkit.load_log(_throttled_log(), time_unit="ms")
    df = toolkit.sweep(log, semantics="kafka_streams", window="tumbling:10s", emit="final", retention=[None, "40s"],
                       progress=False)
    assert df["retention_ms"].tolist()[1] == 40_000 and pd.isna(df["retention_ms"].tolist()[0])
    assert df["completeness_final"].tolist() == pytest.approx([2 / 3, 1.0])
    sharded = toolkit.sweep(log, semantics="kafka_streams", window="tumbling:10s", emit="final", retention=[None, "40s"],
                            shards=2, progress=False)
    assert sharded["completeness_final"].tolist() == pytest.approx([2 / 3, 1.0])


def test_cli_retention_option(tmp_path, capsys):
    p = tmp_path / "log.csv"
    _throttled_log().to_csv(p, index=False)
    assert main(["deploy", "--semantics", "kafka_streams", "--window", "tumbling:10s", "--retention", "40s",
                 ]) == 0
    assert ".withRetention(Duration.ofSeconds(40))" in capsys.readouterr().out
    assert main(["replay", str(p), "--semantics", "kafka_streams", "--window", "tumbling:10s", "--retention", "5s"]) != 0
    err = capsys.readouterr().err
    assert "--retention" in err and "too small" in err


def test_engine_retention_default_is_the_minimum():
    assert TimeWindows(10, 5, 2).retention_ms == 12
    assert SlidingWindows(10, 2).retention_ms == 22
    assert SessionWindows(10, 2).retention_ms == 12
    r = run_windowed_aggregation(["a"], [5], windows=TimeWindows(10, 10, 0).with_retention(30), emit=Emit("on_window_close"))
    assert "withRetention(Duration.ofMillis(30))" in r.description["deployable"]
