"""Cases for checking ``toolkit.deploy(setting, engine="beam")`` against real Beam.

For each setting below this writes a case file (the Beam scenario format of README.md, plus the
setting's text and the deploy snippet's ``code``); ``beam_oracle.py snippets`` then execs each
snippet in Beam's own environment, takes the ``windowing`` it defines and runs the case's
events through it (TestStream, BundleBasedDirectRunner). The result is committed as
``tests/fixtures/beam/deploy_snippets.json``; ``tests/beam/test_beam_deploy.py`` checks that the
snippet is still what ``toolkit.deploy`` prints and that the engine gives the same panes.

    PYTHONPATH=. python oracles/beam/deploy_snippets.py beam-snippet-cases
    python oracles/beam/beam_oracle.py snippets beam-snippet-cases --out tests/fixtures/beam/deploy_snippets.json
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

#: settings in the user's spelling (semantics="beam"); times in the events are milliseconds
SETTINGS = [
    "window=tumbling:10s beam_trigger=after_watermark(early=processing:5s,late=count:1) lateness=1min "
    "accumulation=discarding",
    "window=sliding:10s/5s,1s lateness=5s timestamp_combiner=earliest",
    "window=session:3s beam_trigger=repeatedly(after_count:2) timestamp_combiner=latest",
    "window=tumbling:10s,2500ms beam_trigger=after_any(after_count:3,after_watermark) lateness=10s "
    "accumulation=discarding",
    "window=tumbling:500ms beam_trigger=after_watermark(late=count:1) lateness=1s",
    "window=tumbling:10s beam_trigger=after_each(after_count:2,after_watermark(late=count:2)) lateness=20s "
    "timestamp_combiner=earliest",
]


def events(seed: int) -> list[dict]:
    """Two keys, in-order and late elements, watermark advances (strictly increasing, as
    TestStream wants), processing-time advances; unique values; ends with a 10 s
    processing-time advance so pending processing-time timers fire inside the stream."""
    rng = random.Random(seed)
    out: list[dict] = []
    wm = -1
    value = 1
    for step in range(24):
        base = 1000 * step
        ts = max(0, base + rng.choice([0, 300, -2000, -6000, -15000, 700]))
        out.append({"element": {"key": rng.choice(["a", "b"]), "value": value, "ts": ts}})
        value += 1
        if step % 3 == 2:
            new = base - rng.choice([0, 500, 1500])
            if new > wm:
                out.append({"watermark": new})
                wm = new
        if step % 5 == 4:
            out.append({"processing_time_advance": 6000})
    out.append({"processing_time_advance": 10000})
    return out


def main(out: Path) -> None:
    from toolkit.deployment import deploy
    from toolkit.semantics.beam.replay import window_spec
    from toolkit.settings import Setting

    out.mkdir(parents=True, exist_ok=True)
    for i, text in enumerate(SETTINGS):
        s = Setting.parse(text + " semantics=beam")
        case = {"name": f"deploy{i:02d}", "setting": str(s), "code": deploy(s, engine="beam").code,
                "window": window_spec(s), "trigger": s.beam_trigger.to_spec(), "allowed_lateness_ms": int(s.lateness),
                "accumulation": s.accumulation, "timestamp_combiner": s.timestamp_combiner, "events": events(i)}
        (out / f"deploy{i:02d}.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"{len(SETTINGS)} cases -> {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "beam-snippet-cases"))
