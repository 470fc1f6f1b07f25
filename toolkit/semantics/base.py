"""The engine interface: what the shared code may ask of an engine's event-time semantics.

Every engine a replay reproduces (``semantics=`` of a setting) is one :class:`Semantics`
subclass in its own package under ``toolkit/semantics/`` (the only code that names that
engine), registered in :mod:`toolkit.semantics`. Replays, sweeps, recommendations, the
explorer, the report and the command line ask the registered object and never compare an
engine's name:

- **who it is**: ``name`` (the value of ``semantics=``), ``title`` (how words name it), the
  settings it owns (:class:`Option`, declared once) and the common ones it reads (``shared``);
- **settings**: :meth:`check` refuses what the engine has no counterpart for (naming the
  setting) and fills its own defaults; :meth:`fit_grid` drops a grid's axes that do not apply
  to the engine's rows; ``delay_setting`` is the setting that trades completeness for latency;
- **replay**: :meth:`replay` runs one setting over a local log and returns a
  :class:`toolkit.replays.result.ReplayResult`;
- **sweep contract** (``toolkit.sweeps``): a sweep evaluates a setting in shards (:meth:`timelines`
  once per sweep from small aggregates of the log, :meth:`evaluate` per shard, merged by
  ``toolkit.metrics.summary.merge_config``), or in one piece (:meth:`whole_figures`) when the
  engine's keys are not independent (:meth:`shardable` False) or the sweep runs unsharded and
  the engine has no sharded path of its own (``shards_in_process`` False);
- **words**: :meth:`setting_words` (a setting in a sentence), :meth:`result_notes` (what a
  reader of the figures must know), :meth:`explain_refusal` (why ``drops()`` / ``explain()``
  do not apply, and what to read instead).
"""
from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Callable, ClassVar

import numpy as np

from toolkit.settings import Option, SettingError


