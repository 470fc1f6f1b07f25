"""Spec-level tests of the charts (fields, encodings, data), the way Altair tests its own charts."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import toolkit
import toolkit.viz as viz
from toolkit.viz._common import reduce_series

from helpers.fakes import MAX, MIN, SMALL_FATES, fake_result, fake_sweep, small_log


def datasets(spec: dict) -> dict[str, list[dict]]:
    return spec.get("datasets", {})


def layer_rows(spec: dict, layer: dict) -> list[dict]:
    return datasets(spec)[layer["data"]["name"]]


def find_layers(spec: dict, mark: str) -> list[dict]:
    out = []

    def walk(node):
        if isinstance(node, dict):
            m = node.get("mark")
            if m == mark or (isinstance(m, dict) and m.get("type") == mark):
                out.append(node)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(spec)
    return out


@pytest.fixture(scope="module")
def log():
    return small_log()


@pytest.fixture(scope="module")
def result(log):
    return fake_result(log)


# ---------------------------------------------------------------- event time scatter
def test_scatter_points_are_records_coloured_by_fate(log, result):
    spec = viz.event_time_scatter(log, result).to_dict()
    (points,) = find_layers(spec, "circle")
    enc = points["encoding"]
    assert enc["x"]["field"] == "arrival" and enc["y"]["field"] == "event_time"
    assert enc["x"]["type"] == "quantitative"  # small numbers: plain ms, not dates
    assert enc["color"]["field"] == "fate"
    assert enc["color"]["scale"]["domain"] == ["on_time", "late_accepted", "dropped", "never_fired", "invalid"]
    assert enc["color"]["scale"]["range"] == ["#4c78a8", "#f58518", "#e45756", "#b279a2", "#9d9d9d"]
    rows = layer_rows(spec, points)
    assert [r["fate"] for r in sorted(rows, key=lambda r: r["row"])] == SMALL_FATES
    assert [r["arrival"] for r in sorted(rows, key=lambda r: r["row"])] == list(range(100, 1300, 100))
    assert spec["title"] == "Event time vs processing time"  # no sampling note for a small log


def test_scatter_watermark_lines_leave_out_min_and_max_markers(log, result):
    spec = viz.event_time_scatter(log, result).to_dict()
    lines = find_layers(spec, "line")
    assert len(lines) == 2
    op = [ly for ly in lines if ly["mark"]["color"] == "black"][0]
    rows = layer_rows(spec, op)
    assert [(r["time"], r["watermark"]) for r in rows] == [(t, t - 250) for t in range(200, 1400, 200)]
    assert op["mark"]["interpolate"] == "step-after"
    parts = [ly for ly in lines if ly is not op][0]
    assert parts["encoding"]["strokeDash"]["field"] == "series"
    assert sorted({r["series"] for r in layer_rows(spec, parts)}) == ["partition 0", "partition 1"]
    assert all(MIN < r["watermark"] < MAX for r in layer_rows(spec, parts))


def test_scatter_one_partition(log, result):
    spec = viz.event_time_scatter(log, result, partition=1).to_dict()
    (points,) = find_layers(spec, "circle")
    rows = layer_rows(spec, points)
    assert sorted(r["row"] for r in rows) == [1, 3, 5, 7, 9, 11]
    assert {r["partition"] for r in rows} == {1}
    parts = [ly for ly in find_layers(spec, "line") if ly["mark"]["color"] != "black"][0]
    assert {r["series"] for r in layer_rows(spec, parts)} == {"partition 1"}
    assert "partition 1" in spec["title"]


def test_scatter_without_result_colours_by_partition(log):
    spec = viz.event_time_scatter(log).to_dict()
    (points,) = find_layers(spec, "circle")
    assert points["encoding"]["color"]["field"] == "partition_name"  # the log's name of it (its number here)
    assert find_layers(spec, "line") == []


def test_epoch_times_use_utc_time_axes():
    from toolkit.log import EventLog

    base = 1_700_000_000_000
    log = EventLog.from_arrays([base + 5, base + 1], [base + 10, base + 20])
    spec = viz.event_time_scatter(log).to_dict()
    (points,) = find_layers(spec, "circle")
    assert points["encoding"]["x"]["type"] == "temporal"
    assert points["encoding"]["x"]["scale"]["type"] == "utc"
    assert points["encoding"]["y"]["type"] == "temporal"


# ---------------------------------------------------------------- large-log rule
def test_stratified_sample_keeps_rare_fates_whole_and_is_seeded():
    codes = np.zeros(1_000_000, dtype=np.int64)
    codes[::2000] = 2        # 500 dropped
    codes[1::1000] = 1       # 1000 late
    s = viz.stratified_sample(codes, ["on_time", "late_accepted", "dropped"], 2000)
    assert len(s.index) == 2000 and s.sampled
    picked = codes[s.index]
    # water-filling from the rarest: 500 dropped fit whole, then 1500 left for two classes
    assert (picked == 2).sum() == 500 and (picked == 1).sum() == 750 and (picked == 0).sum() == 750
    assert s.counts == {"on_time": 998_500, "late_accepted": 1000, "dropped": 500}
    assert s.note() == ("Sampled: showing 2,000 of 1,000,000 records (stratified, seed 0: 750 of 998,500 on time, "
                        "750 of 1,000 late but accepted, all 500 dropped); counts are exact.")
    s3 = viz.stratified_sample(codes, ["on_time", "late_accepted", "dropped"], 4000)
    assert np.bincount(codes[s3.index], minlength=3).tolist() == [2500, 1000, 500]
    again = viz.stratified_sample(codes, ["on_time", "late_accepted", "dropped"], 2000)
    assert np.array_equal(s.index, again.index)
    # when the rare classes do not fit, each class gets an equal share
    s2 = viz.stratified_sample(codes, ["on_time", "late_accepted", "dropped"], 600)
    assert np.bincount(codes[s2.index], minlength=3).tolist() == [200, 200, 200]


def test_scatter_of_a_large_log_is_sampled_with_a_visible_note():
    from types import SimpleNamespace

    from toolkit.log import EventLog

    n = 60_000
    rng = np.random.default_rng(1)
    arrival = np.arange(n, dtype=np.int64) * 10
    event = arrival - rng.integers(0, 500, n)
    log = EventLog.from_arrays(event, arrival, key="k", partition=0)
    fates = np.full(n, "on_time", dtype=object)
    fates[::100] = "dropped"
    wm = pd.DataFrame({"level": "operator", "id": "op", "time": arrival, "watermark": arrival - 600,
                       "status": "active"})
    result = SimpleNamespace(fates=pd.DataFrame({"row": np.arange(n), "fate": fates}), watermarks=wm)
    spec = viz.event_time_scatter(log, result, max_points=1000, y="event_time").to_dict()
    (points,) = find_layers(spec, "circle")
    rows = layer_rows(spec, points)
    assert len(rows) == 1000
    assert sum(r["fate"] == "dropped" for r in rows) == 500  # 600 dropped do not fit in half: equal shares
    subtitle = " ".join(spec["title"]["subtitle"])
    assert subtitle.startswith("Sampled: showing 1,000 of 60,000 records")
    assert "Watermark lines reduced" in subtitle
    assert all(len(line) <= 110 for line in spec["title"]["subtitle"])  # wrapped, never clipped
    (line,) = find_layers(spec, "line")
    assert len(layer_rows(spec, line)) <= 1000
    assert len(json.dumps(spec)) < 400_000
    # 600 s of event time against delays under 0.5 s: "auto" plots each record's delay instead of a diagonal
    spec = viz.event_time_scatter(log, result, max_points=1000).to_dict()
    assert spec["title"]["text"] == "Record delay over processing time"
    (points,) = find_layers(spec, "circle")
    rows = layer_rows(spec, points)
    assert all(r["delay"] == r["arrival"] - r["event_time"] for r in rows)  # ms: delays are below 1 s
    (line,) = find_layers(spec, "line")
    lag = layer_rows(spec, line)
    assert len(lag) <= 1000 and {r["lag"] for r in lag} <= set(range(600, 620))  # time - (time - 600), sawtooth


def test_reduce_series_keeps_each_bins_extremes():
    t = np.arange(100_000)
    v = np.zeros(100_000)
    v[31_337] = 99.0
    v[77_000] = -5.0
    rt, rv, reduced = reduce_series(t, v, 200)
    assert reduced and len(rt) <= 200
    assert 99.0 in rv and -5.0 in rv
    assert np.all(np.diff(rt) > 0)
    assert reduce_series(t[:10], v[:10], 200)[2] is False


# ---------------------------------------------------------------- lateness
def test_lateness_is_max_seen_before_minus_own():
    event = np.array([14, 10, 12, 20, 3])
    order = np.arange(5)
    assert viz.lateness_of(event, order).tolist() == [0, 4, 2, 0, 17]
    # arrival order differs from row order
    assert viz.lateness_of(np.array([10, 14, 12]), np.array([1, 0, 2])).tolist() == [4, 0, 2]


def test_lateness_histogram_bins_every_late_record(log, result):
    spec = viz.lateness_histogram(log, result, bins=10, delay_ms=100).to_dict()
    panels = find_layers(spec, "bar")
    assert [layer_rows(spec, b)[0]["fate"] for b in panels] == ["on_time", "late_accepted", "dropped"]
    bars = panels[0]
    rows = [r for b in panels for r in layer_rows(spec, b)]
    late = viz.lateness_of(log.table["event_time"].to_numpy(), log.arrival_order())
    assert sum(r["count"] for r in rows) == int((late > 0).sum()) == 4
    by_fate = {}
    for r in rows:
        by_fate[r["fate"]] = by_fate.get(r["fate"], 0) + r["count"]
    assert by_fate == {"on_time": 1, "late_accepted": 1, "dropped": 2}
    assert bars["encoding"]["x"]["bin"] == "binned" and bars["encoding"]["x2"]["field"] == "lateness_end"
    assert "scale" not in bars["encoding"]["y"] and "stack" not in bars["encoding"]["y"]  # linear, not stacked
    assert spec["resolve"]["scale"]["y"] == "independent"  # one panel per fate, each on its own count axis
    rules = find_layers(spec, "rule")
    labels = [r["label"] for ly in rules for r in layer_rows(spec, ly)]
    assert "max 580 ms" in labels and "delay 100 ms" in labels
    assert spec["title"]["subtitle"] == [
        "8 of 12 records (66.7%) arrived in event-time order (lateness 0, not drawn).",
        "Lateness p50 0 ms, p95 453 ms, p99 555 ms, max 580 ms (dashed lines).",
        "Delay 100 ms (red line): 25.00% of records arrive later than it."]


# ---------------------------------------------------------------- drops
def test_drops_by_partition_counts(log, result):
    spec = viz.drops_by_partition(log, result).to_dict()
    rows = datasets(spec)[spec["data"]["name"]]
    got = {(r["partition"], r["fate"]): r["count"] for r in rows}
    assert got == {(0, "on_time"): 4, (0, "late_accepted"): 1, (0, "dropped"): 1,
                   (1, "on_time"): 5, (1, "dropped"): 1}
    assert spec["encoding"]["color"]["field"] == "fate"


def test_drops_by_key_ranks_keys_and_keeps_names_as_data(log, result):
    spec = viz.drops_by_key(log, result, top=1).to_dict()
    rows = datasets(spec)[spec["data"]["name"]]
    # dropped: row 6 (key a) and row 9 (key a)
    assert {r["key"] for r in rows} == {"a"}
    spec = viz.drops_by_key(log, result).to_dict()
    rows = datasets(spec)[spec["data"]["name"]]
    assert {r["key"] for r in rows} == {"a"}
    assert spec["title"]["subtitle"] == ["1 of 1 keys with dropped records (of 3 keys); on-time records not drawn"]
    assert {r["fate"] for r in rows} == {"dropped"}  # on time records are not drawn: they would hide the drops
    counts = viz.fate_counts_by(log, result, "key")
    xss = counts[counts["key"] == "<script>alert(1)</script>"]
    assert xss["count"].sum() == 4


# ---------------------------------------------------------------- timelines
def test_watermark_lag_is_time_minus_watermark(result):
    spec = viz.watermark_lag(result).to_dict()
    rows = datasets(spec)[spec["data"]["name"]]
    op = [r for r in rows if r["series"] == "operator"]
    # the watermark stands still between updates while processing time runs on: a sawtooth
    assert [r["lag"] for r in op] == [250, 449] * 5 + [250, 250]
    assert [r["time"] for r in op][:4] == [200, 399, 400, 599]
    assert {r["series"] for r in rows} == {"operator", "partition 0", "partition 1"}
    assert spec["encoding"]["y"]["field"] == "lag_value" and spec["encoding"]["y"]["title"] == "watermark lag (ms)"
    assert spec["encoding"]["color"]["scale"]["range"][0] == "black"  # the operator


def test_firing_timeline_panes(result):
    spec = viz.firing_timeline(result).to_dict()
    (points,) = find_layers(spec, "point")
    rows = layer_rows(spec, points)
    got = sorted((r["key"], r["window_end"], r["emit_time"], r["pane_type"]) for r in rows)
    assert got == [("a", 500, 800, "on_time"), ("a", 500, 1000, "late"), ("a", 1000, 1200, "on_time"),
                   ("a", 1000, 1300, "retraction"), ("b", 500, 800, "on_time"), ("b", 1000, 1400, "at_end")]
    assert points["encoding"]["color"]["scale"]["domain"] == ["early", "on_time", "late", "at_end", "retraction"]
    assert {r["window"] for r in rows} == {"a [0, 500)", "a [500, 1000)", "b [0, 500)", "b [500, 1000)"}
    assert sorted(r["latency_ms"] for r in rows if r["pane"] == 0) == [200, 300, 300, 400]


def test_firing_timeline_samples_whole_windows(result):
    em = pd.concat([result.emissions.assign(key=f"k{i}") for i in range(500)], ignore_index=True)
    from types import SimpleNamespace

    spec = viz.firing_timeline(SimpleNamespace(emissions=em), max_points=300).to_dict()
    (points,) = find_layers(spec, "point")
    rows = layer_rows(spec, points)
    assert len(rows) <= 300
    per_window = pd.DataFrame(rows).groupby("window").size()
    full = em.assign(window=em["key"] + " [" + em["window_start"].astype(str) + ", " + em["window_end"].astype(str) + ")")
    assert all(per_window[w] == (full["window"] == w).sum() for w in per_window.index)
    assert "windows" in spec["title"]["subtitle"][0]


def test_state_over_time(result):
    spec = viz.state_over_time(result).to_dict()
    rows = datasets(spec)[spec["data"]["name"]] if "data" in spec else next(iter(datasets(spec).values()))
    ow = [r["amount"] for r in rows if r["measure"] == "open windows"]
    assert ow == [0, 2, 3, 4, 2, 3, 1]
    assert len(spec["vconcat"]) == 2


# ---------------------------------------------------------------- sweep
def test_heatmap_encodes_metric_over_delay_and_lateness():
    sw = fake_sweep()
    spec = viz.sweep_heatmap(sw, "latency_p99_ms").to_dict()
    (rect,) = find_layers(spec, "rect")
    enc = rect["encoding"]
    assert enc["x"]["field"] == "x_label" and enc["x"]["type"] == "ordinal" and enc["x"]["title"] == "delay"
    assert enc["x"]["sort"] == ["0 ms", "100 ms", "250 ms", "500 ms", "1 s"]
    assert enc["y"]["title"] == "allowed lateness" and enc["color"] == {"field": "fill", "type": "nominal", "scale": None}
    rows = next(iter(datasets(spec).values()))
    assert len(rows) == 10
    assert {(r["delay_ms"], r["lateness_ms"], r["latency_p99_ms"]) for r in rows} == {
        (d, lat, 400 + d + (5 if lat else 0)) for d in (0, 100, 250, 500, 1000) for lat in (0, 1000)}
    best = min(rows, key=lambda r: r["latency_p99_ms"])
    worst = max(rows, key=lambda r: r["latency_p99_ms"])
    assert best["fill"] == "#fde725" and worst["fill"] == "#440154"  # lower latency is better: brighter
    assert best["ink"] == "black" and worst["ink"] == "white"  # labels readable on their cell
    assert best["value_text"] == "400 ms" and spec["title"]["text"] == "p99 result latency by delay and allowed lateness"
    assert "facet" not in spec
    # side by side, two heatmaps share no colour scale (the colours are the cells' own)
    both = (viz.sweep_heatmap(sw, "completeness_final") | viz.sweep_heatmap(sw, "peak_state_records")).to_dict()
    assert all(ly["encoding"]["color"]["scale"] is None for ly in find_layers(both, "rect"))


def test_heatmap_facets_other_varying_columns():
    sw = pd.concat([fake_sweep(), fake_sweep().assign(interval_ms=50)], ignore_index=True)
    spec = viz.sweep_heatmap(sw, "completeness_first").to_dict()
    assert spec["facet"]["field"] == "setting"
    rows = next(iter(datasets(spec).values()))
    assert {r["setting"] for r in rows} == {"watermark interval 200 ms", "watermark interval 50 ms"}
    idle = pd.concat([fake_sweep(), fake_sweep().assign(idleness_ms=2000)], ignore_index=True)
    idle["idleness_ms"] = idle["idleness_ms"].astype("Int64")
    rows = next(iter(datasets(viz.sweep_heatmap(idle).to_dict()).values()))
    assert {r["setting"] for r in rows} == {"no idleness", "idle timeout 2 s"}  # never idleness_ms=<NA>
    with pytest.raises(ValueError, match="no column 'nope'"):
        viz.sweep_heatmap(sw, "nope")


def test_pareto_frontier():
    sw = fake_sweep()
    front = viz.pareto(sw)
    # lateness 1000 adds 5 ms of p99 for the same first-firing completeness: dominated
    assert front["lateness_ms"].tolist() == [0] * 5
    assert front["delay_ms"].tolist() == [0, 100, 250, 500, 1000]


def test_latency_completeness_marks_frontier_and_recommendation():
    sw = fake_sweep()
    rec = {"row": sw.iloc[4].to_dict(), "reason": "lowest latency_p99_ms with completeness >= 0.92"}
    spec = viz.latency_completeness(sw, recommendation=rec).to_dict()
    points = [ly for ly in find_layers(spec, "point") if ly["mark"].get("shape") != "diamond"][0]
    rows = layer_rows(spec, points)
    assert sum(r["on_frontier"] for r in rows) == 5
    (diamond,) = [ly for ly in find_layers(spec, "point") if ly["mark"].get("shape") == "diamond"]
    (rec_row,) = layer_rows(spec, diamond)
    assert rec_row["x_value"] == 0.65 and rec_row["completeness_first"] == pytest.approx(0.925)
    assert rec_row["label"] == "recommended: delay 250 ms, allowed lateness 0 ms"
    assert spec["layer"][2]["encoding"]["y"]["axis"]["format"] == ".1%"
    assert spec["title"]["subtitle"] == ["lowest latency_p99_ms with completeness >= 0.92"]
    (target,) = find_layers(spec, "rule")
    assert layer_rows(spec, target) == [{"target": 0.99}]
    long = dict(rec, reason="word " * 40)
    subtitle = viz.latency_completeness(sw, recommendation=long).to_dict()["title"]["subtitle"]
    assert len(subtitle) == 3 and all(len(line) <= 95 for line in subtitle)  # wrapped, not one wide line
    # no recommendation: no diamond
    spec = viz.latency_completeness(sw, recommendation=None).to_dict()
    assert [ly for ly in find_layers(spec, "point") if ly["mark"].get("shape") == "diamond"] == []


def test_recommended_row_accepts_several_shapes():
    sw = fake_sweep()
    row, reason = viz.recommended_row(sw, sw.iloc[[3]])
    assert row.name == 3 and reason == ""
    row, _ = viz.recommended_row(sw, sw.iloc[7])
    assert row.name == 7
    from types import SimpleNamespace

    row, reason = viz.recommended_row(sw, SimpleNamespace(setting={"delay_ms": 500, "lateness_ms": 1000},
                                                          reason="because"))
    assert row.name == 7 and reason == "because"


def test_sweep_sliders_parameters_and_bindings():
    sw = fake_sweep()
    spec = viz.sweep_sliders(sw, initial={"delay_ms": 500, "lateness_ms": 1000}).to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert set(params) == {"x_step", "y_step", "metric"}
    # the controls read the values themselves, not step numbers
    assert params["x_step"]["bind"] == {"input": "radio", "options": [0, 1, 2, 3, 4],
                                        "labels": ["0 ms", "100 ms", "250 ms", "500 ms", "1 s"], "name": "delay: "}
    assert params["y_step"]["bind"]["labels"] == ["0 ms", "1 s"]
    assert params["x_step"]["value"] == 3 and params["y_step"]["value"] == 1
    assert params["metric"]["bind"]["input"] == "select"
    assert params["metric"]["value"] == "completeness_first"
    assert "latency_p99_ms" in params["metric"]["bind"]["options"]
    assert "p99 result latency" in params["metric"]["bind"]["labels"]
    rows = max(datasets(spec).values(), key=len)
    assert len(rows) == 10 * (len(viz.metric_columns(sw)))  # long form: one row per config and metric
    texts = {(r["x_step"], r["y_step"], r["metric_name"]): r["metric_text"] for r in rows}
    assert texts[(0, 0, "latency_p99_ms")] == "400 ms" and texts[(0, 0, "completeness_first")].endswith("%")
    import vl_convert

    vega = vl_convert.vegalite_to_vega(spec)
    assert {s["name"] for s in vega["signals"]} >= {"x_step", "y_step", "metric"}


def test_sweep_sliders_add_a_select_for_other_varying_columns():
    sw = pd.concat([fake_sweep(), fake_sweep().assign(interval_ms=50)], ignore_index=True)
    spec = viz.sweep_sliders(sw).to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert params["other"]["bind"]["options"] == ["watermark interval 200 ms", "watermark interval 50 ms"]


# ---------------------------------------------------------------- every chart compiles and renders
CHARTS = {
    "scatter": lambda log, r, sw: viz.event_time_scatter(log, r),
    "lateness": lambda log, r, sw: viz.lateness_histogram(log, r, delay_ms=100),
    "drops_partition": lambda log, r, sw: viz.drops_by_partition(log, r),
    "drops_key": lambda log, r, sw: viz.drops_by_key(log, r),
    "lag": lambda log, r, sw: viz.watermark_lag(r),
    "firings": lambda log, r, sw: viz.firing_timeline(r),
    "state": lambda log, r, sw: viz.state_over_time(r),
    "heatmap": lambda log, r, sw: viz.sweep_heatmap(sw),
    "frontier": lambda log, r, sw: viz.latency_completeness(sw, recommendation=None),
    "sliders": lambda log, r, sw: viz.sweep_sliders(sw),
}


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_chart_renders_to_svg(name, log, result):
    import vl_convert

    chart = CHARTS[name](log, result, fake_sweep())
    svg = vl_convert.vegalite_to_svg(chart.to_dict())
    assert svg.startswith("<svg") and "<path" in svg or "<text" in svg


def test_sweep_sliders_start_at_the_given_row_of_every_varying_column():
    sw = pd.concat([fake_sweep(), fake_sweep().assign(idleness_ms=2000)], ignore_index=True)
    sw["idleness_ms"] = sw["idleness_ms"].astype("Int64")
    row = sw.iloc[13]
    spec = viz.sweep_sliders(sw, initial=row.to_dict()).to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert params["other"]["value"] == "idle timeout 2 s"
    assert params["other"]["bind"]["options"] == ["no idleness", "idle timeout 2 s"]


def test_firing_tooltips_read_end_of_input_and_clock_times():
    from toolkit.viz.timeline import _instant, window_labels

    assert _instant(MAX, True) == "end of input" and _instant(MIN, False) == "none yet"
    assert _instant(1_700_000_000_123, True) == "2023-11-14 22:13:20.123" and _instant(5000, False) == "5,000 ms"
    em = pd.DataFrame({"key": ["k0", "k1"], "window_start": [1_700_000_000_000, 0], "window_end": [1_700_000_001_000, 1000]})
    assert window_labels(em.iloc[:1]) == ["k0 [22:13:20.000, 22:13:21.000)"]
    assert window_labels(em.iloc[1:]) == ["k1 [0, 1000)"]


# ---------------------------------------------------------------- never fired: shown apart, in words
def _never_fired_replay():
    import toolkit

    # a count:3 trigger: key a's 4th and 5th records and key b's 2 are never emitted (c's 1 too);
    # a record of key a at 5.6 s is behind the watermark: dropped as late
    rows = [(100 * i, 100 * i + 10, "a", 0, 1) for i in range(5)] + [(150, 460, "b", 0, 1), (250, 470, "b", 0, 1)]
    rows += [(5000, 5000, "c", 0, 1), (50, 5600, "a", 0, 1)]
    log = toolkit.load_log(pd.DataFrame(rows, columns=["event_time", "arrival_time", "key", "partition", "value"]))
    return log, toolkit.replay(log, window="tumbling:1s", trigger="count:3")


def test_never_fired_records_are_a_class_of_their_own_in_the_charts():
    log, r = _never_fired_replay()
    assert r.fates.set_index("row").loc[[3, 4, 5, 6, 7, 8], "reason"].tolist() == ["never_fired"] * 5 + ["late"]
    spec = viz.event_time_scatter(log, r).to_dict()
    (points,) = find_layers(spec, "circle")
    rows = {x["row"]: x["fate"] for x in layer_rows(spec, points)}
    assert (rows[3], rows[4], rows[8], rows[0]) == ("never_fired", "never_fired", "dropped", "on_time")
    legend = points["encoding"]["color"]["legend"]["labelExpr"]
    assert "'never fired'" in legend
    counts = viz.records.fate_counts_by(log, r, "partition")
    assert counts.set_index("fate").loc["never_fired", "count"] == 5
    hist = json.dumps(viz.lateness_histogram(log, r).to_dict())
    assert "never fired records" in hist  # its own panel (key b came out of order)
    by_key = viz.drops_by_key(log, r).to_dict()
    assert "key a" not in json.dumps(by_key) and any(x.get("key") == "a" for d in by_key["datasets"].values() for x in d)


def test_drops_over_time_says_how_many_dropped_were_never_emitted():
    log, r = _never_fired_replay()
    spec = viz.drops_over_time(log, r).to_dict()
    note = " ".join(spec["title"]["subtitle"])
    assert note.startswith("6 of 9 valid records dropped") and "5 of them never emitted" in note and "not late" in note
    data, *_ = viz.drops.drops_frame(log, r, fate="never_fired")
    assert int(data["count"].sum()) == 5
    with pytest.raises(ValueError, match="fate: 'gone' is not a fate; choose one of dropped, late_accepted"):
        viz.drops.drops_frame(log, r, fate="gone")


def test_firing_timeline_shows_every_pane_and_keeps_to_its_data():
    """Issue 30, item 9: panes fired at one instant for one window (a continuous trigger's on-time and
    late pane, three panes at end of input) were drawn on top of each other; the diagonal stretched
    the y axis of notebook 03's session example to the emission times."""
    event = [1000, 1200, 1500, 4000, 4100, 1700, 9000, 4300, 9500, 12000, 3000]
    arrival = [1000, 1300, 1600, 4100, 4200, 4300, 9100, 9200, 9600, 12100, 12200]
    clicks = toolkit.EventLog.from_arrays(event, arrival, key="user")
    r = toolkit.replay(clicks, window="tumbling:5s", trigger="continuous:1s", delay="200ms", interval="100ms")
    spec = viz.firing_timeline(r).to_dict()
    (points,) = find_layers(spec, "point")
    rows = layer_rows(spec, points)
    assert len(rows) == len(r.emissions) == 8
    assert len({(p["emit_x"], p["window_end"]) for p in rows}) == 8  # no pane hides another
    assert sorted(p["emit_time"] for p in rows) == sorted(r.emissions["emit_time"])  # the tooltip's time is exact
    assert max(abs(p["emit_x"] - p["emit_time"]) for p in rows) < 200  # side by side, a few pixels apart
    sessions = toolkit.EventLog.from_arrays([1, 9, 5], [100, 200, 300], key="a")
    spec = viz.firing_timeline(toolkit.replay(sessions, window="session:5ms", lateness="10ms", interval=0)).to_dict()
    lo, hi = find_layers(spec, "point")[0]["encoding"]["y"]["scale"]["domain"]
    assert 5 < lo < 6 and 14 < hi < 15  # window ends 6 and 14 ms, a few pixels of margin: not 300 ms
