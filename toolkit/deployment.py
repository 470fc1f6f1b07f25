"""Deployable settings: the code an engineer pastes into a job to run a :class:`~toolkit.settings.Setting`.

``toolkit.deploy(setting, engine="flink")`` returns a :class:`Deployment`: Flink DataStream Java
(``"flink"``) or Flink SQL (``"flink-sql"``) for Flink settings, PySpark Structured Streaming
(``"spark"``) for ``semantics="spark"`` ones, the Kafka Streams DSL (``"kafka-streams"``) for
``semantics="kafka_streams"`` ones, Apache Beam's Python SDK (``"beam"``) for ``semantics="beam"``
ones. Names are Flink 2.x's (the ones the real-Flink
oracle in ``../shared/oracle`` compiles against). What an engine cannot express is said in the
deployment's ``notes`` (and as comments in its code), never written as code that would do
something else. Each engine's renderers live in its package (``toolkit/semantics/<engine>/
deploy.py``) and its ``Semantics`` lists them (``deploy_targets``, ``render``).

Exactness rules (from Flink's source):

- DataStream ``forBoundedOutOfOrderness(d)`` emits ``max - d - 1``; the legacy strategy
  (``max - d``) is ``forBoundedOutOfOrderness(d - 1 ms)``.
- Flink SQL's ``WATERMARK FOR ts AS expr`` emits the expression itself (the
  ``WatermarkAssignerOperator`` keeps ``max(expr)``), so the bounded delay ``d`` is
  ``ts - INTERVAL 'd + 1 ms'`` and the legacy one ``ts - INTERVAL 'd'``.
- Periodic emission is ``pipeline.auto-watermark-interval``; 0 switches periodic watermarks
  off in Flink, whereas the replay's ``interval=0`` emits after every record: that needs a
  generator that emits in ``onEvent`` (said in the notes).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolkit.settings import Setting, SettingError

__all__ = ["Deployment", "deploy", "engines", "java_duration", "python_seconds", "sql_interval"]


@dataclass(frozen=True)
class Deployment:
    """The code that runs a setting in one engine, and what it cannot express."""

    engine: str
    language: str          # "java", "sql", "python" ... (the code block's language)
    code: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    setting: Setting | None = None

    @property
    def exact(self) -> bool:
        """True when the code expresses the whole setting (no note says otherwise)."""
        return not self.notes

    def __str__(self) -> str:
        comment = "-- " if self.language == "sql" else ("# " if self.language == "python" else "// ")
        notes = "".join(f"{comment}NOTE: {n}\n" for n in self.notes)
        return notes + self.code

    def _repr_markdown_(self) -> str:
        notes = "".join(f"- {n}\n" for n in self.notes)
        return (f"**{self.engine}**\n\n```{self.language}\n{self.code.rstrip()}\n```\n"
                + (f"\nCannot be expressed here:\n\n{notes}" if notes else ""))


def _targets() -> dict[str, tuple[Any, str]]:
    """Every deployment target of every registered engine, in the registry's order:
    target -> (its engine, what it writes)."""
    from toolkit.semantics import all_semantics

    return {t: (e, desc) for e in all_semantics() for t, (desc, _) in e.deploy_targets.items()}


def engines(setting: Any = None) -> dict[str, str]:
    """The deployment targets and what each writes; with ``setting``, those that deploy it
    (the targets of its engine, ``semantics``)."""
    want = None if setting is None else _as_setting(setting, {}).semantics
    return {t: desc for t, (e, desc) in _targets().items() if want is None or e.name == want}


def deploy(setting: Any = None, engine: str | None = None, **settings: Any) -> Deployment:
    """The code that deploys ``setting`` (a :class:`Setting`, its text or keywords, a sweep row,
    or what :func:`toolkit.recommend` returns) in ``engine`` (a target of :func:`engines`; default:
    the first target of the setting's engine, ``flink`` for Flink settings)."""
    s = _as_setting(setting, settings)
    targets = _targets()
    if engine is None:
        fits = list(engines(s))
        engine = fits[0] if fits else next(iter(targets))
    if engine not in targets:
        import difflib

        close = difflib.get_close_matches(str(engine), list(targets), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"engine {engine!r} is not one of {', '.join(sorted(targets))}{hint}")
    owner = targets[engine][0]
    if owner.name != s.semantics:
        fits = ", ".join(engines(s)) or "none yet"
        raise SettingError("engine", f"engine {engine!r} deploys semantics={owner.name!r} settings, and this "
                           f"setting was replayed with semantics={s.semantics!r}; its engines: {fits}")
    return owner.render(s, engine)


def _as_setting(setting: Any, settings: dict) -> Setting:
    if isinstance(setting, dict) and "setting" in setting and "reason" in setting:  # a recommendation
        if setting["setting"] is None:
            raise ValueError("the recommendation has no setting (no setting met the target): nothing to deploy")
        setting = setting["setting"]
    if setting is not None and not isinstance(setting, (Setting, str, dict)) and hasattr(setting, "get"):
        setting = Setting.from_row(setting)  # a sweep row (pandas Series)
    elif isinstance(setting, dict) and "delay_ms" in setting:
        setting = Setting.from_row(setting)
    base = Setting.parse(setting) if setting is not None else Setting()
    return base.replace(**settings) if settings else base


# ------------------------------------------------------------------------------- shared spellings
def java_duration(ms: int) -> str:
    """``Duration.ofMillis(2000)`` written in the largest exact unit: ``Duration.ofSeconds(2)``."""
    if ms == 0:
        return "Duration.ZERO"
    for unit, size in (("Hours", 3_600_000), ("Minutes", 60_000), ("Seconds", 1000)):
        if ms % size == 0:
            return f"Duration.of{unit}({ms // size})"
    return f"Duration.ofMillis({ms})"


def sql_interval(ms: int) -> str:
    """A Flink SQL interval literal: ``INTERVAL '2' SECOND``, ``INTERVAL '2.001' SECOND``."""
    for unit, size in (("HOUR", 3_600_000), ("MINUTE", 60_000), ("SECOND", 1000)):
        if ms % size == 0 and ms:
            return f"INTERVAL '{ms // size}' {unit}"
    return f"INTERVAL '{ms // 1000}.{ms % 1000:03d}' SECOND"



def python_seconds(ms: int) -> str:
    """Seconds as the Python SDK takes them (``10``, ``0.25``): Beam's Python durations are seconds."""
    return str(ms // 1000) if ms % 1000 == 0 else repr(ms / 1000)



