"""The large-log path at a size a unit test can afford (the 10 M figure comes from ``bench viz --records 10000000``)."""
from __future__ import annotations

import pytest

from toolkit.bench.viz import chart_timings as run, make_log
from toolkit.cli import main
from toolkit.viz import MAX_POINTS


@pytest.fixture(scope="module")
def rows():
    return {r["chart"]: r for r in run(records=100_000, seed=1)}


def test_every_chart_embeds_a_bounded_number_of_rows(rows):
    assert rows["event_time_scatter"]["rows_embedded"] <= 2 * MAX_POINTS  # points + watermark lines
    assert rows["watermark_lag"]["rows_embedded"] <= MAX_POINTS + 5 * 2
    assert rows["firing_timeline"]["rows_embedded"] <= MAX_POINTS + 2  # + the diagonal
    assert rows["state_over_time"]["rows_embedded"] <= MAX_POINTS
    assert rows["lateness_histogram"]["rows_embedded"] <= 40 * 4 + 8
    assert rows["drops_by_partition"]["rows_embedded"] == 8  # 4 partitions x (on time, dropped)
    assert all(r["spec_bytes"] < 2_000_000 for r in rows.values())


def test_generated_log_follows_the_stated_rules():
    import numpy as np

    log, result = make_log(20_000, seed=2)
    t = log.table
    assert len(t) == 20_000 and np.all(np.diff(t["arrival_time"].to_numpy()) >= 0)
    assert set(t["partition"].unique()) == {0, 1, 2, 3}
    import toolkit.viz as viz

    late = viz.lateness_of(t["event_time"].to_numpy(), log.arrival_order())
    assert ((late > 300) == (result.fates["fate"] == "dropped").to_numpy()).all()


def test_bench_command(capsys):
    assert main(["bench", "viz", "--records", "5000"]) == 0
    out = capsys.readouterr().out
    assert "event_time_scatter" in out and "drops_by_key" in out
    assert main(["bench", "viz", "--records", "0"]) == 2
