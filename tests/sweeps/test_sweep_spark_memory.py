"""The memory guard of Spark sweeps: estimated before any work, driver and executor side, with
an error that names ``max_memory`` (``--max-memory``) and says which side and why."""
from __future__ import annotations

import numpy as np
import pytest

import toolkit
from toolkit.cli import main
from toolkit.log import EventLog
from toolkit.settings import SettingError, grid
from toolkit.sweeps.spark import _spark_bytes, memory_estimate


def test_estimate_grows_with_records_fan_out_and_ticks_not_with_shards_on_the_driver():
    cfgs = grid(window=["tumbling:1s", "sliding:10s/10ms"], delay=[0, 1000], interval=200)
    paths = ["fast"] * len(cfgs)
    a = memory_estimate(cfgs, paths, records=1_000_000, span_ms=86_400_000, shards=10)
    b = memory_estimate(cfgs, paths, records=1_000_000, span_ms=86_400_000, shards=100)
    assert a["driver"] == b["driver"] and b["task"] * 9 < a["task"]
    assert "sliding:10s/10ms" in a["task_why"]
    # one day at 200 ms: 432,001 ticks (fewer than the records)
    assert "432,001 ticks" in a["driver_why"]
    per_record = memory_estimate(grid(window="tumbling:1s", interval=0), ["fast"], records=1_000_000, span_ms=1, shards=1)
    assert per_record["driver"] == 400 * 1_000_000 and "collects up to 1,000,000 records" in per_record["driver_why"]
    spark_rows = memory_estimate(grid(window="tumbling:1s", semantics="spark", trigger_interval=[1000, 10_000]),
                                 ["microbatch"] * 2, records=10**8, span_ms=86_400_000, shards=8)
    assert spark_rows["driver"] == (86_401 + 8_641) * 200


def test_spark_memory_sizes():
    assert _spark_bytes("512m") == 512 * 2**20 and _spark_bytes("2g") == 2 * 2**30 and _spark_bytes("100") == 100 * 2**20
    with pytest.raises(SettingError, match="spark.executor.pyspark.memory"):
        _spark_bytes("lots")


@pytest.fixture(scope="module")
def log():
    rng = np.random.default_rng(3)
    arrival = np.sort(rng.integers(0, 60_000, 2_000))
    return EventLog.from_arrays(arrival - rng.integers(0, 500, 2_000), arrival_time=arrival,
                                key=rng.choice([f"k{i}" for i in range(100)], 2_000).astype(object))


@pytest.mark.spark
def test_driver_side_guard(spark, log):
    with pytest.raises(SettingError, match=r"on the driver, more than the limit's 10.0 kB: interval 1 ms gives up to "
                                           r"2,000 ticks.*raise max_memory \(--max-memory\)") as err:
        toolkit.sweep(log, execution="spark", spark=spark, interval="1ms", max_memory="10kB", progress=False)
    assert err.value.setting == "max_memory"


@pytest.mark.spark
def test_executor_side_guard_and_its_way_out(spark, log):
    kw = dict(execution="spark", spark=spark, window="sliding:5s/1ms", progress=False)
    with pytest.raises(SettingError, match=r"on each executor \(2 task\(s\) at once x .*window sliding:5s/1ms over "
                                           r"1,000 records per shard.*use more key shards \(shards=(\d+), --shards \d+\)") as err:
        toolkit.sweep(log, shards=2, max_memory="20MB", **kw)
    # the suggested number of shards passes the guard (and the sweep runs)
    import re

    shards = int(re.search(r"shards=(\d+)", str(err.value)).group(1))
    assert shards <= 100
    cfgs = grid(window="sliding:5s/1ms")
    assert memory_estimate(cfgs, ["fast"], records=2_000, span_ms=60_000, shards=shards, keys=100)["task"] * 2 <= 20e6
    # raising the limit lets the sweep run
    r = toolkit.sweep(log, shards=2, max_memory="300MB", **dict(kw, window="sliding:2s/1ms"))
    assert len(r) == 1 and r["records"].iloc[0] == 2_000
    # a key is never split: with at most 100 keys, more shards cannot help
    with pytest.raises(SettingError, match=r"only about \d+ keys, so more shards cannot help: use a larger slide"):
        toolkit.sweep(log, shards=2, max_memory="500kB", **kw)


@pytest.mark.spark
def test_cli_names_the_option(spark, log, tmp_path, capsys):
    csv = tmp_path / "log.csv"
    log.table[["event_time", "arrival_time", "key"]].to_csv(csv, index=False)
    code = main(["sweep", str(csv), "--time-unit", "ms", "--master", "local[2]", "--interval", "1ms",
                 "--max-memory", "10kB", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "--max-memory" in err and "on the driver" in err
