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
    "csv-huge-integer-among-decimals", "csv-value-rest-stays-exact-int64",
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


@pytest.mark.parametrize("name, content", [
    ("y9999.csv", "event_time,arrival_time,key,partition,value\n1000,1200,a,0,1\n2000,253402300799999,a,0,1\n"),
    ("extreme.csv", "event_time,arrival_time,key,partition,value\n-9223372036854775000,-9223372036854775000,a,0,1\n"
                    "9223372036854775000,9223372036854775000,a,0,1\n1,9223372036854775000,a,0,1\n"),
])
def test_describe_of_huge_spans_agrees_and_does_not_overflow(spark, tmp_path, name, content):
    """Spans from 1970 to year 9999, and from one end of int64 milliseconds to the other: Spark
    raises no ANSI overflow and both backends hold differences at the int64 limits."""
    import warnings

    path = tmp_path / name
    path.write_text(content)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = toolkit.load_log(path).describe()
        b = toolkit.load_log(path, spark=spark).describe()
    fa, fb = a.to_dict(), b.to_dict()
    fa.pop("backend", None), fb.pop("backend", None)
    if name == "extreme.csv":
        # Spark's percentiles pass through doubles: near 2^63 they differ in the last digits
        for k in ("delay", "behind_by"):
            assert fa.pop(k)["max"] == fb.pop(k)["max"] == 9223372036854774999
        assert a.partitions[0].max_gap == b.partitions[0].max_gap == 2**63 - 1
    assert fa == fb
