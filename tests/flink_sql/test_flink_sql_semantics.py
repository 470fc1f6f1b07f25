"""``semantics="flink_sql"`` on the engine interface: a log replayed through Flink SQL gives real
Flink SQL's rows (the committed fixtures of tests/fixtures/flink_sql, turned back into logs),
its settings are checked and refused in Flink SQL's terms, summary() is the sweep row, drops are
explained in Flink SQL's terms, and the SQL printed is the setting replayed."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.cli import main
from toolkit.settings import Setting, SettingError

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "flink_sql"

#: fixtures replayed from a log: every rule family (window TVFs, late records, partitions,
#: idleness, end of input, legacy windows with emit options, mini-batch, interval 0, on-event,
#: event times before 1970) and a few random logs
CASES = ["h01_running_max", "h02_fire_edge", "h03_late_edge", "h04_hop_slice_drop", "h05_cumulate_slice_drop",
         "h06_session_late", "h07_session_merge_open", "h08_two_partitions", "h09_idle_timeout", "h11_silent_partition",
         "h12_silent_partition_idle", "h13_end_of_input", "h15_tumble_offset", "h16_interval_500",
         "h17_all_idle_then_active", "l01_legacy_tumble", "l02_legacy_early_late", "l03_legacy_early_only",
         "l04_legacy_lateness_only", "l05_legacy_late_only", "l06_legacy_session", "l08_legacy_hop_early_late",
         "m02_minibatch_small_steps", "t02_tvf_with_allow_lateness", "t03_interval_zero", "t04_on_event",
         "neg_g133_cumulate", "g00_tumble", "g04_cumulate", "g06_session", "g12_cumulate", "g112_legacy_tumble",
         "g163_legacy_hop"]


def _lines(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]


def fixture_setting(head: dict) -> dict:
    """The toolkit setting of a fixture's header (the inverse of the engine's scenario)."""
    w, case, opts = head["case"]["window"], head["case"], head.get("options", {})
    kind = w["kind"].replace("legacy_", "")
    off = f",{w['offset']}ms" if w.get("offset") else ""
    window = {"tumble": f"tumbling:{w.get('size')}ms{off}", "cumulate": f"cumulate:{w.get('size')}ms/{w.get('step')}ms{off}",
              "hop": f"sliding:{w.get('size')}ms/{w.get('slide')}ms{off}", "session": f"session:{w.get('gap')}ms"}[kind]
    s = {"semantics": "flink_sql", "window": window, "delay": f"{case['delay']}ms", "interval": f"{case['interval']}ms"}
    if w["kind"].startswith("legacy_"):
        s["window_syntax"] = "legacy"
    if "table.exec.source.idle-timeout" in opts:
        s["idleness"] = opts["table.exec.source.idle-timeout"].replace(" ", "")
    for which in ("early", "late"):
        if opts.get(f"table.exec.emit.{which}-fire.enabled") == "true":
            s[f"{which}_fire"] = True
    if "table.exec.emit.allow-lateness" in opts:  # a window TVF accepts and ignores it (t02), as Flink does
        s["allow_lateness"] = opts["table.exec.emit.allow-lateness"].replace(" ", "")
    if opts.get("table.exec.mini-batch.enabled") == "true":
        s["mini_batch"] = opts["table.exec.mini-batch.allow-latency"].replace(" ", "")
    if head.get("with", {}).get("scan.watermark.emit.strategy"):
        s["watermark_emit"] = head["with"]["scan.watermark.emit.strategy"]
    return s


def fixture_log(head: dict, steps: list[dict]):
    recs = [s["record"] for s in steps if "record" in s]
    df = pd.DataFrame({"event_time": [r["t"] for r in recs], "arrival_time": [r["arrival"] for r in recs],
                       "key": [r["k"] for r in recs], "partition": [r["p"] for r in recs],
                       "value": np.array([r["v"] for r in recs], dtype=np.int64)})
    return toolkit.load_log(df, time_unit="ms", partitions=list(head["partitions"]))


@pytest.mark.parametrize("case", CASES)
def test_a_log_replays_as_real_flink_sql(case):
    """The fixture's records as a log, its header as a setting: the replay's rows are real Flink
    SQL's (op, key, window, count, sum; by watermark span as the conformance test), and the records
    it drops are the ones no row of real Flink counted."""
    head, *steps = _lines(FIX / f"{case}.jsonl")
    assert head["case"].get("end") is None
    want = [x for x in _lines(FIX / f"{case}.out.jsonl") if x["kind"] == "row"]
    r = toolkit.replay(fixture_log(head, steps), **fixture_setting(head))
    em = r.emissions
    got = sorted(zip(em["op"], em["key"], em["window_start"].astype(int), em["window_end"].astype(int),
                     em["count"].astype(int), em["sum"].astype(int)))
    assert got == sorted((x["op"], x["k"], x["window_start"], x["window_end"], x["cnt"], x["total"]) for x in want)
    counted = 0
    for x in want:
        if x["op"] != "-U":
            counted |= x["total"]
    n = len(r.fates)
    kept = set(r.fates.loc[r.fates["fate"] != "dropped", "row"].tolist())
    assert kept == {i for i in range(n) if counted >> i & 1}


def test_emission_timing_and_late_firing_of_the_legacy_window():
    """l02 (legacy TUMBLE 10 s, early and late firing, allow-lateness 5 s): the first row is an
    early firing at record 0's arrival, record 3 (9000) comes after [0, 10000) fired and is
    kept by a late firing: late_accepted, in a row timed ``late``; -U rows are retractions."""
    head, *steps = _lines(FIX / "l02_legacy_early_late.jsonl")
    r = toolkit.replay(fixture_log(head, steps), **fixture_setting(head))
    em = r.emissions
    assert (em["timing"].iloc[0], int(em["emit_time"].iloc[0])) == ("early", 1000)
    assert r.fates.set_index("row").loc[3, "fate"] == "late_accepted"
    s = r.summary()
    assert s["late_firings"] == int(((em["timing"] == "late") & (em["kind"] == "fire")).sum()) > 0
    assert s["retractions"] == int((em["op"] == "-U").sum()) > 0
    assert "late firing" in r.explain(3).text


@pytest.fixture(scope="module")
def sample():
    return toolkit.load_log(ROOT / "data" / "sample.csv", max_invalid_fraction=0.01)


def test_sample_log_cumulate_replay_and_its_sweep_row(sample):
    r = toolkit.replay(sample, semantics="flink_sql", window="cumulate:1min/10s", delay="1s")
    s = r.summary()
    assert s["records"] == 30_000 and s["on_time"] + s["late_accepted"] + s["dropped"] + s["invalid"] == 30_000
    em = r.emissions
    assert set((em["window_end"] - em["window_start"]).astype(int)) == {10_000 * k for k in range(1, 7)}  # each step emits
    rows = toolkit.sweep(sample, semantics="flink_sql", window="cumulate:1min/10s",
                         delay=["1s", "3s"], execution="local", progress=False)
    assert len(rows) == 2 and set(rows["path"]) == {"flink_sql"}
    row = rows[rows["delay_ms"] == 1000].iloc[0]
    from toolkit.metrics.summary import SUMMARY_COLUMNS

    for k in SUMMARY_COLUMNS:
        assert row[k] == pytest.approx(s[k], nan_ok=True), k
    assert rows[rows["delay_ms"] == 3000].iloc[0]["dropped"] <= row["dropped"]


def test_a_cumulate_window_is_flink_sqls_own_and_a_grid_leaves_it_to_flink_sql(sample):
    r = toolkit.replay(sample, semantics="flink_sql", window="cumulate:1h/10min", delay="5s")  # the spelling
    assert r.summary()["records"] == 30_000 and str(r.setting.window) == "cumulate:1h/10min"
    for other in ("flink", "spark", "kafka_streams", "beam"):
        with pytest.raises(SettingError) as e:
            Setting.parse(semantics=other, window="cumulate:10s/5s")
        assert e.value.setting == "window" and "cumulate" in str(e.value)
    rows = toolkit.sweep(sample, semantics=["flink", "flink_sql"], window=["tumbling:10s", "cumulate:10s/5s"],
                         delay="1s", progress=False)
    assert sorted(zip(rows["semantics"], rows["window"])) == [
        ("flink", "tumbling:10s"), ("flink_sql", "cumulate:10s/5s"), ("flink_sql", "tumbling:10s")]


def test_sample_log_tumble_drops_in_flink_sql_terms(sample):
    r = toolkit.replay(sample, semantics="flink_sql", window="tumbling:1s", delay="500ms")
    s = r.summary()
    assert s["dropped"] == len(r.late) > 0 and s["late_records_counter"] <= s["dropped"]
    d = r.drops(fates=("dropped",))
    assert len(d) == s["dropped"] and (d["missed_by_ms"] >= 0).all()  # every window had fired: end - 1 <= watermark
    row = int(d["row"].iloc[0])
    assert "every window it belongs to had fired" in str(r.explain(row))
    assert "no allowed lateness" in str(r.explain(row))
    assert r.drop_causes()[0].endswith("after their last window fired")
    assert set(r.watermarks["level"]) == {"source", "operator"}


def test_legacy_window_says_which_delay_keeps_a_record(sample):
    """The one-phase legacy window judges a record at its arrival, so the delay that keeps it is exact."""
    r = toolkit.replay(sample, semantics="flink_sql", window="tumbling:1s", delay="500ms", window_syntax="legacy")
    d = r.drops(fates=("dropped",))
    x = d.iloc[0]
    keep = int(x["delay_to_keep_ms"])
    again = toolkit.replay(sample, semantics="flink_sql", window="tumbling:1s", delay=f"{keep}ms", window_syntax="legacy")
    assert again.fates.set_index("row").loc[int(x["row"]), "fate"] != "dropped"
    assert d["delay_to_keep_ms"].notna().all()


@pytest.mark.parametrize("given, named, words", [
    (dict(lateness="1s"), "lateness", "no allowed lateness"),
    (dict(early_fire=True), "early_fire", "window table function based aggregate"),
    (dict(window="session:5s", window_syntax="legacy", late_fire=True), "late_fire", "Session window doesn't support"),
    (dict(window="sliding:10s/3s"), "window", "whole multiple"),
    (dict(window="cumulate:10s/3s"), "window", "whole multiple of the step"),
    (dict(window="cumulate:10s/5s", window_syntax="legacy"), "window", "window TVF only"),
    (dict(window="cumulate:10s/5s", semantics="flink"), "window", "Flink has no cumulate window; give semantics='flink_sql'"),
    (dict(window="cumulate:10s/20s"), "window", "must not exceed the size"),
    (dict(idleness="soon"), "idleness", "idleness"),
    (dict(strategy="legacy"), "strategy", "WATERMARK FOR"),
])
def test_settings_flink_sql_refuses_name_what_the_user_typed(given, named, words):
    with pytest.raises(SettingError, match=words) as e:
        Setting.parse(**{"semantics": "flink_sql", **given})
    assert e.value.setting == named


def test_deploy_prints_the_sql_that_was_replayed():
    d = toolkit.deploy(Setting.parse(semantics="flink_sql", window="sliding:10s/5s", delay="2s", idleness="3s",
                                     interval="500ms"))
    assert d.engine == "flink-sql" and d.exact
    assert "WATERMARK FOR ts AS ts - INTERVAL '2' SECOND" in d.code  # the expression itself: no - 1 ms
    assert "SET 'table.exec.source.idle-timeout' = '3000 ms';" in d.code
    assert "SET 'pipeline.auto-watermark-interval' = '500 ms';" in d.code
    assert "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)" in d.code
    legacy = toolkit.deploy(semantics="flink_sql", window="tumbling:10s", window_syntax="legacy", late_fire=True,
                            allow_lateness="5s").code
    assert "GROUP BY `key`, TUMBLE(ts, INTERVAL '10' SECOND)" in legacy
    assert "SET 'table.exec.emit.allow-lateness' = '5000 ms';" in legacy
    with pytest.raises(SettingError, match="flink_sql"):
        toolkit.deploy(Setting.parse(window="tumbling:1s"), engine="flink-sql")


def test_cli_replay_with_flink_sql(tmp_path, capsys):
    out = tmp_path / "drops.csv"
    assert main(["replay", str(ROOT / "data" / "sample.csv"), "--max-invalid-fraction", "0.01", "--semantics",
                 "flink_sql", "--window", "tumbling:1s", "--delay", "500ms", "--window-syntax", "legacy",
                 "--drops", str(out)]) == 0
    text = capsys.readouterr().out
    assert "numLateRecordsDropped" in text
    assert len(pd.read_csv(out)) > 0


def test_compare_with_the_datastream_job_says_who_keeps_what(sample):
    """The same intent in both: Flink SQL's delay is 1 ms more (its watermark has no - 1 ms), and
    what the DataStream job keeps thanks to allowed lateness Flink SQL drops, saying why."""
    c = toolkit.compare_engines(sample, Setting.parse(window="tumbling:1s", delay="500ms", lateness="1s"),
                                semantics=["flink", "flink_sql"])
    sql = c.translations["flink_sql"]
    assert sql.setting.delay == 501 and any("no allowed lateness" in n for n in sql.notes)
    f = c.fates
    kept_by_flink = (f["fate_flink"] != "dropped") & (f["fate_flink_sql"] == "dropped")
    assert kept_by_flink.sum() > 0 and ((f["fate_flink"] == "dropped") & (f["fate_flink_sql"] != "dropped")).sum() == 0
    assert "window TVF has no allowed lateness" in c.summary_text()
    same = toolkit.compare_engines(sample, Setting.parse(window="tumbling:1s", delay="500ms"),
                                   semantics=["flink", "flink_sql"])
    assert (same.fates["fate_flink"] == same.fates["fate_flink_sql"]).all()  # no lateness: the same records


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(3)
    n = 400
    arrival = np.sort(rng.integers(0, 20_000, n))
    return toolkit.log.EventLog.from_arrays(arrival - rng.integers(0, 3000, n), arrival, key=rng.integers(0, 5, n),
                                            partition=rng.integers(0, 3, n), value=rng.random(n))


@pytest.mark.parametrize("given", [
    dict(window="session:700ms"), dict(window="session:700ms", window_syntax="legacy"),
    dict(window="sliding:2s/500ms,100ms"),
    dict(window="tumbling:2s", window_syntax="legacy", early_fire=True, late_fire=True, allow_lateness="1s"),
    dict(window="tumbling:2s", interval=0), dict(window="tumbling:2s", watermark_emit="on-event"),
    dict(window="tumbling:2s", mini_batch="1s"), dict(window="tumbling:2s", idleness="100ms"),
    dict(window="cumulate:10s/2s", partitions_as_sources=False),
])
def test_summary_is_the_sweep_row(small, given):
    from toolkit.metrics.summary import SUMMARY_COLUMNS

    s = toolkit.replay(small, semantics="flink_sql", delay="300ms", **given).summary()
    assert s["on_time"] + s["late_accepted"] + s["dropped"] == s["records"] == 400
    row = toolkit.sweep(small, semantics="flink_sql", delay="300ms", execution="local", progress=False, **given).iloc[0]
    for k in SUMMARY_COLUMNS:
        assert row[k] == pytest.approx(s[k], nan_ok=True), k
    if given.get("interval") == 0:  # no periodic watermark: everything fires at the end of input
        assert s["at_end_firings"] == s["firings"] and s["dropped"] == 0
    if given.get("early_fire"):
        assert s["retractions"] > 0 and s["late_accepted"] > 0 and s["notes"]
