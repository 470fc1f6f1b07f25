"""A replay with Flink's semantics: the log through the watermark side (per-partition generators,
source subtasks, the valve) and one or more windowed stages (``toolkit.engine.flink``).

Pipelines: ``stages=[...]`` adds windowed stages after the first (each with its own window,
trigger, lateness, function and accumulation: :class:`toolkit.settings.Stage`;
``second_window``/``second_lateness`` spell a two-stage pipeline). Flink's rule between stages:
each firing of stage ``k`` becomes a record of stage ``k + 1`` with timestamp = its window's
``max_timestamp``, value = its sum (a ``values`` result: the sum of its values; a join: its
pairs), same key; stage ``k``'s watermark is forwarded after stage ``k`` processed it.
``result.pipeline`` has every stage's emissions, late records and fates; ``summary()``'s figures
are the first stage's, ``last_stage_*`` the last one's.

Several logs (:func:`replay_inputs`): their union (``two_input="union"``, Flink's ``a.union(b)``:
every source subtask of every log is a channel of the operator's valve), the windowed join of
two logs by key (``two_input="join"``), or an interval join (``two_input="interval:-5s/5s"``,
``toolkit.replays.interval_join``).

Emission times follow docs/design.md: a firing caused by a watermark happens at that
watermark's tick, a firing caused by a record at the record's arrival; the end-of-input flush is
flagged ``at_end``. A log without arrival times is replayed in row order with one periodic call
after every record (``interval`` 0, processing time = row position, ``emit_time`` empty).

Record fates: the closed-form rule (``toolkit.metrics.fates``) for tumbling/sliding windows with
the event-time trigger and no evictor; otherwise read off the firings' record ids.

``summary()``'s figures are the sweep row's, from the same code: for a setting in the closed
form (``window_operator.closed_form``) the closed-form evaluator (``toolkit.fast.evaluate``, no second
run); otherwise read off this replay's own run (``toolkit.semantics.flink.figures``), whose first
stage then tracks record ids and samples its state exactly (``run_pipeline``'s
``state="both"``), so the engine runs once. A log without arrival times, and global or custom
windows, have no sweep figures: the replay's own counts only.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd

from toolkit.engine.flink.config import build_operator
from toolkit.engine.flink.pipeline import run_pipeline, watermark_timeline
from toolkit.fast.evaluate import FixedWindows, Shard, partial
from toolkit.fast.sessions import elements_with_gaps
from toolkit.metrics.fates import FATE_NAMES, closed_form_fates, drop_reasons, fates_from_firings
from toolkit.metrics.summary import SUMMARY_COLUMNS, merge_config, partial_rows
from toolkit.replays.arrays import log_arrays
from toolkit.replays.frames import emissions_frame, fates_frame, fill_late_ids, watermarks_frame
from toolkit.replays.result import ReplayResult, StageResult
from toolkit.replays.union import TWO_INPUT_MODES, UnionInputs, union_logs
from toolkit.semantics.flink.alignment import align_arrays
from toolkit.semantics.flink.export import join_lines, scenario_lines, stage_lines
from toolkit.semantics.flink.figures import has_figures, positions_of, run_partial
from toolkit.semantics.flink.window_operator import (
    closed_form,
    fates_closed_form,
    operator_kwargs,
    stage_operator_kwargs,
)
from toolkit.settings import (
    Setting,
    SettingError,
    Sliding,
    Tumbling,
    describe_setting,
    format_setting_value,
    staggered_offset,
)


def replay_inputs(logs: list, s: Setting, two_input: Any, *, limits: Any, explicit: Callable[[str], bool]) -> ReplayResult:
    """Several logs replayed together: an interval join, or their union into one window operator
    (a windowed join when ``two_input="join"``)."""
    if isinstance(two_input, str) and two_input.strip().lower().startswith("interval"):
        from toolkit.replays.interval_join import replay_interval_join

        return ReplayResult(**replay_interval_join(logs, s, two_input))
    mode = "union" if two_input is None else str(two_input).strip().lower()
    if mode not in TWO_INPUT_MODES:
        raise SettingError("two_input", f"two_input {two_input!r}: choose one of {', '.join(TWO_INPUT_MODES)} or "
                           "interval:LOWER/UPPER (an interval join)")
    if any(getattr(x, "declared_partitions", None) is not None for x in logs):
        raise SettingError("partitions", "declared partitions (load_log(..., partitions=...)) are not carried "
                           "into a union or join of logs; replay each log on its own")
    if mode == "join" and len(logs) != 2:
        raise SettingError("two_input", f"two_input='join' joins exactly two logs, got {len(logs)}")
    if mode == "join" and s.function != "count_sum":
        raise SettingError("function", "a join stage counts pairs per key and window (JoinCount); "
                           "leave function at its default")
    if mode == "join" and s.evictor is not None:
        raise SettingError("evictor", "a join stage takes no evictor")
    log, inputs = union_logs(logs, s.source_parallelism, s.partitions_as_sources)
    s = s.replace(source_parallelism=s.source_parallelism * inputs.n_inputs, partitions_as_sources=True)
    return replay_flink(log, s, limits=limits, sources=None, explicit=explicit, inputs=inputs, join=mode == "join")


def _without_processing_time(s: Setting, explicit: Callable[[str], bool]) -> Setting:
    """A log without arrival times: refuse a strategy that needs processing time, and replay with
    a watermark after every record (``interval`` 0) unless the user asked for another interval."""
    strategy = s.watermark_strategy()
    if strategy.needs_processing_time:
        desc = strategy.describe()
        raise SettingError("strategy" if s.idleness is None else "idleness",
                           f"the log has no arrival times, but {desc['generator']}"
                           + (" with idleness" if s.idleness is not None else "")
                           + " needs processing time; load the log with an arrival-time column")
    if s.interval != 0 and explicit("interval"):
        raise SettingError("interval", "the log has no arrival times, so periodic watermarks (interval > 0) cannot be "
                           "placed; use interval=0 (a watermark after every record) or load an arrival-time column")
    return s.replace(interval=0) if s.interval != 0 else s


def replay_flink(log: Any, s: Setting, *, limits: Any, sources: Any, explicit: Callable[[str], bool],
                 inputs: UnionInputs | None = None, join: bool = False) -> ReplayResult:
    """One local log (or a union of logs, ``inputs``) through Flink's pipeline."""
    has_arr = bool(log.has_arrival_time)
    if not has_arr and s.alignment is not None:
        raise SettingError("alignment", "alignment moves records in processing time; the log needs arrival times")
    if not has_arr:
        s = _without_processing_time(s, explicit)
    from toolkit.semantics.flink import SEMANTICS

    a = log_arrays(log, s, SEMANTICS)
    a["log_partition"] = a["part"]
    if not s.partitions_as_sources:  # one watermark generator for the whole stream
        a["part"] = np.zeros_like(a["part"])
    if s.alignment is not None:  # paused splits are read later: the records' processing times move
        a = align_arrays(a, s, sources if s.partitions_as_sources else None)
    n = len(a["ts"])
    if n == 0:
        raise SettingError("log", "the log has no valid records to replay")
    limits.check_cost([s], n, int(a["arr"][-1]) - int(a["arr"][0]), "replay")
    figures_setting = _figures_setting(s, a) if has_arr else None
    from_run = figures_setting is not None and not closed_form(s)  # the figures come from this run
    tl = watermark_timeline(a["ts"], a["arr"], a["part"], s.watermark_strategy(), interval=s.interval,
                            parallelism=s.source_parallelism, marker=a["marker"], rows=a["rows"],
                            targets=s.sparse_targets(a["ts"], a["gap"]), partitions=sources,
                            split_discovery=s.split_discovery)
    res = _run_stages(s, a, tl, inputs, join, from_run)
    em, late, codes = _first_stage(s, a, tl, res, has_arr)
    fates = fates_frame(log, a["rows"], codes)
    fates["reason"] = _reasons(s, codes, a, late, log)
    if join and len(late):  # a join's elements are (side, value): the late side output shows the value and its input
        late = late.assign(value=[v[1] for v in late["value"]], input=[v[0] + 1 for v in late["value"]])
    if inputs is not None:
        r = fates["row"].to_numpy(dtype=np.int64)
        fates["input"] = inputs.input_of(r) + 1
        fates["input_row"] = inputs.input_row(r)
    state = pd.DataFrame(res.state, columns=["time", "open_windows", "buffered_records"]).astype("int64")
    if not has_arr:
        state["time"] = pd.array([pd.NA] * len(state), dtype="Int64")
    pipeline = [StageResult(1, _first_spec(s, join), em, late, fates)] + _later_stages(s, res, a, has_arr)
    multi = len(pipeline) > 1
    stage_wm = pd.DataFrame(res.stage_watermarks, columns=["stage", "side", "time", "watermark"]) if multi else None
    em2, late2 = (pipeline[1].emissions, pipeline[1].late) if multi else (None, None)
    settings_d = describe_setting(s)
    settings_d["has_arrival_time"] = has_arr
    if inputs is not None:
        settings_d["inputs"] = inputs.n_inputs
        settings_d["two_input"] = "join" if join else "union"
    figures = _figures(log, figures_setting, a, tl, res, from_run)
    return ReplayResult(em, fates, late, watermarks_frame(tl, res, has_arr), state, settings_d, tl, stage_wm, em2, late2,
                        s, pipeline, _exporter(s, tl, a, res, inputs, join), figures, _records=a)


