"""Generate the Beam conformance corpus: scenario files without expected output.

Window kinds x triggers x allowed lateness x accumulation x timestamp combiners, each with
a seeded random event sequence over two keys that deliberately hits ties at window ends,
late data, data beyond the allowed lateness, session merging and processing-time advances.

    python oracles/beam/generate_cases.py OUT_DIR          # then: beam_oracle.py run OUT_DIR

``failing_cases`` are settings real Beam fails on (``expect_failure``); ``run`` records the
failure (``failed``) instead of panes.
"""
from __future__ import annotations

import itertools
import json
import random
import sys
from pathlib import Path

WINDOWS = {
    "fixed10": {"type": "fixed", "size": 10},
    "fixed10off3": {"type": "fixed", "size": 10, "offset": 3},
    "sliding10by5": {"type": "sliding", "size": 10, "period": 5},
    "sessions5": {"type": "sessions", "gap": 5},
}
C1 = {"type": "after_count", "n": 1}
C2 = {"type": "after_count", "n": 2}
C3 = {"type": "after_count", "n": 3}
PT5 = {"type": "after_processing_time", "delay_ms": 5000}
WM = {"type": "after_watermark"}
TRIGGERS = {
    "default": {"type": "default"},
    "watermark": WM,
    "early2": {"type": "after_watermark", "early": C2},
    "late1": {"type": "after_watermark", "late": C1},
    "early2late1": {"type": "after_watermark", "early": C2, "late": C1},
    "early3late2": {"type": "after_watermark", "early": C3, "late": C2},
    "earlypt5late1": {"type": "after_watermark", "early": PT5, "late": C1},
    "count2": C2,
    "repeat_count2": {"type": "repeatedly", "trigger": C2},
    "repeat_pt5": {"type": "repeatedly", "trigger": PT5},
    "pt5": PT5,
    "each_count2_wm": {"type": "after_each", "triggers": [C2, WM]},
    "any_count3_wm": {"type": "after_any", "triggers": [C3, WM]},
    "all_count2_wm": {"type": "after_all", "triggers": [C2, WM]},
    "repeat_any_count2_pt5": {"type": "repeatedly",
                              "trigger": {"type": "after_any", "triggers": [C2, PT5]}},
    "orfinally_repeat_count1_count3": {"type": "orfinally",
                                       "main": {"type": "repeatedly", "trigger": C1},
                                       "finally": C3},
}
LATENESS = [0, 10]
ACCUMULATION = ["accumulating", "discarding"]
COMBINERS = ["end_of_window", "earliest", "latest"]


