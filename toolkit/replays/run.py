"""``toolkit.replay(log, ...)``: replay an event log through Flink's event-time windowing
(or, with ``semantics="spark"``, Spark Structured Streaming's: ``toolkit.replays.microbatch``;
with ``semantics="kafka_streams"``, Kafka Streams': ``toolkit.replays.kafka_streams``; with
``semantics="beam"``, Apache Beam's: ``toolkit.replays.beam``).

Settings are ``toolkit.settings``' one vocabulary (``window, trigger, evictor, lateness,
function, accumulation, strategy, delay, interval, idleness, source_parallelism,
partitions_as_sources``, the strategy's own parameters, ``second_window, second_lateness``),
as keywords or as a :class:`toolkit.settings.Setting`.

Pipelines: ``stages=[...]`` adds windowed stages after the first (each with its own window,
trigger, lateness, function and accumulation: :class:`toolkit.settings.Stage`;
``second_window``/``second_lateness`` spell a two-stage pipeline). Flink's rule between
stages: each firing of stage ``k`` becomes a record of stage ``k + 1`` with timestamp = its
window's ``max_timestamp``, value = its sum (a ``values`` result: the sum of its values; a
join: its pairs), same key; stage ``k``'s watermark is forwarded after stage ``k`` processed
it. ``result.pipeline`` has every stage's emissions, late records and fates (the fates of a
stage's input elements); ``summary()``'s figures are the first stage's, ``last_stage_*``
the last one's.

Several logs: ``replay([log_a, log_b], ...)`` replays their union (``two_input="union"``,
Flink's ``a.union(b)``: every source subtask of every log is a channel of the operator's
watermark valve, :mod:`toolkit.replays.union`) or, ``two_input="join"``, the windowed join
of two logs by key (Flink's ``a.join(b).where(key).equalTo(key).window(...)``: the same
union into one window operator, emitting per key and window the elements of each input and
the number of joined pairs, :mod:`toolkit.engine.join`) or, ``two_input="interval:-5s/5s"``,
Flink's interval join of two logs (a two-input operator: each log through its own watermark
valve, the operator watermark the min of the inputs that are not idle;
:mod:`toolkit.replays.interval_join`).

Emission times follow DESIGN.md: a firing caused by a watermark happens at that watermark's
tick, a firing caused by a record at the record's arrival; the end-of-input flush is flagged
``at_end``. A log without arrival times is replayed in row order with one periodic call
after every record (``interval`` 0, processing time = row position, ``emit_time`` empty);
asking such a log for anything that needs processing time is an error.

Record fates: the closed-form rule (``toolkit.metrics.fates``) for tumbling/sliding windows
with the event-time trigger and no evictor; otherwise read off the firings' record ids.
``summary()`` gives exactly the figures a sweep row has for the same setting (it evaluates
the setting with the sweep's own code), plus what only a replay knows.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from toolkit.engine.config import build_operator
from toolkit.engine.pipeline import run_pipeline, watermark_timeline
from toolkit.engine.timeline import WatermarkTimeline
from toolkit.fast.evaluate import FixedWindows, Shard
from toolkit.fast.sessions import elements_with_gaps, gap_column
from toolkit.metrics.fates import FATE_NAMES, closed_form_fates, drop_reasons, fates_from_firings, never_emitted
from toolkit.replays import explain as explaining
from toolkit.replays.export import join_lines, scenario_lines, stage_lines
from toolkit.replays.frames import emissions_frame, fates_frame, fill_late_ids, watermarks_frame
from toolkit.replays.union import TWO_INPUT_MODES, UnionInputs, union_logs
from toolkit.settings import Limits, Setting, SettingError, _text, describe_setting


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
        ``never_fired``: of the ``dropped``, the records taken into a window and never emitted
        (reason ``never_fired`` in ``fates``: Flink keeps them in window state, it does not drop
        them for lateness; ``toolkit.metrics.fates.DROP_REASONS``)."""
        if self._summary is None:
            figures = self._figures() if self._figures is not None else {}
            em = self.emissions
            fires = em[em["kind"] == "fire"] if len(em) else em
            own = {
                "records": int(len(self.fates)),
                "on_time": int((self.fates["fate"] == "on_time").sum()),
                "late_accepted": int((self.fates["fate"] == "late_accepted").sum()),
                "dropped": int((self.fates["fate"] == "dropped").sum()),
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
        return dict(self._summary)

    def drops(self, fates: tuple[str, ...] = ("dropped", "late_accepted")) -> pd.DataFrame:
        """Every dropped or late record: its windows and their cleanup time, the watermark at
        its arrival, who held it, and the smallest delay / lateness / idle timeout that keeps
        it (:func:`toolkit.replays.explain.drops`; ``fates=("dropped",)`` for drops only)."""
        self._flink_only("drops")
        return explaining.drops(self, fates=fates)

    def explain(self, row: int) -> explaining.Explanation:
        """Why the record of log row ``row`` was dropped, late or on time, in words
        (``str()``) and as data (``.data``); see :func:`toolkit.replays.explain.explain`."""
        self._flink_only("explain")
        return explaining.explain(self, row)

    def drop_causes(self, top: int = 3) -> list[str]:
        """The main causes of the drops in words (:func:`toolkit.replays.explain.drop_causes`)."""
        self._flink_only("drop_causes")
        return explaining.drop_causes(self, top=top)

    def _flink_only(self, what: str) -> None:
        if str(self.settings.get("two_input", "")).startswith("interval"):
            raise SettingError("two_input", f"{what}() explains window drops; an interval join drops a record only "
                               "when it is behind the operator watermark: result.late lists each with that watermark")
        sem = getattr(self.setting, "semantics", "flink")
        if sem == "kafka_streams":
            raise SettingError("semantics", f"{what}() explains drops by Flink's watermark; with semantics='kafka_streams' "
                               "read result.late (each dropped record with its task and the task's stream time) and "
                               "result.emissions")
        if sem == "beam":
            raise SettingError("semantics", f"{what}() explains drops by Flink's watermark; with semantics='beam' read "
                               "result.late (each dropped record with Beam's watermark at its arrival and the reason: "
                               "expired, finished or never_fired) and result.emissions (PaneInfo columns)")

    def scenario_lines(self, stage: int = 1) -> list[str]:
        """The record/watermark interleaving the (``stage``) operator saw, in the window-scenario format."""
        if self._export is None:
            raise ValueError("this replay cannot be exported")
        n = max(1, len(self.pipeline))
        if not isinstance(stage, (int, np.integer)) or not 1 <= stage <= n:
            raise ValueError(f"stage must be 1" + (f" to {n} (this pipeline has {n} stages)" if n > 1 else
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


def _log_arrays(log: Any, setting: Setting) -> dict[str, Any]:
    table = log.table
    order = log.arrival_order()
    has_arr = bool(log.has_arrival_time)
    t = table.iloc[order] if not (len(order) and np.array_equal(order, np.arange(len(order)))) else table
    ts = t["event_time"].to_numpy(dtype=np.int64)
    arr = t["arrival_time"].to_numpy(dtype=np.int64) if has_arr else np.arange(len(t), dtype=np.int64)
    part = t["partition"].to_numpy(dtype=np.int64)
    keys = t["key"].to_numpy(dtype=object)
    vals = t["value"].to_numpy()
    rows = t["row"].to_numpy(dtype=np.int64)
    mk = None
    if setting.marker_source is not None:
        from toolkit.sweeps.timelines import marker_array

        mk = marker_array(t, setting)
    gap = None
    if setting.gap_column is not None and setting.semantics == "spark":  # null/0/negative: no session
        from toolkit.replays.microbatch import spark_gap_column

        gap = spark_gap_column(t, setting.gap_column)
    elif setting.gap_column is not None:
        gap = gap_column(t, setting.gap_column)
    return {"ts": ts, "arr": arr, "part": part, "keys": keys, "vals": vals, "rows": rows, "marker": mk, "has_arr": has_arr,
            "gap": gap}


def _explicit(setting: Any, settings: dict, name: str) -> bool:
    return name in settings or (isinstance(setting, dict) and name in setting) or (
        isinstance(setting, str) and f"{name}=" in setting) or (isinstance(setting, Setting) and getattr(setting, name) != getattr(Setting(), name))


def replay(log: Any, setting: Any = None, /, **settings: Any) -> ReplayResult:
    """Replay ``log`` (an :class:`toolkit.log.EventLog`) under one setting (see the module doc).

    ``max_windows_per_record=`` and ``max_memory=`` raise the guards checked before any work
    starts (:class:`toolkit.settings.Limits`)."""
    limits = Limits.of(settings.pop("max_windows_per_record", None), settings.pop("max_memory", None))
    two_input = settings.pop("two_input", None)
    s = Setting.parse(setting, **settings)
    inputs: UnionInputs | None = None
    join = False
    if isinstance(log, (list, tuple)) and isinstance(two_input, str) and two_input.strip().lower().startswith("interval"):
        from toolkit.replays.interval_join import replay_interval_join

        limits.check_settings([s])
        return ReplayResult(**replay_interval_join(list(log), s, two_input))
    if isinstance(log, (list, tuple)):
        mode = "union" if two_input is None else str(two_input).strip().lower()
        if mode not in TWO_INPUT_MODES:
            raise SettingError("two_input", f"two_input {two_input!r}: choose one of {', '.join(TWO_INPUT_MODES)} or "
                               "interval:LOWER/UPPER (an interval join)")
        if len(log) == 1 and two_input is None:
            log = log[0]
        else:
            if any(getattr(x, "declared_partitions", None) is not None for x in log):
                raise SettingError("partitions", "declared partitions (load_log(..., partitions=...)) are not carried "
                                   "into a union or join of logs; replay each log on its own")
            if mode == "join" and len(log) != 2:
                raise SettingError("two_input", f"two_input='join' joins exactly two logs, got {len(log)}")
            if s.semantics != "flink":
                raise SettingError("two_input", "a union or join of logs is replayed with Flink's semantics only")
            if mode == "join":
                if s.function != "count_sum":
                    raise SettingError("function", "a join stage counts pairs per key and window (JoinCount); "
                                       "leave function at its default")
                if s.evictor is not None:
                    raise SettingError("evictor", "a join stage takes no evictor")
            log, inputs = union_logs(list(log), s.source_parallelism, s.partitions_as_sources)
            s = s.replace(source_parallelism=s.source_parallelism * inputs.n_inputs, partitions_as_sources=True)
            join = mode == "join"
    elif two_input is not None:
        raise SettingError("two_input", "two_input needs a list of logs, e.g. replay([log_a, log_b], two_input='join')")
    if getattr(log, "is_spark", False) or getattr(log, "_table", 1) is None:
        raise SettingError("log", "replay needs a local log; collect a Spark-backed log with log.to_pandas() first")
    # declared partitions (load_log(..., partitions=...)): each is a source, with records or not
    declared = getattr(log, "declared_partitions", None) if s.partitions_as_sources else None
    limits.check_settings([s])
    has_arr = bool(log.has_arrival_time)
    if s.semantics == "spark":  # Spark Structured Streaming's micro-batch semantics
        from toolkit.replays.microbatch import microbatch_parts

        a = _log_arrays(log, s)
        if not s.partitions_as_sources:
            a["part"] = np.zeros_like(a["part"])
        if not len(a["ts"]):
            raise SettingError("log", "the log has no valid records to replay")
        return ReplayResult(**microbatch_parts(log, s, a, sources=declared))
    if s.semantics == "kafka_streams":  # Kafka Streams' per-task stream time and grace
        from toolkit.replays.kafka_streams import kafka_parts

        return ReplayResult(**kafka_parts(log, s, _log_arrays(log, s)))
    if s.semantics == "beam":  # Apache Beam's GroupByKey: watermark, triggers, panes
        from toolkit.replays.beam import beam_parts

        return ReplayResult(**beam_parts(log, s, _log_arrays(log, s)))
    if not has_arr:
        strategy = s.watermark_strategy()
        if strategy.needs_processing_time:
            desc = strategy.describe()
            raise SettingError(
                "strategy" if s.idleness is None else "idleness",
                f"the log has no arrival times, but {desc['generator']}"
                + (" with idleness" if s.idleness is not None else "")
                + " needs processing time; load the log with an arrival-time column",
            )
        if s.interval != 0:
            if _explicit(setting, settings, "interval"):
                raise SettingError(
                    "interval",
                    "the log has no arrival times, so periodic watermarks (interval > 0) cannot be placed; "
                    "use interval=0 (a watermark after every record) or load an arrival-time column",
                )
            s = s.replace(interval=0)
    a = _log_arrays(log, s)
    a["log_partition"] = a["part"]
    if not s.partitions_as_sources:  # one watermark generator for the whole stream
        a["part"] = np.zeros_like(a["part"])
    n = len(a["ts"])
    if n == 0:
        raise SettingError("log", "the log has no valid records to replay")
    limits.check_cost([s], n, int(a["arr"][-1]) - int(a["arr"][0]), "replay")

    tl = watermark_timeline(a["ts"], a["arr"], a["part"], s.watermark_strategy(), interval=s.interval,
                            parallelism=s.source_parallelism, marker=a["marker"], rows=a["rows"],
                            targets=s.sparse_targets(a["ts"], a["gap"]), partitions=declared,
                            split_discovery=s.split_discovery)
    closed = s.fates_closed_form
    kwargs = s.operator_kwargs()
    vals = a["vals"]
    if join:
        from toolkit.engine.join import JoinCount

        kwargs["function"] = JoinCount()
        side = inputs.input_of(a["rows"]).tolist()
        vals = np.empty(n, dtype=object)
        vals[:] = list(zip(side, a["vals"].tolist()))

    def make_op():
        return build_operator(**kwargs, track_records=not closed)

    stages = [make_op] + [_stage_factory(st) for st in s.pipeline_stages]
    if a["gap"] is not None:  # dynamic sessions: each element carries its gap (the assigner's extractor reads it)
        vals = elements_with_gaps(vals, a["gap"])
    res = run_pipeline(tl, a["keys"], a["ts"], a["arr"], vals, a["rows"], stages,
                       connect=connect_stages if len(stages) > 1 else None)
    if closed:
        shard = Shard(a["keys"], a["ts"], a["arr"], a["rows"])  # already in arrival order: shard.order is the identity
        codes = closed_form_fates(shard, FixedWindows.of(s.window), tl, s.lateness)
        # a dropped record goes to the late side output when it is late itself (Flink's
        # isElementLate); a record in no window at all (sliding gaps) may be dropped without it
        late_mask = (codes == 2) & (a["ts"] + np.int64(s.lateness) <= tl.record_watermark(n))
        fill_late_ids(res, a["rows"][late_mask])
        em, late, _ = emissions_frame(res, 1, has_arr, a)
    else:
        em, late, fire_ids = emissions_frame(res, 1, has_arr, a)
        pos_of_row = pd.Series(np.arange(n), index=a["rows"])
        firings = [(pane, pos_of_row.loc[ids].tolist()) for pane, ids in fire_ids if ids]
        codes = fates_from_firings(n, firings)
    fates = fates_frame(log, a["rows"], codes)
    fates["reason"] = _reasons(s, codes, a, late, log)
    if join and len(late):  # a join's elements are (side, value): the late side output shows the value and its input
        late = late.assign(value=[v[1] for v in late["value"]], input=[v[0] + 1 for v in late["value"]])
    if inputs is not None:
        r = fates["row"].to_numpy(dtype=np.int64)
        fates["input"] = inputs.input_of(r) + 1
        fates["input_row"] = inputs.input_row(r)
    wms = watermarks_frame(tl, res, has_arr)
    state = pd.DataFrame(res.state, columns=["time", "open_windows", "buffered_records"]).astype("int64")
    if not has_arr:
        state["time"] = pd.array([pd.NA] * len(state), dtype="Int64")
    multi = len(stages) > 1
    stage_wm = pd.DataFrame(res.stage_watermarks, columns=["stage", "side", "time", "watermark"]) if multi else None
    pipeline = [StageResult(1, _first_spec(s, join), em, late, fates)]
    for k, st in enumerate(s.pipeline_stages, start=2):
        em_k, late_k, ids_k = emissions_frame(res, k, has_arr, a)
        late_k = late_k.rename(columns={"row": "element", "arrival_time": "time"})  # no log row, no arrival of its own
        pipeline.append(StageResult(k, str(st), em_k, late_k, stage_fates(res.stage_inputs[k], ids_k, late_k,
                                                                          getattr(st, "evictor", None) is not None)))
    em2, late2 = (pipeline[1].emissions, pipeline[1].late) if multi else (None, None)
    settings_d = describe_setting(s)
    settings_d["has_arrival_time"] = has_arr
    if inputs is not None:
        settings_d["inputs"] = inputs.n_inputs
        settings_d["two_input"] = "join" if join else "union"

    def export(stage: int = 1) -> list[str]:
        if stage >= 2:
            return stage_lines(s.pipeline_stages[stage - 2], res, stage)
        if join:
            return join_lines(s, tl, a, inputs)
        return scenario_lines(s, tl, a)

    def figures() -> dict:
        if not has_arr:
            return {}
        from toolkit.sweeps.engine_path import check_window
        from toolkit.metrics.summary import SUMMARY_COLUMNS
        from toolkit.sweeps.sweep import assemble, choose_paths, dynamic_gap_max, resolve_staggers, run_local

        try:
            check_window(s)
        except SettingError:
            return {}  # no batch answer for global or custom windows: the replay's own counts only
        (r,) = resolve_staggers([s], log.table, None)
        paths = choose_paths([r], "auto", event_range=(int(a["ts"].min()), int(a["ts"].max())),
                             gap_max=dynamic_gap_max([r], log.table, None))
        row = assemble([s], paths, run_local(log.table, [r], paths, invalid=int(log.n_invalid), progress=False,
                                             partitions=getattr(log, "declared_partitions", None))).iloc[0]
        return {k: (row[k].item() if hasattr(row[k], "item") else row[k]) for k in SUMMARY_COLUMNS}

    return ReplayResult(em, fates, late, wms, state, settings_d, tl, stage_wm, em2, late2, s, pipeline, export, figures,
                        _records=a)


def _reasons(s: Setting, codes: np.ndarray, a: dict, late: pd.DataFrame, log: Any) -> np.ndarray:
    """The ``reason`` of each row of the fates frame (``toolkit.metrics.fates.drop_reasons``)."""
    from toolkit.settings import Sliding

    n = len(codes)
    late_rows = late["row"].dropna().astype("int64").to_numpy() if len(late) else np.zeros(0, np.int64)
    is_late = np.isin(a["rows"], late_rows)
    in_window = np.ones(n, bool)
    w = s.window
    if isinstance(w, Sliding) and w.slide > w.size:  # gaps between the windows
        in_window = np.mod(a["ts"] - np.int64(w.offset), np.int64(w.slide)) < np.int64(w.size)
    reasons = drop_reasons(codes, is_late, in_window, s.evictor is not None)
    by_row = pd.Series(reasons, index=a["rows"])
    return by_row.loc[log.table["row"].to_numpy(dtype=np.int64)].to_numpy()


def connect_stages(r: Any) -> tuple[Any, int, Any] | None:
    """Flink's rule between windowed stages: a firing becomes a record keyed as before, with
    timestamp = its window's ``max_timestamp`` and value = its sum (a ``values`` result: the
    sum of its values; a join: its pairs). Other results (retractions) are not forwarded."""
    if getattr(r, "kind", None) != "fire":
        return None
    v = r.value
    v = getattr(v, "pairs", None) if hasattr(v, "pairs") else getattr(v, "sum", v)
    if isinstance(v, (list, tuple)):  # function "values": the stage feeds on its sum
        v = sum(v)
    return (r.key, r.timestamp, v)


def _stage_factory(stage: Any) -> Callable[[], Any]:
    kw = stage.operator_kwargs()
    return lambda: build_operator(**kw, track_records=True)


def _first_spec(s: Setting, join: bool) -> str:
    parts = [f"window={s.window}"] + [f"{k}={_text(k, getattr(s, k))}" for k in ("trigger", "lateness", "function", "accumulation")]
    if s.evictor is not None:
        parts.append(f"evictor={s.evictor}")
    if join:
        parts[3] = "function=join_count"
    return ";".join(parts)


def stage_fates(inputs: list[tuple], fire_ids: list[tuple[int, list]], late: pd.DataFrame | None = None,
                evictor: bool = False) -> pd.DataFrame:
    """The fate of each element a later stage received (the previous stage's firings), and the
    reason of a drop (``late``: in ``late``, the stage's side output; else ``never_fired``)."""
    recs = [ev for ev in inputs if ev[0] == "record"]
    codes = fates_from_firings(len(recs), [(pane, ids) for pane, ids in fire_ids if ids])
    late_ids = late["element"].dropna().astype("int64").to_numpy() if late is not None and len(late) else []
    reasons = drop_reasons(codes, np.isin(np.arange(len(recs)), late_ids), np.ones(len(recs), bool), evictor)
    return pd.DataFrame({
        "element": np.arange(len(recs), dtype=np.int64),
        "key": pd.array([ev[1] for ev in recs], dtype=object),
        "timestamp": np.asarray([ev[2] for ev in recs], dtype=np.int64),
        "value": pd.array([ev[3] for ev in recs], dtype=object),
        "fate": FATE_NAMES[codes] if len(recs) else np.asarray([], dtype=object),
        "reason": reasons,
    })
