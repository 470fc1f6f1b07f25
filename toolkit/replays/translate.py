"""The same setting in each engine: one documented translation between semantics.

Engines name their lateness knobs differently; what they share is an :class:`Intent`, the
question an analyst asks of any engine:

* ``window``: the event-time window (tumbling, sliding, session; epoch-aligned);
* ``delay``: how far behind the largest event time seen a window stays open, i.e. a window
  ``[s, e)`` first closes once a record with event time ``>= e + delay`` has been seen;
* ``lateness``: how much longer after that a closed window still takes records (re-emitting);
* ``interval``: how often, in processing time, the event-time clock moves;
* ``partitions_as_sources``: every log partition is an input with its own clock, the slowest
  one holding the others back; ``idleness``: after how much silence an input stops holding.

Each semantics registers two functions (:func:`register_translation`): ``to_intent(setting)``
and ``from_intent(intent)``, each returning notes for what has no counterpart. A translation
goes through the intent, so every registered engine translates to every other one.

Flink <-> Spark (what maps exactly, and what does not):

* ``window``: Flink's ``TumblingEventTimeWindows`` / ``SlidingEventTimeWindows`` /
  ``EventTimeSessionWindows`` are Spark's ``window()`` / ``session_window()`` (no offsets).
* ``delay``: Flink ``forBoundedOutOfOrderness(d)`` (watermark ``max - d - 1``, a window fires at
  ``watermark >= end - 1``) and Spark ``withWatermark(d)`` (watermark ``max - d``, a window is
  emitted in append mode at ``watermark >= end``) close a window at the same event time,
  ``max >= end + d``: the same ``d``.
* ``lateness``: Flink's allowed lateness has **no** Spark counterpart (Spark keeps a window
  exactly until its watermark passes the end). ``lateness_as="drop"`` (the default) leaves it out,
  so Spark drops what Flink would accept late; ``lateness_as="delay"`` folds it into the delay
  (``withWatermark(d + l)``: Spark then keeps those records but emits every window ``l`` later).
* ``interval`` (Flink's ``pipeline.auto-watermark-interval``) <-> ``trigger_interval`` (Spark's
  ``trigger(processingTime=...)``): how often each engine moves its watermark. Flink's
  ``interval=0`` (after every record) has no Spark counterpart (Spark's default 1 s is used).
* ``partitions_as_sources``: Flink's per-partition watermarks combined by the minimum are
  Spark's one input per partition with ``multiple_watermark_policy="min"``.
* ``idleness`` has no Spark counterpart (left out, noted); Spark's ``output_mode="update"``
  and ``multiple_watermark_policy="max"`` have no Flink counterpart (noted).
* Differences no setting removes: Spark's late filter uses the watermark of the *previous*
  micro-batch, and its watermark moves only between micro-batches.

Flink <-> Beam (``toolkit.replays.beam``; a log has no Beam source, so Beam's watermark comes
from the same strategies as Flink's, one millisecond ahead: Flink's ``W`` promises nothing at or
before ``W``, Beam's nothing before it):

* ``window``: ``FixedWindows(size, offset)`` / ``SlidingWindows(size, period, offset)`` /
  ``Sessions(gap)``, offsets included (Beam's sessions merge only overlapping windows, Flink's
  touching ones too: a record exactly ``gap`` after the last starts a new Beam session).
* ``delay``, ``interval``, ``partitions_as_sources``, ``idleness``: the same watermark, so the
  same values; a window fires at the same event time, ``max >= end + delay``.
* ``lateness``: ``allowed_lateness``. Beam drops an element when its watermark is strictly past
  ``end + lateness``: it takes a record that arrives when ``max = end + delay + lateness`` (1 ms
  of event time later than Flink, which drops it then), noted.
* Triggers: Beam's default trigger is Flink's event-time trigger with allowed lateness (one
  pane at the watermark, one more per late element), accumulating. Beam's other triggers,
  discarding mode and timestamp combiners are Beam's own (noted when translating to another
  engine; a translation *to* Beam uses the default trigger, accumulating, end of window).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from toolkit.durations import readable
from toolkit.semantics import get, names
from toolkit.settings import Session, Setting, SettingError, Sliding, Tumbling, WindowSpec

LATENESS_CHOICES = ("drop", "delay")


@dataclass(frozen=True)
class Intent:
    """What a setting asks of any engine (see the module doc); durations in ms."""

    window: WindowSpec
    delay: int = 0
    lateness: int = 0
    interval: int | None = None
    partitions_as_sources: bool = True
    idleness: int | None = None


@dataclass(frozen=True)
class Translation:
    """A setting in one engine: ``setting`` and ``notes`` on what did not carry over
    (``exact`` when there are none)."""

    semantics: str
    setting: Setting
    notes: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return not self.notes

    def __str__(self) -> str:
        return f"{self.semantics}: {self.setting}" + "".join(f"\n  note: {n}" for n in self.notes)


def delay_setting(semantics: str) -> str:
    """The setting that plays the delay's part in an engine (what a sweep over delays varies
    there): ``"delay"``, or e.g. Kafka Streams' ``"grace"`` (``Semantics.delay_setting``)."""
    return get(semantics).delay_setting


