"""The bad-input table of replays and sweeps (issue 16): extreme logs and settings, one exact
outcome each, through ``replay``, ``sweep`` and their commands.

The log layer's own table (tests/log/test_bad_input_table.py, 62 cases: keys of 1 MB, NaN
and infinity, mixed epoch units in one column, one bad row in 200,000 ...) covers loading;
this one covers what happens after: a case ends in an ``Error`` (type and whole message, on
the command line ``error: <message in option words>``, exit 2, no traceback) or in ``Runs``
(the figures replay and sweep must both give, exactly, and in bounded time).
"""
from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import toolkit
from toolkit.cli import main
from toolkit.log import EventLog
from toolkit.settings import SettingError

Y9999 = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z in ms
DAY = 86_400_000


@dataclass
class Error:
    type: type
    message: str
    cli: str | None = None  # in option words (default: the message with the names as options)


@dataclass
class Runs:
    figures: dict  # the summary figures replay and every sweep path must give
    seconds: float = 10.0  # each run within this (a 2-core CI machine under load)
    check: Callable[[Any], None] | None = None  # anything else about the replay


@dataclass
class Case:
    id: str
    log: Callable[[], EventLog]
    settings: dict
    expect: Any
    sweep: bool = True  # also swept (fast and engine paths)


def arrays(ts, arr, **kw) -> Callable[[], EventLog]:
    def make():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return EventLog.from_arrays(np.asarray(ts), np.asarray(arr), **kw)
    return make


def spread(n: int, span: int, seed: int = 0, partitions: int = 3) -> Callable[[], EventLog]:
    rng = np.random.default_rng(seed)
    arr = np.sort(rng.integers(0, span, n))
    ts = arr - rng.integers(0, 500, n)
    return arrays(ts, arr, key=rng.integers(0, 5, n), partition=rng.integers(0, partitions, n))


ONE = arrays([1000], [1200])
NAN = float("nan")
FANOUT = ("window sliding:1d/1ms assigns every record to 86,400,000 windows (size / slide), more than the limit of "
          "10,000: use a larger slide, or raise the limit with max_windows_per_record=86400000 "
          "(--max-windows-per-record 86400000)")
ABSURD = "delay of '36500d' is absurd (more than 10 years); check the unit"


def few_calls(r) -> None:
    """At most the call after each record, the one after it and (idleness) where a countdown expires."""
    assert len(r.timeline.ticks.time) <= 3 * len(r.fates)


