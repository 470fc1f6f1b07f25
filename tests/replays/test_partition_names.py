"""One name per partition (issue 30, item 3): when the log's partition column holds names, the
replay's charts, legends, drop causes and explanations call each partition by its name, as the
drops and fates charts already did ("EWR", never "partition 0" beside "EWR")."""
from __future__ import annotations

import json
import re

import pytest

import toolkit
from toolkit import viz
from toolkit.log import synth

NAMES = ("EWR", "JFK", "LGA")


@pytest.fixture(scope="module")
def replayed():
    # a tenth of the year log's records (drops() searches idle timeouts: quick on 4,000 records); an idle
    # timeout shorter than a night, so that some drops come from idleness and name their partitions
    log = synth.generate("year", 4000, seed=1)
    return log, toolkit.replay(log, window="tumbling:1h", delay="10min", lateness="0", idleness="2h")


def test_result_knows_the_names(replayed):
    log, r = replayed
    assert r.partition_names == ["EWR", "JFK", "LGA"]
    assert [r.partition_label(c) for c in (0, 1, 2)] == list(NAMES)
    numbered = toolkit.replay(toolkit.EventLog.from_arrays([1, 2], [1, 2], partition=[0, 1]), delay=0)
    assert numbered.partition_label(1) == "1"


def test_explanations_and_causes_use_names(replayed):
    log, r = replayed
    causes = " ".join(r.drop_causes())
    assert re.search(r"partitions? (EWR|JFK|LGA)", causes), causes
    assert not re.search(r"partitions? [0-9]", causes), causes
    drops = r.drops()
    assert drops["held_by"].str.contains("partition (?:EWR|JFK|LGA)").any()
    assert not drops["held_by"].str.contains(r"partition \d").any()
    idle = set(",".join(drops["idle_partitions"]).replace(",", " ").split())
    assert idle and idle <= set(NAMES)
    row = int(drops[drops["fate"] == "dropped"]["row"].iloc[0])
    text = str(r.explain(row))
    assert re.search(r"partition (EWR|JFK|LGA)", text) and not re.search(r"partition \d", text), text


def test_charts_use_names(replayed):
    log, r = replayed
    lag = json.dumps(viz.watermark_lag(r, max_points=600).to_dict())
    assert all(f"partition {n}" in lag for n in NAMES) and "partition 0" not in lag
    scatter = viz.event_time_scatter(log, r, y="event_time", max_points=600).to_dict()
    text = json.dumps(scatter)
    assert all(f"partition {n}" in text for n in NAMES) and '"partition 0"' not in text
    assert {row["partition_name"] for rows in scatter["datasets"].values() for row in rows
            if "partition_name" in row} == set(NAMES)
    drops = json.dumps(viz.drops_over_time(log, r).to_dict())
    assert "idle from" in drops and not re.search(r"partition \d idle", drops)
    one = viz.event_time_scatter(log, r, partition=1, max_points=300).to_dict()
    assert one["title"]["text"].endswith("partition JFK")
