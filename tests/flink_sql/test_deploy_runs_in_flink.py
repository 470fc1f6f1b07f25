"""The Flink SQL that ``deploy`` prints behaves as replayed: real Flink SQL 2.3 ran each printed
script unchanged (only the ``'connector' = '...'`` placeholder became the oracle's source) on the
sample log, and the replay of that log with the same setting gives the same rows, each emitted
at the same watermark.

The fixtures come from ``oracles/flink_sql/deploy_check.py`` (``NAME.sql`` the printed script,
``NAME.out.jsonl`` what reached Flink's sink); the suite never needs Flink.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

import toolkit
from toolkit.settings import Setting

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "flink_sql_deploy"
LOG = Path(os.environ.get("DEPLOY_CHECK_LOG", ROOT / "data" / "sample.csv"))  # the log deploy_check.py ran
CASES = sorted(p.name[:-len(".sql")] for p in FIX.glob("*.sql"))
HEADER = "-- Watermark Lab setting: "
END = 2**63 - 1  # the bounded source's final watermark


@pytest.fixture(scope="module")
def log():
    return toolkit.load_log(LOG, max_invalid_fraction=0.01)


def _oracle_rows(case: str) -> list[tuple]:
    """Flink's rows as (op, key, start, end, count, sum, the watermark that emitted them)."""
    lines = [json.loads(x) for x in (FIX / f"{case}.out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert not [x for x in lines if x["kind"] == "error"], lines[0]
    out, pending = [], []
    for x in lines:
        if x["kind"] == "row":
            pending.append(x)
        elif x["kind"] == "watermark":  # a row reaches the sink before the watermark that fired it
            out += [(r["op"], r["key"], r["window_start"], r["window_end"], r["count"], float(r["sum"]), x["ts"])
                    for r in pending]
            pending = []
    return out + [(r["op"], r["key"], r["window_start"], r["window_end"], r["count"], float(r["sum"]), END)
                  for r in pending]


def test_every_deploy_case_ran_in_flink():
    assert len(CASES) >= 6 and all((FIX / f"{c}.out.jsonl").exists() for c in CASES)
    kinds = {Setting.parse((FIX / f"{c}.sql").read_text().splitlines()[0][len(HEADER):]).window.__class__.__name__
             for c in CASES}
    assert kinds == {"Tumbling", "Sliding", "Cumulate", "Session"}


@pytest.mark.parametrize("case", CASES)
def test_the_printed_sql_runs_in_flink_as_replayed(case, log):
    sql = (FIX / f"{case}.sql").read_text(encoding="utf-8")
    assert sql.startswith(HEADER)
    setting = Setting.parse(sql.splitlines()[0][len(HEADER):])
    assert toolkit.deploy(setting).code + "\n" == sql, "deploy prints other SQL now: rerun oracles/flink_sql/deploy_check.py"
    want = _oracle_rows(case)
    em = toolkit.replay(log, setting).emissions
    fired_by = em["watermark"].where(~em["at_end"], END).astype("int64")
    got = list(zip(em["op"], em["key"], em["window_start"].astype(int), em["window_end"].astype(int),
                   em["count"].astype(int), em["sum"].astype(float), fired_by))
    assert Counter(r[:6] for r in got) == Counter(r[:6] for r in want)  # the same rows
    by_watermark = [r for r, cause in zip(got, em["cause"]) if cause != "record"]  # legacy firings by a record
    assert by_watermark and not Counter(by_watermark) - Counter(want), "rows emitted at other watermarks"
