"""Apache Beam's event-time semantics (``semantics="beam"``).

``WindowInto(window, trigger=beam_trigger, allowed_lateness=lateness, accumulation_mode=
accumulation, timestamp_combiner=...)`` then GroupByKey: ``tumbling:SIZE[,OFFSET]`` =
``FixedWindows``, ``sliding:SIZE/PERIOD`` = ``SlidingWindows``, ``session:GAP`` = ``Sessions``.
The watermark comes from the Flink-side strategies (a log has no Beam source), one millisecond
apart ("at or before" against "before"). The simulator is ``toolkit.engine.beam``. In this
package: ``windowing`` (a setting as ``WindowInto``), ``figures`` (the driver and the figures,
shared by replay and sweep), ``replay`` (the replay's tables), ``sweep`` (key shards),
``trigger`` and ``trigger_words`` (the trigger grammar), ``deploy``, ``printout``, ``translate``,
``words``.
"""
from __future__ import annotations

from typing import Any

from toolkit.engine.beam.failures import NO_WINDOW
from toolkit.semantics.base import Semantics, refuse_given
from toolkit.semantics.beam.trigger import BeamTrigger, parse_beam_trigger
from toolkit.settings import (
    STRATEGY_PARAMETERS,
    Option,
    Session,
    SettingError,
    Sliding,
    TriggerSpec,
    Tumbling,
    choice,
)

TIMESTAMP_COMBINERS = ("end_of_window", "earliest", "latest")
_COMBINER_ALIASES = {"output_at_eow": "end_of_window", "eow": "end_of_window", "output_at_earliest": "earliest",
                     "output_at_latest": "latest"}

#: Flink settings Beam has no counterpart for (refused; left out of its grid rows). Shared with
#: Flink: lateness (allowed_lateness), accumulation and the watermark settings.
NOT_BEAM = ("trigger", "evictor", "function", "stagger", "second_window", "second_lateness", "stages")

_HINTS = {
    "trigger": "Beam's triggers are written with beam_trigger, e.g. beam_trigger='after_watermark(late=after_count:1)'",
    "function": "the Beam replay groups by key and window (GroupByKey) and reports count and sum",
    "stagger": "Beam's FixedWindows take an offset: tumbling:SIZE+OFFSET",
}


#: why a SlidingWindows shorter than its period is refused (oracles/beam: fail_sliding2sby5s__*)
SAMPLING_WINDOWS_FAIL = (
    "a period longer than the size leaves gaps between Beam's SlidingWindows; a record in a gap gets no window, "
    f"and real Beam (2.77, streaming DirectRunner) then fails the job ({NO_WINDOW}); give a period no longer "
    "than the size")


def _none_or(parse):
    return lambda v, n: None if v is None else parse(v, n)