def delay_axes(semantics: Any, values: list) -> dict[str, list]:
    """Sweep keywords that vary every engine's delay over ``values`` (``delay=...``, and
    ``grace=...`` when Kafka Streams is among ``semantics``)."""
    names = [semantics] if isinstance(semantics, str) else list(semantics)
    return {delay_setting(s): list(values) for s in names}


def intent_delay(setting: Setting) -> int:
    """The delay of ``setting`` as :class:`Intent` reads it (Kafka Streams: its grace)."""
    if setting.semantics in _REGISTRY:
        return int(_REGISTRY[setting.semantics][0](setting)[0].delay)
    return int(setting.delay)


ToIntent = Callable[[Setting], "tuple[Intent, list[str]]"]
FromIntent = Callable[[Intent, str], "tuple[Setting, list[str]]"]
_REGISTRY: dict[str, tuple[ToIntent, FromIntent]] = {}


def register_translation(semantics: str, to_intent: ToIntent, from_intent: FromIntent) -> None:
    """Add (or replace) an engine: ``to_intent(setting) -> (Intent, notes)`` reads one of its
    settings, ``from_intent(intent, lateness_as) -> (Setting, notes)`` writes one
    (``lateness_as`` is ``"drop"`` or ``"delay"``, see the module doc)."""
    _REGISTRY[semantics] = (to_intent, from_intent)


def translatable() -> tuple[str, ...]:
    """The semantics with a registered translation, in the engine registry's order."""
    return tuple(s for s in names() if s in _REGISTRY) + tuple(s for s in _REGISTRY if s not in names())


def _check_semantics(semantics: str) -> str:
    name = str(semantics).strip().lower()
    if name not in names():
        raise SettingError("semantics", f"semantics {semantics!r}: choose among {', '.join(names())}")
    if name not in _REGISTRY:
        raise SettingError("semantics", f"semantics {name!r} has no translation yet (register one with "
                           "toolkit.replays.translate.register_translation)")
    return name


def translate(setting: Any, semantics: str, *, lateness_as: str = "drop") -> Translation:
    """``setting`` (a :class:`Setting`, its text or a dict) as the same setting in ``semantics``."""
    if lateness_as not in LATENESS_CHOICES:
        raise SettingError("lateness_as", f"lateness_as={lateness_as!r}: choose 'drop' (engines without allowed lateness drop "
                           "what it would keep) or 'delay' (fold it into the delay)")
    s = Setting.parse(setting)
    target = _check_semantics(semantics)
    to_intent, _ = _REGISTRY[_check_semantics(s.semantics)]
    intent, notes = to_intent(s)
    if target == s.semantics:
        return Translation(target, s, ())
    out, more = _REGISTRY[target][1](intent, lateness_as)
    return Translation(target, out, tuple(dict.fromkeys(notes + more)))


