"""What a replay produced: :class:`ReplayResult` (every engine's one result contract) and
:class:`StageResult` (one windowed stage of a pipeline).

``emissions`` (every firing: key, window, pane, timing, emit time), ``fates`` (every record:
on_time / late_accepted / dropped, with the reason of a drop), ``late`` (the dropped records),
``watermarks`` and ``state`` over processing time, the ``settings`` as a dict; ``summary()``
gives a sweep row's figures plus what only a replay knows; ``drops()``, ``explain(row)`` and
``drop_causes()`` explain the drops in words (engines whose drops have other causes say what to
read instead).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from toolkit.engine.flink.timeline import WatermarkTimeline
from toolkit.metrics.fates import never_emitted
from toolkit.replays import explain as explaining
from toolkit.settings import Setting, SettingError


@dataclass
class StageResult:
    """One stage of a replay's pipeline: its emissions, late records (side output) and the
    fate of each of its input elements. Stage 1's elements are the log's records (``fates``
    by log row); a later stage's are the previous stage's firings, numbered in the order it
    received them (``element``, with their key, timestamp and value; its ``late`` names them
    by ``element`` too, with the operator's processing ``time`` when they came)."""

    stage: int
    spec: str
    emissions: pd.DataFrame
    late: pd.DataFrame
    fates: pd.DataFrame

    def summary(self) -> dict:
        """Counts of this stage: input elements and their fates, firings, late side output."""
        em = self.emissions
        fires = em[em["kind"] == "fire"] if len(em) else em
        f = self.fates["fate"]
        return {"stage": self.stage, "elements": int(len(self.fates)), "on_time": int((f == "on_time").sum()),
                "late_accepted": int((f == "late_accepted").sum()), "dropped": int((f == "dropped").sum()),
                "firings": int(len(fires)), "late_firings": int((fires["timing"] == "late").sum()) if len(fires) else 0,
                "at_end_firings": int(fires["at_end"].sum()) if len(fires) else 0, "late_side_output": int(len(self.late)),
                "never_fired": never_emitted(self.fates["reason"].to_numpy()) if "reason" in self.fates else 0}


@dataclass
class ReplayResult:
    """What a replay produced (see the Replay contract)."""

    emissions: pd.DataFrame
    fates: pd.DataFrame
    late: pd.DataFrame
    watermarks: pd.DataFrame
    state: pd.DataFrame
    settings: dict
    timeline: WatermarkTimeline | None = None
    stages: pd.DataFrame | None = None
    second_emissions: pd.DataFrame | None = None
    second_late: pd.DataFrame | None = None
    setting: Setting | None = None
    pipeline: list[StageResult] = field(default_factory=list)
    _export: Callable[[int], list[str]] | None = field(default=None, repr=False)
    _figures: Callable[[], dict] | None = field(default=None, repr=False)
    _summary: dict | None = field(default=None, repr=False)
    _records: dict | None = field(default=None, repr=False)  # the replayed arrays, arrival order
    #: the engine that replayed it (``toolkit.semantics.base.Semantics``), set by ``toolkit.replay``
    engine: Any = field(default=None, repr=False)
    #: the log's names of its partitions (``EventLog.partition_names``), set by ``toolkit.replay``
    partition_names: list[str] | None = field(default=None, repr=False)
    #: quarantined rows of the replayed log(s), set by ``toolkit.replay``: ``summary()`` counts
    #: them in ``records`` and ``invalid`` whatever the log and engine, as a sweep row does
    invalid: int = 0
    #: the replayed log's arrival times and partition codes (numpy arrays), set by ``toolkit.replay``
    #: for one local log with arrival times: what :meth:`latency_tail` finds silences in
    arrivals: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def partition_label(self, code: Any) -> str:
        """The name the log gives partition ``code`` (``EWR``), or the number when partitions are numbers:
        what charts, legends, drop causes and explanations call it."""
        names = self.partition_names
        try:
            return str(names[int(code)]) if names is not None else str(code)
        except (IndexError, TypeError, ValueError):
            return str(code)

    def __post_init__(self) -> None:
        if "reason" not in self.fates.columns:  # Spark's late filter and Kafka Streams' closed windows
            # drop a record only when it is behind the watermark / past the grace: reason "late"
            self.fates["reason"] = np.where(self.fates["fate"].to_numpy() == "dropped", "late", "").astype(object)
        if self._summary is not None and "never_fired" not in self._summary:  # a summary the engine made itself
            tail = {k: self._summary.pop(k) for k in ("settings",) if k in self._summary}
            self._summary["never_fired"] = never_emitted(self.fates["reason"].to_numpy())
            self._summary.update(tail)

    def summary(self) -> dict:
        """The sweep's figures for this setting (``toolkit.sweeps.sweep`` documents them:
        records, fates, completeness, latency percentiles, firings, state), then what only a
        replay shows: ``at_end_firings``, ``late_side_output`` and, with more stages,
        ``stages`` (their number), ``second_firings`` / ``second_late_side_output`` (stage 2)
        and the last stage's ``last_stage_elements``, ``last_stage_on_time``,
        ``last_stage_late_accepted``, ``last_stage_dropped``, ``last_stage_firings``,
        ``last_stage_late_side_output``; ``settings`` last. Every other figure is stage 1's.
        ``latency_tail``: what dominates the latency tail in words, when it is a structural cause
        (:meth:`latency_tail`; empty otherwise).
        ``never_fired``: of the ``dropped``, the records taken into a window and never emitted
        (reason ``never_fired`` in ``fates``: Flink keeps them in window state, it does not drop
        them for lateness; ``toolkit.metrics.fates.DROP_REASONS``).

        Every log and engine: ``records`` = the log's rows, quarantined ones included, =
        ``on_time + late_accepted + dropped + invalid``. The figures that need processing time
        (completeness, latency, state) are there only when the log has arrival times and the
        windows are event-time windows; a log without arrival times has the counts alone."""
        if self._summary is None:
            figures = self._figures() if self._figures is not None else {}
            em = self.emissions
            fires = em[em["kind"] == "fire"] if len(em) else em
            invalid = int(self.invalid)
            own = {
                "records": int(len(self.fates)) + invalid,
                "on_time": int((self.fates["fate"] == "on_time").sum()),
                "late_accepted": int((self.fates["fate"] == "late_accepted").sum()),
                "dropped": int((self.fates["fate"] == "dropped").sum()),
                "invalid": invalid,
                "firings": int(len(fires)),
                "late_firings": int((fires["timing"] == "late").sum()) if len(fires) else 0,
            }
            out = {**own, **figures} if figures else own
            if "at_end_firings" not in out:  # a setting the sweep cannot evaluate: count the emissions
                out["at_end_firings"] = int(fires["at_end"].sum()) if len(fires) else 0
            out["late_side_output"] = int(len(self.late))
            if "reason" in self.fates:  # dropped, but not for lateness: taken into a window and never emitted
                out["never_fired"] = never_emitted(self.fates["reason"].to_numpy())
            if self.second_emissions is not None:
                f2 = self.second_emissions
                out["second_firings"] = int((f2["kind"] == "fire").sum()) if len(f2) else 0
                out["second_late_side_output"] = int(len(self.second_late)) if self.second_late is not None else 0
            if len(self.pipeline) > 1:
                last = self.pipeline[-1].summary()
                out["stages"] = len(self.pipeline)
                for k in ("elements", "on_time", "late_accepted", "dropped", "firings", "late_side_output"):
                    out[f"last_stage_{k}"] = last[k]
            out["settings"] = self.settings
            self._summary = out
        if "latency_tail" not in self._summary and "completeness_first" in self._summary and self.engine is not None:
            settings = {k: self._summary.pop(k) for k in ("settings",) if k in self._summary}  # settings stay last
            self._summary["latency_tail"] = str(self.latency_tail())  # processing-time figures: words too
            self._summary.update(settings)
        return dict(self._summary)

    def latency_tail(self) -> Any:
        """What dominates the latency tail (:func:`toolkit.replays.latency.latency_tail`): silences
        in arrivals, an idle or late partition, the end of input; ``str()`` says it with the chart
        that shows it, empty when the tail has no structural cause."""
        from toolkit.replays.latency import latency_tail

        if getattr(self, "_tail", None) is None:
            self._tail = latency_tail(self)
        return self._tail

    def drops(self, fates: tuple[str, ...] = ("dropped", "late_accepted")) -> pd.DataFrame:
        """Every dropped or late record: its windows and their cleanup time, the watermark at
        its arrival, who held it, and the smallest delay / lateness / idle timeout that keeps
        it (:func:`toolkit.replays.explain.drops`; ``fates=("dropped",)`` for drops only)."""
        self._flink_only("drops")
        return self.engine.drops(self, fates) if self.engine is not None else explaining.drops(self, fates=fates)

    def explain(self, row: int) -> explaining.Explanation:
        """Why the record of log row ``row`` was dropped, late or on time, in words
        (``str()``) and as data (``.data``); see :func:`toolkit.replays.explain.explain`."""
        self._flink_only("explain")
        return self.engine.explain(self, row) if self.engine is not None else explaining.explain(self, row)

    def drop_causes(self, top: int = 3) -> list[str]:
        """The main causes of the drops in words (:func:`toolkit.replays.explain.drop_causes`)."""
        self._flink_only("drop_causes")
        return self.engine.drop_causes(self, top) if self.engine is not None else explaining.drop_causes(self, top=top)

    def _flink_only(self, what: str) -> None:
        if str(self.settings.get("two_input", "")).startswith("interval"):
            raise SettingError("two_input", f"{what}() explains window drops; an interval join drops a record only "
                               "when it is behind the operator watermark: result.late lists each with that watermark")
        refusal = self.engine.explain_refusal(what) if self.engine is not None else None
        if refusal:
            raise SettingError("semantics", refusal)

    def scenario_lines(self, stage: int = 1) -> list[str]:
        """The record/watermark interleaving the (``stage``) operator saw, in the window-scenario format."""
        if self._export is None:
            raise ValueError("this replay cannot be exported")
        n = max(1, len(self.pipeline))
        if not isinstance(stage, (int, np.integer)) or not 1 <= stage <= n:
            raise ValueError("stage must be 1" + (f" to {n} (this pipeline has {n} stages)" if n > 1 else
                                                   " (give stages=[...] or second_window for more)") + f", got {stage!r}")
        return self._export(int(stage))

    def stage(self, k: int) -> StageResult:
        """Stage ``k`` (1-based) of the pipeline."""
        if not 1 <= k <= len(self.pipeline):
            raise ValueError(f"stage must be 1 to {len(self.pipeline)}, got {k!r}")
        return self.pipeline[k - 1]

    def export_scenario(self, path: str | Path, stage: int = 1) -> Path:
        """Write :meth:`scenario_lines` to ``path`` (one JSON object per line)."""
        p = Path(path)
        p.write_text("".join(line + "\n" for line in self.scenario_lines(stage)))
        return p