class Beam(Semantics):
    name = "beam"
    window_types = (Tumbling, Sliding, Session)
    package = __name__
    title = "Apache Beam"
    short_title = "Beam"
    aliases = ("apache_beam", "apache-beam")
    options = (
        Option("beam_trigger", BeamTrigger("default"), _none_or(parse_beam_trigger),
               "WindowInto's trigger: default | after_watermark(early=...,late=...) | after_count:N | "
               "after_processing_time:5s | repeatedly(...) | after_any(...) | after_all(...) | after_each(...) | "
               "orfinally(main,final); count:N, processing:5s and watermark for short", control="text", commas=True),
        Option("timestamp_combiner", "end_of_window", _none_or(lambda v, n: choice(v, n, TIMESTAMP_COMBINERS,
                                                                                     _COMBINER_ALIASES)),
               "output timestamp of a pane (TimestampCombiner)", control="choice", choices=TIMESTAMP_COMBINERS),
    )
    shared = ("window", "delay", "lateness", "accumulation", "strategy", *STRATEGY_PARAMETERS, "interval", "idleness", "source_parallelism",
              "partitions_as_sources")
    path = "beam"  # the replay's step; the closed form's rows say "fast" (``sweep_paths``)
    shards_in_process = True
    deploy_targets = {"beam": ("Apache Beam, Python SDK (WindowInto)", "python")}

    def check(self, s: Any) -> None:
        """Refuse what Beam has no counterpart for, naming the setting, and fill its defaults (the
        default trigger, end-of-window output timestamps)."""
        w = s.window
        if not isinstance(w, (Tumbling, Sliding, Session)):
            raise SettingError("window", f"window {w}: Beam's WindowInto here takes FixedWindows, SlidingWindows or "
                               "Sessions; use e.g. 'tumbling:10s', 'sliding:10s/5s' or 'session:30s'")
        if isinstance(w, Sliding) and w.size < w.slide:
            raise SettingError("window", f"window {w}: {SAMPLING_WINDOWS_FAIL}")
        if s.accumulation == "retracting":
            raise SettingError("accumulation", "accumulation 'retracting': the Beam replay models Beam's accumulating "
                               "and discarding modes (AccumulationMode.ACCUMULATING / DISCARDING); choose one of them")
        refuse_given({
            "trigger": s.trigger not in (TriggerSpec("event_time"), TriggerSpec("default")),
            "evictor": s.evictor is not None, "function": s.function != "count_sum", "stagger": s.stagger != "aligned",
            "second_window": s.second_window is not None, "stages": bool(s.stages),
        }, _HINTS, "{name} is not a Beam setting{more}; leave it at its default with semantics='beam'")
        self.fill_defaults(s)

    def fit_grid(self, values: dict) -> dict | None:
        for p in NOT_BEAM:  # the watermark, lateness and accumulation are shared with Flink; the rest is not
            values.pop(p, None)
        if values.get("accumulation") == "retracting":
            return None  # Beam has no retracting mode: no such row
        w = values.get("window", Tumbling(1000))
        if not isinstance(w, (Tumbling, Sliding, Session)) or (isinstance(w, Sliding) and w.size < w.slide):
            return None  # no Beam form, or one real Beam fails on
        return values

    # -- replay --------------------------------------------------------------------------------

    def replay(self, log: Any, s: Any, *, limits: Any, sources: Any, explicit: Any) -> Any:
        from toolkit.replays.arrays import log_arrays
        from toolkit.replays.result import ReplayResult
        from toolkit.semantics.beam.replay import beam_parts

        return ReplayResult(**beam_parts(log, s, log_arrays(log, s, self)))

    # -- sweep ---------------------------------------------------------------------------------

    def shardable(self, s: Any) -> bool:
        """Keys share Beam's output watermark unless the setting rules it out
        (``toolkit.semantics.beam.sweep.shardable``)."""
        from toolkit.semantics.beam.sweep import shardable

        return shardable(s)

    def in_one_piece(self, s: Any) -> bool:
        """Settings whose keys share the step's output watermark run with every key in one step."""
        return not self.shardable(s)

    def sweep_paths(self, configs: list, path: str, *, event_range: Any, gap_max: dict) -> list[str]:
        """The closed form (``fast``, ``toolkit.semantics.beam.fast``) where it applies, else the
        replay's GroupByKey step (``beam``); ``path="engine"`` asks for the step."""
        from toolkit.semantics.beam.fast import fast_applies

        out = []
        span = event_range() if path != "engine" else None
        for c in configs:
            ok = path != "engine" and fast_applies(c, span)
            if path == "fast" and not ok:
                raise SettingError("path", f"the fast path does not apply to {c}: Beam's needs tumbling or sliding "
                                   "windows, end_of_window output timestamps and the default trigger, after_watermark "
                                   "or after_watermark(late=after_count:1)")
            out.append("fast" if ok else self.path)
        return out

    def timelines(self, configs: list, sources: Any) -> dict[int, Any]:
        """The Flink-side operator timeline (``toolkit.semantics.beam.replay`` adds the 1 ms between "at or
        before" and "before")."""
        from toolkit.sweeps.timelines import build_timelines

        return build_timelines(configs, sources)

    def evaluate(self, shard: Any, config: Any, path: str, timeline: Any) -> dict:
        from toolkit.semantics.beam.sweep import beam_partial

        return beam_partial(shard, config, path, timeline)

    def whole_figures(self, table: Any, configs: list, invalid: int, sources: Any) -> list[dict]:
        """Every key in one GroupByKey step: one shard of the whole log, the Flink-side timeline."""
        from toolkit.sweeps.whole import one_shard_figures

        return [one_shard_figures(self, table, s, invalid, sources) for s in configs]

    def whole_bytes(self) -> tuple[int, int]:
        return (800, 250)

    # -- words ---------------------------------------------------------------------------------

    def setting_words(self, row: Any, results: Any = None) -> str:
        from toolkit.semantics.words import engine_setting_words

        words = [("lateness_ms", "a {} allowed lateness"), ("beam_trigger", "the {} trigger"),
                 ("accumulation", "{} panes"), ("timestamp_combiner", "{} output timestamps")]
        return engine_setting_words(row, results, words)

    def dropped_words(self, summary: dict, result: Any, fmt: Any) -> str | None:
        from toolkit.semantics.beam.printout import dropped_words

        return dropped_words(summary, result, fmt)

    def summary_lines(self, summary: dict, setting: Any, result: Any, fmt: Any) -> list[str]:
        from toolkit.semantics.beam.printout import summary_lines

        return summary_lines(summary, setting, result, fmt)

    def explain_refusal(self, what: str) -> str | None:
        return (f"{what}() explains drops by Flink's watermark; with semantics='beam' read result.late (each dropped "
                "record with Beam's watermark at its arrival and the reason: expired, finished or never_fired) and "
                "result.emissions (PaneInfo columns)")

    def render(self, setting: Any, target: str) -> Any:
        from toolkit.semantics.beam.deploy import render

        return render(setting)


SEMANTICS = Beam()
