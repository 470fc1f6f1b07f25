"""``toolkit.report()`` takes the limits ``replay`` and ``sweep`` take, with the same errors."""
from __future__ import annotations

import numpy as np
import pytest

import toolkit
from toolkit.log import EventLog
from toolkit.settings import SettingError


@pytest.fixture(scope="module")
def log():
    t = np.arange(0, 4000, 1000, dtype=np.int64)
    return EventLog.from_arrays(t, arrival_time=t + 30, key=np.array(["a", "b"] * 2, dtype=object))


def test_report_refuses_a_fan_out_above_the_limit_and_names_the_keyword(log, tmp_path):
    with pytest.raises(SettingError, match=r"max_windows_per_record=20000") as err:
        toolkit.report(log, out=tmp_path / "r.html", grid={"window": "sliding:20s/1ms", "delay": "0", "lateness": "0"})
    assert err.value.setting == "window"
    with pytest.raises(SettingError, match=r"more than the limit of 1,000"):
        toolkit.report(log, out=tmp_path / "r.html", max_windows_per_record=1000,
                       grid={"window": "sliding:2s/1ms", "delay": "0", "lateness": "0"})


def test_report_with_raised_limits_runs(log, tmp_path):
    path = toolkit.report(log, out=tmp_path / "r.html", max_windows_per_record=20_000, max_memory="64GB",
                          settings={"window": "sliding:12s/1ms", "delay": "0", "interval": "200ms"},
                          grid={"window": "sliding:12s/1ms", "delay": ["0"], "lateness": ["0"]})
    assert path.exists() and path.stat().st_size > 10_000


def test_report_memory_guard_names_max_memory(log, tmp_path):
    with pytest.raises(SettingError, match=r"max_memory") as err:
        toolkit.report(log, out=tmp_path / "r.html", max_memory="1kB")
    assert "1.0 kB" in str(err.value)
