"""The bad-input table of the log layer (issue 16): malformed and extreme logs, one exact outcome each.

Every case is loaded through the Python API (``toolkit.load_log``) and, when it is a file,
through ``python -m toolkit describe`` (``toolkit.cli.main``). A case ends in exactly one of:

- ``Error``: the exception type and its whole message (the message names the column or
  option, the row or line, and the value); on the command line ``error: <message in option
  words>`` on stderr, exit 2, no traceback;
- ``Quarantine``: the quarantined rows (row, column, reason, raw) and the records left;
  on the command line the load succeeds with ``--max-invalid-fraction`` and lists the rows;
- ``Loads``: the canonical times/values, the rows floored to whole ms and the warnings
  (exact text; ``warning: ...`` on the command line), with nothing quarantined.

Structural damage (a CSV row with the wrong number of fields, a JSON line that does not
parse, a truncated gzip) is an error naming file and line; damaged values in a well-formed
row are quarantined. A broken JSON line is treated like a ragged CSV row.
"""
from __future__ import annotations

import gzip
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.cli import main
from toolkit.log import (
    ColumnTypeError,
    DuplicateColumnError,
    EmptyLogError,
    InvalidRecordsError,
    LogReadError,
    LogWarning,
    MissingColumnError,
    MixedUnitsError,
)

T0 = 1_700_000_000_000
Y9999 = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z in ms
SEC_WARNING = ("column 'event_time': every time looks like epoch seconds (e.g. row 0: 1700000000), but "
               "time_unit='ms' reads them as epoch milliseconds (dates around 1970-01-20); if the column holds "
               "seconds, pass time_unit='s'")


@dataclass
class Error:
    type: type
    message: str  # "{path}" stands for the file's path as given
    cli: str | None = None  # the command line's message (default: the same)


@dataclass
class Quarantine:
    rows: list[tuple]  # (row, column, reason, raw)
    records: int
    fraction: float = 0.5
    check: Callable[[Any], None] | None = None  # anything else about the loaded log


@dataclass
class Loads:
    column: str = "event_time"
    values: list | None = None  # the canonical column after loading
    floored: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    cli_warnings: list[str] | None = None  # in option words (default: the same)
    check: Callable[[Any], None] | None = None  # anything else about the loaded log


@dataclass
class Case:
    id: str
    source: Callable[[Path], Any]  # tmp_path -> path or DataFrame
    expect: Any
    options: dict = field(default_factory=dict)  # load_log keyword arguments
    cli: list[str] = field(default_factory=list)  # the same options on the command line


def text(name: str, content: str | bytes, *, gz: bool = False, cut: bool = False):
    def make(tmp: Path) -> Path:
        data = content.encode() if isinstance(content, str) else content
        if gz:
            data = gzip.compress(data)
            if cut:
                data = data[: len(data) // 2]
        path = tmp / name
        path.write_bytes(data)
        return path
    return make


def frame(**columns):
    return lambda tmp: pd.DataFrame(columns)


def parquet(name: str, *frames, folder: bool = False):
    def make(tmp: Path) -> Path:
        if not folder:
            frames[0].to_parquet(tmp / name)
            return tmp / name
        (tmp / name).mkdir()
        for i, f in enumerate(frames):
            f.to_parquet(tmp / name / f"part-{i}.parquet")
        return tmp / name
    return make


def many_lines(n: int) -> str:
    return "event_time,key\n" + "".join(f"{T0 + i},k{i % 7}\n" for i in range(n))


def dup_frame(tmp):
    return pd.DataFrame([[T0, T0 + 1, "a"]], columns=["event_time", "event_time", "key"])


def wide_datetimes(tmp):
    import datetime as dt

    return pd.DataFrame({"event_time": [dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=dt.timezone.utc),
                                        dt.datetime(2023, 11, 14, 22, 13, 20)]}, dtype=object)