def _run_stages(s: Setting, a: dict, tl: Any, inputs: UnionInputs | None, join: bool, from_run: bool) -> Any:
    """Every record through the first window operator, each stage's firings through the next.
    The first operator tracks record ids when the fates or the figures (``from_run``) read
    them; ``from_run``, its state is also sampled exactly (the figures' peaks)."""
    track = not fates_closed_form(s) or from_run
    kwargs = operator_kwargs(s)
    vals = a["vals"]
    if join:
        from toolkit.engine.flink.join import JoinCount

        kwargs["function"] = JoinCount()
        side = inputs.input_of(a["rows"]).tolist()
        vals = np.empty(len(a["ts"]), dtype=object)
        vals[:] = list(zip(side, a["vals"].tolist()))

    def make_op():
        return build_operator(**kwargs, track_records=track)

    stages = [make_op] + [_stage_factory(st) for st in s.pipeline_stages]
    if a["gap"] is not None:  # dynamic sessions: each element carries its gap (the assigner's extractor reads it)
        vals = elements_with_gaps(vals, a["gap"])
    return run_pipeline(tl, a["keys"], a["ts"], a["arr"], vals, a["rows"], stages,
                        connect=connect_stages if len(stages) > 1 else None, state="both" if from_run else "ticks")


def _first_stage(s: Setting, a: dict, tl: Any, res: Any, has_arr: bool) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """The first stage's emissions, late side output and record fate codes."""
    n = len(a["ts"])
    if fates_closed_form(s):
        shard = Shard(a["keys"], a["ts"], a["arr"], a["rows"])  # already in arrival order: shard.order is the identity
        codes = closed_form_fates(shard, FixedWindows.of(s.window), tl, s.lateness)
        # a dropped record goes to the late side output when it is late itself (Flink's
        # isElementLate); a record in no window at all (sliding gaps) may be dropped without it
        late_mask = (codes == 2) & (a["ts"] + np.int64(s.lateness) <= tl.record_watermark(n))
        fill_late_ids(res, a["rows"][late_mask])
        em, late, _ = emissions_frame(res, 1, has_arr, a)
        return em, late, codes
    em, late, fire_ids = emissions_frame(res, 1, has_arr, a)
    pos_of_row = pd.Series(np.arange(n), index=a["rows"])
    firings = [(pane, pos_of_row.loc[ids].tolist()) for pane, ids in fire_ids if ids]
    return em, late, fates_from_firings(n, firings)


