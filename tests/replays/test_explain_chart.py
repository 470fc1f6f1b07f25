"""``toolkit.viz.drops_over_time``: dropped records per processing-time bin and partition."""
from __future__ import annotations

import numpy as np
import pytest

import toolkit
from toolkit.log.model import EventLog
from toolkit.viz.drops import drops_frame, drops_over_time, idle_periods, nice_bin

from helpers.explain_demo import DEMO, demo_log


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


def test_counts_are_exact_per_partition_and_bins_are_round() -> None:
    log = demo_log()
    r = toolkit.replay(log, **DEMO, idleness="2s")
    data, width, epoch, axis = drops_frame(log, r)
    assert epoch and axis == "processing time (arrival)" and width == 5000  # ~5 min in <= 120 bins
    assert (data["bin_start"] % width == 0).all() and (data["bin_end"] - data["bin_start"] == width).all()
    fates = r.fates.merge(log.table[["row", "partition"]], on="row")
    want = fates[fates["fate"] == "dropped"].groupby("partition").size()
    assert data.groupby("partition")["count"].sum().to_dict() == want.to_dict()
    assert (data["share"] == data["count"] / data["records"]).all() and (data["records"] >= data["count"]).all()
    assert data["from"].iloc[0].startswith("2023-11-14 22:13:") and data["from"].iloc[0].endswith(".000")
    late, *_ = drops_frame(log, r, fate="late_accepted", bin_ms=1000)
    assert late["count"].sum() == (r.fates["fate"] == "late_accepted").sum()


def test_chart_spec_readable_axis_tooltips_and_idle_bands() -> None:
    log = demo_log()
    r = toolkit.replay(log, **DEMO, idleness="2s")
    spec = drops_over_time(log, r).to_dict()
    band, bars = _layers(spec)
    x = bars["encoding"]["x"]
    assert x["type"] == "temporal" and x["axis"]["format"] == "%H:%M" and x["scale"]["type"] == "utc"
    assert x["title"] == "processing time (arrival; UTC, 2023-11-14, h:min)"  # minute ticks over 5 minutes
    assert [t["title"] for t in bars["encoding"]["tooltip"]] == [
        "partition", "from", "to", "dropped records", "records of the partition", "share dropped"]
    assert spec["title"]["subtitle"][0].startswith("335 of 29,994 valid records dropped (1.12%); bars of 5 s")
    idle = idle_periods(r, True)
    assert 2 in set(idle["partition"]) and band["mark"]["type"] == "rect"
    long = idle[idle["partition"] == 2]
    assert (long["end"] - long["start"]).max() > 30_000  # the 40 s silence, minus the 2 s timeout
    assert "partition 2 idle from 2023-11-14 22:15:" in long["label"].iloc[0]


def test_plain_ms_logs_and_logs_without_arrival_times() -> None:
    log = EventLog.from_arrays([0, 3000, 500, 4000, 100], [0, 10, 3500, 3600, 3700], key="k")
    r = toolkit.replay(log, window="tumbling:1s", interval=0)
    spec = drops_over_time(log, r, bin_ms=1000).to_dict()
    (bars,) = _layers(spec)
    x = bars["encoding"]["x"]  # plain ms instants: labelled t=3 s, not 3,000
    assert x["type"] == "quantitative" and x["title"] == "processing time (arrival; t in s)" and "t=" in x["axis"]["labelExpr"]
    rows = spec["datasets"][(bars.get("data") or spec["data"])["name"]]
    assert sum(row["count"] for row in rows) == 2 and {row["from"] for row in rows} == {"t=3 s"}
    no_arr = EventLog.from_arrays([0, 3000, 500, 4000])
    data, width, epoch, axis = drops_frame(no_arr, toolkit.replay(no_arr, window="tumbling:1s"))
    assert axis == "arrival position (no arrival times)" and not epoch and data["count"].sum() == 1
    with pytest.raises(ValueError, match="fate: 'late'"):
        drops_over_time(log, r, fate="late")


def test_nice_bin() -> None:
    assert nice_bin(300_000, 120) == 5000 and nice_bin(10, 120) == 1 and nice_bin(3_600_000, 60) == 60_000
    assert nice_bin(10**12, 10) == 10**11


def test_renders_to_svg() -> None:
    vl_convert = pytest.importorskip("vl_convert")
    log = demo_log()
    svg = vl_convert.vegalite_to_svg(drops_over_time(log, toolkit.replay(log, **DEMO)).to_dict())
    assert svg.startswith("<svg") and "Dropped records over processing time" in svg
    assert np.char.count(svg, "<path").sum() > 0
