#!/usr/bin/env python3
"""Run the Flink SQL that ``deploy`` prints, unchanged, in real Flink SQL on the sample log.

Usage (the project's Python: it needs ``toolkit``; the oracle's Flink comes from
``python3 ../shared/oracle/flink_oracle.py setup``)::

    .venv/bin/python oracles/flink_sql/deploy_check.py tests/fixtures/flink_sql_deploy [LOG]

For each setting in ``SETTINGS`` it writes ``NAME.sql`` (what ``python -m toolkit deploy``
prints for it) and, after real Flink ran it, ``NAME.out.jsonl`` (the rows and watermarks that
reached the sink, as ``flink_sql_oracle.py`` writes them). The one line changed before Flink
runs the script is the placeholder ``'connector' = '...'``, which becomes
``'connector' = 'scenario'``: the oracle's source (README.md), one split per log partition, its
steps the log's records in arrival order with the periodic emissions between them, as the
replay has them. ``tests/flink_sql/test_deploy_runs_in_flink.py`` checks that the printed SQL is
still ``NAME.sql`` and that the replay of the log gives Flink's rows.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

#: name -> the setting (as ``python -m toolkit deploy`` takes it) whose printed SQL runs in Flink
SETTINGS = {
    "tumble_idle": dict(window="tumbling:1s", delay="500ms", idleness="2s"),
    "hop": dict(window="sliding:10s/5s", delay="2s", interval="500ms"),
    "cumulate": dict(window="cumulate:1min/10s", delay="1s"),
    "session": dict(window="session:2s", delay="1s"),
    "legacy_late_fire": dict(window="tumbling:10s", delay="1s", window_syntax="legacy", late_fire=True,
                             allow_lateness="5s"),
    "mini_batch": dict(window="tumbling:5s", delay="1s", mini_batch="1s"),
}
CONNECTOR = re.compile(r"'connector' = '\.\.\.'[^\n]*")


def load(log_path: Path):
    import toolkit

    return toolkit.load_log(log_path, max_invalid_fraction=0.01)


def script(setting: dict) -> str:
    """What ``deploy --semantics flink_sql`` prints for ``setting``."""
    import toolkit

    return toolkit.deploy(semantics="flink_sql", **setting).code


def scenario(name: str, sql: str, log, interval_ms: int) -> list[dict]:
    """The oracle's scenario: the script (connector placeholder replaced) and the log's steps."""
    from toolkit.engine.flink_sql import source_steps

    if len(CONNECTOR.findall(sql)) != 1:
        raise SystemExit(f"{name}: the printed SQL has no single 'connector' = '...' line to replace")
    t = log.table
    records = [{"t": int(a), "arrival": int(b), "k": str(k), "p": int(p), "v": float(v)}
               for a, b, k, p, v in zip(t["event_time"], t["arrival_time"], t["key"], t["partition"], t["value"])]
    head = {"name": name, "partitions": sorted({r["p"] for r in records}),
            "script": CONNECTOR.sub("'connector' = 'scenario'", sql)}
    return [head] + source_steps(records, interval_ms)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    out = Path(argv[0])
    log = load(Path(argv[1]) if len(argv) > 1 else ROOT / "data" / "sample.csv")
    out.mkdir(parents=True, exist_ok=True)
    from toolkit.settings import Setting

    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, setting in SETTINGS.items():
            sql = script(setting)
            (out / f"{name}.sql").write_text(sql + "\n", encoding="utf-8")
            interval = int(Setting.parse(semantics="flink_sql", **setting).interval)
            path = Path(tmp) / f"{name}.jsonl"
            path.write_text("".join(json.dumps(x) + "\n" for x in scenario(name, sql, log, interval)), encoding="utf-8")
            files.append(str(path))
        done = subprocess.run([sys.executable, str(HERE / "flink_sql_oracle.py"), "run", tmp, *files])
        if done.returncode:
            return done.returncode
        for name in SETTINGS:
            lines = Path(tmp, f"{name}.out.jsonl").read_text(encoding="utf-8").splitlines()
            keep = [x for x in lines if json.loads(x)["kind"] in ("plan", "row", "watermark", "metrics", "error")]
            (out / f"{name}.out.jsonl").write_text("".join(x + "\n" for x in keep), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
