"""Spark-semantics case files (the real-Spark oracle's format): read one, run it, compare outputs.

A case is JSON lines: ``{"config": {...}}`` then records ``{"event_time", "arrival_time", "key",
"partition", "value"[, "gap"]}`` (a ``gap`` may be null) (epoch ms). The config keys (``window``, ``delay``,
``trigger_interval``, ``output_mode``, ``partitions_as_sources``, ``partitions``,
``multiple_watermark_policy``) are documented in ``oracles/spark/spark_oracle.py``. The output
is one line per executed batch (``MicroBatchResult.batch_rows``), or one ``{"error": ...}``
line when Spark refuses the query.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from toolkit.engine.microbatch.config import MicroBatchConfig, MicroBatchConfigError
from toolkit.engine.microbatch.run import run_microbatch

#: the Spark error class our refusal stands for, per option
SPARK_ERRORS = {"output_mode": "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
                "window": "DATATYPE_MISMATCH.PARAMETER_CONSTRAINT_VIOLATION"}


def config_of(raw: dict) -> MicroBatchConfig:
    """The ``MicroBatchConfig`` of a case's config object."""
    w = raw["window"]
    return MicroBatchConfig(
        window_kind=w["kind"], size=int(w.get("size", 0)), slide=int(w.get("slide", 0)), gap=int(w.get("gap", 0)),
        offset=int(w.get("offset", 0)),
        delay=int(raw["delay"]), trigger_interval=int(raw["trigger_interval"]), output_mode=raw["output_mode"],
        partitions_as_sources=bool(raw["partitions_as_sources"]),
        multiple_watermark_policy=raw["multiple_watermark_policy"],
        sources=tuple(int(p) for p in raw["partitions"]) if raw["partitions_as_sources"] else None)


def run_case(path: str | Path) -> list[dict]:
    """The batches our engine gives for the case at ``path`` (or ``[{"error": ...}]``)."""
    lines = [json.loads(s) for s in Path(path).read_text().splitlines() if s.strip()]
    raw, recs = lines[0]["config"], lines[1:]
    try:
        config = config_of(raw)
    except MicroBatchConfigError as exc:
        option = str(exc).split(":", 1)[0]
        return [{"error": f"{SPARK_ERRORS.get(option, option)}: {exc}"}]
    col = lambda name: np.array([r[name] for r in recs])  # noqa: E731 - a case is small
    gap = col("gap") if raw["window"].get("gap_column") else None
    res = run_microbatch(config, col("event_time"), col("arrival_time"), col("key"), col("value"),
                         partition=col("partition"), gap=gap)
    return res.batch_rows()


def same_output(ours: list[dict], spark: list[dict]) -> str | None:
    """None when ``ours`` matches Spark's output; otherwise the first difference, in words.

    An error matches an error of the same Spark error class; batches must match field by field.
    """
    if spark and "error" in spark[0]:
        if not ours or "error" not in ours[0]:
            return f"Spark refused the query ({spark[0]['error'][:80]}), we ran it"
        cls = spark[0]["error"].split(":", 1)[0]
        return None if ours[0]["error"].startswith(cls) else f"error {ours[0]['error']!r} is not Spark's {cls}"
    if ours and "error" in ours[0]:
        return f"we refused the query ({ours[0]['error']}), Spark ran it"
    if len(ours) != len(spark):
        return f"{len(ours)} batches, Spark ran {len(spark)}: ticks {[b['tick'] for b in ours]} vs {[b['tick'] for b in spark]}"
    for a, b in zip(ours, spark):
        for field in ("tick", "watermark", "input_rows", "rows_dropped_by_watermark", "rows"):
            if a[field] != b[field]:
                return f"batch {b['batch']}: {field} {a[field]} != Spark's {b[field]}"
    return None
