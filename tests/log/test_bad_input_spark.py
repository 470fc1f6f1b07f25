"""The bad-input table on Spark: the file cases both loaders read end the same way.

Kept apart from test_log_spark.py (whose Spark tests a foundation test counts).
"""
from __future__ import annotations

import pytest

import toolkit

pytestmark = pytest.mark.spark

SPARK_TABLE_CASES = [
    "dup-event-time-csv", "dup-key-csv", "jsonl-broken-line", "jsonl-array-line", "csv-row-with-extra-field",
    "csv-row-with-missing-field", "csv-bom-and-crlf", "csv-value-beyond-int64-quarantined-rest-exact",
    "jsonl-value-beyond-int64", "csv-nan-and-infinity-times", "csv-empty-cells-are-null-not-nan",
    "iso-year-9999-loads", "epoch-ms-year-9999-same-instant", "date-year-9999-csv",
    "ms-fractions-floored-and-counted", "microseconds-off-the-millisecond", "seconds-read-as-ms",
    "arrival-in-seconds-event-in-ms", "mixed-seconds-and-ms", "parquet-empty-part-skipped",
]


def test_bad_input_table_agrees_between_pandas_and_spark(spark, tmp_path):
    """The bad-input table's file cases that both loaders read: the same error, or the same log and warnings."""
    import warnings

    from test_bad_input_table import CASES, Quarantine

    by_id = {c.id: c for c in CASES}
    for name in SPARK_TABLE_CASES:
        case = by_id[name]
        folder = tmp_path / name
        folder.mkdir()
        path = case.source(folder)
        options = dict(case.options)
        if isinstance(case.expect, Quarantine):
            options.setdefault("max_invalid_fraction", case.expect.fraction)
        outcomes = []
        for backend in (None, spark):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    log = toolkit.load_log(path, spark=backend, **options)
            except Exception as exc:  # noqa: BLE001 - compared below
                outcomes.append((type(exc).__name__, str(exc)))
            else:
                outcomes.append((log.to_pandas().to_dict("list"), log.quarantine.to_dict("list"),
                                 log.floored, log.warnings))
        assert outcomes[1] == outcomes[0], name
