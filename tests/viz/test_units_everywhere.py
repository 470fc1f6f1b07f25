"""Every chart of toolkit.viz, on an epoch log: no axis, legend or tooltip reads raw milliseconds
(a title "(ms)" over numbers such as 45,000, or a bare field in ms): durations carry their unit,
instants are timestamps, shares are percentages."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit import viz


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(5)
    n = 600
    arrival = 1_700_000_000_000 + np.sort(rng.integers(0, 60_000, n))
    event = arrival - rng.choice([0, 400, 1_500, 12_000], n, p=[0.6, 0.2, 0.15, 0.05])
    log = toolkit.load_log(pd.DataFrame({"event_time": event, "arrival_time": arrival, "key": rng.choice(["a", "b"], n),
                                         "partition": rng.integers(0, 2, n), "value": 1}), time_unit="ms")
    r = toolkit.replay(log, window="tumbling:1s", delay="500ms", lateness="1s")
    sweep = toolkit.sweep(log, window="tumbling:1s", delay=["0", "1s", "5s"], lateness=["0", "2s"])
    engines = toolkit.sweep(log, semantics=["flink", "spark"], window="tumbling:1s", delay=["0", "1s", "5s"])
    c = toolkit.compare_engines(log, window="tumbling:1s", delay="500ms", semantics=["flink", "spark"])
    return log, r, sweep, engines, c


def _walk(node, path=""):
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from _walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}[{i}]")


def _raw_ms(spec: dict) -> list[str]:
    bad = []
    for path, node in _walk(spec):
        title = node.get("title")
        if isinstance(title, str) and "(ms)" in title:
            bad.append(f"{path}: title {title!r}")
        field = node.get("field")
        if not isinstance(field, str) or node.get("type") not in ("quantitative", "ordinal"):
            continue
        if path.endswith("/x") or path.endswith("/y") or path.endswith("/color"):
            ms = field.endswith("_ms") or field in ("lag", "latency", "lateness", "delay")
            labelled = "labelExpr" in (node.get("axis") or {}) or "labelExpr" in (node.get("legend") or {})
            if ms and not labelled:
                bad.append(f"{path}: {field} in raw ms")
        if "/tooltip" in path and (field.endswith("_ms") or field == "lag") and node.get("type") == "quantitative":
            bad.append(f"{path}: tooltip {field} in raw ms")
    return bad


def test_no_chart_shows_raw_milliseconds(setup):
    log, r, sweep, engines, c = setup
    charts = {
        "event_time_scatter": viz.event_time_scatter(log, r),
        "lateness_histogram": viz.lateness_histogram(log, r, delay_ms=500),
        "drops_over_time": viz.drops_over_time(log, r),
        "drops_by_partition": viz.drops_by_partition(log, r),
        "watermark_lag": viz.watermark_lag(r),
        "firing_timeline": viz.firing_timeline(r),
        "state_over_time": viz.state_over_time(r),
        "sweep_heatmap": viz.sweep_heatmap(sweep, "latency_p99_ms"),
        "latency_completeness": viz.latency_completeness(sweep, recommendation=None),
        "sweep_sliders": viz.sweep_sliders(sweep),
        "sweep_scatter": viz.sweep_scatter(sweep, "latency_p99_ms", x="delay_ms", y="completeness_first"),
        "engines_by_delay": viz.engines_by_delay(engines),
        "engine_fates": viz.engine_fates(c),
        "disagreements": viz.disagreements(c),
    }
    bad = {name: _raw_ms(ch.to_dict()) for name, ch in charts.items()}
    assert not {k: v for k, v in bad.items() if v}


def test_the_check_sees_raw_milliseconds():
    import altair as alt

    spec = alt.Chart(pd.DataFrame({"delay_ms": [0, 45_000]})).mark_point().encode(
        x="delay_ms:Q", tooltip=[alt.Tooltip("delay_ms:Q", title="delay (ms)")]).to_dict()
    assert len(_raw_ms(spec)) == 3
