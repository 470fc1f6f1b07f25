"""One sweep over every engine's semantics (``toolkit.settings.semantics_names()``) on one small log:
in-process in one piece, in-process in 3 shards and on local Spark give identical figures, on
a local log and on a Spark-backed one.

It iterates over ``semantics_names()`` rather than naming the engines, so an engine added there is
swept here too (each engine's own settings apply to its own rows only). The grid holds rows
no registry shards (``toolkit.sweeps.whole``): Beam sessions and a processing-time trigger
(keys share GroupByKey's output watermark) and Spark's complete mode; on a Spark-backed log
they run on Spark, each row's whole log in one task."""
from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.settings import SettingError, semantics_names

BASE = 1_700_000_000_000
GRID = dict(semantics=list(semantics_names()), window=["tumbling:2s", "session:1500ms"], delay=[0, "1s"], grace=[0, "1s"],
            beam_trigger=["default", "after_watermark(early=after_processing_time:1s)"], output_mode=["append", "complete"])


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(12)
    n = 240
    arrival = BASE + np.sort(rng.integers(0, 20_000, n))
    return pd.DataFrame({"event_time": arrival - rng.choice([0, 150, 900, 2_500], n), "arrival_time": arrival,
                         "key": rng.choice(["a", "b", "c", "d", "e"], n), "partition": rng.integers(0, 3, n),
                         "value": rng.integers(1, 10, n)})


@pytest.fixture(scope="module")
def log():
    return toolkit.load_log(_frame(), time_unit="ms")


@pytest.fixture(scope="module")
def spark_log(spark):
    """The same log loaded in Spark (never collected: ``log.table`` refuses)."""
    got = toolkit.load_log(spark.createDataFrame(_frame()), time_unit="ms")
    assert got.is_spark
    return got


@pytest.fixture(scope="module")
def whole(log):
    return toolkit.sweep(log, execution="local", progress=False, **GRID)


def _diff(a: pd.DataFrame, b: pd.DataFrame) -> list:
    out = []
    for col in SUMMARY_COLUMNS:
        x, y = a[col].to_numpy(dtype=float), b[col].to_numpy(dtype=float)
        same = (np.isnan(x) & np.isnan(y)) | np.isclose(x, y, rtol=1e-12, atol=1e-9)
        out += [(a["semantics"].iloc[i], col, x[i], y[i]) for i in np.flatnonzero(~same)]
    return out


def _one_piece(rows: pd.DataFrame) -> pd.Series:
    """The rows no registry shards: Beam sessions or processing-time triggers, Spark's complete mode."""
    beam = (rows["semantics"] == "beam") & (rows["window"].str.startswith("session") | rows["beam_trigger"].str.contains("processing"))
    return beam | ((rows["semantics"] == "spark") & (rows["output_mode"] == "complete"))


def test_every_semantics_is_swept(whole):
    assert set(whole["semantics"]) == set(semantics_names())
    assert (whole.groupby("semantics").size() >= 2).all()
    assert (whole["records"] == 240).all()
    one = whole[_one_piece(whole)]
    assert set(one["semantics"]) == {"beam", "spark"} and len(one) >= 8
    assert set(one.loc[one["semantics"] == "beam", "path"]) == {"beam"}
    assert (one["firings"] > 0).all()


def test_in_three_shards_equals_one_piece(log, whole):
    got = toolkit.sweep(log, execution="local", shards=3, progress=False, **GRID)
    assert len(got) == len(whole)
    assert not _diff(whole, got)


@pytest.mark.spark
def test_on_spark_equals_in_process(spark, log, whole):
    got = toolkit.sweep(log, execution="spark", spark=spark, shards=3, progress=False, **GRID)
    assert len(got) == len(whole)
    assert not _diff(whole, got)


@pytest.mark.spark
def test_on_spark_with_a_spark_backed_log_equals_in_process(spark, spark_log, whole, monkeypatch):
    """Every row, the ones no registry shards included, runs on Spark: nothing falls back to the
    driver (its in-process evaluator is made to fail here), and the figures are the same."""
    sweep_module = importlib.import_module("toolkit.sweeps.sweep")  # the module (the package exports the function)

    def driver_figures(*args, **kwargs):
        raise AssertionError("a row of a Spark-backed log was evaluated on the driver")

    monkeypatch.setattr(sweep_module, "whole_rows", driver_figures)
    got = toolkit.sweep(spark_log, execution="spark", spark=spark, shards=3, progress=False, **GRID)
    assert len(got) == len(whole)
    assert list(got["path"]) == list(whole["path"])
    assert not _diff(whole, got)


@pytest.mark.spark
def test_a_spark_backed_log_swept_locally_names_execution(spark_log):
    with pytest.raises(SettingError, match="execution='spark'") as err:
        toolkit.sweep(spark_log, execution="local", progress=False, semantics="beam", window="session:1s")
    assert err.value.setting == "execution"


@pytest.mark.spark
def test_cli_sweep_of_the_four_semantics_with_spark_equals_in_process(spark, tmp_path, capsys):
    """``python -m toolkit sweep LOG --spark`` (the log loaded in Spark) over the four semantics, Beam
    session and processing-time-trigger rows included: the in-process figures."""
    from toolkit.cli import main

    path = tmp_path / "log.csv"
    _frame().to_csv(path, index=False)
    grid = dict(semantics=list(semantics_names()), window="session:1500ms", delay=[0, "1s"],
                beam_trigger=["default", "after_watermark(early=after_processing_time:1s)"])
    expected = toolkit.sweep(toolkit.load_log(_frame(), time_unit="ms"), execution="local", progress=False, **grid)
    out = tmp_path / "spark.csv"
    assert main(["sweep", str(path), "--spark", "--shards", "3", "--no-progress", "--out", str(out),
                 "--semantics", ",".join(semantics_names()), "--window", "session:1500ms", "--delay", "0,1s",
                 "--beam-trigger", "default", "--beam-trigger", "after_watermark(early=after_processing_time:1s)"]) == 0
    assert f"wrote {len(expected)} configurations" in capsys.readouterr().out
    order = ["semantics", "delay_ms", "beam_trigger"]  # the command line's grid has its own order
    got = pd.read_csv(out).sort_values(order, kind="stable").reset_index(drop=True)
    expected = expected.sort_values(order, kind="stable").reset_index(drop=True)
    assert list(got["semantics"]) == list(expected["semantics"]) and list(got["path"]) == list(expected["path"])
    assert (got["semantics"] == "beam").sum() == 4
    assert not _diff(expected, got)


@pytest.mark.spark
def test_a_row_whose_one_task_would_not_fit_is_refused_naming_max_memory(spark, spark_log):
    """The whole log in one task is estimated before any work (``check_whole_memory``)."""
    with pytest.raises(SettingError, match=r"evaluated in one piece, each in one Spark task holding the whole log "
                                           r"\(240 records\).*--max-memory") as err:
        toolkit.sweep(spark_log, execution="spark", spark=spark, progress=False, semantics="beam",
                      window=["session:1s", "sliding:2s/1s"], beam_trigger="after_count:2", max_memory="100KB")
    assert err.value.setting == "max_memory" and "beam window sliding:2s/1s" in str(err.value)
