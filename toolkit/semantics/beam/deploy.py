"""Apache Beam's deployment: the code an engineer pastes into a job to run a setting (the Python SDK's WindowInto, ``render``); what
the engine cannot express is said in the deployment's notes, never written as other code."""
from __future__ import annotations

from typing import Any

from toolkit.deployment import Deployment, python_seconds
from toolkit.durations import readable
from toolkit.settings import Session, Setting, SettingError, Sliding, Tumbling


# -------------------------------------------------------------------------------------- Beam
def _beam_trigger_py(t: Any) -> str:
    """A :class:`toolkit.semantics.beam.trigger.BeamTrigger` as Python SDK code."""
    k = t.kind
    if k == "default":
        return "DefaultTrigger()"
    if k == "after_count":
        return f"AfterCount({t.n})"
    if k == "after_processing_time":
        return f"AfterProcessingTime({t.delay // 1000})"
    if k == "after_watermark":
        args = [f"{n}={_beam_trigger_py(v)}" for n, v in (("early", t.early), ("late", t.late)) if v is not None]
        return f"AfterWatermark({', '.join(args)})"
    cls = {"repeatedly": "Repeatedly", "after_any": "AfterAny", "after_all": "AfterAll", "after_each": "AfterEach",
           "orfinally": "OrFinally"}[k]
    return f"{cls}({', '.join(_beam_trigger_py(c) for c in t.children)})"


_BEAM_COMBINERS = {"end_of_window": "OUTPUT_AT_EOW", "earliest": "OUTPUT_AT_EARLIEST", "latest": "OUTPUT_AT_LATEST"}


def _beam_window_py(s: Setting) -> str:
    w = s.window
    off = getattr(w, "offset", 0)
    tail = f", offset={python_seconds(off)}" if off else ""
    if isinstance(w, Tumbling):
        return f"window.FixedWindows({python_seconds(w.size)}{tail})"
    if isinstance(w, Sliding):
        return f"window.SlidingWindows({python_seconds(w.size)}, {python_seconds(w.slide)}{tail})"
    if isinstance(w, Session):
        return f"window.Sessions({python_seconds(w.gap)})"
    raise SettingError("window", f"window {w} has no Beam form")  # refused by the setting already


def render(s: Setting) -> Deployment:
    """Apache Beam, Python SDK: the ``WindowInto`` + ``GroupByKey`` ``toolkit.semantics.beam.replay``
    replays. Exec'ing the code defines ``windowing`` and ``windowed_counts`` (the Beam oracle
    runs exactly this ``windowing``: ``oracles/beam/deploy_snippets.py``)."""
    notes: list[str] = []
    triggers = ", ".join(sorted({"AccumulationMode"} | set(_trigger_names(s.beam_trigger))))
    wm = s.strategy_name
    if s.strategy in ("bounded", "legacy"):
        policy = (f"max event time seen - {readable(s.delay)} (Beam's bounded-delay source policy, e.g. KafkaIO's "
                  f"CustomTimestampPolicyWithLimitedDelay with maxDelay {readable(s.delay)})")
    elif s.strategy == "monotonous":
        policy = "the max event time seen (ascending timestamps)"
    else:
        policy = f"the replay's {wm} strategy"
        notes.append(f"watermark strategy {wm}: Beam's watermark is its source's; this code cannot set it")
    if s.idleness is not None:
        notes.append(f"idleness {readable(s.idleness)}: an idle split is the source's business in Beam "
                     "(e.g. KafkaIO's timestamp policy advancing on idle partitions); this code cannot set it")
    if s.interval != 200:
        notes.append(f"interval {readable(s.interval)}: how often the source reports its watermark is the runner's; "
                     "this code cannot set it")
    lines = [
        f"# Watermark Lab setting: {s}",
        "import apache_beam as beam",
        "from apache_beam.transforms import window",
        f"from apache_beam.transforms.trigger import {triggers}",
        "from apache_beam.transforms.window import TimestampCombiner",
        "",
        "# Event time: each element carries its event time (seconds) as its Beam timestamp, e.g.",
        "#   events = raw | beam.Map(lambda e: window.TimestampedValue((e['key'], e['value']), e['event_time'] / 1000))",
        f"# Watermark: the replay's Beam watermark was {policy}; in Beam it comes from the source.",
        "# Triggers that may finish (AfterCount, AfterWatermark without late firings when lateness > 0, ...) need",
        "# the pipeline option --allow_unsafe_triggers in recent SDKs.",
        "windowing = beam.WindowInto(",
        f"    {_beam_window_py(s)},",
        f"    trigger={_beam_trigger_py(s.beam_trigger)},",
        f"    allowed_lateness={python_seconds(int(s.lateness))},",
        f"    accumulation_mode=AccumulationMode.{s.accumulation.upper()},",
        f"    timestamp_combiner=TimestampCombiner.{_BEAM_COMBINERS[s.timestamp_combiner]})",
        "",
        "",
        "def windowed_counts(events):",
        '    """(key, count, sum) per key, window and pane of a PCollection of timestamped (key, value)."""',
        "    return (events",
        '            | "Window" >> windowing',
        "            | beam.GroupByKey()",
        "            | beam.MapTuple(lambda key, values: (key, len(list(values)), sum(values))))",
    ]
    return Deployment("beam", "python", "\n".join(lines) + "\n", tuple(notes), s)


def _trigger_names(t: Any) -> list[str]:
    k = t.kind
    own = {"default": "DefaultTrigger", "after_count": "AfterCount", "after_processing_time": "AfterProcessingTime",
           "after_watermark": "AfterWatermark", "repeatedly": "Repeatedly", "after_any": "AfterAny",
           "after_all": "AfterAll", "after_each": "AfterEach", "orfinally": "OrFinally"}[k]
    out = [own]
    for c in (*t.children, t.early, t.late):
        if c is not None:
            out += _trigger_names(c)
    return out
