"""The one parametrisation of the oracle scenario fixtures.

A test that takes an argument named ``window_case``, ``watermarks_case``, ``valve_case`` or
``multiplexer_case``
runs once per scenario file of that kind under ``tests/fixtures/<kind>`` (found by
``scenarios.discover``: ``*.jsonl``, not ``*.out.jsonl``), with the file's stem as test id.
"""
from __future__ import annotations

from pathlib import Path

from toolkit.engine.flink.scenarios import discover

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CASE_ARGS = {"window_case": "window", "watermarks_case": "watermarks", "valve_case": "valve",
             "multiplexer_case": "multiplexer"}


def scenario_cases(kind: str) -> list[Path]:
    """The scenario files of one kind."""
    return discover([FIXTURES / kind])


def expected_output(path: Path) -> Path:
    """The real-Flink output committed beside a scenario."""
    return path.with_name(path.name[: -len(".jsonl")] + ".out.jsonl")


def pytest_generate_tests(metafunc) -> None:
    for arg, kind in CASE_ARGS.items():
        if arg in metafunc.fixturenames:
            cases = scenario_cases(kind)
            metafunc.parametrize(arg, cases, ids=[p.stem for p in cases])
