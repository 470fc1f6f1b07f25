"""What the command line prints for a year-long log (issue 30, items 2, 6, 7): ``replay``,
``sweep``, ``compare`` and ``describe`` fit in 160 columns, every share is of one base that the
sentence names (the valid records; quarantined rows counted apart) and the fates add to 100 %;
``compare`` is tables, one example per pair of engines and the notes its figures need;
``describe`` speaks in days, rates per hour, no "1 min 0 s"; a command that reads no log says
so in one line. The log is ``generate year`` (8,000 records: the span and silences of
tests/helpers/spans.py's year in a fifth of the time) with 20 bad rows."""
from __future__ import annotations

import re

import pytest

import toolkit
from toolkit.cli import main

RECORDS, BAD = 8000, 20
RATE = RECORDS / (365 * 18 * 3600)  # per open second (18 h a day): the records spread over the year
VALID = f"{RECORDS - BAD:,}"


@pytest.fixture(scope="module")
def year_csv(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("year") / "year.csv"
    assert main(["generate", "year", "--records", str(RECORDS), "--seed", "2013", "--bad-rows", str(BAD),
                 "--rate", str(RATE), "--out", str(path)]) == 0
    return str(path)


def _run(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    out = capsys.readouterr().out
    wide = [line for line in out.splitlines() if len(line) > 160]
    assert not wide, f"{args[0]}: {len(wide)} lines over 160 columns, e.g. {wide[0]!r}"
    return out


LOG = ["--max-invalid-fraction", "0.01"]


def test_replay_gives_the_fates_as_shares_of_the_valid_records(year_csv: str, capsys) -> None:
    out = _run(capsys, "replay", year_csv, *LOG, "--window", "tumbling:1h", "--delay", "10min")
    assert out.startswith(f"Replayed {VALID} valid records of ")
    assert f"{BAD} more rows of the {RECORDS:,} read were quarantined and are in no share" in out.splitlines()[0]
    assert f"fates, as shares of {VALID} valid records (they add to 100 %):" in out
    shares = [float(m) for m in re.findall(r"^  (?:on time|late but accepted|dropped) +[\d,]+ +([\d.]+)%", out, re.M)]
    assert len(shares) == 3 and abs(sum(shares) - 100) < 0.02


def test_sweep_names_the_base_of_its_counts(year_csv: str, capsys) -> None:
    out = _run(capsys, "sweep", year_csv, *LOG, "--window", "tumbling:1h", "--delay", "10min,1h", "--no-progress")
    flat = " ".join(out.split())
    assert f"On time, late accepted and dropped count the {VALID} valid records; {BAD} more rows" in flat
    assert "completeness is a share of record-window pairs" in flat


def test_compare_is_tables_one_example_per_pair_and_notes(year_csv: str, capsys) -> None:
    args = ["compare", year_csv, *LOG, "--window", "tumbling:1h", "--delay", "10min",
            "--semantics", "flink,spark,kafka_streams"]
    out = _run(capsys, *args)
    assert f"Figures of {VALID} valid records ({BAD} more rows" in out
    assert re.search(r"^engine +kept +share +dropped +share +complete \(first result\)", out, re.M)
    assert f"dropped by another (column), of the {VALID} valid" in out and "kept by \\ dropped by" in out
    assert "windows were emitted" in out and "--retention" in out  # Kafka Streams' emit=final, explained
    examples = re.findall(r"^- Row ", out, re.M)
    assert 1 <= len(examples) <= 6  # at most one per ordered pair of the three engines
    more = _run(capsys, *args, "--examples", "3")
    assert len(re.findall(r"^- Row ", more, re.M)) > len(examples)


def test_describe_in_human_units(year_csv: str, capsys) -> None:
    out = _run(capsys, "describe", year_csv, *LOG)
    assert re.search(r"^event time +\S+ \.\. \S+ \(3\d\d d( \d+ h)?\)$", out, re.M), out
    rates = re.findall(r"records, ([\d.,]+)/(s|min|h|d),", out)
    assert len(rates) == 3 and all(float(x.replace(",", "")) >= 1 for x, _ in rates), rates
    assert "0.0/s" not in out and not re.search(r"\b0 s\b", out)
    behind = out[out.index("out of order"):out.index("arrival delay")]
    assert "behind by min" in behind and ", max " in " ".join(behind.split())  # wrapped, never cut


def test_describe_rates_and_spans_pick_their_unit() -> None:
    from toolkit.log.describe import _dur, _rate

    assert [_rate(1, r) for r in (35.14, 0.5, 1 / 3600 * 1.54, 1 / 86_400 * 3)] == ["35.1/s", "30/min", "1.54/h", "3/d"]
    assert [_dur(v) for v in (60_000, 36 * 3_600_000 + 360_000, 362 * 86_400_000 + 3_600_000)] == [
        "1 min", "36 h 6 min", "362 d 1 h"]


def test_summary_tables_and_the_report_count_on_the_valid_records() -> None:
    from toolkit.log import synth
    from toolkit.reports.report import readable_rows

    r = toolkit.replay(synth.generate("sample", 300, seed=1), window="tumbling:1s", delay="100ms")
    s = {**r.summary(), "records": 310, "invalid": 10}  # as if 10 rows had been quarantined
    for rows in (dict(toolkit.viz.summary_table(s).rows), dict(readable_rows(s))):
        assert rows["valid records"].startswith("300 (") and rows["quarantined rows"] == "10 (in no share)"
        shares = [float(re.search(r"\(([\d.]+)%\)", rows[k]).group(1)) for k in rows if k in (
            "on time", "late accepted", "late but accepted", "dropped")]
        assert len(shares) == 3 and abs(sum(shares) - 100) < 0.02


def test_a_command_that_reads_no_log_says_so_in_one_line(capsys) -> None:
    for args, typed in ((["deploy", "flights.csv", "--event-time", "dep", "--window", "tumbling:1s"],
                         "flights.csv --event-time dep"),
                        (["deploy", "--window", "tumbling:1s", "--key", "carrier"], "--key carrier")):
        with pytest.raises(SystemExit) as e:
            main(args)
        err = capsys.readouterr().err
        assert e.value.code == 2 and len(err.strip().splitlines()) == 1, err
        assert "deploy reads no log" in err and err.strip().endswith(f"leave out {typed}")
    with pytest.raises(SystemExit):
        main(["deploy", "--window", "tumbling:1s", "--dela", "1s"])
    assert capsys.readouterr().err.strip().endswith("unrecognized option --dela (did you mean --delay?)")


def test_the_report_shows_describe_open_in_a_table_that_wraps(year_csv: str) -> None:
    from toolkit.reports.report import _describe_html
    from toolkit.reports.template import TEMPLATE

    block = _describe_html(toolkit.load_log(year_csv, max_invalid_fraction=0.01))
    assert block.startswith("<table class='describe'>") and "<th>out of order</th>" in block and "<pre" not in block
    assert '<details open class="describe">' in TEMPLATE and "table.describe td { white-space: normal" in TEMPLATE
    assert re.search(r"\(3\d\d d( \d+ h)?\)", block) and re.search(r"records, [\d.]+/(h|d),", block)


def test_wrapping_keeps_a_number_with_its_unit() -> None:
    from toolkit.commands._width import wrapped

    text = wrapped("x " * 70 + "with 0 ms allowed lateness, 97.01 % kept", 150)
    assert all(len(line) <= 150 for line in text.splitlines())
    assert "0 ms" in text and "97.01 %" in text and "\u00a0" not in text


def test_replay_and_recommendation_say_what_dominates_the_latency_tail(year_csv: str, capsys) -> None:
    """Issue 30 item 4: at 7 departures a day and airport the tail windows waited for an airport
    that sent nothing (its night, or a quiet day): the words name the airports, the chart and the
    p99 in the unit the summary gives it; the recommendation (a replay of its setting) says the same."""
    out = _run(capsys, "replay", year_csv, *LOG, "--window", "tumbling:1h", "--delay", "10min")
    flat = " ".join(out.split())
    p99 = re.search(r"p99 (\d+ h \d+ min)", flat).group(1)
    assert "The latency tail: " in flat and f"(first fired {p99} or more after their end, the p99)" in flat
    assert "sent nothing meanwhile (EWR for" in flat and "Watermark lag chart" in flat
    rec = " ".join(_run(capsys, "sweep", year_csv, *LOG, "--window", "tumbling:1h", "--delay", "10min,1h",
                        "--no-progress", "--recommend", "0.9").split())
    assert "recommended: " in rec and rec.count("The latency tail: ") == 1