CASES = [
    # ------------------------------------------------------------------ time spans
    Case("year-9999-arrival", arrays([1000, 2000], [1200, Y9999]), {},
         Runs({"records": 2, "on_time": 2, "windows": 2, "firings": 2, "at_end_firings": 1,
               "latency_p50_ms": 253402300798000.0, "latency_max_ms": 253402300798000.0}, check=few_calls)),
    Case("year-9999-arrival-with-idleness", arrays([1000, 2000], [1200, Y9999]), {"idleness": "1min"},
         Runs({"records": 2, "on_time": 2, "at_end_firings": 1, "latency_max_ms": 253402300798000.0}, check=few_calls)),
    # the tick right at the arrival (1 ms grid from 1200) fires [1000, 2000) 1 ms earlier than the 200 ms grid
    Case("year-9999-arrival-1ms-interval", arrays([1000, 2000], [1200, Y9999]), {"interval": "1ms"},
         Runs({"records": 2, "on_time": 2, "at_end_firings": 1, "latency_max_ms": 253402300797999.0}, check=few_calls)),
    Case("interval-1ms-over-8-days", spread(2000, 8 * DAY), {"interval": "1ms", "delay": "100ms"},
         Runs({"records": 2000, "on_time": 2000, "dropped": 0, "at_end_firings": 5, "latency_p50_ms": 1632986.0,
               "latency_max_ms": 11644742.0}, check=few_calls)),
    Case("interval-1ms-over-8-days-idleness", spread(2000, 8 * DAY), {"interval": "1ms", "delay": "100ms",
                                                                     "idleness": "10s"},
         Runs({"records": 2000, "on_time": 2000, "dropped": 0, "at_end_firings": 1}, check=few_calls)),
    Case("interval-0-over-8-days", spread(2000, 8 * DAY), {"interval": 0, "delay": "100ms"},
         Runs({"records": 2000, "on_time": 2000, "at_end_firings": 5})),
    # ------------------------------------------------------------------ latency defined for every window
    Case("one-record-latency-fired-at-end", ONE, {},
         Runs({"records": 1, "on_time": 1, "firings": 1, "at_end_firings": 1, "latency_p50_ms": NAN,
               "latency_p99_ms": NAN, "latency_max_ms": NAN})),
    Case("one-record-interval-0", ONE, {"interval": 0},
         Runs({"records": 1, "at_end_firings": 1, "latency_p99_ms": NAN})),
    # ts 5000 arrives at 500: the tick at 1000 fires [1000, 2000) 1 s before its end (clock skew)
    Case("event-time-ahead-of-arrival-negative-latency", arrays([1000, 5000], [0, 500]), {"interval": "1s"},
         Runs({"records": 2, "at_end_firings": 1, "latency_p50_ms": -1000.0, "latency_max_ms": -1000.0})),
    # ------------------------------------------------------------------ guards before work starts
    Case("sliding-fan-out-86-million", ONE, {"window": "sliding:1d/1ms"}, Error(SettingError, FANOUT)),
    Case("sliding-fan-out-second-window", ONE, {"second_window": "sliding:1d/1ms"},
         Error(SettingError, FANOUT.replace("window sliding", "second_window sliding")), sweep=False),
    Case("sliding-fan-out-raised", ONE, {"window": "sliding:1s/1ms", "max_windows_per_record": 1000},
         Runs({"records": 1, "windows": 1000, "firings": 1000, "at_end_firings": 1000})),
    # a processing-time watermark is replayed at the calls that reach a window end (T - 1 s >= 999)
    Case("time-lag-1ms-over-30-days", arrays([0, 30 * DAY], [0, 30 * DAY]),
         {"strategy": "time_lag", "delay": "1s", "interval": "1ms", "max_memory": "8GB"},
         Runs({"records": 2, "on_time": 2, "firings": 2, "at_end_firings": 1, "latency_p50_ms": 999.0,
               "latency_max_ms": 999.0})),
    # idle_advance (step 1 s, capped at processing time): T - 1001 >= 999
    Case("idle-advance-1ms-over-30-days", arrays([0, 30 * DAY], [0, 30 * DAY]),
         {"strategy": "idle_advance", "delay": "1s", "step": "1s", "interval": "1ms", "max_memory": "8GB"},
         Runs({"records": 2, "on_time": 2, "firings": 2, "at_end_firings": 1, "latency_p50_ms": 1000.0,
               "latency_max_ms": 1000.0})),
    # a continuous trigger's timers sit on an event-time grid that is not listed: every call would run
    Case("time-lag-1ms-over-30-days-memory", arrays([0, 30 * DAY], [0, 30 * DAY]),
         {"strategy": "time_lag", "delay": "1s", "interval": "1ms", "trigger": "continuous:1s", "max_memory": "8GB"},
         Error(SettingError, "this {what} would need about 311.0 GB of memory, more than the limit's 8.0 GB: strategy "
               "time_lag moves the watermark at every 1ms call over 30.0 days of arrivals, and every call is run "
               "because this setting's event-time timers cannot be listed ahead (a processing-time or continuous "
               "trigger, a window, trigger or function object, a staggered window, a dynamic session in a sweep, "
               "or several stages); use a longer interval, or raise max_memory (--max-memory) if the estimate is "
               "too cautious")),
    Case("hundred-year-delay", ONE, {"delay": "36500d"}, Error(SettingError, ABSURD)),
    Case("hundred-year-lateness", ONE, {"lateness": "36500d"},
         Error(SettingError, "lateness of '36500d' is absurd (more than 10 years); check the unit")),
]


