"""Issue 26's acceptance line on the bundled sample (5 minutes, 3 partitions): a 2-minute stall
of one partition and a restart with 1 minute of backlog each change the drops of a setting."""
from __future__ import annotations

from pathlib import Path

import pytest

import toolkit
from toolkit.incidents import DUPLICATE_OF, restart, stall

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def sample():
    # the sample carries 6 bad rows on purpose (quarantined)
    return toolkit.load_log(DATA / "sample.csv", event_time="event_time", arrival_time="arrival_time", key="key",
                            partition="partition", value="value", time_unit="ms", max_invalid_fraction=0.001)


def _replay(log):
    return toolkit.replay(log, window="tumbling:10s", delay="1s")


@pytest.fixture(scope="module")
def calm(sample):
    return _replay(sample)


def _dropped_rows(result):
    f = result.fates
    return set(f.loc[f["fate"] == "dropped", "row"].astype(int))


@pytest.mark.parametrize("incident", [
    stall(partition=2, at="1min", duration="2min", drain="500/s"),
    restart(at="2min", downtime="10s", replay_from="1min", source_rate="1000/s"),
    restart(at="2min", downtime="10s", replay_from="1min", source_rate="1000/s", duplicates=True),
], ids=str)
def test_a_stall_and_a_restart_change_the_drops(sample, calm, incident):
    log = incident.apply(sample)
    result = _replay(log)
    assert result.summary()["dropped"] != calm.summary()["dropped"]
    assert _dropped_rows(result) != _dropped_rows(calm)
    # the fates are the transformed log's records: every one, each once
    assert sorted(result.fates["row"].astype(int)) == sorted(log.table["row"])
    assert str(incident).split(":")[0] in ("stall", "restart")
    assert log.incidents and log.incidents[-1] in str(log.describe())
    if DUPLICATE_OF in log.table:
        assert len(log) > len(sample)
