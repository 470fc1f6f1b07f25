"""``python -m toolkit replay ... --semantics beam`` prints what is Beam's own: panes by PaneInfo
timing, the panes the end of input fired (``at_end``), dropped records by Beam's reason, and the
trigger, accumulation mode, timestamp combiner and allowed lateness in words."""
from __future__ import annotations

import pytest

from toolkit.cli import main
from toolkit.commands.replay import summary_text
from toolkit.semantics.beam.trigger import parse_beam_trigger
from toolkit.semantics.beam.trigger_words import trigger_words
from toolkit.settings import Setting

BASE = 1_700_000_000_000
#: (event time, arrival time) in ms after BASE, one key, 10 s windows, 5 s allowed lateness:
#: 1 s and 2 s make an EARLY pane (2 elements); 11 s moves the watermark past 10 s (an empty
#: discarding ON_TIME pane); 9 s is late but within the lateness (a LATE pane); 11 s and 16.5 s
#: make [10 s, 20 s)'s EARLY pane, its empty ON_TIME pane comes at the end of input; 3 s
#: arrives when the watermark is 16.5 s, more than 5 s past 10 s: expired.
RECORDS = [(1000, 1000), (2000, 2000), (11000, 11000), (9000, 11500), (16500, 16500), (3000, 17000)]


@pytest.fixture(autouse=True)
def unwrapped(monkeypatch):
    """These tests read the words line by line: no wrapping at the terminal's width (160 at most)."""
    monkeypatch.setattr("toolkit.commands._width.MAX_WIDTH", 10_000)
    monkeypatch.setenv("COLUMNS", "10000")


@pytest.fixture()
def path(tmp_path):
    p = tmp_path / "log.csv"
    p.write_text("event_time,arrival_time,key\n" + "".join(f"{BASE + e},{BASE + a},a\n" for e, a in RECORDS))
    return str(p)


def _replay(path, capsys, *options) -> str:
    assert main(["replay", path, "--semantics", "beam", "--window", "tumbling:10s", "--lateness", "5s", *options]) == 0
    return capsys.readouterr().out


def test_panes_by_timing_at_end_and_the_settings_in_words(path, capsys):
    out = _replay(path, capsys, "--beam-trigger", "after_watermark(early=count:2,late=count:1)", "--accumulation", "discarding")
    assert "  Beam panes: 5 = 2 early + 2 on time + 1 late (PaneInfo timing; 2 empty)" in out
    assert "  at the end of input (at_end): 1 pane (1 on time), fired when the end of the log" in out
    assert "  dropped            1    16.67%  (expired 1: past the allowed lateness)" in out
    assert ("  trigger after_watermark(early=after_count:2,late=after_count:1): EARLY panes before the window end, each "
            "time 2 new elements have arrived; an ON_TIME pane when the watermark passes the end of the window; then LATE "
            "panes within the allowed lateness, each time a new element arrives") in out
    assert "  accumulation discarding: each pane holds only the elements that arrived since the window's previous pane" in out
    assert "  timestamp combiner end_of_window: a pane's timestamp is the window's last millisecond" in out
    assert "  allowed lateness 5 s: an element is dropped (expired) when the watermark is more than 5 s past the end" in out
    assert "late side output" not in out  # Flink's, not Beam's
    assert str(BASE)[:7] not in out  # readable times, never epoch ms


def test_a_finishing_trigger_says_so_and_its_drops_are_finished(path, capsys):
    """``count:2`` fires once per window and finishes: [0 s, 10 s)'s late 9 s element is dropped as
    ``finished``, not late (3 s is still expired); no pane waits for the end of input."""
    out = _replay(path, capsys, "--beam-trigger", "count:2", "--timestamp-combiner", "earliest")
    assert "  Beam panes: 2 = 2 early + 0 on time + 0 late (PaneInfo timing; 0 empty)" in out
    assert "  at the end of input (at_end): no pane (every pane came while the log was read)" in out
    assert "  dropped            2    33.33%  (expired 1: past the allowed lateness; finished 1: their window's trigger had finished)" in out
    assert "  trigger after_count:2: one pane when 2 new elements have arrived, then the trigger finishes" in out
    assert "  accumulation accumulating: each pane holds every element of the window so far" in out
    assert "  timestamp combiner earliest: a pane's timestamp is its earliest element's" in out


def test_a_trigger_that_never_fires_stalls_and_its_records_never_fired(capsys, tmp_path):
    """``repeatedly(count:3)`` with no allowed lateness: no window gets 3 elements, nothing is
    emitted, the held windows stall the pipeline (Beam's DirectRunner reports it)."""
    p = tmp_path / "log.csv"
    p.write_text("event_time,arrival_time,key\n" + "".join(f"{BASE + e},{BASE + a},a\n" for e, a in RECORDS))
    assert main(["replay", str(p), "--semantics", "beam", "--window", "tumbling:10s", "--beam-trigger", "repeatedly(count:3)"]) == 0
    out = capsys.readouterr().out
    assert "(expired 2: past the allowed lateness; never fired 4: taken, but no pane came after them)" in out
    assert "  Beam panes: 0 = 0 early + 0 on time + 0 late" in out
    assert "  at the end of input (at_end): no pane\n" in out
    assert "  trigger repeatedly(after_count:3): a pane each time 3 new elements have arrived; it never finishes" in out
    assert "  no allowed lateness: an element is dropped (expired) when the watermark is past the end" in out
    assert "  stalled: a window kept a watermark hold no pane released" in out


def test_summary_text_without_the_result_still_prints_the_panes():
    s = Setting.parse(dict(semantics="beam", window="tumbling:10s"))
    text = summary_text({"records": 10, "on_time": 10, "early_panes": 0, "on_time_panes": 3, "late_panes": 0,
                         "at_end_firings": 1, "never_fired": 0}, s)
    assert "  Beam panes: 3 = 0 early + 3 on time + 0 late" in text
    assert "  at the end of input (at_end): 1 pane, fired when" in text
    assert "  no allowed lateness: an element is dropped (expired) when the watermark is past the end" in text


@pytest.mark.parametrize("spec, words", [
    ("default", "Beam's default trigger: an ON_TIME pane when the watermark passes the end of the window, then a LATE "
                "pane for every late element"),
    ("watermark", "then the trigger finishes: later elements of the window are dropped (no late panes)"),
    ("repeatedly(count:3)", "a pane each time 3 new elements have arrived; it never finishes"),
    ("after_any(count:2,processing:1s)", "one pane when 2 new elements have arrived or 1s of processing time has passed "
                                         "since the first new element, then the trigger finishes"),
    ("after_each(count:2,count:3)", "a pane per part in turn: when 2 new elements have arrived, then 3 new elements"),
    ("orfinally(repeatedly(count:2),watermark)", "a pane each time 2 new elements have arrived (again and again), until "
                                                 "the watermark passes the end of the window"),
])
def test_trigger_words(spec, words):
    assert words in trigger_words(parse_beam_trigger(spec))