def ten_million_rows_one_null(tmp):
    """A 10 M-row Parquet log (event times and values) whose row 7,654,321 has no event time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 10_000_000
    times = pa.array(np.arange(T0, T0 + n, dtype=np.int64), mask=np.arange(n) == 7_654_321)
    path = tmp / "ten_million.parquet"
    pq.write_table(pa.table({"event_time": times, "value": pa.array(np.arange(n, dtype=np.int64))}), path)
    return path


def huge_key(tmp):
    path = tmp / "huge_key.csv"
    path.write_text(f"event_time,key\n{T0},{'k' * 1_000_000}\n{T0 + 1},b\n")
    return path


def huge_time(tmp):
    path = tmp / "huge_time.csv"
    path.write_text(f"event_time\n{T0}\n{'x' * 1_000_000}\n")
    return path


def empty_part(tmp):
    (tmp / "parts").mkdir()
    pd.DataFrame({"event_time": [T0, T0 + 1]}).to_parquet(tmp / "parts" / "part-0.parquet")
    pd.DataFrame({"event_time": pd.Series([], dtype="int64")}).to_parquet(tmp / "parts" / "part-1.parquet")
    pd.DataFrame({"event_time": [T0 + 2]}).to_parquet(tmp / "parts" / "part-2.parquet")
    return tmp / "parts"


def folder_broken_json(tmp):
    (tmp / "j").mkdir()
    (tmp / "j" / "part-0.jsonl").write_text(f'{{"event_time": {T0}}}\n')
    (tmp / "j" / "part-1.jsonl").write_text(f'{{"event_time": {T0}}}\n{{"event_time": {T0}, "key": "a"\n')
    return tmp / "j"


#: 4 KB of binary garbage (a seeded random byte string): the first row pyarrow finds wrong is
#: not UTF-8, so its invalid-row callback fails before ours runs (byte 0xd4)
GARBAGE = __import__("random").Random(7).randbytes(4096)


def folder_with_parquet_part(tmp):
    """A Parquet part among CSV parts, each named for its format."""
    (tmp / "mixed").mkdir()
    (tmp / "mixed" / "part-0.csv").write_text(f"event_time,key\n{T0},a\n")
    pd.DataFrame({"event_time": [T0 + 1], "key": ["b"]}).to_parquet(tmp / "mixed" / "part-1.parquet")
    return tmp / "mixed"


def folder_with_binary_part(tmp):
    """A binary part named like its CSV siblings."""
    (tmp / "bin").mkdir()
    (tmp / "bin" / "part-0.csv").write_text(f"event_time,key\n{T0},a\n")
    (tmp / "bin" / "part-1.csv").write_bytes(GARBAGE)
    return tmp / "bin"


def uint_values(tmp):
    path = tmp / "uint.parquet"
    pd.DataFrame({"event_time": [T0, T0 + 1], "value": np.array([2**64 - 1, 5], dtype=np.uint64)}).to_parquet(path)
    return path


def parquet_ms_9999(tmp):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp / "ms.parquet"
    pq.write_table(pa.table({"event_time": pa.array([Y9999, T0], pa.timestamp("ms", tz="UTC"))}), path)
    return path


def check_exact_values(log):
    assert log.table["value"].tolist() == [9007199254740993, 1] and log.table["value"].dtype == np.int64


def check_huge_key(log):
    assert [len(k) for k in log.table["key"]] == [1_000_000, 1]


def check_bom_crlf(log):
    assert log.table[["key", "value"]].values.tolist() == [["a", 1], ["b", 2]]
    assert log.unused_columns == []


def check_part_rows(log):
    assert log.table["row"].tolist() == [0, 1, 2]


def check_describe_floored(log):
    desc = log.describe()
    assert desc.floored == {"event_time": 2} and desc.warnings == log.warnings
    assert "floored to whole ms  event_time: 2 rows" in str(desc)


CASES = [
    # ------------------------------------------------------------------ duplicated column names
    Case("dup-event-time-csv", text("dup.csv", f"event_time,event_time,key\n{T0},{T0 + 1},a\n"), Error(
        DuplicateColumnError,
        "column 'event_time' (for event_time) appears 2 times in {path}, as columns 1 and 2; which one is meant "
        "cannot be told: rename the columns so that each name is unique",
        "--event-time: column 'event_time' appears 2 times in {path}, as columns 1 and 2; which one is meant "
        "cannot be told: rename the columns so that each name is unique")),
    Case("dup-key-csv", text("dupk.csv", f"event_time,key,key\n{T0},a,b\n"), Error(
        DuplicateColumnError,
        "column 'key' (for key) appears 2 times in {path}, as columns 2 and 3; which one is meant cannot be told: "
        "rename the columns so that each name is unique",
        "--key: column 'key' appears 2 times in {path}, as columns 2 and 3; which one is meant cannot be told: "
        "rename the columns so that each name is unique")),
    Case("dup-mapped-three-times", text("dup3.csv", f"ts,ts,v,ts,v\n{T0},1,2,3,4\n"), Error(
        DuplicateColumnError,
        "column 'ts' (for event_time) appears 3 times in {path}, as columns 1, 2 and 4 (so do 'v'); which one is "
        "meant cannot be told: rename the columns so that each name is unique",
        "--event-time: column 'ts' appears 3 times in {path}, as columns 1, 2 and 4 (so do 'v'); which one is "
        "meant cannot be told: rename the columns so that each name is unique"),
        options=dict(event_time="ts"), cli=["--event-time", "ts"]),
    Case("dup-dataframe", dup_frame, Error(
        DuplicateColumnError,
        "column 'event_time' (for event_time) appears 2 times in DataFrame, as columns 1 and 2; which one is meant "
        "cannot be told: rename the columns so that each name is unique")),
    Case("dup-unused-column-is-harmless", text("dupu.csv", f"event_time,note,note\n{T0},x,y\n"), Loads(
        values=[T0], check=lambda log: log.unused_columns == ["note", "note"] or pytest.fail("unused"))),
    # ------------------------------------------------------------------ JSON lines
    Case("jsonl-broken-line", text("broken.jsonl", f'{{"event_time": {T0}}}\n{{"event_time": {T0}\n'
                                                   f'{{"event_time": {T0}}}\n'), Error(
        LogReadError,
        "{path!r}, line 2: not valid JSON (Expecting ',' delimiter): '{{\"event_time\": 1700000000000'; "
        "fix or remove that line")),
    Case("jsonl-garbage-last-line", text("garbage.jsonl", f'{{"event_time": {T0}}}\n{{"event_time": {T0}}}\noops\n'),
         Error(LogReadError, "{path!r}, line 3: not valid JSON (Expecting value): 'oops'; fix or remove that line")),
    Case("jsonl-array-line", text("array.jsonl", f'{{"event_time": {T0}}}\n[1, 2]\n'), Error(
        LogReadError, "{path!r}, line 2: a JSON list, expected an object {{\"column\": value, ...}}: '[1, 2]'")),
    Case("jsonl-long-broken-line-excerpt", text("long.jsonl", f'{{"event_time": {T0}}}\n{{"key": "' + "z" * 5000 + '\n'),
         Error(LogReadError, "{path!r}, line 2: not valid JSON (Unterminated string starting at): "
               "'{{\"key\": \"" + "z" * 68 + "...'; fix or remove that line")),
    Case("jsonl-blank-lines-skipped", text("blank.jsonl", f'{{"event_time": {T0}}}\n\n{{"event_time": {T0 + 1}}}\n'),
         Loads(values=[T0, T0 + 1])),
    Case("jsonl-value-beyond-int64", text("bigv.jsonl", f'{{"event_time": {T0}, "value": 99999999999999999999}}\n'
                                                        f'{{"event_time": {T0}, "value": 9007199254740993}}\n'),
         Quarantine([(0, "value", "integer out of int64 range", "99999999999999999999")], 1)),
    Case("jsonl-nan-and-infinity-times", text("nan.jsonl", f'{{"event_time": NaN}}\n{{"event_time": Infinity}}\n'
                                                           f'{{"event_time": {T0}}}\n{{"event_time": {T0}}}\n'),
         Quarantine([(0, "event_time", "not finite", "NaN"), (1, "event_time", "not finite", "inf")], 2)),
    Case("jsonl-gzip-ends-early", text("cut.jsonl.gz", "".join(f'{{"event_time": {T0 + i}}}\n' for i in range(5000)),
                                       gz=True, cut=True), Error(
        LogReadError, "cannot read {path!r} as jsonl: Truncated compressed stream (the compressed file ends early: "
        "it was cut off while being written or copied)")),
    # ------------------------------------------------------------------ CSV
    Case("csv-row-with-extra-field", text("ragged.csv", f"event_time,key\n{T0},a\n{T0},b,c\n"), Error(
        LogReadError, "{path!r}, line 3: expected 2 fields (as in the header), found 3: '1700000000000,b,c'; fix or "
        "remove that line (a quoted field may be missing its closing quote)")),
    Case("csv-row-with-missing-field", text("short.csv", f"event_time,key,value\n{T0},a,1\n{T0},a,1\n{T0}\n"), Error(
        LogReadError, "{path!r}, line 4: expected 3 fields (as in the header), found 1: '1700000000000'; fix or "
        "remove that line (a quoted field may be missing its closing quote)")),
    Case("csv-bom-and-crlf", text("bom.csv", f"\ufeffevent_time,key,value\r\n{T0},a,1\r\n{T0 + 1},b,2\r\n".encode()),
         Loads(values=[T0, T0 + 1], check=check_bom_crlf)),
    Case("csv-gzip-ends-early", text("cut.csv.gz", many_lines(20_000), gz=True, cut=True), Error(
        LogReadError, "cannot read {path!r} as csv: Truncated compressed stream (the compressed file ends early: "
        "it was cut off while being written or copied)")),
    Case("csv-gzip-whole", text("whole.csv.gz", many_lines(3), gz=True), Loads(values=[T0, T0 + 1, T0 + 2])),
    Case("csv-key-of-1-mb", huge_key, Loads(values=[T0, T0 + 1], check=check_huge_key)),
    Case("csv-time-of-1-mb-quarantined-with-an-excerpt", huge_time, Error(
        InvalidRecordsError, "1 of 2 rows (50.00%) of {path} are invalid, above max_invalid_fraction=0: event_time: "
        "1 row (unparsable time: 1; e.g. row 1 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (1,000,000 characters)'). "
        "Fix the source, or pass max_invalid_fraction=0.50 to load the rest and keep these rows in log.quarantine.",
        "1 of 2 rows (50.00%) of {path} are invalid, above --max-invalid-fraction 0: event_time: "
        "1 row (unparsable time: 1; e.g. row 1 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (1,000,000 characters)'). "
        "Fix the source, or pass --max-invalid-fraction 0.50 to load the rest and list these rows in the quarantine.")),
    Case("csv-nan-and-infinity-times", text("nant.csv", f"event_time\nNaN\ninf\n-inf\n{T0}\n{T0}\n{T0}\n"),
         Quarantine([(0, "event_time", "not finite", "NaN"), (1, "event_time", "not finite", "inf"),
                     (2, "event_time", "not finite", "-inf")], 3)),
    Case("csv-empty-cells-are-null-not-nan", text("empty_cells.csv", f"event_time,value\n,1\n{T0},\n{T0},1.5\n{T0},2\n"),
         Quarantine([(0, "event_time", "null", ""), (1, "value", "null", "")], 2)),
    Case("nan-and-infinity-as-text-in-a-dataframe", frame(event_time=["NaN", "-Infinity", str(T0), str(T0)]),
         Quarantine([(0, "event_time", "not finite", "NaN"), (1, "event_time", "not finite", "-Infinity")], 2)),
    Case("csv-nan-and-infinity-values", text("nanv.csv", f"event_time,value\n{T0},nan\n{T0},inf\n{T0},1.5\n{T0},2\n"),
         Quarantine([(0, "value", "not a number", "NaN"), (1, "value", "not finite", "inf")], 2)),
    Case("csv-value-beyond-int64-is-an-error", text("bigv.csv", f"event_time,value\n{T0},1\n{T0},99999999999999999999\n"
                                                                f"{T0},9007199254740993\n"), Error(
        InvalidRecordsError, "1 of 3 rows (33.33%) of {path} are invalid, above max_invalid_fraction=0: value: 1 row "
        "(integer out of int64 range: 1; e.g. row 1 '99999999999999999999'). Fix the source, or pass "
        "max_invalid_fraction=0.34 to load the rest and keep these rows in log.quarantine.",
        "1 of 3 rows (33.33%) of {path} are invalid, above --max-invalid-fraction 0: value: 1 row "
        "(integer out of int64 range: 1; e.g. row 1 '99999999999999999999'). Fix the source, or pass "
        "--max-invalid-fraction 0.34 to load the rest and list these rows in the quarantine.")),
    Case("csv-value-beyond-int64-quarantined-rest-exact",
         text("bigv2.csv", f"event_time,value\n{T0},-99999999999999999999\n{T0},9007199254740993\n"),
         Quarantine([(0, "value", "integer out of int64 range", "-99999999999999999999")], 1)),
    Case("csv-value-rest-stays-exact-int64",
         text("bigv3.csv", f"event_time,value\n{T0},99999999999999999999\n{T0},9007199254740993\n{T0},1\n"),
         Quarantine([(0, "value", "integer out of int64 range", "99999999999999999999")], 2, fraction=0.34,
                    check=check_exact_values)),
    Case("csv-huge-integer-among-decimals", text("mixv.csv", f"event_time,value\n{T0},0.5\n{T0},9007199254740993\n"),
         Quarantine([(1, "value", "integer beyond 2^53 among decimals (float64 would round it)", "9007199254740993")],
                    1)),
    Case("csv-time-beyond-int64", text("bigt.csv", f"event_time\n{T0}\n99999999999999999999\n"),
         Quarantine([(1, "event_time", "out of int64 range in ms", "99999999999999999999")], 1)),
    # ------------------------------------------------------------------ times: range of instants
    Case("iso-year-9999-loads", text("y9999.csv", f"event_time\n9999-12-31T23:59:59.999Z\n2023-11-14T22:13:20Z\n"),
         Loads(values=[Y9999, T0], warnings=[
             "column 'event_time': 1 time after 2200 (e.g. row 0: '9999-12-31T23:59:59.999Z'); check the source"])),
    Case("epoch-ms-year-9999-same-instant", text("y9999ms.csv", f"event_time\n{Y9999}\n{T0}\n"), Loads(
        values=[Y9999, T0], warnings=["column 'event_time': 1 time after 2200 (e.g. row 0: 253402300799999 = "
                                      "9999-12-31T23:59:59.999Z); check the source and the time unit"])),
    Case("iso-year-1-with-offset", frame(event_time=["0001-01-01T00:00:00+01:00", "2023-11-14T22:13:20Z"]),
         Loads(values=[-62_135_600_400_000, T0])),
    Case("iso-year-9999-naive-jsonl", text("y.jsonl", '{"event_time": "9999-12-31 23:59:59.999"}\n'
                                                      '{"event_time": "2023-11-14 22:13:20"}\n'),
         Loads(values=[Y9999, T0], warnings=[
             "column 'event_time': 1 time after 2200 (e.g. row 0: '9999-12-31 23:59:59.999'); check the source"])),
    Case("date-year-9999-csv", text("dates.csv", "event_time\n9999-12-31\n2023-11-14\n"), Loads(
        values=[253_402_214_400_000, 1_699_920_000_000],
        warnings=["column 'event_time': 1 time after 2200 (e.g. row 0: '9999-12-31'); check the source"])),
    Case("python-datetimes-year-9999", wide_datetimes, Loads(values=[Y9999, T0], warnings=[
        "column 'event_time': 1 time after 2200 (e.g. row 0: '9999-12-31 23:59:59.999000+00:00'); check the source"])),
    Case("parquet-timestamp-ms-year-9999", parquet_ms_9999, Loads(values=[Y9999, T0], warnings=[
        "column 'event_time': 1 time after 2200 (e.g. row 0: '9999-12-31 23:59:59.999000+00:00'); check the source"])),
    Case("iso-extremes-of-int64-ms", frame(event_time=["292278994-08-17T07:12:55.807Z", "-292275055-05-16T16:47:04.193",
                                                  "2023-11-14T22:13:20Z"]),
         Loads(values=[2**63 - 1, -(2**63) + 1, T0], warnings=[
             "column 'event_time': 1 time after 2200 (e.g. row 0: '292278994-08-17T07:12:55.807Z'); check the source"])),
    Case("iso-beyond-int64-ms-out-of-range", frame(event_time=["292278994-08-17T07:12:55.808Z", "999999999-01-01",
                                                           "2024-02-30", str(T0), str(T0), str(T0)]),
         Quarantine([(0, "event_time", "out of int64 range in ms", "292278994-08-17T07:12:55.808Z"),
                     (1, "event_time", "out of int64 range in ms", "999999999-01-01"),
                     (2, "event_time", "unparsable time", "2024-02-30")], 3)),
    Case("epoch-far-future-not-a-unit", frame(event_time=[T0, 17_000_000_000_000]), Loads(
        values=[T0, 17_000_000_000_000],
        warnings=["column 'event_time': 1 time after 2200 (e.g. row 1: 17000000000000 = 2508-09-16T06:13:20.000Z); "
                  "check the source and the time unit"])),
    # ------------------------------------------------------------------ times: fractions floored
    Case("ms-fractions-floored-and-counted", text("frac.csv", f"event_time\n{T0}.5\n{T0 + 1}.999\n{T0 + 2}\n"), Loads(
        values=[T0, T0 + 1, T0 + 2], floored={"event_time": 2}, check=check_describe_floored,
        warnings=["column 'event_time': 2 of 3 times had a fraction of a millisecond and were floored to whole "
                  "milliseconds (e.g. row 0: 1700000000000.5 -> 1700000000000 ms)"])),
    Case("negative-ms-fraction-floors-down", frame(event_time=[-1.5, 2.0]), Loads(
        values=[-2, 2], floored={"event_time": 1},
        warnings=["column 'event_time': 1 of 2 times had a fraction of a millisecond and were floored to whole "
                  "milliseconds (e.g. row 0: -1.5 -> -2 ms)"])),
    Case("iso-seven-decimals-floored", frame(event_time=["2023-11-14T22:13:20.1234567Z", "2023-11-14T22:13:20.5Z"]),
         Loads(values=[T0 + 123, T0 + 500], floored={"event_time": 1}, warnings=[
             "column 'event_time': 1 of 2 times had a fraction of a millisecond and were floored to whole "
             "milliseconds (e.g. row 0: 2023-11-14T22:13:20.1234567Z -> 1700000000123 ms)"])),
    Case("microseconds-off-the-millisecond", text("us.csv", f"event_time\n{T0 * 1000 + 1}\n{T0 * 1000 + 2000}\n"),
         Loads(values=[T0, T0 + 2], floored={"event_time": 1}, warnings=[
             "column 'event_time': 1 of 2 times had a fraction of a millisecond and were floored to whole "
             "milliseconds (e.g. row 0: 1700000000000001 -> 1700000000000 ms)"]),
         options=dict(time_unit="us"), cli=["--time-unit", "us"]),
    # ------------------------------------------------------------------ times: the unit looks wrong
    Case("seconds-read-as-ms", text("sec.csv", "event_time\n1700000000\n1700000001\n"), Loads(
        values=[1_700_000_000, 1_700_000_001], warnings=[SEC_WARNING],
        cli_warnings=[SEC_WARNING.replace("time_unit='ms'", "--time-unit ms").replace("time_unit='s'", "--time-unit s")])),
    Case("nanoseconds-read-as-ms", text("ns.csv", f"event_time\n{T0 * 10**6}\n{T0 * 10**6 + 5}\n"), Loads(
        values=[T0 * 10**6, T0 * 10**6 + 5], warnings=[
            "column 'event_time': every time looks like epoch nanoseconds (e.g. row 0: 1700000000000000000), but "
            "time_unit='ms' reads them as epoch milliseconds (dates around year 53,872,825); if the column holds "
            "nanoseconds, pass time_unit='ns'"],
        cli_warnings=[
            "column 'event_time': every time looks like epoch nanoseconds (e.g. row 0: 1700000000000000000), but "
            "--time-unit ms reads them as epoch milliseconds (dates around year 53,872,825); if the column holds "
            "nanoseconds, pass --time-unit ns"])),
    Case("microseconds-read-as-ms", frame(event_time=[T0 * 1000, T0 * 1000 + 1]), Loads(
        values=[T0 * 1000, T0 * 1000 + 1], warnings=[
            "column 'event_time': every time looks like epoch microseconds (e.g. row 0: 1700000000000000), but "
            "time_unit='ms' reads them as epoch milliseconds (dates around year 55,840); if the column holds "
            "microseconds, pass time_unit='us'"])),
    Case("ms-read-as-seconds", text("ms_as_s.csv", f"event_time\n{T0}\n{T0 + 1}\n"), Loads(
        values=[T0 * 1000, (T0 + 1) * 1000], warnings=[
            "column 'event_time': every time looks like epoch milliseconds (e.g. row 0: 1700000000000), but "
            "time_unit='s' reads them as epoch seconds (dates around year 55,840); if the column holds "
            "milliseconds, pass time_unit='ms'"],
        cli_warnings=[
            "column 'event_time': every time looks like epoch milliseconds (e.g. row 0: 1700000000000), but "
            "--time-unit s reads them as epoch seconds (dates around year 55,840); if the column holds "
            "milliseconds, pass --time-unit ms"]),
        options=dict(time_unit="s"), cli=["--time-unit", "s"]),
    Case("arrival-in-seconds-event-in-ms", text("arr.csv", f"event_time,arrival_time\n{T0},1700000000\n"
                                                           f"{T0 + 1000},1700000001\n"), Loads(
        values=[T0, T0 + 1000], warnings=[
            "column 'arrival_time': every time looks like epoch seconds (e.g. row 0: 1700000000), but time_unit='ms' "
            "reads them as epoch milliseconds (dates around 1970-01-20); if the column holds seconds, pass "
            "time_unit='s'",
            "arrival_time is more than a day before event_time in 2 of 2 records (e.g. row 0: event "
            "2023-11-14T22:13:20.000Z, arrival 1970-01-20T16:13:20.000Z): the two columns look like different units "
            "or swapped; check which columns are mapped to event_time and arrival_time, and time_unit"],
        cli_warnings=[
            "column 'arrival_time': every time looks like epoch seconds (e.g. row 0: 1700000000), but --time-unit ms "
            "reads them as epoch milliseconds (dates around 1970-01-20); if the column holds seconds, pass "
            "--time-unit s",
            "arrival_time is more than a day before event_time in 2 of 2 records (e.g. row 0: event "
            "2023-11-14T22:13:20.000Z, arrival 1970-01-20T16:13:20.000Z): the two columns look like different units "
            "or swapped; check --event-time and --arrival-time, and --time-unit"])),
    Case("arrival-days-before-event", frame(event_time=[T0 + 5 * 86_400_000] * 3, arrival_time=[T0, T0 + 1, T0 + 2]),
         Loads(values=[T0 + 5 * 86_400_000] * 3, warnings=[
             "arrival_time is more than a day before event_time in 3 of 3 records (e.g. row 0: event "
             "2023-11-19T22:13:20.000Z, arrival 2023-11-14T22:13:20.000Z): the two columns look like different "
             "units or swapped; check which columns are mapped to event_time and arrival_time, and time_unit"])),
    Case("small-synthetic-times-no-warning", frame(event_time=[0, 100, 200], arrival_time=[5, 105, 250]),
         Loads(values=[0, 100, 200])),
    Case("mixed-seconds-and-ms", text("mixed.csv", f"event_time\n1700000000\n{T0}\n{T0 + 5}\n"), Error(
        MixedUnitsError, "column 'event_time' mixes epoch units: 1 look like epoch seconds (e.g. row 0: 1700000000), "
        "2 look like epoch milliseconds (e.g. row 1: 1700000000000); write every time in one unit "
        "(time_unit='ms' was given)",
        "column 'event_time' mixes epoch units: 1 look like epoch seconds (e.g. row 0: 1700000000), "
        "2 look like epoch milliseconds (e.g. row 1: 1700000000000); write every time in one unit "
        "(--time-unit ms was given)")),
    Case("mixed-ms-and-ns-jsonl", text("mixed.jsonl", f'{{"event_time": {T0}}}\n{{"event_time": {T0 * 10**6}}}\n'),
         Error(MixedUnitsError, "column 'event_time' mixes epoch units: 1 look like epoch milliseconds (e.g. row 0: "
               "1700000000000), 1 look like epoch nanoseconds (e.g. row 1: 1700000000000000000); write every time in "
               "one unit (time_unit='ms' was given)",
               "column 'event_time' mixes epoch units: 1 look like epoch milliseconds (e.g. row 0: "
               "1700000000000), 1 look like epoch nanoseconds (e.g. row 1: 1700000000000000000); write every time in "
               "one unit (--time-unit ms was given)")),
    Case("boolean-times", frame(event_time=[True, False]), Error(
        ColumnTypeError, "column 'event_time' holds booleans; expected epoch numbers, timestamps or ISO-8601 strings")),
    # ------------------------------------------------------------------ Parquet and folders
    Case("parquet-empty-part-skipped", empty_part, Loads(values=[T0, T0 + 1, T0 + 2], check=check_part_rows)),
    Case("parquet-only-empty", parquet("empty.parquet", pd.DataFrame({"event_time": pd.Series([], dtype="int64")})),
         Error(EmptyLogError, "{path} has no records (only a header)")),
    Case("folder-of-empty-parts", parquet("allempty", pd.DataFrame({"event_time": pd.Series([], dtype="int64")}),
                                          pd.DataFrame({"event_time": pd.Series([], dtype="int64")}), folder=True),
         Error(EmptyLogError, "folder {path!r} has no records")),
    Case("folder-part-with-a-broken-json-line", folder_broken_json, Error(
        LogReadError, "part 'part-1.jsonl' of folder {path!r}: {part!r}, line 2: not valid JSON (Expecting ',' "
        "delimiter): '{{\"event_time\": 1700000000000, \"key\": \"a\"'; fix or remove that line")),
    Case("parquet-uint64-value-beyond-int64", uint_values,
         Quarantine([(0, "value", "integer out of int64 range", "18446744073709551615")], 1)),
    # ------------------------------------------------------------------ binary garbage, mixed formats
    Case("binary-garbage-csv", text("garbage.csv", GARBAGE), Error(
        LogReadError, "{path!r} is not UTF-8 text (byte 0xd4 cannot be decoded): is it a binary file, or a file in "
        "another format than csv? A csv log must be UTF-8 text")),
    Case("binary-garbage-parquet", text("garbage.parquet", GARBAGE), Error(
        LogReadError, "{path!r} is not a Parquet file (it does not end with Parquet's magic bytes): is it in another "
        "format, or was it cut off while being written or copied?")),
    Case("folder-with-a-parquet-part-among-csv-parts", folder_with_parquet_part, Error(
        LogReadError, "folder {path!r} mixes formats: part 'part-0.csv' is csv, part 'part-1.parquet' is parquet; "
        "keep one format per folder (or pass format= to read every part as one format)",
        "folder {path!r} mixes formats: part 'part-0.csv' is csv, part 'part-1.parquet' is parquet; "
        "keep one format per folder (or pass --format to read every part as one format)")),
    Case("folder-with-a-binary-part-among-csv-parts", folder_with_binary_part, Error(
        LogReadError, "part 'part-1.csv' of folder {path!r}: {part!r} is not UTF-8 text (byte 0xd4 cannot be "
        "decoded): is it a binary file, or a file in another format than csv? A csv log must be UTF-8 text")),
    Case("unknown-file-suffix", text("log.dat", f"event_time\n{T0}\n"), Error(
        ValueError, "cannot tell the format of {path!r} from its name; pass format='csv', 'parquet' or 'jsonl'",
        "cannot tell the format of {path!r} from its name; pass --format csv, parquet or jsonl")),
    Case("invalid-fraction-option", text("f.csv", f"event_time\n{T0}\n"), Error(
        ValueError, "max_invalid_fraction must be between 0 and 1, got 2.0",
        "--max-invalid-fraction must be between 0 and 1, got 2.0"),
        options=dict(max_invalid_fraction=2.0), cli=["--max-invalid-fraction", "2"]),
    Case("one-bad-row-in-200k", lambda tmp: pd.DataFrame({
        "event_time": [str(T0 + i) if i != 123_456 else "2024-02-30T00:00:00Z" for i in range(200_000)]}),
        Quarantine([(123_456, "event_time", "unparsable time", "2024-02-30T00:00:00Z")], 199_999, fraction=1e-5)),
    Case("one-null-time-in-10m-rows-parquet", lambda tmp: ten_million_rows_one_null(tmp),
         Quarantine([(7_654_321, "event_time", "null", "")], 9_999_999, fraction=1e-6)),
    Case("missing-mapped-column-names-option", text("m.csv", f"event_time,user\n{T0},a\n"), Error(
        MissingColumnError, "column 'usr' (for key) not found; available columns: 'event_time', 'user'",
        "--key: column 'usr' not found; available columns: 'event_time', 'user'"),
        options=dict(key="usr"), cli=["--key", "usr"]),
]

FILE_CASES = [c for c in CASES if c.source.__name__ not in ("<lambda>", "dup_frame", "wide_datetimes")]
#: cases that take tens of seconds (generated at full size), marked slow
SLOW = {"one-null-time-in-10m-rows-parquet"}


def test_an_unexpected_failure_is_one_error_line(tmp_path, capsys, monkeypatch):
    path = text("ok.csv", f"event_time\n{T0}\n")(tmp_path)

    def broken(*args, **kwargs):
        raise OverflowError("Python int too large to convert to C long")

    monkeypatch.setattr(toolkit, "load_log", broken)
    assert main(["describe", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"error: cannot load {path}: OverflowError: Python int too large to convert to C long\n")


def _message(template: str, path) -> str:
    parts = sorted(Path(path).glob("part-1.*")) if isinstance(path, Path) and Path(path).is_dir() else []
    return template.format(path=str(path), part=str(parts[0]) if parts else None)


def test_the_table_is_big_enough():
    assert len(CASES) >= 60 and len({c.id for c in CASES}) == len(CASES)
    assert len(FILE_CASES) >= 40


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c.id in SLOW else c for c in CASES],
                         ids=[c.id for c in CASES])
def test_api(case, tmp_path):
    source = case.source(tmp_path)
    expect = case.expect
    if isinstance(expect, Error):
        with pytest.raises(expect.type) as err:
            toolkit.load_log(source, **case.options)
        assert str(err.value) == _message(expect.message, source)
        return
    options = dict(case.options)
    if isinstance(expect, Quarantine):
        options.setdefault("max_invalid_fraction", expect.fraction)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        log = toolkit.load_log(source, **options)
    shown = [str(w.message) for w in caught if issubclass(w.category, LogWarning)]
    if isinstance(expect, Quarantine):
        assert [tuple(r) for r in log.quarantine.itertuples(index=False)] == expect.rows
        assert log.n_records == expect.records and log.n_invalid == len(expect.rows)
        assert sum(log.summary()["invalid_by_reason"].values()) == len(expect.rows)
        if expect.check is not None:
            expect.check(log)
        return
    assert log.n_invalid == 0
    if expect.values is not None:
        assert log.table[expect.column].tolist() == expect.values
    assert log.floored == expect.floored and log.summary()["floored"] == expect.floored
    assert log.warnings == expect.warnings and shown == expect.warnings
    if expect.check is not None:
        expect.check(log)


@pytest.mark.parametrize("case", FILE_CASES, ids=[c.id for c in FILE_CASES])
def test_describe_command(case, tmp_path, capsys):
    path = case.source(tmp_path)
    expect = case.expect
    args = ["describe", str(path), *case.cli]
    if isinstance(expect, Quarantine) and "--max-invalid-fraction" not in args:
        args += ["--max-invalid-fraction", str(expect.fraction)]
    code = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    if isinstance(expect, Error):
        assert code == 2
        assert err == "error: " + _message(expect.cli or expect.message, path) + "\n"
        return
    assert code == 0, err
    warned = [line.removeprefix("warning: ") for line in err.splitlines() if line.startswith("warning: ")]
    if isinstance(expect, Quarantine):
        assert f"({len(expect.rows)} quarantined)" in out
        for row, column, reason, raw in expect.rows:
            assert f"  row {row}: {column} {reason} ({repr(raw) if raw else 'null'})" in out
        return
    assert warned == (expect.cli_warnings if expect.cli_warnings is not None else expect.warnings)
    assert "(0 quarantined)" in out


def test_describe_json_carries_floored_rows_and_warnings(tmp_path, capsys):
    import json

    path = text("frac.csv", f"event_time\n{T0}.5\n{T0 + 1}\n")(tmp_path)
    assert main(["describe", str(path), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["floored"] == {"event_time": 1}
    assert figures["warnings"] == ["column 'event_time': 1 of 2 times had a fraction of a millisecond and were "
                                   "floored to whole milliseconds (e.g. row 0: 1700000000000.5 -> 1700000000000 ms)"]


#: the cases whose reading once printed pyarrow's "Exception ignored in ... Traceback" before the
#: clear error (issue 28), and their neighbours: run as a user runs them, in a fresh process
SUBPROCESS_CASES = [c for c in FILE_CASES if c.id.startswith(("binary-garbage", "folder-with-", "jsonl-broken",
                                                               "csv-row-with-extra"))]
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("case", SUBPROCESS_CASES, ids=[c.id for c in SUBPROCESS_CASES])
def test_no_traceback_reaches_the_terminal(case, tmp_path):
    """``python -m toolkit describe`` in its own process: exit 2, the one error line on stderr,
    nothing else (Python prints unraisable callback errors straight to the process's stderr,
    which an in-process run does not show)."""
    import subprocess
    import sys

    path = case.source(tmp_path)
    cmd = [sys.executable, "-m", "toolkit", "describe", str(path), *case.cli]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert "Traceback" not in done.stdout + done.stderr and "Exception ignored" not in done.stderr
    assert done.returncode == 2
    assert done.stderr == "error: " + _message(case.expect.cli or case.expect.message, path) + "\n"


def test_the_subprocess_cases_cover_issue_28():
    assert {"binary-garbage-csv", "folder-with-a-parquet-part-among-csv-parts",
            "folder-with-a-binary-part-among-csv-parts"} <= {c.id for c in SUBPROCESS_CASES}
