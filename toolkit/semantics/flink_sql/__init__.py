"""Flink SQL's event-time semantics (``semantics="flink_sql"``).

A windowed aggregation in Flink SQL 2.3 (``GROUP BY key, window_start, window_end`` over a
window TVF, or the legacy group window) on a table with ``WATERMARK FOR ts AS ts - INTERVAL
'<delay>'``: per-split watermarks without DataStream's ``- 1 ms``, ``table.exec.source.idle-timeout``,
no allowed lateness on window TVFs, the legacy window's ``table.exec.emit.*`` options,
mini-batch. The simulator is ``toolkit.engine.flink_sql`` (checked against real Flink SQL; the
rules: docs/flink_sql_semantics.md). In this package: ``run`` (a setting as the simulator's
scenario, the log as its steps, the result as arrays), ``figures`` (the figures, shared by
replay and sweep), ``replay`` (the replay's tables), ``words`` (drops in Flink SQL's terms, a
setting in words), ``deploy`` (the SQL script that runs what was replayed).
"""
from __future__ import annotations

from typing import Any

from toolkit.semantics.base import Semantics, refuse_given
from toolkit.settings import (
    Cumulate,
    Option,
    Session,
    SettingError,
    Sliding,
    TriggerSpec,
    Tumbling,
    as_bool,
    choice,
    optional_duration,
)

WINDOW_SYNTAXES = ("tvf", "legacy")
_SYNTAX_ALIASES = {"window_tvf": "tvf", "table_function": "tvf", "group_window": "legacy", "legacy_group_window": "legacy"}
WATERMARK_EMITS = ("on-periodic", "on-event")
_EMIT_ALIASES = {"periodic": "on-periodic", "on_periodic": "on-periodic", "event": "on-event", "on_event": "on-event"}

#: Flink's reasons for refusing emit options (docs/flink_sql_semantics.md, rule 7)
TVF_EMIT_REFUSAL = ("Flink SQL refuses it on a window TVF: \"Currently, window table function based aggregate doesn't "
                    "support early-fire and late-fire configuration\"; use window_syntax=legacy (GROUP BY TUMBLE(ts, ...))")
SESSION_EMIT_REFUSAL = "Flink SQL refuses it on a legacy SESSION window: \"Session window doesn't support EMIT strategy currently\""

#: the settings Flink SQL has no counterpart for (refused; left out of its grid rows)
NOT_SQL = ("trigger", "evictor", "lateness", "function", "accumulation", "stagger", "strategy", "source_parallelism",
           "step", "marker", "quantile", "quantile_window", "min_delay", "max_delay", "second_window",
           "second_lateness", "stages", "split_discovery")

_HINTS = {
    "lateness": "a Flink SQL window TVF has no allowed lateness: a record is dropped once every window it belongs to "
                "has fired; the legacy group window's late firing keeps windows longer: window_syntax=legacy "
                "late_fire=true allow_lateness=...",
    "strategy": "Flink SQL's watermark is WATERMARK FOR ts AS ts - INTERVAL '<delay>': use delay",
    "trigger": "Flink SQL windows fire when the watermark passes their end; the legacy window adds early_fire / late_fire",
    "source_parallelism": "the replay reads every split in one source subtask",
    "stagger": "TUMBLE takes a fixed offset: tumbling:SIZE,OFFSET",
}


def _none_or(parse):
    def read(v: Any, name: str) -> Any:
        if v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "off")):
            return None
        return parse(v, name)
    return read


