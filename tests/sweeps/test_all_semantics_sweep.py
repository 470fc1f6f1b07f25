"""One sweep over every engine's semantics (``toolkit.settings.SEMANTICS``) on one small log:
in-process in one piece, in-process in 3 shards and on local Spark give identical figures.

It iterates over ``SEMANTICS`` rather than naming the engines, so an engine added there is
swept here too (each engine's own settings apply to its own rows only)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.metrics.summary import SUMMARY_COLUMNS
from toolkit.settings import SEMANTICS

BASE = 1_700_000_000_000
GRID = dict(semantics=list(SEMANTICS), window=["tumbling:2s", "session:1500ms"], delay=[0, "1s"], grace=[0, "1s"])


@pytest.fixture(scope="module")
def log():
    rng = np.random.default_rng(12)
    n = 240
    arrival = BASE + np.sort(rng.integers(0, 20_000, n))
    frame = pd.DataFrame({"event_time": arrival - rng.choice([0, 150, 900, 2_500], n), "arrival_time": arrival,
                          "key": rng.choice(["a", "b", "c", "d", "e"], n), "partition": rng.integers(0, 3, n),
                          "value": rng.integers(1, 10, n)})
    return toolkit.load_log(frame, time_unit="ms")


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


def test_every_semantics_is_swept(whole):
    assert set(whole["semantics"]) == set(SEMANTICS)
    assert (whole.groupby("semantics").size() >= 2).all()
    assert (whole["records"] == 240).all()


def test_in_three_shards_equals_one_piece(log, whole):
    got = toolkit.sweep(log, execution="local", shards=3, progress=False, **GRID)
    assert len(got) == len(whole)
    assert not _diff(whole, got)


@pytest.mark.spark
def test_on_spark_equals_in_process(spark, log, whole):
    got = toolkit.sweep(log, execution="spark", spark=spark, shards=3, progress=False, **GRID)
    assert len(got) == len(whole)
    assert not _diff(whole, got)
