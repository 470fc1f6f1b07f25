"""``bench scale``: one cell (a sweep over a log generated in Spark) and the option errors."""
from __future__ import annotations

import pytest

from toolkit.bench.scale import cell, generated_log
from toolkit.cli import main


def test_generated_log_is_what_the_module_says(spark):
    log = generated_log(spark, 2000, 7, 3)
    pdf = log.spark_df.toPandas()
    assert len(pdf) == 2000 and pdf["key"].nunique() == 7
    lag = pdf["arrival_time"] - pdf["event_time"]
    assert lag.min() >= 0 and lag.max() < 2000 and (pdf["arrival_time"] == pdf["row"] // 10).all()


def test_one_cell_measures_a_sweep(spark):
    r = cell(5000, 10, "tumbling:1s", 10, 1)
    assert (r["records"], r["configs"], r["paths"]) == (5000, 10, ["fast"])
    assert r["wall_s"] > 0 and r["jvm_peak_mib"] > 0 and r["driver_python_peak_mib"] > 0
    assert 0 <= r["dropped_min"] <= r["dropped_max"] <= 5000


@pytest.mark.parametrize("argv, message", [(["--only", "5m"], "unknown sub-case 5m"),
                                           (["--records", "0", "--only", "windows"], "--records must be >= 1")])
def test_bad_options_name_the_option(argv, message, capsys):
    assert main(["bench", "scale", *argv]) == 2
    assert message in capsys.readouterr().err
