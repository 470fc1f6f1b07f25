"""Replay and sweep agree on what a source is: by default each log partition is a split
with its own watermark generator (Flink's per-split watermarks); ``partitions_as_sources=False``
gives one generator for the whole stream. Both settings give the same fates in both tools."""
from __future__ import annotations

import numpy as np
import pytest

import toolkit
from toolkit.log import EventLog


@pytest.fixture(scope="module")
def log():
    rng = np.random.default_rng(5)
    n = 600
    arrival = np.sort(rng.integers(0, 6000, n))
    event = arrival - rng.exponential(150, n).astype(np.int64)
    partition = rng.integers(0, 3, n)
    # partition 2 is 700 ms behind: with per-partition generators it holds the watermark back
    event[partition == 2] -= 700
    return EventLog.from_arrays(event, arrival_time=arrival, key=rng.integers(0, 4, n).astype(str),
                                partition=partition)


@pytest.mark.parametrize("per_partition", [True, False])
def test_replay_and_sweep_agree(log, per_partition):
    r = toolkit.replay(log, window="tumbling:500ms", delay="100ms", lateness="200ms", interval="100ms",
                       partitions_as_sources=per_partition)
    row = toolkit.sweep(log, window="tumbling:500ms", delay=["100ms"], lateness=["200ms"], interval="100ms",
                        partitions_as_sources=per_partition, execution="local", progress=False).iloc[0]
    fates = r.fates["fate"].value_counts()
    assert bool(row["partitions_as_sources"]) is per_partition
    assert (int(row["on_time"]), int(row["late_accepted"]), int(row["dropped"])) == (
        int(fates.get("on_time", 0)), int(fates.get("late_accepted", 0)), int(fates.get("dropped", 0)))
    assert r.settings["partitions_as_sources"] is per_partition


def test_defaults_are_per_partition(log):
    default = toolkit.replay(log, window="tumbling:500ms", delay="100ms", interval="100ms")
    single = toolkit.replay(log, window="tumbling:500ms", delay="100ms", interval="100ms",
                            partitions_as_sources=False)
    # the lagging partition holds the per-partition watermark back: fewer drops than one generator
    assert (default.fates["fate"] == "dropped").sum() < (single.fates["fate"] == "dropped").sum()
    row = toolkit.sweep(log, window="tumbling:500ms", delay=["100ms"], interval="100ms", execution="local",
                        progress=False).iloc[0]
    assert bool(row["partitions_as_sources"]) is True


def test_partitions_as_sources_must_be_a_bool(log):
    with pytest.raises(ValueError, match="partitions_as_sources must be True or False, got 'no'"):
        toolkit.replay(log, window="tumbling:500ms", partitions_as_sources="no")
