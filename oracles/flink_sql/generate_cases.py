#!/usr/bin/env python3
"""Write the Flink SQL scenario files (NAME.jsonl) that flink_sql_oracle.py runs.

Usage::

    python oracles/flink_sql/generate_cases.py OUT_DIR

A case is a log (records with event time ``t``, arrival time ``arrival``, key ``k``,
partition ``p``; value ``v = 2**index`` so that every SUM names its records) and a setting:
the window (``tumble``, ``hop``, ``cumulate``, ``session``, or the legacy group window
``legacy_tumble`` / ``legacy_hop`` / ``legacy_session``), the watermark delay of
``WATERMARK FOR ts AS ts - INTERVAL ...``, the periodic interval (``pipeline.auto-watermark-interval``),
the idle timeout (``table.exec.source.idle-timeout``) and other table options. It becomes the
steps the source performs (``toolkit.engine.flink_sql.steps.source_steps``, the replay's own
rule): records in arrival order (ties: log order) and, between them, a periodic tick at every
``first arrival + k * interval`` (k >= 1) up to ``end`` (default: the last arrival); records
arriving at or before a tick come before it. The header keeps the case (``case``) beside what
Flink runs (``watermark``, ``options``, ``query``). The standard library and the project's
``toolkit`` (imported from this checkout).
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project's root: toolkit
from toolkit.engine.flink_sql.steps import source_steps  # noqa: E402  (the replay's own step rule)

AGG = "COUNT(*) AS cnt, SUM(v) AS total"


def interval(ms: int) -> str:
    """A Flink SQL interval literal of ``ms`` milliseconds (seconds, up to 99 s)."""
    if ms < 0 or ms >= 100_000:
        raise ValueError("interval %d ms outside 0..99999 ms" % ms)
    s, rest = divmod(ms, 1000)
    return "INTERVAL '%d' SECOND" % s if rest == 0 else "INTERVAL '%d.%03d' SECOND" % (s, rest)


def tvf(window: dict) -> str:
    """The window table-valued function call over ``events``."""
    kind = window["kind"]
    if kind == "tumble":
        off = ", %s" % interval(window["offset"]) if window.get("offset") else ""
        return "TUMBLE(TABLE events, DESCRIPTOR(ts), %s%s)" % (interval(window["size"]), off)
    if kind == "hop":
        return "HOP(TABLE events, DESCRIPTOR(ts), %s, %s)" % (interval(window["slide"]), interval(window["size"]))
    if kind == "cumulate":
        return "CUMULATE(TABLE events, DESCRIPTOR(ts), %s, %s)" % (interval(window["step"]), interval(window["size"]))
    if kind == "session":
        return "SESSION(TABLE events PARTITION BY k, DESCRIPTOR(ts), %s)" % interval(window["gap"])
    raise ValueError("unknown window kind %r" % kind)


def query(window: dict) -> str:
    """COUNT and SUM per key and window; legacy group windows add MAX(idx) (see README.md)."""
    kind = window["kind"]
    if not kind.startswith("legacy_"):
        return ("SELECT k, window_start, window_end, %s FROM TABLE(%s) GROUP BY k, window_start, window_end"
                % (AGG, tvf(window)))
    fn = kind[len("legacy_"):].upper()
    if fn == "TUMBLE":
        args = interval(window["size"])
    elif fn == "HOP":
        args = "%s, %s" % (interval(window["slide"]), interval(window["size"]))
    else:
        args = interval(window["gap"])
    return ("SELECT k, {f}_START(ts, {a}) AS window_start, {f}_END(ts, {a}) AS window_end, {agg}, "
            "MAX(idx) AS last_idx FROM events GROUP BY k, {f}(ts, {a})").format(f=fn, a=args, agg=AGG)


def scenario(name: str, case: dict, records: list[tuple]) -> list[dict]:
    """Header and steps of one case; ``records`` are (t, arrival, k, p) in log order."""
    recs = [{"t": t, "arrival": a, "k": k, "p": p, "v": 1 << i} for i, (t, a, k, p) in enumerate(records)]
    if len(recs) > 62:
        raise ValueError("%s: at most 62 records (values are powers of two)" % name)
    options = dict(case.get("options", {}))
    if case["interval"] == 0:  # periodic emission off, for real (the scenario has no ticks)
        options["pipeline.auto-watermark-interval"] = "0 ms"
    if case.get("idle_timeout") is not None:
        options["table.exec.source.idle-timeout"] = "%d ms" % case["idle_timeout"]
    delay = case["delay"]
    head = {"name": name, "case": case, "partitions": case.get("partitions", [0]),
            "watermark": "ts" if delay == 0 else "ts - " + interval(delay),
            "options": options, "query": query(case["window"])}
    if case.get("with"):  # options of the table (its WITH clause), e.g. the watermark emit strategy
        head["with"] = dict(case["with"])
    return [head] + source_steps(recs, case["interval"], case.get("end"))


def case(window: dict, delay: int, every: int = 200, **extra) -> dict:
    return {"window": window, "delay": delay, "interval": every, **extra}


TUMBLE10 = {"kind": "tumble", "size": 10_000}
EARLY0 = {"table.exec.emit.early-fire.enabled": "true", "table.exec.emit.early-fire.delay": "0 ms"}
LATE0 = {"table.exec.emit.late-fire.enabled": "true", "table.exec.emit.late-fire.delay": "0 ms"}

#: name: (case, records (t, arrival, k, p)); each pins a rule (docs/flink_sql_semantics.md).
HAND: dict[str, tuple[dict, list[tuple]]] = {
    # the periodic watermark is the running max of the expression: 5000 then 1000
    "h01_running_max": (case(TUMBLE10, 1000), [
        (5000, 1000, "a", 0), (1000, 1100, "a", 0), (2000, 1500, "a", 0), (12000, 1700, "a", 0),
        (3000, 1800, "a", 0), (4000, 2100, "a", 0)]),
    # fires when the watermark reaches window_end - 1 (delay 0: WATERMARK FOR ts AS ts)
    "h02_fire_edge": (case(TUMBLE10, 0), [
        (9998, 1000, "a", 0), (100, 1100, "a", 0), (9999, 1300, "a", 0), (10000, 1500, "a", 0),
        (19999, 1700, "b", 0)]),
    # a record in a fired window is dropped (window_end - 1 <= watermark), the next one kept
    "h03_late_edge": (case(TUMBLE10, 0), [
        (9999, 1000, "a", 0), (9999, 1300, "a", 0), (10000, 1500, "a", 0), (9998, 1600, "a", 0),
        (12000, 1900, "a", 0)]),
    # HOP: a record whose first window fired but whose later window did not
    "h04_hop_slice_drop": (case({"kind": "hop", "size": 10_000, "slide": 5_000}, 0), [
        (1000, 1000, "a", 0), (9999, 1100, "a", 0), (7000, 1300, "a", 0), (12000, 1500, "a", 0),
        (14999, 1700, "a", 0), (11000, 1900, "a", 0), (30000, 2100, "a", 0)]),
    # CUMULATE: every step emits; a record in a fired step's slice is dropped from later steps too
    "h05_cumulate_slice_drop": (case({"kind": "cumulate", "size": 6_000, "step": 2_000}, 0), [
        (500, 1000, "a", 0), (2500, 1100, "a", 0), (1500, 1300, "a", 0), (3999, 1500, "a", 0),
        (2100, 1700, "a", 0), (5000, 1900, "a", 0), (5999, 2100, "a", 0), (4500, 2300, "a", 0),
        (6500, 2500, "a", 0)]),
    # SESSION: merge, a late record that would extend or bridge fired sessions
    "h06_session_late": (case({"kind": "session", "gap": 3_000}, 0), [
        (1000, 1000, "a", 0), (2000, 1100, "a", 0), (8000, 1300, "a", 0), (4500, 1500, "a", 0),
        (5000, 1600, "a", 0), (3500, 1700, "a", 0), (9000, 1900, "b", 0), (7500, 2100, "a", 0),
        (20000, 2300, "a", 0)]),
    "h07_session_merge_open": (case({"kind": "session", "gap": 3_000}, 1000), [
        (1000, 1000, "a", 0), (7000, 1100, "a", 0), (4000, 1300, "a", 0), (10000, 1500, "a", 0),
        (13000, 1700, "a", 0), (2000, 1900, "a", 0), (16500, 2100, "a", 0)]),
    # two partitions: the watermark is the min; a silent partition holds it back
    "h08_two_partitions": (case(TUMBLE10, 0, partitions=[0, 1]), [
        (12000, 1000, "a", 0), (3000, 1100, "a", 1), (15000, 1300, "a", 0), (5000, 1500, "a", 1),
        (11000, 1700, "a", 1), (4000, 1900, "a", 1), (25000, 2100, "a", 0)]),
    # idle timeout: partition 1 silent after its first record goes idle (strictly after the timeout)
    "h09_idle_timeout": (case(TUMBLE10, 0, partitions=[0, 1], idle_timeout=500), [
        (1000, 1000, "a", 0), (1000, 1000, "a", 1), (12000, 1100, "a", 0), (13000, 1300, "a", 0),
        (14000, 1500, "a", 0), (15000, 1700, "a", 0), (16000, 1900, "a", 0), (9000, 2000, "a", 0),
        (21000, 2300, "a", 0), (2000, 2500, "b", 1), (22000, 2600, "b", 1), (30000, 2900, "a", 0)]),
    "h10_no_idle_timeout": (case(TUMBLE10, 0, partitions=[0, 1]), [
        (1000, 1000, "a", 0), (1000, 1000, "a", 1), (12000, 1100, "a", 0), (13000, 1300, "a", 0),
        (14000, 1500, "a", 0), (15000, 1700, "a", 0), (16000, 1900, "a", 0), (9000, 2000, "a", 0),
        (21000, 2300, "a", 0), (2000, 2500, "b", 1), (22000, 2600, "b", 1), (30000, 2900, "a", 0)]),
    # a declared partition that never speaks: held back without idleness, released with it
    "h11_silent_partition": (case(TUMBLE10, 0, partitions=[0, 1]), [
        (1000, 1000, "a", 0), (12000, 1300, "a", 0), (25000, 1700, "a", 0), (3000, 2100, "a", 0)]),
    "h12_silent_partition_idle": (case(TUMBLE10, 0, partitions=[0, 1], idle_timeout=300), [
        (1000, 1000, "a", 0), (12000, 1300, "a", 0), (25000, 1700, "a", 0), (3000, 2100, "a", 0)]),
    # end of a bounded input: every open window fires at the final watermark
    "h13_end_of_input": (case({"kind": "hop", "size": 6_000, "slide": 2_000}, 5000), [
        (1000, 1000, "a", 0), (2500, 1100, "b", 0), (7000, 1300, "a", 0), (6000, 1500, "b", 0)]),
    # ticks after the last record (end): the watermark still moves on them
    "h14_ticks_after_last": (case(TUMBLE10, 2000, end=2600), [
        (1000, 1000, "a", 0), (11000, 1050, "a", 0), (13000, 1900, "a", 0)]),
    "h15_tumble_offset": (case({"kind": "tumble", "size": 10_000, "offset": 3_000}, 0), [
        (1000, 1000, "a", 0), (2999, 1100, "a", 0), (3000, 1300, "a", 0), (12999, 1500, "a", 0),
        (13000, 1700, "a", 0), (2000, 1900, "a", 0)]),
    "h16_interval_500": (case(TUMBLE10, 500, every=500), [
        (1000, 1000, "a", 0), (10600, 1200, "a", 0), (9000, 1400, "a", 0), (9500, 1600, "b", 0),
        (11000, 2000, "a", 0), (9700, 2000, "b", 0), (30000, 2600, "a", 0)]),
    # legacy group window: same rules without emit options
    "l01_legacy_tumble": (case({"kind": "legacy_tumble", "size": 10_000}, 1000), [
        (1000, 1000, "a", 0), (5000, 1000, "a", 0), (11500, 1300, "a", 0), (9000, 1500, "a", 0),
        (3000, 1500, "b", 0), (12000, 1700, "a", 0)]),
    # early fire on every element, late fire on every late element within allow-lateness
    "l02_legacy_early_late": (case({"kind": "legacy_tumble", "size": 10_000}, 1000,
                                   options={**EARLY0, **LATE0, "table.exec.emit.allow-lateness": "5 s"}), [
        (1000, 1000, "a", 0), (5000, 1000, "a", 0), (11500, 1300, "a", 0), (9000, 1500, "a", 0),
        (3000, 1500, "b", 0), (16000, 1700, "a", 0), (8000, 1900, "a", 0), (12000, 2100, "a", 0)]),
    "l03_legacy_early_only": (case({"kind": "legacy_tumble", "size": 10_000}, 1000, options=dict(EARLY0)), [
        (1000, 1000, "a", 0), (5000, 1000, "a", 0), (5000, 1100, "a", 0), (11500, 1300, "a", 0),
        (9000, 1500, "a", 0)]),
    "l04_legacy_lateness_only": (case({"kind": "legacy_tumble", "size": 10_000}, 1000,
                                      options={"table.exec.emit.allow-lateness": "5 s"}), [
        (1000, 1000, "a", 0), (11500, 1300, "a", 0), (9000, 1500, "a", 0), (16000, 1700, "a", 0),
        (8000, 1900, "a", 0)]),
    "l05_legacy_late_only": (case({"kind": "legacy_tumble", "size": 10_000}, 1000,
                                  options={**LATE0, "table.exec.emit.allow-lateness": "5 s"}), [
        (1000, 1000, "a", 0), (11500, 1300, "a", 0), (9000, 1500, "a", 0), (9500, 1600, "a", 0),
        (16000, 1700, "a", 0), (8000, 1900, "a", 0), (30000, 2100, "a", 0)]),
    "l06_legacy_session": (case({"kind": "legacy_session", "gap": 3_000}, 0), [
        (1000, 1000, "a", 0), (2000, 1100, "a", 0), (8000, 1300, "a", 0), (4500, 1500, "a", 0),
        (5000, 1600, "a", 0), (3500, 1700, "a", 0), (20000, 2300, "a", 0)]),
    "l07_legacy_hop": (case({"kind": "legacy_hop", "size": 10_000, "slide": 5_000}, 0), [
        (1000, 1000, "a", 0), (9999, 1100, "a", 0), (7000, 1300, "a", 0), (12000, 1500, "a", 0),
        (30000, 2100, "a", 0)]),
    # mini-batch options on a window TVF query
    "m01_minibatch_tumble": (case(TUMBLE10, 1000, options={
        "table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": "1 s",
        "table.exec.mini-batch.size": "2"}), [
        (1000, 1000, "a", 0), (5000, 1000, "a", 0), (11500, 1300, "a", 0), (9000, 1500, "a", 0),
        (3000, 1500, "b", 0), (12000, 1700, "a", 0)]),
    "l08_legacy_hop_early_late": (case({"kind": "legacy_hop", "size": 10_000, "slide": 5_000}, 1000,
                                       options={**EARLY0, **LATE0, "table.exec.emit.allow-lateness": "3 s"}), [
        (1000, 1000, "a", 0), (6000, 1100, "a", 0), (12500, 1300, "a", 0), (7000, 1500, "a", 0),
        (14000, 1700, "a", 0), (4000, 1900, "a", 0), (16500, 2100, "a", 0), (9000, 2300, "a", 0),
        (30000, 2500, "a", 0)]),
    "l09_legacy_session_early_late": (case({"kind": "legacy_session", "gap": 3_000}, 1000,
                                           options={**EARLY0, **LATE0, "table.exec.emit.allow-lateness": "5 s"}), [
        (1000, 1000, "a", 0), (2000, 1100, "a", 0), (8000, 1300, "a", 0), (4500, 1500, "a", 0),
        (5000, 1600, "a", 0), (20000, 1700, "a", 0), (3000, 1900, "a", 0), (14000, 2100, "a", 0)]),
    "l10_legacy_session_late_only": (case({"kind": "legacy_session", "gap": 3_000}, 1000,
                                          options={**LATE0, "table.exec.emit.allow-lateness": "5 s"}), [
        (1000, 1000, "a", 0), (2000, 1100, "a", 0), (8000, 1300, "a", 0), (4500, 1500, "a", 0),
        (5000, 1600, "a", 0), (20000, 1700, "a", 0), (3000, 1900, "a", 0), (14000, 2100, "a", 0)]),
    # the emit options given to a window TVF query (are they refused, ignored or used?)
    "t01_tvf_with_emit_options": (case(TUMBLE10, 1000, options={
        **EARLY0, **LATE0, "table.exec.emit.allow-lateness": "5 s"}), [
        (1000, 1000, "a", 0), (5000, 1000, "a", 0), (11500, 1300, "a", 0), (9000, 1500, "a", 0),
        (3000, 1500, "b", 0), (12000, 1700, "a", 0)]),
    "t02_tvf_with_allow_lateness": (case(TUMBLE10, 1000, options={"table.exec.emit.allow-lateness": "5 s"}), [
        (1000, 1000, "a", 0), (5000, 1000, "a", 0), (11500, 1300, "a", 0), (9000, 1500, "a", 0),
        (3000, 1500, "b", 0), (12000, 1700, "a", 0)]),
    # pipeline.auto-watermark-interval 0: no periodic emission at all
    "t03_interval_zero": (case(TUMBLE10, 1000, every=0), [
        (1000, 1000, "a", 0), (12000, 1100, "a", 0), (5000, 1200, "a", 0), (25000, 1300, "a", 0),
        (13000, 1400, "a", 0)]),
    # 'scan.watermark.emit.strategy' = 'on-event': a watermark after every record
    "t04_on_event": (case(TUMBLE10, 1000, partitions=[0, 1], **{"with": {"scan.watermark.emit.strategy": "on-event"}}), [
        (1000, 1000, "a", 0), (12000, 1100, "a", 1), (5000, 1150, "a", 0), (25000, 1300, "a", 0),
        (13000, 1350, "a", 1), (9000, 1380, "a", 1), (14000, 1500, "a", 1)]),
    # every partition idle, then records again: active, the watermark goes on from where it was
    "h17_all_idle_then_active": (case(TUMBLE10, 0, partitions=[0, 1], idle_timeout=300), [
        (1000, 1000, "a", 0), (2000, 1050, "a", 1), (9000, 2500, "a", 0), (8000, 2600, "b", 0),
        (12000, 2700, "a", 1), (15000, 3000, "a", 0), (11000, 3100, "a", 1)]),
    # mini-batch on a window TVF: the MiniBatchAssigner (row-time mode) between source and window
    "m02_minibatch_small_steps": (case({"kind": "tumble", "size": 2_000}, 0, options={
        "table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": "1 s",
        "table.exec.mini-batch.size": "1000"}), [
        (1000, 1000, "a", 0), (1500, 1100, "a", 0), (1999, 1300, "a", 0), (2300, 1500, "a", 0),
        (2900, 1700, "a", 0), (3999, 1900, "a", 0), (4100, 2100, "a", 0), (3000, 2300, "a", 0),
        (5200, 2500, "a", 0), (6100, 2700, "a", 0), (4500, 2900, "a", 0), (9000, 3100, "a", 0)]),
    "m03_no_minibatch_small_steps": (case({"kind": "tumble", "size": 2_000}, 0), [
        (1000, 1000, "a", 0), (1500, 1100, "a", 0), (1999, 1300, "a", 0), (2300, 1500, "a", 0),
        (2900, 1700, "a", 0), (3999, 1900, "a", 0), (4100, 2100, "a", 0), (3000, 2300, "a", 0),
        (5200, 2500, "a", 0), (6100, 2700, "a", 0), (4500, 2900, "a", 0), (9000, 3100, "a", 0)]),
}

KINDS = [{"kind": "tumble", "size": 2_000}, {"kind": "tumble", "size": 3_000, "offset": 1_000},
         {"kind": "hop", "size": 3_000, "slide": 1_000}, {"kind": "hop", "size": 4_000, "slide": 2_000},
         {"kind": "cumulate", "size": 4_000, "step": 1_000}, {"kind": "cumulate", "size": 3_000, "step": 1_500},
         {"kind": "session", "gap": 700}, {"kind": "session", "gap": 1_500}]


def third_family(seed: int) -> tuple[dict, list[tuple]]:
    """Seeds 100+: longer logs (20-60 records), 1-4 partitions with their own event-time skew,
    bursts and silences, larger delays, and the legacy group window with early/late firing.
    Event times stay >= 0 (negative ones behave differently: the ``neg_*`` scenarios, kept
    from an earlier run of this family)."""
    rnd = random.Random(seed)
    parts = rnd.randint(1, 4)
    skew = [rnd.choice([0, 0, 300, 1500]) for _ in range(parts)]
    keys = ["a", "b", "c", "d"][: rnd.randint(1, 4)]
    arrival, out = 1000, []
    for _ in range(rnd.randint(20, 60)):
        arrival += rnd.choice([0, 0, 20, 100, 250, 700])
        p = rnd.randrange(parts)
        lag = skew[p] + (rnd.choice([0, 50, 400, 900]) if rnd.random() < 0.85 else rnd.randint(1000, 8000))
        out.append((arrival * 3 - lag + 10_000, arrival, rnd.choice(keys), p))  # event times >= 0
    window = dict(KINDS[seed % len(KINDS)])
    c = case(window, rnd.choice([0, 100, 700, 2000]), rnd.choice([50, 200, 500]), partitions=list(range(parts)))
    if parts > 1 and rnd.random() < 0.5:
        c["idle_timeout"] = rnd.choice([100, 300, 800])
    if rnd.random() < 0.3:
        c["end"] = arrival + rnd.choice([300, 2000])
    if window["kind"] in ("tumble", "hop") and not window.get("offset") and rnd.random() < 0.4:
        window["kind"] = "legacy_" + window["kind"]
        opts = {}
        if rnd.random() < 0.5:
            opts.update(EARLY0)
        if rnd.random() < 0.6:
            opts.update(LATE0)
            opts["table.exec.emit.allow-lateness"] = "%d ms" % rnd.choice([500, 2000, 6000])
        c["options"] = opts
    return c, out


def fourth_family(seed: int) -> tuple[dict, list[tuple]]:
    """Seeds 200+: the third family's logs with the emit strategy ``on-event``, periodic
    emission switched off (interval 0), mini-batch, and idle timeouts around the silences."""
    c, out = third_family(seed)
    rnd = random.Random(seed * 7 + 1)
    roll = rnd.random()
    if roll < 0.35:
        c["with"] = {"scan.watermark.emit.strategy": "on-event"}
    elif roll < 0.45:
        c["interval"] = 0
        c.pop("end", None)
    if not c["window"]["kind"].startswith("legacy_") and rnd.random() < 0.3:
        c["options"] = {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.size": "1000",
                        "table.exec.mini-batch.allow-latency": "%d ms" % rnd.choice([500, 1000, 3000])}
    if len(c["partitions"]) > 1 and rnd.random() < 0.5:
        c["idle_timeout"] = rnd.choice([150, 400, 1200])
    return c, out


def random_case(seed: int) -> tuple[dict, list[tuple]]:
    """A seeded log: 1-3 partitions (one may fall silent), 1-3 keys, out-of-order and late records."""
    if seed >= 200:
        return fourth_family(seed)
    if seed >= 100:
        return third_family(seed)
    rnd = random.Random(seed)
    parts = rnd.randint(1, 3)
    keys = ["a", "b", "c"][: rnd.randint(1, 3)]
    n = rnd.randint(12, 40)
    silent = rnd.randrange(parts) if parts > 1 and rnd.random() < 0.5 else None
    arrival = 1000
    out = []
    for i in range(n):
        arrival += rnd.choice([0, 10, 50, 120, 200, 300])
        p = rnd.randrange(parts)
        if p == silent and i > n // 3:
            p = (p + 1) % parts
        lag = rnd.choice([0, 100, 300, 600, 1500, 3000]) if rnd.random() < 0.8 else rnd.randint(0, 6000)
        out.append((arrival * 4 - lag, arrival, rnd.choice(keys), p))
    window = dict(KINDS[seed % len(KINDS)])
    c = case(window, rnd.choice([0, 200, 500, 1000]), rnd.choice([100, 200, 300]), partitions=list(range(parts)))
    if parts > 1 and rnd.random() < 0.6:
        c["idle_timeout"] = rnd.choice([200, 400, 1000])
    if rnd.random() < 0.3:
        c["end"] = arrival + rnd.choice([500, 1500])
    if seed >= 40:  # the second family: legacy group windows and mini-batch too
        if window["kind"] != "cumulate" and not window.get("offset") and rnd.random() < 0.3:
            window["kind"] = "legacy_" + window["kind"]
        elif rnd.random() < 0.3:
            c["options"] = {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.size": "1000",
                            "table.exec.mini-batch.allow-latency": "%d ms" % rnd.choice([300, 1000, 2000])}
    return c, out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.exit("usage: generate_cases.py OUT_DIR")
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    cases = dict(HAND)
    for seed in range(280):
        c, records = random_case(seed)
        cases["g%02d_%s" % (seed, c["window"]["kind"])] = (c, records)
    for name, (c, records) in cases.items():
        lines = scenario(name, c, records)
        (out / (name + ".jsonl")).write_text("".join(json.dumps(x) + "\n" for x in lines))
    print("generate_cases: %d scenarios in %s" % (len(cases), out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