def events(rng: random.Random, window: dict, unit: int = 1) -> list[dict]:
    """A random arrival sequence: elements mostly near the watermark, some on window-end
    ties, some late, some beyond any lateness; strictly increasing watermarks; processing
    time advances in whole seconds (Python's AfterProcessingTime delays are whole seconds)."""
    size = window.get("size", 10 * unit) // unit
    out: list[dict] = []
    wm = -1
    value = 0
    t_hi = 0
    for _ in range(rng.randint(8, 16)):
        r = rng.random()
        if r < 0.55:
            kind = rng.random()
            if kind < 0.2:       # on a window's last instant or first instant (ties)
                ts = rng.randint(1, 4) * size * unit - rng.choice([1, 0])
            elif kind < 0.45 and wm > 0:  # behind the watermark: late, maybe beyond lateness
                ts = max(0, wm - rng.randint(0, 25) * unit)
            else:
                ts = max(0, t_hi - rng.randint(0, 6) * unit) + rng.randint(0, 5) * unit
            t_hi = max(t_hi, ts)
            value += 1
            out.append({"element": {"key": rng.choice("ab"), "value": value, "ts": ts}})
        elif r < 0.8:
            target = max(wm + 1, t_hi - rng.randint(0, 8) * unit)
            if rng.random() < 0.3:   # exactly at a window end or its last instant
                span = size * unit
                target = max(wm + 1, (target // span + 1) * span - rng.choice([0, 1]))
            wm = target
            out.append({"watermark": wm})
        else:
            out.append({"processing_time_advance": rng.choice([2000, 3000, 6000])})
    # let every pending processing-time timer fire before the stream ends (otherwise the
    # DirectRunner waits on its clock and whether they fire is a race)
    out.append({"processing_time_advance": 10000})
    return out


#: second family, in seconds: event times and processing times of the same magnitude (the
#: Python SDK compares a processing-time timer's time with the window end)
WINDOWS_S = {
    "fixed10s": {"type": "fixed", "size": 10000},
    "sliding10sby5s": {"type": "sliding", "size": 10000, "period": 5000},
    "sessions5s": {"type": "sessions", "gap": 5000},
}
TRIGGERS_S = {k: TRIGGERS[k] for k in ("default", "early2late1", "earlypt5late1", "repeat_pt5", "pt5",
                                       "repeat_any_count2_pt5", "late1", "repeat_count2")}
LATENESS_S = [0, 10000]


def random_trigger(rng: random.Random, depth: int = 0) -> dict:
    """A random trigger tree (the fuzz family)."""
    leaves = [lambda: {"type": "after_count", "n": rng.randint(1, 3)},
              lambda: {"type": "after_processing_time", "delay_ms": rng.choice([1000, 2000, 5000])},
              lambda: {"type": "after_watermark"}, lambda: {"type": "default"}]
    if depth >= 2 or rng.random() < 0.35:
        return rng.choice(leaves)()
    kind = rng.choice(["after_watermark", "repeatedly", "after_any", "after_all", "after_each",
                       "orfinally", "after_watermark"])
    sub = lambda: random_trigger(rng, depth + 1)  # noqa: E731
    if kind == "after_watermark":
        return {"type": kind, "early": sub() if rng.random() < 0.7 else None,
                "late": sub() if rng.random() < 0.6 else None}
    if kind == "repeatedly":
        return {"type": kind, "trigger": sub()}
    if kind == "orfinally":
        return {"type": kind, "main": sub(), "finally": sub()}
    return {"type": kind, "triggers": [sub() for _ in range(rng.randint(2, 3))]}


def fuzz_cases(n: int = 300) -> list[dict]:
    """Random windows, trigger trees, lateness, modes and combiners; three keys."""
    out = []
    for i in range(n):
        rng = random.Random(f"fuzz/{i}")
        window = rng.choice([
            {"type": "fixed", "size": rng.randint(5, 20), "offset": rng.randint(0, 4)},
            {"type": "sliding", "size": 12, "period": rng.choice([3, 4, 6]), "offset": rng.randint(0, 2)},
            {"type": "sessions", "gap": rng.randint(3, 8)}])
        ev = events(rng, window) + events(rng, window)[:-1]
        wm, value = -1, 0
        for e in ev:  # re-number values, keep watermarks strictly increasing, three keys
            if "element" in e:
                value += 1
                e["element"]["value"] = value
                e["element"]["key"] = rng.choice("abc")
            elif "watermark" in e:
                wm = max(wm + 1, e["watermark"])
                e["watermark"] = wm
        ev.append({"processing_time_advance": 10000})
        out.append({"name": f"fuzz{i:03d}", "window": window, "trigger": random_trigger(rng),
                    "allowed_lateness_ms": rng.choice([0, 5, 20]),
                    "accumulation": rng.choice(ACCUMULATION), "timestamp_combiner": rng.choice(COMBINERS),
                    "events": ev})
    return out


def failing_cases() -> list[dict]:
    """Settings real Beam fails on (``expect_failure``: the oracle records how, ``failed``), with
    the neighbouring case that still runs: sampling SlidingWindows (size < period) with and
    without an element in a gap, and a fractional AfterProcessingTime delay."""
    sampling = {"type": "sliding", "size": 2000, "period": 5000}
    inside = [{"element": {"key": "a", "value": 1, "ts": 1000}}, {"element": {"key": "b", "value": 2, "ts": 5500}},
              {"watermark": 4000}, {"element": {"key": "a", "value": 3, "ts": 10100}}, {"watermark": 20000}]
    gap = inside[:2] + [{"element": {"key": "a", "value": 3, "ts": 3000}}] + inside[2:]
    base = {"trigger": {"type": "default"}, "allowed_lateness_ms": 0, "accumulation": "accumulating",
            "timestamp_combiner": "end_of_window"}
    fixed = {"type": "fixed", "size": 10000}
    early_pt = {"type": "after_watermark", "early": {"type": "after_processing_time", "delay_ms": 1500}}
    return [
        {"name": "fail_sliding2sby5s__element_in_gap", "expect_failure": True, **base, "window": sampling,
         "events": gap},
        {"name": "sliding2sby5s__no_element_in_gap", **base, "window": sampling, "events": inside},
        {"name": "fail_fixed10s__pt1500ms", "expect_failure": True, **base, "window": fixed,
         "trigger": {"type": "after_processing_time", "delay_ms": 1500}, "events": inside[:1]},
        {"name": "fail_fixed10s__early_pt1500ms", "expect_failure": True, **base, "window": fixed,
         "trigger": early_pt, "events": inside[:1]},
    ]


def cases() -> list[dict]:
    out = fuzz_cases() + failing_cases()
    grid_s = itertools.product(WINDOWS_S.items(), TRIGGERS_S.items(), LATENESS_S, ACCUMULATION)
    for i, ((wname, window), (tname, trigger), lateness, acc) in enumerate(grid_s):
        rng = random.Random(f"s/{wname}/{tname}/{lateness}/{acc}")
        combiner = COMBINERS[i % len(COMBINERS)]
        name = f"{wname}__{tname}__late{lateness}__{acc}__{combiner}"
        out.append({"name": name, "window": window, "trigger": trigger,
                    "allowed_lateness_ms": lateness, "accumulation": acc,
                    "timestamp_combiner": combiner, "events": events(rng, window, unit=1000)})
    grid = itertools.product(WINDOWS.items(), TRIGGERS.items(), LATENESS, ACCUMULATION)
    for i, ((wname, window), (tname, trigger), lateness, acc) in enumerate(grid):
        rng = random.Random(f"{wname}/{tname}/{lateness}/{acc}")
        combiner = COMBINERS[i % len(COMBINERS)] if wname != "sessions5" else rng.choice(COMBINERS)
        name = f"{wname}__{tname}__late{lateness}__{acc}__{combiner}"
        out.append({"name": name, "window": window, "trigger": trigger,
                    "allowed_lateness_ms": lateness, "accumulation": acc,
                    "timestamp_combiner": combiner, "events": events(rng, window)})
    return out


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    all_cases = cases()
    for c in all_cases:
        (out / f"{c['name']}.json").write_text(json.dumps(c, indent=1) + "\n")
    print(f"{len(all_cases)} cases -> {out}")


if __name__ == "__main__":
    main()
