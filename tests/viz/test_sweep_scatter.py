"""The sweep scatter (``toolkit.viz.sweep_scatter``, the sweep explorer's figure-against-figure view):
settings that land on one point stay visible, and axes read in units, never raw milliseconds."""
from __future__ import annotations

import pandas as pd
import vl_convert

import toolkit.viz as viz


def coinciding_sweep() -> pd.DataFrame:
    """Notebook 02's shape: 7 delays x 3 allowed lateness values; lateness moves neither p99
    latency nor first-result completeness (so 21 rows sit on 7 points), only the drops."""
    rows = []
    for d in (0, 100, 250, 500, 1000, 2000, 5000):
        for lat in (0, 1000, 5000):
            rows.append({"window": "tumbling:1s", "delay_ms": d, "lateness_ms": lat, "records": 30_000,
                         "dropped": 700 - lat // 20 - d // 20, "completeness_first": 0.976 + d / 250_000,
                         "latency_p99_ms": 37_270 + d})
    return pd.DataFrame(rows)


def test_every_configuration_is_drawn_and_the_hidden_setting_has_the_size_channel():
    spec = viz.sweep_scatter(coinciding_sweep(), "dropped").to_dict()
    rows = spec["datasets"][spec["data"]["name"]]
    assert len(rows) == 21
    assert len({(r["latency_p99_ms"], r["completeness_first"]) for r in rows}) == 7
    size = spec["encoding"]["size"]
    assert size["field"] == "hidden" and size["title"] == "allowed lateness"
    assert size["sort"] == ["allowed lateness 0 ms", "allowed lateness 1 s", "allowed lateness 5 s"]
    lo, hi = size["scale"]["range"][1], size["scale"]["range"][0]
    assert hi > lo  # the first value the largest ring, drawn first (order), the last on top
    assert spec["encoding"]["order"]["field"] == "ring"
    assert {r["ring"] for r in rows} == {0, 1, 2}
    assert spec["title"]["subtitle"][0] == "21 configurations at 7 points"
    assert "up to 3 settings share a point" in spec["title"]["subtitle"][1]


def test_tooltips_list_all_settings_at_a_point():
    spec = viz.sweep_scatter(coinciding_sweep(), "dropped").to_dict()
    rows = spec["datasets"][spec["data"]["name"]]
    at = [r for r in rows if r["delay_ms"] == 2000]
    assert len({r["here_list"] for r in at}) == 1
    assert at[0]["here_list"] == ("3 settings: allowed lateness 0 ms (dropped 600); allowed lateness 1 s "
                                  "(dropped 550); allowed lateness 5 s (dropped 350)")
    titles = [t["title"] for t in spec["encoding"]["tooltip"]]
    assert titles == ["setting", "p99 result latency", "first-result completeness", "dropped",
                      "settings at this point"]
    assert at[0]["setting"] == "delay 2 s, allowed lateness 0 ms"


def test_axes_read_in_units_not_milliseconds():
    spec = viz.sweep_scatter(coinciding_sweep(), "dropped").to_dict()
    x, y = spec["encoding"]["x"], spec["encoding"]["y"]
    assert x["title"] == "p99 result latency" and "(ms)" not in x["title"]
    assert "labelExpr" in x["axis"] and x["scale"]["zero"] is False
    assert y["axis"]["format"].endswith("%")
    svg = vl_convert.vegalite_to_svg(spec)
    assert ">37.5 s<" in svg or ">38 s<" in svg, "the latency axis reads in seconds"
    assert ">37,500<" not in svg and ">38,000<" not in svg and ">45,000<" not in svg


def test_distinct_points_use_one_size():
    sw = coinciding_sweep()
    sw = sw[sw["lateness_ms"] == 0]
    spec = viz.sweep_scatter(sw, "dropped").to_dict()
    assert spec["encoding"]["size"] == {"value": 90}
    assert spec["title"]["subtitle"] == ["7 configurations at 7 points"]


def test_a_configuration_axis_that_is_text_is_ordinal():
    sw = pd.concat([coinciding_sweep().assign(window="tumbling:1s"),
                    coinciding_sweep().assign(window="session:1s")], ignore_index=True)
    spec = viz.sweep_scatter(sw, "dropped", x="window", y="completeness_first").to_dict()
    assert spec["encoding"]["x"]["type"] == "ordinal" and spec["encoding"]["x"]["field"] == "window_text"
    vl_convert.vegalite_to_svg(spec)  # draws


def test_duration_labels_in_vega():
    spec = {"data": {"values": [{"v": 0}, {"v": 250}, {"v": 1500}, {"v": 45_000}, {"v": 150_000},
                                {"v": 5_400_000}]},
            "mark": "text", "encoding": {"y": {"field": "v", "type": "nominal"},
                                         "text": {"field": "t", "type": "nominal"}},
            "transform": [{"calculate": viz._common.duration_expr("datum.v"), "as": "t"}]}
    svg = vl_convert.vegalite_to_svg(spec)
    for text in ("0", "250 ms", "1.5 s", "45 s", "2.5 min", "1.5 h"):
        assert f">{text}<" in svg, text


def test_the_slider_views_scatter_lists_the_settings_at_each_point():
    spec = viz.sweep_sliders(coinciding_sweep()).to_dict()
    rows = [r for name, rs in spec["datasets"].items() for r in rs if "here_list" in r]
    at = {r["here_list"] for r in rows if r["x_step"] == 5}
    assert at == {"3 settings: delay 2 s, allowed lateness 0 ms; delay 2 s, allowed lateness 1 s; "
                  "delay 2 s, allowed lateness 5 s"}