def same_setting(setting: Any, semantics: Any = None, *, lateness_as: str = "drop") -> dict[str, Translation]:
    """``setting`` in each of ``semantics`` (default: every engine with a translation)."""
    names = translatable() if semantics is None else [semantics] if isinstance(semantics, str) else list(semantics)
    if isinstance(semantics, str) and "," in semantics:
        names = [n for n in semantics.split(",") if n.strip()]
    if not names:
        raise SettingError("semantics", "semantics: give at least one engine, e.g. ['flink', 'spark']")
    out: dict[str, Translation] = {}
    for name in names:
        t = translate(setting, name.strip(), lateness_as=lateness_as)
        out[t.semantics] = t
    return out


# ------------------------------------------------------------------------------------- Flink
def _flink_to_intent(s: Setting) -> tuple[Intent, list[str]]:
    notes: list[str] = []
    if not isinstance(s.window, (Tumbling, Sliding, Session)):
        raise SettingError("window", f"window {s.window}: only tumbling, sliding and session windows have a "
                           "counterpart in the other engines")
    delay = s.delay
    if s.strategy == "legacy":
        notes.append("the legacy watermark (max - delay) is 1 ms ahead of forBoundedOutOfOrderness; translated as "
                     "the same delay")
    elif s.strategy not in ("bounded", "monotonous"):
        raise SettingError("strategy", f"strategy {s.strategy_name}: only the bounded out-of-orderness strategy "
                           "(and monotonous, its delay 0) has a counterpart in the other engines")
    for name, default in (("trigger", "event_time"), ("evictor", None), ("function", "count_sum"),
                          ("accumulation", "accumulating"), ("second_window", None)):
        v = getattr(s, name)
        if (v is not None and str(v) != str(default)) if default is not None else v is not None:
            notes.append(f"{name} {v} is Flink's own; the other engines use their default emission")
    if s.source_parallelism != 1:
        notes.append(f"source_parallelism {s.source_parallelism} is Flink's own (inputs are the partitions)")
    return Intent(s.window, delay, s.lateness, s.interval, s.partitions_as_sources, s.idleness), notes


def _flink_from_intent(i: Intent, lateness_as: str) -> tuple[Setting, list[str]]:
    kw: dict[str, Any] = {"window": i.window, "delay": i.delay, "lateness": i.lateness,
                          "partitions_as_sources": i.partitions_as_sources, "semantics": "flink"}
    if i.interval is not None:
        kw["interval"] = i.interval
    if i.idleness is not None:
        kw["idleness"] = i.idleness
    return Setting.parse(kw), []


# ------------------------------------------------------------------------------------- Spark
def _spark_to_intent(s: Setting) -> tuple[Intent, list[str]]:
    notes = []
    if s.output_mode == "update":
        notes.append("Spark's update mode (a result at every micro-batch that changes a window) has no Flink "
                     "counterpart with the event-time trigger; compared as Flink's one result per window")
    if s.multiple_watermark_policy == "max" and s.partitions_as_sources:
        notes.append("Spark's max watermark policy has no Flink counterpart (Flink takes the minimum over inputs)")
    return Intent(s.window, s.delay, 0, s.trigger_interval, s.partitions_as_sources, None), notes


#: Spark's default trigger interval (as its semantics declares it)
_SPARK_TRIGGER_DEFAULT = next(o.default for o in get("spark").options if o.name == "trigger_interval")


def _spark_from_intent(i: Intent, lateness_as: str) -> tuple[Setting, list[str]]:
    notes: list[str] = []
    if getattr(i.window, "offset", 0):
        raise SettingError("window", f"window {i.window}: Spark's window() has no offset; drop the offset")
    delay = i.delay
    if i.lateness:
        if lateness_as == "delay":
            delay += i.lateness
            notes.append(f"Spark has no allowed lateness: the {readable(i.lateness)} lateness is folded into the "
                         f"delay (withWatermark {readable(delay)}), so every window is emitted that much later")
        else:
            notes.append(f"Spark has no allowed lateness: records a {readable(i.lateness)} lateness would accept "
                         "late are dropped by Spark")
    interval = i.interval
    if interval is None or interval <= 0:
        if interval == 0:
            notes.append("a watermark after every record has no Spark counterpart; Spark's default trigger "
                         f"interval of {readable(_SPARK_TRIGGER_DEFAULT)} is used")
        interval = _SPARK_TRIGGER_DEFAULT
    if i.idleness is not None:
        notes.append(f"Spark has no idle timeout: the {readable(i.idleness)} idleness is left out (a silent "
                     "partition holds Spark's min watermark back)")
    s = Setting.parse(window=i.window, delay=delay, semantics="spark", trigger_interval=interval,
                      partitions_as_sources=i.partitions_as_sources, output_mode="append",
                      multiple_watermark_policy="min")
    return s, notes


