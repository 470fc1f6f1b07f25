"""What the report shows: next to the figures, why Kafka Streams' first-result completeness is low with
``emit=update`` (each update is a result: a window's first one is partial)."""
from __future__ import annotations

import numpy as np
import pandas as pd

import toolkit
from toolkit.reports.report import build, render
from toolkit.semantics.kafka_streams import CHART_NOTE as KAFKA_UPDATE_NOTE


def _log():
    rng = np.random.default_rng(8)
    n = 300
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 30_000, n))
    event = arrival - rng.choice([0, 150, 700, 1_800], n, p=[0.7, 0.15, 0.1, 0.05])
    return toolkit.load_log(pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": rng.choice(["a", "b"], n),
                                          "partition": rng.integers(0, 2, n), "value": 1}), time_unit="ms")


def test_the_figures_table_and_chart_carry_the_kafka_update_note():
    log = _log()
    sweep = toolkit.sweep(log, semantics=["flink", "kafka_streams"], window="tumbling:1s", delay=["0", "1s"])
    context = build(log, sweep=sweep, completeness=0.95)
    sec = next(s for s in context["sections"] if s["anchor"] == "engines")
    # the sweep's Kafka rows have the default emit=update: the by-delay chart says so
    page = render(context)
    assert "emit=update: each update is a result" in page
    # Flink's setting translates to emit=final (Flink's one result per window): no note by that table
    assert "kafka_streams" in sec["settings"][1]["setting"] and "emit=final" in sec["settings"][1]["setting"]
    assert "<caption>" not in sec["figures_table"]


def test_a_figures_table_with_kafka_update_has_the_note():
    from types import SimpleNamespace as NS

    from toolkit.reports.report import _first_result_caption
    from toolkit.settings import Setting

    flink = NS(setting=Setting.parse(window="tumbling:1s"))

    def comparison(emit):
        return NS(translations={"flink": flink,
                                "kafka_streams": NS(setting=Setting.parse(semantics="kafka_streams", emit=emit))})

    assert _first_result_caption(comparison("update")) == KAFKA_UPDATE_NOTE
    assert _first_result_caption(comparison("final")) == _first_result_caption(comparison("suppress")) == ""
    assert _first_result_caption(NS(translations={"flink": flink})) == ""


def test_no_note_without_kafka():
    log = _log()
    sweep = toolkit.sweep(log, semantics=["flink", "spark"], window="tumbling:1s", delay=["0", "1s"])
    sec = next(s for s in build(log, sweep=sweep, completeness=0.95)["sections"] if s["anchor"] == "engines")
    assert "<caption>" not in sec["figures_table"] and "emit=update" not in render(build(log, sweep=sweep))


def test_several_engines_the_sweep_views_are_the_leading_engines():
    log = _log()
    sweep = toolkit.sweep(log, semantics=["flink", "kafka_streams"], window="tumbling:1s", delay=["0", "1s"],
                          lateness=["0", "1s"], grace=["0", "1s"])
    context = build(log, sweep=sweep, completeness=0.95)
    by = {s["anchor"]: s for s in context["sections"]}
    assert by["heatmaps"]["title"] == "Sweep heatmaps (Flink)" and by["tradeoff"]["title"] == "Latency vs completeness (Flink)"
    import json

    for anchor in ("heatmaps", "tradeoff", "explore"):
        for ch in by[anchor]["charts"]:
            assert "Kafka" not in ch["spec_json"], anchor  # no facet or point of another engine
    spec = json.loads(by["heatmaps"]["charts"][0]["spec_json"])
    assert "facet" not in spec  # Flink's rows vary only in delay and lateness here: one panel


def test_the_sweep_table_names_engines_and_leaves_other_engines_settings_empty():
    from toolkit.reports.report import sortable_table

    frame = pd.DataFrame({"semantics": ["flink", "kafka_streams"], "delay_ms": [500, 0], "emit": ["none", "update"],
                          "dropped": [3, 4]})
    html = sortable_table(frame, list(frame.columns))
    assert ">Flink<" in html and ">Kafka Streams<" in html and ">flink<" not in html
    assert ">none<" not in html and ">update<" in html
