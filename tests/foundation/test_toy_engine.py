"""An engine is two folders and a registry line: a toy engine registered here, in a test module,
reaches ``replay``, ``sweep`` (in-process, in shards), ``compare``, ``recommend`` and the command
line with no edit anywhere else.

The toy is a *patient* engine: it waits for the end of input before it fires anything, so it drops
nothing and every window is complete. Its rules reuse Flink's window operator with a watermark
that never passes a window before the end of input (a bounded delay longer than any log).
"""
from __future__ import annotations

import numpy as np
import pytest

import toolkit
from toolkit import semantics as engines
from toolkit.log import EventLog
from toolkit.replays.translate import Intent
from toolkit.semantics.base import Semantics
from toolkit.settings import Setting, SettingError

#: a delay no log here comes near: nothing fires before the end of input
FOREVER = "3000d"


class Patient(Semantics):
    """Fires every window once, at the end of input; drops nothing."""

    name = "patient"
    title = "Patient engine"
    shared = ("window",)
    path = "engine"
    shards_in_process = True

    def check(self, s):
        if s.delay or s.lateness:
            raise SettingError("delay" if s.delay else "lateness", "the patient engine waits for the end of input: "
                               "it takes no delay or lateness")

    def fit_grid(self, values):
        return {k: v for k, v in values.items() if k in ("window", "semantics")}

    @staticmethod
    def _as_flink(s):
        return Setting.parse(window=s.window, delay=FOREVER)

    def replay(self, log, s, *, limits, sources, explicit):
        result = engines.get("flink").replay(log, self._as_flink(s), limits=limits, sources=sources,
                                             explicit=explicit)
        result.setting = s
        return result

    def sweep_paths(self, configs, path, *, event_range, gap_max):
        return engines.get("flink").sweep_paths([self._as_flink(c) for c in configs], path, event_range=event_range,
                                                gap_max=gap_max)

    def timelines(self, configs, sources):
        return engines.get("flink").timelines([self._as_flink(c) for c in configs], sources)

    def evaluate(self, shard, config, path, timeline):
        return engines.get("flink").evaluate(shard, self._as_flink(config), path, timeline)

    def to_intent(self, s):
        return Intent(s.window), ["the patient engine waits for the end of input"]

    def from_intent(self, intent, lateness_as):
        return Setting.parse(window=intent.window, semantics=self.name), ["waits for the end of input"]

    def setting_words(self, row, results=None):
        return f"the patient engine ({row.get('window')} windows, fired at the end of input)"


@pytest.fixture(scope="module")
def patient():
    engine = engines.register(Patient())
    yield engine
    engines.unregister(engine.name)


@pytest.fixture(scope="module")
def log():
    rng = np.random.default_rng(11)
    n = 300
    arrival = np.sort(rng.integers(1_000, 30_000, n))
    event = arrival - rng.integers(0, 4_000, n)
    return EventLog.from_arrays(event, arrival_time=arrival, key=rng.choice(["a", "b", "c"], n).astype(object),
                                partition=rng.integers(0, 2, n))


def test_it_is_registered_and_validates_its_settings(patient):
    assert "patient" in engines.names() and engines.get("patient") is patient
    assert Setting.parse(semantics="patient", window="tumbling:2s").semantics == "patient"
    with pytest.raises(SettingError, match="takes no delay") as e:
        Setting.parse(semantics="patient", delay="1s")
    assert e.value.setting == "delay"


def test_replay(patient, log):
    r = toolkit.replay(log, semantics="patient", window="tumbling:2s")
    s = r.summary()
    assert r.engine is patient and s["dropped"] == 0 and s["on_time"] == s["records"] == 300
    assert s["completeness_first"] == 1.0 and s["at_end_firings"] == s["firings"]


def test_sweep_in_process_and_in_shards_with_the_other_engines(patient, log):
    grid = dict(semantics=["flink", "patient"], window="tumbling:2s", delay=[0, "1s"])
    rows = toolkit.sweep(log, execution="local", progress=False, **grid)
    assert list(rows["semantics"]) == ["flink", "flink", "patient"]  # the delay axis collapses on patient rows
    mine = rows[rows["semantics"] == "patient"].iloc[0]
    assert mine["dropped"] == 0 and mine["completeness_first"] == 1.0
    sharded = toolkit.sweep(log, execution="local", shards=3, progress=False, **grid)
    assert sharded.drop(columns="path").equals(rows.drop(columns="path"))
    rec = toolkit.recommend(rows, completeness=1.0, per="semantics")
    assert "patient" in rec


def test_compare(patient, log):
    c = toolkit.compare_engines(log, Setting.parse(window="tumbling:2s", delay="500ms"), semantics=["flink", "patient"])
    assert (c.fates["fate_patient"] == "on_time").all()
    assert "Patient engine" in c.summary_text()


def test_command_line(patient, log, tmp_path, capsys):
    from toolkit.cli import main

    path = tmp_path / "log.csv"
    log.table.to_csv(path, index=False)
    common = [str(path), "--event-time", "event_time", "--arrival-time", "arrival_time", "--key", "key",
              "--partition", "partition", "--time-unit", "ms"]
    assert main(["replay", *common, "--semantics", "patient", "--window", "tumbling:2s"]) == 0
    assert "dropped" in capsys.readouterr().out
    assert main(["sweep", *common, "--semantics", "flink,patient", "--window", "tumbling:2s", "--delay", "0,1s",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Patient engine (1 rows)" in out and "Flink (2 rows)" in out
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    assert "patient (Patient engine)" in " ".join(capsys.readouterr().out.split())