class FlinkSQL(Semantics):
    name = "flink_sql"
    window_types = (Tumbling, Sliding, Cumulate, Session)
    package = __name__
    title = "Flink SQL"
    aliases = ("flink-sql", "flinksql", "sql")
    options = (
        Option("window_syntax", "tvf", _none_or(lambda v, n: choice(v, n, WINDOW_SYNTAXES, _SYNTAX_ALIASES)),
               "tvf (window table-valued function: TUMBLE / HOP / CUMULATE / SESSION) | legacy (the group window "
               "GROUP BY TUMBLE(ts, ...), which takes the table.exec.emit options)", control="choice",
               choices=WINDOW_SYNTAXES),
        Option("early_fire", False, _none_or(as_bool), "legacy window: table.exec.emit.early-fire.enabled with "
               "delay 0 (every record that changes a window emits it)", control="bool"),
        Option("late_fire", False, _none_or(as_bool), "legacy window: table.exec.emit.late-fire.enabled with delay 0 "
               "(every late record within allow_lateness re-emits its window)", control="bool"),
        Option("allow_lateness", 0, _none_or(lambda v, n: optional_duration(v, n)),
               "legacy window: table.exec.emit.allow-lateness (kept only with late_fire)", unit="ms",
               control="duration"),
        Option("mini_batch", None, _none_or(lambda v, n: optional_duration(v, n, positive=True)),
               "table.exec.mini-batch.allow-latency (set: table.exec.mini-batch.enabled; off: none)", unit="ms",
               control="duration"),
        Option("watermark_emit", "on-periodic", _none_or(lambda v, n: choice(v, n, WATERMARK_EMITS, _EMIT_ALIASES)),
               "the table's scan.watermark.emit.strategy: on-periodic (every interval) | on-event (after a record "
               "that raises it)", control="choice", choices=WATERMARK_EMITS),
    )
    shared = ("window", "delay", "interval", "idleness", "partitions_as_sources")
    showcase_axes = {"window_syntax": ["tvf", "legacy"]}
    path = "flink_sql"
    shards_in_process = False
    deploy_targets = {"flink-sql": ("Flink SQL (WATERMARK, SET options, window TVF)", "sql")}

    def check(self, s: Any) -> None:
        """Refuse what Flink SQL has no counterpart for, naming the setting, and fill its defaults."""
        refuse_given({
            "lateness": s.lateness != 0, "trigger": s.trigger not in (TriggerSpec("event_time"), TriggerSpec("default")),
            "evictor": s.evictor is not None, "function": s.function != "count_sum",
            "accumulation": s.accumulation != "accumulating", "strategy": s.strategy != "bounded",
            "source_parallelism": s.source_parallelism != 1, "second_window": s.second_window is not None,
            "stages": bool(s.stages), "stagger": s.stagger != "aligned", "split_discovery": s.split_discovery != "at_start",
        }, _HINTS, "{name} is not a Flink SQL setting{more}; leave it at its default with semantics='flink_sql'")
        self.fill_defaults(s)
        self._check_window(s)
        legacy = s.window_syntax == "legacy"
        for name in ("early_fire", "late_fire"):
            if getattr(s, name) and not legacy:
                raise SettingError(name, f"{name}: {TVF_EMIT_REFUSAL}")
            if getattr(s, name) and isinstance(s.window, Session):
                raise SettingError(name, f"{name}: {SESSION_EMIT_REFUSAL}")
        if s.allow_lateness < 0:
            raise SettingError("allow_lateness", f"allow_lateness must not be negative, got {s.allow_lateness}")
        if s.allow_lateness and legacy and isinstance(s.window, Session):
            raise SettingError("allow_lateness", f"allow_lateness: {SESSION_EMIT_REFUSAL}")
        if s.delay < 0:
            raise SettingError("delay", f"delay must not be negative, got {s.delay}")

    @staticmethod
    def _check_window(s: Any) -> None:
        w = s.window
        if not isinstance(w, (Tumbling, Sliding, Cumulate, Session)):
            raise SettingError("window", f"window {w}: Flink SQL's windows are TUMBLE (tumbling:SIZE[,OFFSET]), HOP "
                               "(sliding:SIZE/SLIDE), CUMULATE (cumulate:SIZE/STEP) and SESSION (session:GAP)")
        if isinstance(w, Sliding) and w.size % w.slide:
            raise SettingError("window", f"window {w}: Flink SQL's HOP needs the size to be a whole multiple of the slide")
        if isinstance(w, Cumulate):
            if s.window_syntax == "legacy":
                raise SettingError("window", f"window {w}: CUMULATE is a window TVF only; the legacy group window "
                                   "(window_syntax=legacy) has TUMBLE, HOP and SESSION")
            if w.size % w.step:
                raise SettingError("window", f"window {w}: Flink SQL's CUMULATE needs the size to be a whole "
                                   "multiple of the step")

    def fit_grid(self, values: dict) -> dict | None:
        for p in NOT_SQL:  # the DataStream window operator's settings have no Flink SQL rows
            values.pop(p, None)
        w = values.get("window", Tumbling(1000))
        if isinstance(w, Sliding) and w.size % w.slide or isinstance(w, Cumulate) and w.size % w.step:
            return None
        if isinstance(w, Cumulate) and values.get("window_syntax") == "legacy":
            return None  # CUMULATE is a window TVF only
        if values.get("window_syntax") != "legacy":
            if values.get("early_fire") or values.get("late_fire"):
                return None  # Flink refuses emit options on a window TVF
        return values

    # -- replay --------------------------------------------------------------------------------

    def replay(self, log: Any, s: Any, *, limits: Any, sources: Any, explicit: Any) -> Any:
        from toolkit.replays.arrays import log_arrays
        from toolkit.replays.result import ReplayResult
        from toolkit.semantics.flink_sql.replay import flink_sql_parts

        return ReplayResult(**flink_sql_parts(log, s, log_arrays(log, s, self), sources))

    # -- sweep ---------------------------------------------------------------------------------

    def shardable(self, s: Any) -> bool:
        """Never: the source's watermark is the min over its splits, whatever their keys, and the
        two-phase plan's local aggregate sends on the records of every key together."""
        return False

    def timeline_inputs(self, s: Any) -> tuple | None:
        return ("records",)

    def whole_figures(self, table: Any, configs: list, invalid: int, sources: Any) -> list[dict]:
        from toolkit.metrics.summary import SUMMARY_COLUMNS
        from toolkit.semantics.flink_sql.figures import whole_figures

        out = []
        for s in configs:
            f = whole_figures(table, s, invalid, sources)
            out.append({k: f[k] for k in SUMMARY_COLUMNS})
        return out

    # -- drops in words --------------------------------------------------------------------------

    def explain_refusal(self, what: str) -> str | None:
        return None

    def drops(self, result: Any, fates: tuple[str, ...]) -> Any:
        from toolkit.semantics.flink_sql.words import drops

        return drops(result, fates)

    def explain(self, result: Any, row: int) -> Any:
        from toolkit.semantics.flink_sql.words import explain

        return explain(result, row)

    def drop_causes(self, result: Any, top: int) -> list[str]:
        from toolkit.semantics.flink_sql.words import drop_causes

        return drop_causes(result, top)

    # -- words ---------------------------------------------------------------------------------

    def setting_words(self, row: Any, results: Any = None) -> str:
        from toolkit.semantics.flink_sql.words import flink_sql_words

        return flink_sql_words(row, results)

    first_result_note = ("Flink SQL with early_fire: every record that changes a legacy window emits it, so a "
                         "window's first row is partial and its first-result completeness is low by design; its final "
                         "completeness tells whether records are kept.")
    first_result_note_short = "Flink SQL, early_fire: a window's first row is partial by design."

    def partial_first_results(self, rows: Any) -> bool:
        """Rows with ``early_fire`` (their first row is an early firing)."""
        return "early_fire" in rows.columns and bool(rows["early_fire"].astype(str).eq("True").any())

    def result_notes(self, s: Any) -> list[str]:
        notes = []
        if s.early_fire:
            notes.append("early_fire: a legacy window's first row is emitted at its first record, so completeness_first "
                         "(and exact_windows) are low by design; read completeness_final")
        if s.idleness is not None:
            notes.append("with an idle timeout, windows still open when every partition is idle at the end of the input "
                         "never fire (Flink drops the final watermark while the source is idle): their records are "
                         "dropped with reason never_fired")
        return notes

    def summary_lines(self, summary: dict, setting: Any, result: Any, fmt: Any) -> list[str]:
        if "late_records_counter" not in summary:
            return []
        return [f"  Flink SQL: numLateRecordsDropped {fmt.number(summary['late_records_counter'])} (the two-phase "
                "plan counts combined rows per key and slice, not records)"]

    def render(self, setting: Any, target: str) -> Any:
        from toolkit.semantics.flink_sql.deploy import render

        return render(setting)


SEMANTICS = FlinkSQL()
