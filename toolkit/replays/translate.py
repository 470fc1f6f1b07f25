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

Each engine's semantics (``toolkit.semantics``) defines two methods, ``to_intent(setting)`` and
``from_intent(intent, lateness_as)`` (in its package's ``translate.py``), each returning notes for
what has no counterpart. A translation
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

Flink <-> Beam (``toolkit.semantics.beam.replay``; a log has no Beam source, so Beam's watermark comes
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
from typing import Any

from toolkit.semantics import get, names
from toolkit.settings import Setting, SettingError, WindowSpec

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
    engine = get(setting.semantics)
    return int(engine.to_intent(setting)[0].delay) if _translates(engine) else int(setting.delay)


def _translates(engine: Any) -> bool:
    """Whether an engine reads and writes settings through the intent (``Semantics.to_intent``)."""
    return engine.translates


def translatable() -> tuple[str, ...]:
    """The semantics with a registered translation, in the engine registry's order."""
    return tuple(s for s in names() if _translates(get(s)))


def _check_semantics(semantics: str) -> str:
    name = str(semantics).strip().lower()
    if name not in names():
        raise SettingError("semantics", f"semantics {semantics!r}: choose among {', '.join(names())}")
    if not _translates(get(name)):
        raise SettingError("semantics", f"semantics {name!r} has no translation yet (its Semantics defines no "
                           "to_intent / from_intent)")
    return name


def translate(setting: Any, semantics: str, *, lateness_as: str = "drop") -> Translation:
    """``setting`` (a :class:`Setting`, its text or a dict) as the same setting in ``semantics``."""
    if lateness_as not in LATENESS_CHOICES:
        raise SettingError("lateness_as", f"lateness_as={lateness_as!r}: choose 'drop' (engines without allowed lateness drop "
                           "what it would keep) or 'delay' (fold it into the delay)")
    s = Setting.parse(setting)
    target = _check_semantics(semantics)
    intent, notes = get(_check_semantics(s.semantics)).to_intent(s)
    if target == s.semantics:
        return Translation(target, s, ())
    out, more = get(target).from_intent(intent, lateness_as)
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


__all__ = ["Intent", "LATENESS_CHOICES", "delay_axes", "delay_setting", "intent_delay", "Translation", "same_setting", "translatable",
           "translate"]