class Semantics:
    """One engine's event-time semantics (see the module doc for the contract)."""

    #: the value of ``semantics=`` (user vocabulary; the registry's key)
    name: ClassVar[str] = ""
    #: how words, tables and charts name the engine
    title: ClassVar[str] = ""
    #: the title in running text where the engine is already clear ("not a Beam setting")
    short_title: ClassVar[str] = ""
    #: other spellings of ``name`` accepted by ``semantics=``
    aliases: ClassVar[tuple[str, ...]] = ()
    #: the settings only this engine has
    options: ClassVar[tuple[Option, ...]] = ()
    #: the window values (``toolkit.settings`` window classes) this engine runs; None: any. A
    #: setting or grid row with another window is refused or left out by the shared code
    window_types: ClassVar[tuple[type, ...] | None] = None
    #: the common settings this engine reads (the explorer shows them; the sweep table prints them)
    shared: ClassVar[tuple[str, ...]] = ("window", "delay")
    #: the setting that trades completeness for latency (what a recommendation tells to raise)
    delay_setting: ClassVar[str] = "delay"
    #: the sweep's ``path`` of this engine's rows
    path: ClassVar[str] = ""
    #: the unit a shard holds whole: ``"key"`` (keyed state) or an engine's own group (``unit``/``assign``)
    shard_by: ClassVar[str] = "key"
    #: an unsharded in-process sweep evaluates the rows through the shard evaluator (else in one piece)
    shards_in_process: ClassVar[bool] = False
    #: a dynamic-session gap that is null, 0 or negative means "no session" (else it is an error)
    null_gap_is_no_session: ClassVar[bool] = False
    #: the engine's own settings a demo sweeps to show how it behaves (name -> values)
    showcase_axes: ClassVar[dict] = {}
    #: ``replay(...).export_scenario()`` writes the oracle's window scenarios for its settings
    exports_scenarios: ClassVar[bool] = False
    #: replays of a union, join or interval join of several logs
    multi_input: ClassVar[bool] = False
    #: what words call the event-time clock that fires windows ("watermark"; Kafka Streams' "stream time")
    watermark_word: ClassVar[str] = "watermark"

    # -- settings ------------------------------------------------------------------------------

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(o.name for o in cls.options)

    def check(self, setting: Any) -> None:
        """Refuse what this engine has no counterpart for (a :class:`SettingError` naming the
        setting) and fill this engine's own defaults (``object.__setattr__`` on the frozen
        setting). Another engine's own settings are refused before this is called."""
        self.fill_defaults(setting)

    @classmethod
    def row_columns(cls) -> list[str]:
        """The sweep result columns of this engine's settings: the common ones it reads, then its own."""
        from toolkit.settings import COMMON_OPTIONS

        common = [o.column for o in COMMON_OPTIONS if o.name in cls.shared]
        return common + [o.column for o in cls.options]

    def fill_defaults(self, setting: Any) -> None:
        """Fill this engine's own settings left unset with their declared defaults, and refuse a
        value outside an option's ``choices`` (a setting built directly, not parsed)."""
        for o in self.options:
            if getattr(setting, o.name) is None and o.default is not None:
                object.__setattr__(setting, o.name, o.default)
            v = getattr(setting, o.name)
            if o.choices and v is not None and v not in o.choices:
                raise SettingError(o.name, f"{o.name} {v!r}: choose one of {', '.join(map(str, o.choices))}")

    def fit_grid(self, values: dict) -> dict | None:
        """One combination of a grid, fitted to this engine's rows: axes that do not apply are
        left out (they collapse to the default), ``None`` when no such row exists."""
        return values

    # -- replay --------------------------------------------------------------------------------

    def replay(self, log: Any, setting: Any, *, limits: Any, sources: Any, explicit: Callable[[str], bool]) -> Any:
        """Replay a local log (``toolkit.log.EventLog``) under ``setting``: a ReplayResult.
        ``sources``: the declared source partitions or None; ``explicit(name)``: whether the
        user gave that setting (a default may be adjusted, a given value never)."""
        raise NotImplementedError

    def replay_inputs(self, logs: list, setting: Any, two_input: Any, *, limits: Any, explicit: Callable[[str], bool]) -> Any:
        """Replay several logs together (a union, a join, an interval join)."""
        raise SettingError("two_input", f"a union or join of logs is not replayed with {self.title}'s semantics; "
                           f"replay each log on its own")

    def gap_array(self, table: Any, column: str) -> np.ndarray:
        """The gaps (ms) of a dynamic session window, read from a log column by this engine's rule."""
        from toolkit.fast.sessions import gap_column

        return gap_column(table, column)

    def timer_targets(self, setting: Any, event_time: Any, gaps: Any = None) -> Any:
        """The event-time timers ``setting``'s operator can set for records with these event
        times (``toolkit.engine.flink.timeline.TimerTargets``), so that a watermark moving with
        processing time is replayed only at the calls that can change a result; None: they
        cannot be listed (every periodic call is run)."""
        return None

    def check_gap_column(self, column: str, table: Any, spark_df: Any) -> None:
        """Check a dynamic-session gap column by this engine's rule before a sweep starts (a local
        ``table`` or a Spark DataFrame; a SettingError naming ``window``)."""
        self.gap_array(table, column) if table is not None else None

    # -- sweep ---------------------------------------------------------------------------------

    def shardable(self, setting: Any) -> bool:
        """Whether ``setting``'s figures can be computed shard by shard (keys independent)."""
        return True

    def in_one_piece(self, setting: Any) -> bool:
        """Whether ``setting`` runs in one piece (:meth:`whole_figures`) even where this engine
        shards: something global to the log moves its records (e.g. Flink's watermark alignment)."""
        return False

    def sweep_paths(self, configs: list, path: str, *, event_range: Any, gap_max: dict) -> list[str]:
        """The ``path`` of each of this engine's rows (``path``: the sweep's ``path=`` option;
        ``event_range()``: the log's (min, max) event time, an aggregate asked only when needed)."""
        return [self.path] * len(configs)

    def timelines(self, configs: list, sources: Any) -> dict[int, Any]:
        """What is global to the log for each configuration (index -> picklable timeline)."""
        raise NotImplementedError

    def evaluate(self, shard: Any, config: Any, path: str, timeline: Any) -> dict:
        """The partial figures of one shard under ``config`` (``toolkit.metrics.summary``'s form)."""
        raise NotImplementedError

    def unit(self, config: Any, timeline: Any) -> tuple:
        """The split of the log a configuration's shards come from (``shard_by`` other than key)."""
        return ("key",)

    def assign(self, unit: tuple, keys: np.ndarray, partitions: np.ndarray) -> np.ndarray:
        """The group (int64) of every record under a non-key ``unit``."""
        raise NotImplementedError

    def whole_figures(self, table: Any, configs: list, invalid: int, sources: Any) -> list[dict]:
        """The figures (``SUMMARY_COLUMNS``) of settings evaluated in one piece over the whole table."""
        raise NotImplementedError

    def timeline_inputs(self, setting: Any) -> tuple | None:
        """What :meth:`timelines` gathers on the driver for ``setting`` (the Spark sweep's memory
        estimate): ``("ticks", interval)`` (one row per tick and partition), ``("records",)`` (one
        per record), ``("batches", interval)`` or None (one aggregate of the log)."""
        return ("ticks", setting.interval) if setting.tick_table_timeline else ("records",)

    def whole_bytes(self) -> tuple[int, int]:
        """Memory of one piece (bytes per record, per window assignment) for the memory guard."""
        return (1500, 150)

    # -- deployment -------------------------------------------------------------------------------

    #: the code this engine's settings deploy as: target (``toolkit.deploy(..., engine=TARGET)``) ->
    #: (what it writes, the code's language)
    deploy_targets: ClassVar[dict[str, tuple[str, str]]] = {}

    def render(self, setting: Any, target: str) -> Any:
        """The ``toolkit.deployment.Deployment`` of ``setting`` for one of ``deploy_targets``."""
        raise NotImplementedError

    # -- words ---------------------------------------------------------------------------------

    def holding_level(self, settings: dict) -> str | None:
        """The ``result.watermarks`` level whose minimum is the operator's watermark under these
        settings (its ids are the log's partitions): one input there can hold the others back
        (``toolkit.replays.latency``). None: no input holds another back (a watermark from the
        largest timestamp seen, a clock per task)."""
        return "partition"

    def setting_words(self, row: Any, results: Any = None) -> str:
        """A setting (a results row) in words."""
        raise NotImplementedError

    def result_notes(self, setting: Any) -> list[str]:
        """What a reader of this setting's figures should know (empty when nothing)."""
        return []

    def figure_notes(self, setting: Any, summary: dict) -> list[str]:
        """Notes a reader of these figures needs that the figures alone do not say (``compare``,
        ``replay``): the setting's ``result_notes`` and what the figures show (an engine may add,
        e.g. Kafka Streams' windows its store forgot before emitting them)."""
        return self.result_notes(setting)

    def invalid_words(self, setting: Any) -> str | None:
        """What the replay's invalid rows are, when this engine leaves out more than the quarantine."""
        return None

    def dropped_words(self, summary: dict, result: Any, fmt: Any) -> str | None:
        """What the ``replay`` command adds after the dropped count (None: the late side output)."""
        return None

    def summary_lines(self, summary: dict, setting: Any, result: Any, fmt: Any) -> list[str]:
        """The ``replay`` command's lines of what is this engine's own (``fmt``: number formatting)."""
        return []

    #: what a chart says next to a first-result completeness of rows whose first result is partial
    first_result_note: ClassVar[str] = ""
    first_result_note_short: ClassVar[str] = ""

    def partial_first_results(self, rows: Any) -> bool:
        """Whether any of these results rows (this engine's) has first results partial by design."""
        return False

    def explain_refusal(self, what: str) -> str | None:
        """Why ``drops()`` / ``explain()`` / ``drop_causes()`` do not apply (None: they do)."""
        return (f"{what}() explains drops by Flink's watermark; with semantics={self.name!r} read result.late "
                "(each dropped record with the watermark that dropped it) and result.emissions")

    def drops(self, result: Any, fates: tuple[str, ...]) -> Any:
        """``result.drops()``: every record of ``fates`` with why it got that fate (default:
        Flink's explanation by its watermark, ``toolkit.replays.explain``)."""
        from toolkit.replays import explain

        return explain.drops(result, fates=fates)

    def explain(self, result: Any, row: int) -> Any:
        """``result.explain(row)``: why log row ``row`` got its fate, in words (default: Flink's)."""
        from toolkit.replays import explain

        return explain.explain(result, row)

    def drop_causes(self, result: Any, top: int) -> list[str]:
        """``result.drop_causes()``: the main causes of the drops in words (default: Flink's)."""
        from toolkit.replays import explain

        return explain.drop_causes(result, top=top)

    # -- between engines ------------------------------------------------------------------------
    # An engine's package may hold ``translate.py`` (``to_intent``, ``from_intent``) and ``words.py``
    # (``why_dropped``): the methods below find them there (``package``), or a subclass overrides them.

    #: the engine's own package (``toolkit.semantics.<engine>``), where its modules are found
    package: ClassVar[str] = ""

    def _own(self, module: str) -> Any:
        """Module ``module`` of this engine's package, or None when it has none."""
        name = f"{self.package}.{module}"
        if not self.package or importlib.util.find_spec(name) is None:
            return None
        return importlib.import_module(name)

    def to_intent(self, setting: Any) -> tuple[Any, list[str]]:
        """``setting`` as an engine-neutral ``toolkit.replays.translate.Intent``, with notes on what
        has no counterpart (an engine without it is not translated to or from)."""
        own = self._own("translate")
        if own is None:
            raise NotImplementedError(f"{self.title} has no translation of settings")
        return own.to_intent(setting)

    def from_intent(self, intent: Any, lateness_as: str) -> tuple[Any, list[str]]:
        """A setting of this engine for ``intent`` (``lateness_as``: ``"drop"`` or ``"delay"``)."""
        own = self._own("translate")
        if own is None:
            raise NotImplementedError(f"{self.title} has no translation of settings")
        return own.from_intent(intent, lateness_as)

    @property
    def translates(self) -> bool:
        """Whether this engine reads and writes settings through the intent."""
        return type(self).to_intent is not Semantics.to_intent or self._own("translate") is not None

    def why_dropped(self, result: Any, rows: np.ndarray) -> tuple[list[str], list[Any]]:
        """Why this engine dropped each log row of ``rows`` in ``result``: one sentence each, and the
        smallest ``delay_setting`` that keeps it (or None)."""
        own = self._own("words")
        if own is None or not hasattr(own, "why_dropped"):
            raise NotImplementedError(f"{self.title} does not explain its drops")
        return own.why_dropped(result, rows)

    @property
    def explains_drops(self) -> bool:
        own = self._own("words")
        return type(self).why_dropped is not Semantics.why_dropped or hasattr(own, "why_dropped")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.title and not cls.__dict__.get("short_title"):
            cls.short_title = cls.title

    def __repr__(self) -> str:
        return f"<semantics {self.name!r}: {self.title}>"


def refuse_given(given: dict[str, bool], hints: dict[str, str], message: str) -> None:
    """Refuse the first setting of ``given`` (name -> was it given) that is true: ``message`` with
    ``{name}`` and ``{more}`` (the setting's hint in brackets), as a SettingError naming it."""
    for name, was_given in given.items():
        if was_given:
            more = f" ({hints[name]})" if name in hints else ""
            raise SettingError(name, message.format(name=name, more=more))
