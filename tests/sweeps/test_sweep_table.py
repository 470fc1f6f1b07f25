"""The ``sweep`` command's terminal table: one block per engine, each with only that engine's
settings (those that vary between its rows) and the main figures, narrow enough for a
160-column terminal even for a four-engine sweep."""
from __future__ import annotations

import numpy as np
import pytest

import toolkit
from toolkit.commands.sweep import results_text
from toolkit.log import EventLog
from toolkit.semantics import get, names


@pytest.fixture(scope="module")
def results():
    rng = np.random.default_rng(3)
    n = 400
    arrival = np.sort(rng.integers(5_000, 25_000, n))
    event = arrival - rng.integers(0, 3_000, n)
    log = EventLog.from_arrays(event, arrival_time=arrival, key=rng.choice(["a", "b", "c"], n).astype(object),
                               partition=rng.integers(0, 2, n))
    return toolkit.sweep(log, semantics=list(names()), window="tumbling:2s", delay=[0, "1s"], lateness=[0, "1s"],
                         grace=[0, "1s"], emit=["update", "final"], execution="local", progress=False)


def test_one_block_per_engine_with_its_own_settings(results):
    text = results_text(results)
    blocks = text.split("\n\n")
    assert [b.splitlines()[0].split(" (")[0] for b in blocks] == [get(n).title for n in names()]
    by_title = {b.splitlines()[0].split(" (")[0]: b.splitlines()[1] for b in blocks}
    assert "grace" in by_title["Kafka Streams"] and "emit" in by_title["Kafka Streams"]
    assert "lateness" not in by_title["Kafka Streams"] and "delay" not in by_title["Kafka Streams"]
    assert "grace" not in by_title["Flink"] and "emit" not in by_title["Flink"] and "lateness" in by_title["Flink"]
    assert "lateness" not in by_title["Spark Structured Streaming"]  # Spark has none: the axis collapsed
    assert "none" not in text.split()  # no other engine's unset settings


def test_fits_a_160_column_terminal(results):
    assert max(len(line) for line in results_text(results).splitlines()) <= 160


def test_one_engine_has_no_heading(results):
    text = results_text(results[results["semantics"] == "flink"])
    assert not text.startswith("Flink") and "\n\n" not in text
