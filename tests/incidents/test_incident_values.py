"""Incidents as values: spellings, parsing, validation errors that name the option."""
from __future__ import annotations

import doctest
import importlib

import pytest

import toolkit
from toolkit.incidents import (
    Composite,
    Delay,
    Restart,
    Stall,
    burst,
    clock_skew,
    late_upload,
    parse_incident,
    restart,
    silence,
    stall,
)
from toolkit.settings import SettingError

EXAMPLES = [
    stall(partition=2, at="1min", duration="2min", drain="500/s"),
    stall(partition="eu-west", at=0, duration=1500, drain_rate=0.5),
    restart(at="2min", downtime="30s", replay_from="1min", source_rate="1000/s"),
    restart(at="90s", downtime=0, replay_from="10s", source_rate=250, duplicates=True),
    clock_skew(partition=1, offset="-30s"),
    clock_skew(key="user,42 \"x\"", offset="2h"),
    late_upload(fraction=0.05, delay="exponential:10min", seed=7),
    late_upload(fraction="5%", delay="uniform:1min..1h"),
    late_upload(fraction=1, delay=250),
    silence(partition=0, at="2min", duration="30s"),
    burst(factor=4, at="1min", duration="1min"),
    burst(factor=0.5, at=0, duration="1s"),
]


@pytest.mark.parametrize("incident", EXAMPLES, ids=str)
def test_str_reads_back(incident):
    assert parse_incident(str(incident)) == incident
    assert type(incident).parse(str(incident)) == incident
    assert hash(parse_incident(str(incident))) == hash(incident)


def test_spellings():
    assert str(EXAMPLES[0]) == "stall:partition=2,at=1min,duration=2min,drain=500/s"
    assert str(EXAMPLES[3]) == "restart:at=90s,downtime=0ms,replay_from=10s,source_rate=250/s,duplicates=true"
    assert str(EXAMPLES[5]) == 'clock_skew:key="user,42 \\"x\\"",offset=2h'
    assert str(EXAMPLES[7]) == "late_upload:fraction=0.05,delay=uniform:1min..1h,seed=0"
    assert str(EXAMPLES[8]) == "late_upload:fraction=1.0,delay=250ms,seed=0"


def test_other_ways_to_write_the_same_incident():
    s = stall(partition=2, at="1min", duration="2min", drain="500/s")
    assert parse_incident("stall(partition=2, at=60s, duration=120000, drain=30000/min)") == s
    assert parse_incident(" STALL : partition = 2 , at=1min, duration=2min, drain_rate=500 ") == s
    assert parse_incident("stall:partition=2,at=1min,duration=2min,rate=500/s") == s
    r = parse_incident("restart:at=2min,downtime=30s,backlog=1min,rate=1000/s,duplicates=yes")
    assert r == restart(at="2min", downtime="30s", replay_from="1min", source_rate=1000, duplicates=True)
    assert parse_incident("skew:key=k1,skew=+5s") == clock_skew(key="k1", offset=5000)
    assert Delay.parse("exponential:10min") == Delay("exponential", 600_000)


def test_composition_is_a_sequence_that_reads_back():
    a, b, c = EXAMPLES[0], EXAMPLES[2], EXAMPLES[4]
    ab = a + b
    assert isinstance(ab, Composite) and ab.incidents == (a, b)
    assert (ab + c).incidents == (a, b, c) == (a + (b + c)).incidents
    assert ab != b + a
    assert str(ab) == f"{a} + {b}"
    assert parse_incident(str(ab + c)) == ab + c
    assert parse_incident(f"{c}+{a}") == c + a  # no spaces needed; offset=-30s / +30s stay values
    assert parse_incident("clock_skew:partition=1,offset=+30s + burst:factor=2,at=0ms,duration=1s") == \
        clock_skew(partition=1, offset=30_000) + burst(2, 0, 1000)


@pytest.mark.parametrize("text, option, words", [
    ("stal:partition=2,at=1min,duration=2min,drain=500/s", "incident", "did you mean 'stall'"),
    ("stall:partition=2,at=1min,duration=2min,drian=500/s", "stall", "did you mean 'drain'"),
    ("stall:partition=2,at=1min,duration=2min", "stall", "drain= is missing"),
    ("stall:partition=2,at=1min,duration=2min,drain=0/s", "stall", "drain must be a positive rate"),
    ("stall:partition=2,at=1min,duration=2min,drain=5/week", "stall", "500/s"),
    ("stall:partition=2,at=-1min,duration=2min,drain=5/s", "stall", "at must not be negative"),
    ("stall:partition=2,at=1min,duration=2 fortnights,drain=5/s", "stall", "duration: cannot read"),
    ("stall:partition=2,at=1min,at=2min,duration=1s,drain=5/s", "stall", "at is given twice"),
    ("restart:at=1min,downtime=1s,replay_from=1min,source_rate=5/s,duplicates=maybe", "restart", "true or false"),
    ("restart:at=1min,replay_from=100y,source_rate=5/s", "restart", "replay_from"),
    ("clock_skew:offset=5s", "clock_skew", "exactly one of partition= or key="),
    ("clock_skew:partition=1,key=a,offset=5s", "clock_skew", "exactly one"),
    ("late_upload:fraction=1.5,delay=1s", "late_upload", "fraction must be a number in [0, 1]"),
    ("late_upload:fraction=0.1,delay=exponentail:1s", "late_upload", "did you mean 'exponential'"),
    ("late_upload:fraction=0.1,delay=uniform:1h..1min", "late_upload", "reversed"),
    ("late_upload:fraction=0.1,delay=1s,seed=-3", "late_upload", "seed must be an integer >= 0"),
    ("burst:factor=0,at=0s,duration=1s", "burst", "factor must be a number in (0, 1e+06]"),
    ("silence:partition=,at=0s,duration=1s", "silence", "partition must not be empty"),
    ("stall partition=2", "stall", "cannot read"),
])
def test_bad_input_names_the_option(text, option, words):
    with pytest.raises(SettingError) as e:
        parse_incident(text)
    assert e.value.setting == option
    assert words in str(e.value)
    if option != "incident":
        assert str(e.value).startswith(f"{option}:")


def test_python_constructors_validate_too():
    with pytest.raises(SettingError, match="stall: give the drain rate once"):
        stall(2, "1min", "2min")
    with pytest.raises(SettingError, match="duration must not be negative") as e:
        Stall(2, 0, -5, 10)
    assert e.value.setting == "stall"
    with pytest.raises(SettingError, match="source_rate= is missing"):
        restart(at="1min", replay_from="1min")
    assert Restart(1000, 0, 1000, 1) == restart(at="1s", replay_from="1s", source_rate="1/s")
    with pytest.raises(SettingError, match="a composite holds incidents"):
        Composite(("stall",))


def test_partition_not_in_the_log_is_named():
    log = toolkit.EventLog.from_arrays([0, 1, 2], arrival_time=[0, 1, 2], partition=[0, 1, 2])
    with pytest.raises(SettingError) as e:
        stall(partition=7, at=0, duration=10, drain=1).apply(log)
    assert e.value.setting == "stall"
    assert str(e.value) == "stall: partition 7 is not in the log (partitions: 0, 1, 2)"


@pytest.mark.parametrize("module", ["toolkit.incidents", "toolkit.incidents.backlog", "toolkit.incidents.skew",
                                    "toolkit.incidents.late", "toolkit.incidents.spans"])
def test_module_examples_run(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