def _later_stages(s: Setting, res: Any, a: dict, has_arr: bool) -> list[StageResult]:
    out = []
    for k, st in enumerate(s.pipeline_stages, start=2):
        em_k, late_k, ids_k = emissions_frame(res, k, has_arr, a)
        late_k = late_k.rename(columns={"row": "element", "arrival_time": "time"})  # no log row, no arrival of its own
        out.append(StageResult(k, str(st), em_k, late_k, stage_fates(res.stage_inputs[k], ids_k, late_k,
                                                                     getattr(st, "evictor", None) is not None)))
    return out


def _exporter(s: Setting, tl: Any, a: dict, res: Any, inputs: UnionInputs | None, join: bool) -> Callable[[int], list[str]]:
    def export(stage: int = 1) -> list[str]:
        if stage >= 2:
            return stage_lines(s.pipeline_stages[stage - 2], res, stage)
        if join:
            return join_lines(s, tl, a, inputs)
        return scenario_lines(s, tl, a)

    return export


def _figures_setting(s: Setting, a: dict) -> Setting | None:
    """The setting whose sweep figures ``summary()`` gives (``None``: no figures, its windows
    are not event-time windows). A staggered tumbling window is the aligned window it
    resolves to at the first arrival (``toolkit.settings.staggered_offset``), as the operator
    resolved it, so the true windows are the ones it fired."""
    if not has_figures(s):
        return None
    if s.stagger != "aligned" and isinstance(s.window, Tumbling):
        w = s.window
        return s.replace(window=Tumbling(w.size, staggered_offset(w, s.stagger, int(a["arr"].min()))), stagger="aligned")
    return s