# -------------------------------------------------------------------------------- Kafka Streams
def _kafka_to_intent(s: Setting) -> tuple[Intent, list[str]]:
    notes = ["Kafka Streams has no watermark: each task's stream time (the largest timestamp it has seen) closes "
             "windows at end + grace; compared as one watermark over the whole stream, the grace as its delay"]
    if getattr(s, "emit", None) == "update":
        notes.append("Kafka Streams' emit on every update has no counterpart here; compared as one result per window")
    return Intent(s.window, int(getattr(s, "grace", 0) or 0), 0, None, False, None), notes


def _kafka_from_intent(i: Intent, lateness_as: str) -> tuple[Setting, list[str]]:
    """Kafka's grace is the whole time a window takes records after its end: a delay (and, with
    ``lateness_as="delay"``, the allowed lateness too); results once, when the window closes."""
    notes = ["Kafka Streams has no watermark: each task's stream time (its largest timestamp) closes windows at "
             "end + grace, so a silent partition holds nothing back and tasks do not wait for each other"]
    grace = i.delay
    if i.lateness:
        if lateness_as == "delay":
            grace += i.lateness
            notes.append(f"the {readable(i.lateness)} allowed lateness is folded into the grace "
                         f"({readable(grace)}): the final result comes that much later")
        else:
            notes.append(f"Kafka Streams' grace is its only lateness: records a {readable(i.lateness)} allowed "
                         "lateness would accept late are dropped")
    if i.idleness is not None:
        notes.append("an idle timeout has no Kafka Streams counterpart (no watermark to hold back)")
    s = Setting.parse(window=i.window, semantics="kafka_streams", grace=grace, emit="final")
    return s, notes


# -------------------------------------------------------------------------------------- Beam
_BEAM_BOUNDARY = ("Beam drops an element only when its watermark is strictly past window end + allowed lateness: "
                  "a record arriving exactly when Flink's window is cleaned up is still taken by Beam (1 ms later)")


def _beam_to_intent(s: Setting) -> tuple[Intent, list[str]]:
    base, notes = _flink_to_intent(s.replace(semantics="flink"))
    if str(s.beam_trigger) != "default":
        notes.append(f"Beam's trigger {s.beam_trigger} has no counterpart in the other engines; compared as one "
                     "result per window at the watermark")
    if s.accumulation == "discarding":
        notes.append("Beam's discarding mode is Beam's own; the other engines report accumulated results")
    if s.timestamp_combiner != "end_of_window":
        notes.append(f"Beam's timestamp_combiner {s.timestamp_combiner} only sets the output timestamps (and holds "
                     "Beam's output watermark); the other engines stamp results at the window end")
    return base, notes


def _beam_from_intent(i: Intent, lateness_as: str) -> tuple[Setting, list[str]]:
    kw: dict[str, Any] = {"window": i.window, "delay": i.delay, "lateness": i.lateness,
                          "partitions_as_sources": i.partitions_as_sources, "semantics": "beam"}
    if i.interval is not None:
        kw["interval"] = i.interval
    if i.idleness is not None:
        kw["idleness"] = i.idleness
    return Setting.parse(kw), [_BEAM_BOUNDARY]


register_translation("flink", _flink_to_intent, _flink_from_intent)
register_translation("spark", _spark_to_intent, _spark_from_intent)
register_translation("kafka_streams", _kafka_to_intent, _kafka_from_intent)
register_translation("beam", _beam_to_intent, _beam_from_intent)

__all__ = ["Intent", "LATENESS_CHOICES", "delay_axes", "delay_setting", "intent_delay", "Translation", "register_translation", "same_setting", "translatable",
           "translate"]