def _sweep_settings(settings: dict) -> dict:
    return {k: v for k, v in settings.items() if k not in ("max_windows_per_record", "max_memory")}


def _limits(settings: dict) -> dict:
    return {k: v for k, v in settings.items() if k in ("max_windows_per_record", "max_memory")}


def _same(a: Any, b: Any) -> bool:
    return (a != a and b != b) or a == b


def test_the_table_is_big_enough() -> None:
    assert len(CASES) >= 15 and len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_replay_and_sweep(case: Case) -> None:
    log = case.log()
    runs = [("replay", lambda: toolkit.replay(log, **case.settings))]
    if case.sweep:
        for path in ("fast", "engine"):
            runs.append((path, lambda path=path: toolkit.sweep(
                log, **{k: [v] for k, v in _sweep_settings(case.settings).items()}, **_limits(case.settings),
                path="auto" if path == "fast" else path, progress=False)))
    for what, run in runs:
        expect = case.expect
        if isinstance(expect, Error):
            with pytest.raises(expect.type) as err:
                run()
            kind = "replay" if what == "replay" else "sweep"
            assert str(err.value) == expect.message.replace("{what}", kind), what
            continue
        t0 = time.perf_counter()
        got = run()
        assert time.perf_counter() - t0 < expect.seconds, what
        row = got.summary() if what == "replay" else got.iloc[0].to_dict()
        for k, v in expect.figures.items():
            assert _same(float(row[k]), float(v)), (what, k, row[k], v)
        if what == "replay" and expect.check is not None:
            expect.check(got)


@pytest.mark.parametrize("case", [c for c in CASES if c.id in (
    "year-9999-arrival", "one-record-latency-fired-at-end", "sliding-fan-out-86-million", "hundred-year-delay",
    "time-lag-1ms-over-30-days-memory", "time-lag-1ms-over-30-days", "idle-advance-1ms-over-30-days")],
    ids=lambda c: c.id)
@pytest.mark.parametrize("command", ["replay", "sweep"])
def test_commands(case: Case, command: str, tmp_path, capsys) -> None:
    log = case.log()
    path = tmp_path / "log.csv"
    log.table[["event_time", "arrival_time", "key", "partition", "value"]].to_csv(path, index=False)
    args = [command, str(path)]
    for k, v in case.settings.items():
        args += ["--" + k.replace("_", "-"), str(v)]
    if command == "replay":
        args.append("--json")  # the figures as JSON (the default is the readable summary)
    else:
        args += ["--out", str(tmp_path / "rows.json")]  # every column, raw (the terminal shows readable ones)
    code = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if isinstance(case.expect, Error):
        assert code == 2
        msg = case.expect.message.replace("{what}", command)
        msg = msg.replace("window sliding", "--window sliding").replace("delay of", "--delay of")
        msg = msg.replace("use a longer interval", "use a longer --interval")
        assert err.splitlines()[-1] == "error: " + msg
        return
    assert code == 0
    if command == "replay":
        printed = json.loads(out)
        for k, v in case.expect.figures.items():
            assert (printed[k] is None) if v != v else printed[k] == v, k
    else:
        rows = json.loads((tmp_path / "rows.json").read_text())
        assert len(rows) == 1
        for k, v in case.expect.figures.items():
            assert (rows[0][k] is None) if v != v else rows[0][k] == v, k


@pytest.mark.parametrize("command, option, hint", [
    ("report", "--output", "--out"),   # argparse would have read it as --output-mode
    ("replay", "--del", "--delay"),    # ... and this as --delay, without a word
    ("sweep", "--late", "--lateness"),
])
def test_an_abbreviated_option_is_refused_with_the_closest_one(command, option, hint, tmp_path, capsys) -> None:
    path = tmp_path / "log.csv"
    path.write_text("event_time,arrival_time\n0,0\n")
    with pytest.raises(SystemExit) as e:
        main([command, str(path), option, "1s"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "Traceback" not in err
    assert err.splitlines()[-1].endswith(f"error: unrecognized option {option} (did you mean {hint}?)")