def _figures(log: Any, config: Setting | None, a: dict, tl: Any, res: Any, from_run: bool) -> Callable[[], dict]:
    """The sweep row's figures of ``config`` (``toolkit.metrics.summary.SUMMARY_COLUMNS``),
    computed on demand: ``from_run``, read off this replay's first stage (its emitted items and
    exact state samples, record ids = log rows); else by the closed-form evaluator. ``{}``
    when ``config`` is ``None``."""
    if config is None:
        return dict
    samples = None
    if from_run:  # compact now: the list of tuples is large and only these six columns count
        samples = np.asarray(res.exact_state, dtype=np.int64).reshape(-1, 6)
        res.exact_state = None
    invalid = int(getattr(log, "n_invalid", 0))
    gaps = {config.gap_column: a["gap"]} if config.gap_column is not None else None

    def figures() -> dict:
        shard = Shard(a["keys"], a["ts"], a["arr"], a["rows"], gaps=gaps)
        if from_run:
            out = [it for st, _, it in res.outputs if st == 1]
            part = run_partial(shard, config, tl, out, samples, positions_of(shard, a["rows"]))
        else:
            part = partial(shard, FixedWindows.of(config.window), tl, config.lateness,
                           retracting=config.accumulation == "retracting")
        row = merge_config(partial_rows(0, part), start_time=tl.start_time, end_time=tl.end_time, invalid=invalid)
        return {k: _plain(row[k]) for k in SUMMARY_COLUMNS}

    return figures


def _plain(v: Any) -> Any:
    """A numpy scalar as the Python int or float it holds (a summary's values are plain)."""
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def _reasons(s: Setting, codes: np.ndarray, a: dict, late: pd.DataFrame, log: Any) -> np.ndarray:
    """The ``reason`` of each row of the fates frame (``toolkit.metrics.fates.drop_reasons``)."""

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
    kw = stage_operator_kwargs(stage)
    return lambda: build_operator(**kw, track_records=True)


def _first_spec(s: Setting, join: bool) -> str:
    parts = [f"window={s.window}"] + [f"{k}={format_setting_value(k, getattr(s, k))}" for k in ("trigger", "lateness", "function", "accumulation")]
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
