"""Guards checked before any work starts: window fan-out and estimated memory, the same in
replay, sweep, report and the command line, each raisable by the user."""
from __future__ import annotations

import time

import numpy as np
import pytest

import toolkit
from toolkit.cli import main
from toolkit.log import EventLog
from toolkit.settings import Limits, Setting, SettingError, windows_per_record

ONE = EventLog.from_arrays(np.array([1000]), np.array([1200]))
DAY_SLIDE_1MS = "sliding:1d/1ms"
FANOUT_MSG = "window sliding:1d/1ms assigns every record to 86,400,000 windows (size / slide), more than the limit of 10,000"


def test_windows_per_record_follows_flinks_sliding_assigner() -> None:
    assert windows_per_record(Setting.parse(window="sliding:10s/3s").window) == 4  # ceil(10 / 3)
    assert windows_per_record(Setting.parse(window="tumbling:1s").window) == 1
    assert windows_per_record(Setting.parse(window="session:1s").window) == 1


@pytest.mark.parametrize("run", [
    lambda **kw: toolkit.replay(ONE, window=DAY_SLIDE_1MS, **kw),
    lambda **kw: toolkit.sweep(ONE, window=DAY_SLIDE_1MS, delay=["0", "1s"], **kw),
    lambda **kw: toolkit.replay(ONE, window="tumbling:1s", second_window=DAY_SLIDE_1MS, **kw),
], ids=["replay", "sweep", "second_window"])
def test_fan_out_is_refused_at_once_and_the_limit_can_be_raised(run) -> None:
    t0 = time.perf_counter()
    with pytest.raises(SettingError, match="86,400,000 windows") as e:
        run()
    assert time.perf_counter() - t0 < 2
    assert "max_windows_per_record=86400000" in str(e.value) and "--max-windows-per-record 86400000" in str(e.value)
    # raised above the fan-out, only the memory estimate stands in the way: 1 record is fine
    with pytest.raises(SettingError, match="max_memory"):
        run(max_windows_per_record=100_000_000, max_memory="1MB")


def test_a_raised_limit_lets_a_wide_sliding_window_run() -> None:
    with pytest.raises(SettingError, match="1,000 windows"):
        toolkit.replay(ONE, window="sliding:1s/1ms", max_windows_per_record=999)
    r = toolkit.replay(ONE, window="sliding:1s/1ms", max_windows_per_record=1000)
    assert r.summary()["windows"] == 1000


def test_memory_estimate_names_what_dominates() -> None:
    L = Limits.of(max_memory="10GB")
    day30 = 30 * 86_400_000
    L.check_cost([Setting.parse()], 1_000_000, day30)  # 1 M records, tumbling: about 1.5 GB
    # a processing-time watermark runs only the calls that reach a timer: it costs what the records do
    L.check_cost([Setting.parse(strategy="time_lag", delay="1s", interval=1)], 1_000_000, day30)
    L.check_cost([Setting.parse(strategy="idle_advance", delay="1s", step="1s", interval=1)], 1_000_000, day30)
    # (its calls follow the records: about 2.4 a record, counted in the estimate)
    assert L.estimate(Setting.parse(strategy="time_lag", delay="1s", interval=1), 1_000_000, day30)[0] == \
        L.estimate(Setting.parse(), 1_000_000, day30)[0] + 3_600_000_000
    # ... unless its timers cannot be listed ahead (a continuous trigger fires on an event-time grid)
    with pytest.raises(SettingError, match=r"strategy time_lag moves the watermark at every 1ms call over 30.0 days"
                       r" of arrivals, and every call is run because") as e:
        L.check_cost([Setting.parse(strategy="time_lag", delay="1s", interval=1, trigger="continuous:1s")], 1_000_000, day30)
    assert e.value.setting == "interval"
    with pytest.raises(SettingError, match="assigns each of 1,000,000 records to 3,600 windows") as e:
        L.check_cost([Setting.parse(window="sliding:1h/1s")], 1_000_000, day30, "sweep")
    assert e.value.setting == "window"
    with pytest.raises(SettingError, match="10,000,000 records; use fewer records") as e:
        L.check_cost([Setting.parse()], 10_000_000, day30)
    assert e.value.setting == "max_memory"


@pytest.mark.parametrize("bad, msg", [
    (dict(max_windows_per_record=0), "max_windows_per_record must be an integer >= 1, got 0"),
    (dict(max_memory="lots"), "max_memory must be a size like 8GB, 512MiB or a number of bytes, got 'lots'"),
    (dict(max_memory=-5), "max_memory must be a size like 8GB"),
])
def test_bad_limits_name_the_keyword(bad, msg) -> None:
    with pytest.raises(SettingError) as e:
        toolkit.replay(ONE, **bad)
    assert str(e.value).startswith(msg)


def test_sizes_read_decimal_and_binary_units() -> None:
    assert Limits.of(max_memory="2GiB").max_memory == 2 * 2**30
    assert Limits.of(max_memory="1.5 GB").max_memory == 1_500_000_000
    assert Limits.of(max_memory=1234).max_memory == 1234


def test_a_hundred_year_delay_is_refused_alike_by_replay_and_sweep() -> None:
    msgs = []
    for run in (lambda d: toolkit.replay(ONE, delay=d), lambda d: toolkit.sweep(ONE, delay=["0", d]),
                lambda d: Setting.parse(delay=d)):
        for d in ("36500d", 100 * 365 * 86_400_000):
            with pytest.raises(SettingError) as e:
                run(d)
            msgs.append(str(e.value))
    assert msgs == [f"delay of {d!r} is absurd (more than 10 years); check the unit"
                    for d in ("36500d", 100 * 365 * 86_400_000)] * 3


@pytest.mark.parametrize("command", ["replay", "sweep", "report"])
def test_cli_refuses_fan_out_before_reading_the_log(command, tmp_path, capsys) -> None:
    missing = tmp_path / "not_there.csv"  # never read: the guard comes first
    args = [command, str(missing), "--window", DAY_SLIDE_1MS]
    if command == "report":
        args += ["--out", str(tmp_path / "r.html")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --" + FANOUT_MSG) and "--max-windows-per-record 86400000" in err
    assert main(args + ["--max-windows-per-record", "x"]) == 2
    assert "error: --max-windows-per-record must be an integer >= 1, got 'x'" in capsys.readouterr().err


def test_cli_memory_guard_names_the_option(tmp_path, capsys) -> None:
    p = tmp_path / "one.csv"
    p.write_text("event_time,arrival_time,key,partition,value\n1000,1200,a,0,1\n")
    assert main(["replay", str(p), "--max-memory", "1kb"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("error: this replay would need about 1.6 kB of memory, more than the limit's 1.0 kB: 1 records; "
                           "use fewer records or a Spark sweep, or raise --max-memory if the estimate is too cautious")
    assert main(["sweep", str(p), "--max-memory", "1MB", "--window", "sliding:1s/1ms",
                 "--max-windows-per-record", "1000"]) == 0
