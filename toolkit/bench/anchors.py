"""Real engines' cost per setting, measured in the same benchmark run on the same log.

**Real Flink** runs the oracle's anchor job (``../shared/oracle``, beside the repository; its
README, section "bench"): ``DataGeneratorSource`` records, ``keyBy`` key, 1 s tumbling event-time
windows, allowed lateness 0, an incremental count, late records to a side output, and a
watermark ``max event time - lag`` after every ``wm_every`` records, at parallelism 1.
:func:`flink_bench_table` generates exactly the same records in numpy (SplitMix64, as
``Bench.java``), with arrival times that put one watermark tick after each block of
``wm_every`` records, so the setting :func:`flink_setting` (strategy ``legacy``: ``max - delay``)
sees Flink's watermarks: its sweep row must have Flink's firings, counted and late records
(``check_flink``), which makes the comparison one of equal work.

Another engine's anchor (real Spark Structured Streaming, once Spark semantics exist) is one more
function returning an :class:`Anchor`; ``bench sweep`` prints every anchor it gets.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit.bench._timing import timed

#: the oracle's bench defaults (``Bench.java``): records per second of event time, max event-time
#: delay, a watermark every WM_EVERY records lagging WM_LAG ms behind the max event time
RATE, MAX_DELAY, WM_EVERY, WM_LAG = 10_000, 2000, 1000, 1000
ORACLE_ENV = "WATERMARK_LAB_ORACLE"

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@dataclass
class Anchor:
    """One real engine's measured cost of one setting over the bench log."""

    engine: str
    records: int
    wall_s: float  # whole process, start-up included: what running the engine once per setting costs
    job_s: float | None = None  # the job alone, start-up excluded
    cpu_s: float | None = None  # CPU seconds of the whole process (all threads), fairer on a busy machine
    figures: dict = field(default_factory=dict)
    note: str = ""


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on uint64 (wrapping), as ``Bench.mix64``."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def flink_bench_table(records: int, keys: int, seed: int) -> pd.DataFrame:
    """The anchor job's records: record i has key ``"k" + floorMod(mix64(seed<<32 + 2i), keys)`` and
    event time ``i*1000/RATE - floorMod(mix64(seed<<32 + 2i + 1), MAX_DELAY)``; it arrives at the end
    of its block of WM_EVERY records, ``(i // WM_EVERY + 1) * interval`` ms (record 0 at 0, the
    first arrival), so the periodic tick ``k * interval`` follows exactly the first k blocks, as
    Flink's watermark after every WM_EVERY records does."""
    if records < 1 or keys < 1:
        raise ValueError(f"records and keys must be >= 1, got {records} and {keys}")
    i = np.arange(records, dtype=np.int64)
    base = np.uint64((seed << 32) & (2**64 - 1))
    with np.errstate(over="ignore"):
        key_ix = mix64(base + (2 * i).astype(np.uint64)).view(np.int64) % keys
        delay = mix64(base + (2 * i + 1).astype(np.uint64)).view(np.int64) % MAX_DELAY
    interval = WM_EVERY * 1000 // RATE
    arrival = (i // WM_EVERY + 1) * interval
    arrival[0] = 0
    names = np.array([f"k{k}" for k in range(keys)], dtype=object)
    return pd.DataFrame({"row": i, "event_time": i * 1000 // RATE - delay, "arrival_time": arrival,
                         "key": names[key_ix], "partition": np.zeros(records, dtype=np.int64)})


def flink_setting() -> dict:
    """The toolkit setting of the anchor job: Flink's watermarks (``max - WM_LAG`` once per block)."""
    return dict(window="tumbling:1s", strategy="legacy", delay=WM_LAG, lateness=0, interval=WM_EVERY * 1000 // RATE)


def oracle_dir() -> Path:
    """``$WATERMARK_LAB_ORACLE``, else ``../shared/oracle`` beside the repository."""
    env = os.environ.get(ORACLE_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared" / "oracle"


def flink_anchor(records: int, keys: int, seed: int, *, timeout: float = 900) -> Anchor | str:
    """Run real Flink's anchor job once over ``records`` records; an :class:`Anchor`, or the
    reason (a sentence) why real Flink could not be measured."""
    where = oracle_dir()
    script = where / "flink_oracle.py"
    if not script.exists():
        return f"no Flink oracle at {where} (set ${ORACLE_ENV} to its folder; its README says how to set it up)"
    cmd = [sys.executable, str(script), "bench", "--records", str(records), "--keys", str(keys), "--seed", str(seed),
           "--rate", str(RATE), "--max-delay", str(MAX_DELAY), "--wm-every", str(WM_EVERY), "--wm-lag", str(WM_LAG),
           "--window", "1000", "--parallelism", "1"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc, timer = timed(lambda: subprocess.run(cmd, cwd=where, capture_output=True, text=True, timeout=timeout))
    except subprocess.TimeoutExpired:
        return f"the Flink oracle's bench did not finish within {timeout:.0f} s"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    wall = timer.wall
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        err = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return f"the Flink oracle at {where} failed: {err[:300]}"
    out = json.loads(lines[-1])
    figures = {"firings": out["fires"], "on_time": out["counted"], "dropped": out["late"]}
    return Anchor("real Flink 2.3 (oracle bench job, parallelism 1)", int(out["records"]), wall,
                  job_s=float(out["job_blocking_s"]), cpu_s=cpu, figures=figures,
                  note=f"JVM start {out['jvm_to_main_s']:.1f} s, MiniCluster start {out['cluster_start_s']:.1f} s, "
                       f"job {out['job_blocking_s']:.1f} s")


def check_flink(anchor: Anchor, row: pd.Series) -> str:
    """Whether the sweep row of :func:`flink_setting` has Flink's figures (the same work was done)."""
    diffs = [f"{k} {row[k]:,} vs Flink {v:,}" for k, v in anchor.figures.items() if int(row[k]) != int(v)]
    shown = ", ".join(f"{k} {v:,}" for k, v in anchor.figures.items())
    return f"same figures as real Flink ({shown})" if not diffs else "DIFFERENT from real Flink: " + "; ".join(diffs)


#: the benchmark sweeps' grid: 20 delays x 5 allowed latenesses = 100 configurations (ms)
DELAYS = [0, 50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500, 3000, 5000]
LATENESS = [0, 250, 500, 1000, 2000]
