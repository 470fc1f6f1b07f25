"""``toolkit.replay(log, ...)``: replay an event log through Flink's event-time windowing.

Settings (durations as ``"500ms"``, ``"2s"`` or integer ms; parsed with
:func:`toolkit.durations.parse_duration`):

- ``generator``: ``"bounded_out_of_orderness"`` (default; ``max - delay - 1``),
  ``"legacy_bounded_out_of_orderness"`` (``max - delay``), ``"monotonous"``, ``"time_lag"``
  (``lag``), ``"punctuated"`` (``marker``: a boolean column of the log table or a predicate
  ``f(ts, key, value)``), ``"idle_advance"`` (``delay``, ``step``), ``"adaptive"`` (Watermark
  Lab extension: ``quantile``, ``quantile_window``, ``min_delay``, ``max_delay``), or a
  :class:`toolkit.engine.watermarks.WatermarkStrategy` object; ``delay``;
- ``interval`` (default ``200ms``; 0 = after every record), ``idleness`` (idle timeout,
  default none), ``parallelism`` (source subtasks, default 1), ``partitions_as_sources``
  (default True: each log partition is a source split with its own watermark generator, as
  Flink's per-split watermarks; False: one generator sees the whole stream);
- ``window``: ``"tumbling:1s"``, ``"tumbling:1s,250ms"`` (offset), ``"sliding:10s/5s"``,
  ``"session:30s"``, ``"global"``, ``"global_eos"`` or an assigner object; ``trigger``
  (``None``, ``"event_time"``, ``"count:N"``, ``"continuous:5s"``, ``"purging:count:N"``,
  ``"never"``, ``"end_of_stream"`` or an object); ``lateness`` (allowed lateness);
  ``evictor`` (``"count:N"``, ``"time:5s"`` or an object); ``function`` (``"count_sum"``
  default, ``"values"``, or a window function object); ``accumulation``
  (``"accumulating"``, ``"discarding"``, ``"accumulating_and_retracting"``);
- ``second_window``: a second windowed stage fed by the first stage's results (their
  timestamp is the window's ``max_timestamp``, value its ``sum`` for count/sum results),
  with ``second_lateness``.

Emission times follow DESIGN.md: a firing caused by a watermark happens at that watermark's
tick, a firing caused by a record at the record's arrival; the end-of-input flush is flagged
``at_end``. A log without arrival times is replayed in row order with one periodic call
after every record (``interval`` 0, processing time = row position, ``emit_time`` empty);
asking such a log for anything that needs processing time is an error.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from toolkit.durations import parse_duration
from toolkit.engine.pipeline import PipelineResult, WatermarkTimeline, run_pipeline, watermark_timeline
from toolkit.engine.watermarks import MAX_WATERMARK, WatermarkStrategy, make_strategy

DEFAULT_INTERVAL = 200

_ASSIGNER_TYPES = ("tumbling", "sliding", "session", "global", "global_eos")


# ----------------------------------------------------------------------------------------
# settings parsing
# ----------------------------------------------------------------------------------------


def parse_window(spec: Any) -> dict:
    """Window spec string -> scenario-format assigner config (``{"type": ..., ...}``)."""
    if isinstance(spec, dict):
        return dict(spec)
    if not isinstance(spec, str):
        raise ValueError(f"window must be a string like 'tumbling:1s' or an assigner object, got {spec!r}")
    text = spec.strip()
    kind, _, arg = text.partition(":")
    kind = kind.strip().lower()
    if kind in ("global", "global_eos"):
        return {"type": "global", "end_of_stream_trigger": kind == "global_eos"}
    if not arg:
        raise ValueError(f"window {spec!r}: give a size, e.g. 'tumbling:1s', 'sliding:10s/5s', 'session:30s'")
    if kind == "tumbling":
        size, _, offset = arg.partition(",")
        return {
            "type": "tumbling",
            "size": _positive(size, "window size"),
            "offset": parse_duration(offset, name="window offset", allow_negative=True) if offset else 0,
        }
    if kind == "sliding":
        main, _, offset = arg.partition(",")
        size, sep, slide = main.partition("/")
        if not sep:
            raise ValueError(f"window {spec!r}: sliding windows are written 'sliding:SIZE/SLIDE'")
        return {
            "type": "sliding",
            "size": _positive(size, "window size"),
            "slide": _positive(slide, "window slide"),
            "offset": parse_duration(offset, name="window offset", allow_negative=True) if offset else 0,
        }
    if kind == "session":
        return {"type": "session", "gap": _positive(arg, "session gap")}
    raise ValueError(f"unknown window kind {kind!r} in {spec!r}; use one of {', '.join(_ASSIGNER_TYPES)}")


def _positive(text: str, name: str) -> int:
    v = parse_duration(text.strip(), name=name)
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {text!r}")
    return v


def parse_trigger(spec: Any) -> dict | None:
    """Trigger spec string -> scenario-format trigger config (None = the assigner's default)."""
    if spec is None or isinstance(spec, dict):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"trigger must be a string or a Trigger object, got {spec!r}")
    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind in ("default", ""):
        return None
    if kind in ("event_time", "processing_time", "never", "end_of_stream"):
        return {"type": kind}
    if kind == "count":
        n = int(arg) if arg.strip().isdigit() else 0
        if n <= 0:
            raise ValueError(f"trigger {spec!r}: count must be a positive integer")
        return {"type": "count", "count": n}
    if kind in ("continuous", "continuous_event_time"):
        return {"type": "continuous_event_time", "interval": _positive(arg, "trigger interval")}
    if kind == "purging":
        inner = parse_trigger(arg or "event_time")
        return {"type": "purging", "inner": inner or {"type": "event_time"}}
    raise ValueError(f"unknown trigger {spec!r}; use event_time, count:N, continuous:5s, purging:..., never, end_of_stream")


def parse_evictor(spec: Any) -> dict | None:
    if spec is None or isinstance(spec, dict):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"evictor must be a string or an Evictor object, got {spec!r}")
    kind, _, arg = spec.strip().partition(":")
    arg, _, after = arg.partition(",")
    is_after = after.strip().lower() == "after"
    if kind == "count":
        if not arg.strip().isdigit() or int(arg) <= 0:
            raise ValueError(f"evictor {spec!r}: count must be a positive integer")
        return {"type": "count", "max": int(arg), "after": is_after}
    if kind == "time":
        return {"type": "time", "keep": parse_duration(arg.strip(), name="evictor keep"), "after": is_after}
    raise ValueError(f"unknown evictor {spec!r}; use count:N or time:5s (append ',after' to evict after)")


def _build_function(spec: Any):
    from toolkit.engine.functions import CollectValues, CountSum, WindowFunction

    if spec is None or spec in ("count_sum", "aggregate"):
        return CountSum(), "count_sum"
    if spec in ("values", "process"):
        return CollectValues(), "values"
    if isinstance(spec, WindowFunction):
        return spec, type(spec).__name__
    raise ValueError(f"function must be 'count_sum', 'values' or a window function object, got {spec!r}")


@dataclass
class ReplaySettings:
    """Normalized settings (integers in ms) plus the engine objects built from them."""

    strategy: WatermarkStrategy
    generator: dict
    interval: int
    parallelism: int
    assigner: Any
    assigner_config: dict | None
    trigger: Any
    trigger_config: dict | None
    evictor: Any
    evictor_config: dict | None
    lateness: int
    function: Any
    function_name: str
    accumulation: str
    marker: Any = None
    second: dict | None = None
    partitions_as_sources: bool = True

    def as_dict(self) -> dict:
        d = {
            **self.generator,
            "interval": self.interval,
            "parallelism": self.parallelism,
            "partitions_as_sources": self.partitions_as_sources,
            "window": self.assigner_config if self.assigner_config is not None else repr(self.assigner),
            "trigger": self.trigger_config if self.trigger_config is not None or self.trigger is None else repr(self.trigger),
            "evictor": self.evictor_config if self.evictor_config is not None or self.evictor is None else repr(self.evictor),
            "lateness": self.lateness,
            "function": self.function_name,
            "accumulation": self.accumulation,
        }
        if self.second:
            d["second_window"] = self.second["assigner_config"]
            d["second_lateness"] = self.second["lateness"]
        return d


#: Durations above this are refused as absurd (10 years): they can only be a unit mistake.
MAX_SETTING_MS = 10 * 366 * 24 * 3600 * 1000


def _sane(ms: int, v: Any, name: str) -> int:
    if ms > MAX_SETTING_MS:
        raise ValueError(f"{name} of {v!r} is absurd (more than 10 years); check the unit")
    return ms


def _dur(v: Any, name: str) -> int:
    return _sane(parse_duration(v, name=name), v, name)


def make_settings(
    *,
    generator: Any = "bounded_out_of_orderness",
    delay: Any = 0,
    interval: Any = DEFAULT_INTERVAL,
    idleness: Any = None,
    parallelism: int = 1,
    partitions_as_sources: bool = True,
    window: Any = "tumbling:1s",
    trigger: Any = None,
    lateness: Any = 0,
    evictor: Any = None,
    function: Any = None,
    accumulation: str = "accumulating",
    lag: Any = None,
    step: Any = None,
    marker: Any = None,
    quantile: float | None = None,
    quantile_window: int | None = None,
    min_delay: Any = None,
    max_delay: Any = None,
    second_window: Any = None,
    second_lateness: Any = 0,
    has_arrival_time: bool = True,
    interval_given: bool = True,
) -> ReplaySettings:
    """Validate and normalize replay settings (see the module doc); errors are ``ValueError``."""
    from toolkit.engine.scenario import build_assigner, build_evictor, build_trigger
    from toolkit.engine.assigners import WindowAssigner
    from toolkit.engine.triggers import Trigger
    from toolkit.engine.evictors import Evictor
    from toolkit.engine.operator import ACCUMULATION_MODES

    iv = _dur(interval, "interval")
    if isinstance(generator, WatermarkStrategy):
        strategy = generator
        if idleness is not None:
            strategy = strategy.with_idleness(_idle(idleness))
    else:
        params: dict[str, Any] = {}
        name = str(generator)
        if name in ("bounded_out_of_orderness", "bounded", "legacy_bounded_out_of_orderness", "legacy", "idle_advance"):
            params["delay"] = _dur(delay, "delay")
        if name == "time_lag":
            params["lag"] = _dur(lag if lag is not None else delay, "lag")
        if name == "idle_advance":
            if step is None:
                raise ValueError("the idle_advance generator needs a step (e.g. step='100ms')")
            params["step"] = _dur(step, "step")
        if name == "punctuated":
            params["marker"] = marker if marker is not None else "marker"
            params["delay"] = _dur(delay, "delay")
        if name == "adaptive":
            if quantile is not None:
                params["quantile"] = float(quantile)
            if quantile_window is not None:
                params["window"] = int(quantile_window)
            if min_delay is not None:
                params["min_delay"] = _dur(min_delay, "min_delay")
            if max_delay is not None:
                params["max_delay"] = _dur(max_delay, "max_delay")
            params["initial_delay"] = _dur(delay, "delay")
        if idleness is not None:
            params["idle_timeout"] = _idle(idleness)
        strategy = make_strategy(name, **params)
    gen_desc = strategy.describe()
    if not has_arrival_time:
        if strategy.needs_processing_time:
            raise ValueError(
                f"the log has no arrival times, but {gen_desc['generator']}"
                + (" with idleness" if "idle_timeout" in gen_desc else "")
                + " needs processing time; load the log with an arrival-time column"
            )
        if interval_given and iv != 0:
            raise ValueError(
                "the log has no arrival times, so periodic watermarks (interval > 0) cannot be placed; "
                "use interval=0 (a watermark after every record) or load an arrival-time column"
            )
        iv = 0
    if isinstance(parallelism, bool) or not isinstance(parallelism, (int, np.integer)) or parallelism < 1:
        raise ValueError(f"parallelism must be a positive integer, got {parallelism!r}")

    if isinstance(window, WindowAssigner):
        assigner, a_cfg = window, _assigner_config(window)
    else:
        a_cfg = parse_window(window)
        assigner = build_assigner(a_cfg)
    if isinstance(trigger, Trigger):
        trig, t_cfg = trigger, None
    else:
        t_cfg = parse_trigger(trigger)
        trig = build_trigger(t_cfg)
    if isinstance(evictor, Evictor):
        ev, e_cfg = evictor, None
    else:
        e_cfg = parse_evictor(evictor)
        ev = build_evictor(e_cfg)
    fn, fn_name = _build_function(function)
    if accumulation not in ACCUMULATION_MODES:
        raise ValueError(f"accumulation must be one of {', '.join(ACCUMULATION_MODES)}, got {accumulation!r}")
    second = None
    if second_window is not None:
        s_cfg = parse_window(second_window) if not isinstance(second_window, WindowAssigner) else _assigner_config(second_window)
        second = {
            "assigner_config": s_cfg,
            "assigner": second_window if isinstance(second_window, WindowAssigner) else build_assigner(s_cfg),
            "lateness": _dur(second_lateness, "second_lateness"),
        }
    s = ReplaySettings(
        strategy=strategy,
        generator=gen_desc,
        interval=iv,
        parallelism=int(parallelism),
        assigner=assigner,
        assigner_config=a_cfg,
        trigger=trig,
        trigger_config=t_cfg,
        evictor=ev,
        evictor_config=e_cfg,
        lateness=_dur(lateness, "lateness"),
        function=fn,
        function_name=fn_name,
        accumulation=accumulation,
        marker=marker,
        second=second,
        partitions_as_sources=_flag(partitions_as_sources, "partitions_as_sources"),
    )
    return s


def _flag(v: Any, name: str) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    raise ValueError(f"{name} must be True or False, got {v!r}")


def _idle(v: Any) -> int:
    ms = parse_duration(v, name="idleness", allow_negative=True)
    if ms <= 0:
        raise ValueError(f"idleness (idle timeout) must be > 0, got {v!r}")
    return _sane(ms, v, "idleness")


def _assigner_config(a: Any) -> dict | None:
    from toolkit.engine import assigners as A

    if type(a) is A.TumblingEventTimeWindows:
        return {"type": "tumbling", "size": a.size, "offset": a.offset}
    if type(a) is A.SlidingEventTimeWindows:
        return {"type": "sliding", "size": a.size, "slide": a.slide, "offset": a.offset}
    if type(a) is A.EventTimeSessionWindows:
        return {"type": "session", "gap": a.gap}
    if type(a) is A.GlobalWindows:
        return {"type": "global", "end_of_stream_trigger": a.end_of_stream}
    return None


# ----------------------------------------------------------------------------------------
# result
# ----------------------------------------------------------------------------------------


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
    _export: Callable[[], list[str]] | None = field(default=None, repr=False)

    def summary(self) -> dict:
        f = self.fates["fate"].value_counts()
        em = self.emissions
        fires = em[em["kind"] == "fire"] if len(em) else em
        return {
            "records": int(len(self.fates)),
            "on_time": int(f.get("on_time", 0)),
            "late_accepted": int(f.get("late_accepted", 0)),
            "dropped": int(f.get("dropped", 0)),
            "firings": int(len(fires)),
            "late_firings": int((fires["timing"] == "late").sum()) if len(fires) else 0,
            "at_end_firings": int(fires["at_end"].sum()) if len(fires) else 0,
            "late_side_output": int(len(self.late)),
            "peak_open_windows": int(self.state["open_windows"].max()) if len(self.state) else 0,
            "peak_buffered_records": int(self.state["buffered_records"].max()) if len(self.state) else 0,
            "settings": self.settings,
        }

    def scenario_lines(self, stage: int = 1) -> list[str]:
        """The record/watermark interleaving the (``stage``) operator saw, in the window-scenario format."""
        if self._export is None:
            raise ValueError("this replay cannot be exported")
        if stage not in (1, 2) or (stage == 2 and self.second_emissions is None):
            raise ValueError("stage must be 1, or 2 for a replay with a second_window")
        return self._export(stage)

    def export_scenario(self, path: str | Path, stage: int = 1) -> Path:
        """Write :meth:`scenario_lines` to ``path`` (one JSON object per line)."""
        p = Path(path)
        p.write_text("".join(line + "\n" for line in self.scenario_lines(stage)))
        return p


# ----------------------------------------------------------------------------------------
# replay
# ----------------------------------------------------------------------------------------


def _log_arrays(log: Any, marker: Any) -> dict[str, Any]:
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
    if marker is not None:
        if isinstance(marker, str):
            if marker not in table.columns:
                raise ValueError(f"punctuated generator: marker column {marker!r} is not in the log (columns: {', '.join(table.columns)})")
            mk = t[marker].to_numpy(dtype=bool)
        else:
            mk = np.fromiter((bool(marker(a, b, c)) for a, b, c in zip(ts.tolist(), keys.tolist(), vals.tolist())), bool, len(ts))
    return {"ts": ts, "arr": arr, "part": part, "keys": keys, "vals": vals, "rows": rows, "marker": mk, "has_arr": has_arr}


def _fast_eligible(s: ReplaySettings) -> bool:
    """Configs the engine runs on its fast path, whose fates are computed here in closed form:
    tumbling/sliding event-time windows, the event-time trigger, no evictor, count/sum."""
    from toolkit.engine import assigners as A
    from toolkit.engine.functions import CountSum
    from toolkit.engine.triggers import EventTimeTrigger

    return (
        type(s.assigner) in (A.TumblingEventTimeWindows, A.SlidingEventTimeWindows)
        and (s.trigger is None or type(s.trigger) is EventTimeTrigger)
        and s.evictor is None
        and type(s.function) is CountSum
        and s.accumulation in ("accumulating", "discarding")
        and s.second is None
    )


def closed_form_fates(
    ts: np.ndarray, keys: np.ndarray, record_wm: np.ndarray, change_pos: np.ndarray, change_wm: np.ndarray,
    size: int, slide: int, offset: int, lateness: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Fates for tumbling (``slide == size``) / sliding windows with the event-time trigger.

    Records in arrival order; ``record_wm`` the operator watermark each one saw. A record is
    accepted by window w iff ``max_ts(w) + lateness > wm``. Window w first fires at the first
    watermark change ``>= max_ts(w)`` (position P) with every record accepted before P; if it
    had none, its first accepted record fires it at once. Returns ``(fate code, late mask)``
    with codes 0 on_time, 1 late_accepted, 2 dropped; ``late`` = sent to the late side output.
    """
    n = len(ts)
    nw = -(-size // slide)
    last_start = ts - np.mod(ts - offset, slide)
    starts = last_start[:, None] - slide * np.arange(nw, dtype=np.int64)[None, :]
    inside = starts > (ts - size)[:, None]
    rec = np.broadcast_to(np.arange(n, dtype=np.int64)[:, None], starts.shape)[inside]
    st = starts[inside]
    max_ts = st + (size - 1)
    accepted = max_ts + lateness > record_wm[rec]
    kc = pd.factorize(pd.Series(keys, dtype=object))[0].astype(np.int64)
    # group = (key, window start)
    widx = (st - st.min()) // slide if len(st) else st  # starts lie on one slide grid
    g = pd.factorize(kc[rec] * (int(widx.max()) + 1 if len(widx) else 1) + widx)[0]
    ng = int(g.max()) + 1 if len(g) else 0
    g_max_ts = np.empty(ng, dtype=np.int64)
    g_max_ts[g] = max_ts
    idx = np.searchsorted(change_wm, g_max_ts, side="left")
    inf = np.int64(n + 1)
    P = np.where(idx < len(change_pos), change_pos[np.minimum(idx, max(len(change_pos) - 1, 0))] if len(change_pos) else inf, inf)
    early = accepted & (rec < P[g])
    has_early = np.bincount(g, weights=early, minlength=ng) > 0
    first_acc = np.full(ng, inf, dtype=np.int64)
    np.minimum.at(first_acc, g[accepted], rec[accepted])
    on_time_pair = early | (accepted & ~has_early[g] & (rec == first_acc[g]))
    on_time = np.zeros(n, bool)
    on_time[rec[on_time_pair]] = True
    acc = np.zeros(n, bool)
    acc[rec[accepted]] = True
    fate = np.where(on_time, 0, np.where(acc, 1, 2)).astype(np.int8)
    late = ~acc & (ts + lateness <= record_wm)
    return fate, late


_ALIASES = {
    "source_parallelism": "parallelism",
    "idle_timeout": "idleness",
    "allowed_lateness": "lateness",
    "max_out_of_orderness": "delay",
    "assigner": "window",
}


def replay(log: Any, **settings: Any) -> ReplayResult:
    """Replay ``log`` (an :class:`toolkit.log.EventLog`) under ``settings`` (see the module doc)."""
    from toolkit.engine.operator import WindowOperator

    if getattr(log, "is_spark", False) or getattr(log, "_table", 1) is None:
        raise ValueError("replay needs a local log; collect a Spark-backed log with log.to_pandas() first")
    for alias, name in _ALIASES.items():
        if alias in settings:
            if name in settings:
                raise ValueError(f"give either {alias!r} or {name!r}, not both")
            settings[name] = settings.pop(alias)
    has_arr = bool(log.has_arrival_time)
    interval_given = "interval" in settings
    s = make_settings(has_arrival_time=has_arr, interval_given=interval_given, **settings)
    gen_name = s.generator["generator"]
    marker = s.marker if gen_name == "punctuated" else None
    if gen_name == "punctuated" and marker is None:
        marker = "marker"
    a = _log_arrays(log, marker)
    if not s.partitions_as_sources:  # one watermark generator for the whole stream
        a["part"] = np.zeros_like(a["part"])
    n = len(a["ts"])
    if n == 0:
        raise ValueError("the log has no valid records to replay")

    tl = watermark_timeline(a["ts"], a["arr"], a["part"], s.strategy, interval=s.interval, parallelism=s.parallelism, marker=a["marker"])

    fast = _fast_eligible(s)

    def make_op() -> WindowOperator:
        return WindowOperator(
            s.assigner,
            trigger=s.trigger,
            evictor=s.evictor,
            allowed_lateness=s.lateness,
            function=s.function,
            accumulation=s.accumulation,
            track_records=not fast,
        )

    second = None
    to_stage2 = None
    if s.second:
        from toolkit.engine.functions import CountSum

        def second() -> WindowOperator:
            return WindowOperator(s.second["assigner"], allowed_lateness=s.second["lateness"], function=CountSum())

        def to_stage2(r: Any):
            if getattr(r, "kind", None) != "fire":
                return None
            v = r.value
            return (r.key, r.timestamp, getattr(v, "sum", v))

    res = run_pipeline(tl, a["keys"], a["ts"], a["arr"], a["vals"], a["rows"], make_op, second_stage=second, result_to_stage2=to_stage2)
    if fast:
        a_cfg = s.assigner_config or {}
        size = int(a_cfg["size"])
        slide = int(a_cfg.get("slide", size))
        eff_off = int(np.fmod(int(a_cfg.get("offset", 0)), slide))
        codes, late_mask = closed_form_fates(
            a["ts"], a["keys"], tl.record_watermark(n), tl.change_pos, tl.change_watermark, size, slide, eff_off, s.lateness
        )
        _fill_late_ids(res, a["rows"][late_mask])
        em, late, _ = _emissions(res, 1, has_arr, a)
        fates = _fates_from_codes(log, a["rows"], codes)
    else:
        em, late, fires_ids = _emissions(res, 1, has_arr, a)
        fates = _fates(log, a["rows"], fires_ids)
    wms = _watermarks(tl, res, has_arr)
    state = pd.DataFrame(res.state, columns=["time", "open_windows", "buffered_records"]).astype("int64")
    if not has_arr:
        state["time"] = pd.array([pd.NA] * len(state), dtype="Int64")
    stages = pd.DataFrame(res.stage_watermarks, columns=["stage", "side", "time", "watermark"]) if s.second else None
    em2, late2, _ = _emissions(res, 2, has_arr, a) if s.second else (None, None, None)
    settings_d = s.as_dict()
    settings_d["has_arrival_time"] = has_arr

    def export(stage: int = 1) -> list[str]:
        if stage == 2:
            return _stage2_lines(s, res)
        return _scenario_lines(s, tl, a)

    return ReplayResult(em, fates, late, wms, state, settings_d, tl, stages, em2, late2, export)


_EM_COLS = ["key", "window_start", "window_end", "max_timestamp", "pane", "timing", "kind", "count", "sum", "value",
            "watermark", "emit_time", "at_end"]


def _emissions(res: PipelineResult, stage: int, has_arr: bool, a: dict) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    rows = []
    late_rows = []
    fire_ids: list[tuple[int, list]] = []  # (pane, record ids) of fire results
    for seq, (st, at_end, it) in enumerate(res.outputs):
        if st != stage:
            continue
        if getattr(it, "kind", None) == "late":
            late_rows.append((it.record_id, it.key, it.timestamp, it.value, it.watermark, it.processing_time, seq))
            continue
        w = it.window
        start = getattr(w, "start", None)
        end = getattr(w, "end", None)
        v = it.value
        cnt = sm = None
        if "count" in getattr(v, "_fields", ()):
            cnt, sm = v.count, v.sum
        elif isinstance(v, (list, tuple)):
            cnt = len(v)
            sm = sum(v) if all(isinstance(x, (int, float, np.number)) for x in v) else None
        elif isinstance(v, (int, float, np.number)):
            sm = v
        rows.append((it.key, start, end, it.timestamp, it.pane, it.timing, it.kind, cnt, sm, v, it.watermark,
                     it.processing_time, bool(at_end or it.timing == "at_end"), seq))
        if it.kind == "fire" and it.record_ids is not None:
            fire_ids.append((it.pane, it.record_ids))
    em = pd.DataFrame(rows, columns=_EM_COLS + ["seq"])
    for c in ("window_start", "window_end", "count"):
        em[c] = pd.array(em[c].tolist(), dtype="Int64")
    em["max_timestamp"] = em["max_timestamp"].astype("int64")
    em["pane"] = em["pane"].astype("int64")
    em["watermark"] = em["watermark"].astype("int64")
    em["emit_time"] = pd.array(em["emit_time"].tolist() if has_arr else [pd.NA] * len(em), dtype="Int64")
    em["at_end"] = em["at_end"].astype(bool)
    if not len(em):
        em["sum"] = em["sum"].astype("float64")
    late = _late_frame(late_rows, a, has_arr)
    return em, late, fire_ids


def _late_frame(late_rows: list, a: dict, has_arr: bool) -> pd.DataFrame:
    df = pd.DataFrame(late_rows, columns=["row", "key", "event_time", "value", "watermark", "arrival_time", "seq"])
    df["row"] = pd.array(df["row"].tolist(), dtype="Int64")
    df["event_time"] = df["event_time"].astype("int64")
    df["watermark"] = df["watermark"].astype("int64")
    if has_arr and len(df) and df["row"].notna().all():
        # arrival time of the record itself (the operator's processing time equals it)
        pos = pd.Series(np.asarray(a["arr"]), index=a["rows"])
        df["arrival_time"] = pos.loc[df["row"].astype("int64").to_numpy()].to_numpy()
    df["arrival_time"] = pd.array(df["arrival_time"].tolist() if has_arr else [pd.NA] * len(df), dtype="Int64")
    return df


_FATE_NAMES = np.array(["on_time", "late_accepted", "dropped"], dtype=object)


def _fates_from_codes(log: Any, rows: np.ndarray, codes: np.ndarray) -> pd.DataFrame:
    table_rows = log.table["row"].to_numpy(dtype=np.int64)
    by_row = pd.Series(codes, index=rows)
    fate = _FATE_NAMES[by_row.loc[table_rows].to_numpy()]
    return pd.DataFrame({"row": table_rows, "fate": fate}, index=log.table.index)


def _fill_late_ids(res: PipelineResult, late_rows: np.ndarray) -> None:
    """The engine's fast path emits late records without ids: they come in arrival order."""
    items = [it for st, _, it in res.outputs if st == 1 and getattr(it, "kind", None) == "late"]
    if len(items) != len(late_rows):
        raise RuntimeError(f"internal: {len(items)} late records emitted, {len(late_rows)} expected")
    for it, r in zip(items, late_rows.tolist()):
        if it.record_id is None:
            it.record_id = r


def _fates(log: Any, rows: np.ndarray, fire_ids: list) -> pd.DataFrame:
    n_rows_max = int(rows.max()) + 1 if len(rows) else 0
    in0 = np.zeros(n_rows_max, bool)
    inlater = np.zeros(n_rows_max, bool)
    first = [ids for pane, ids in fire_ids if pane == 0 and ids]
    later = [ids for pane, ids in fire_ids if pane != 0 and ids]
    if first:
        in0[np.fromiter((i for ids in first for i in ids), np.int64)] = True
    if later:
        inlater[np.fromiter((i for ids in later for i in ids), np.int64)] = True
    table_rows = log.table["row"].to_numpy(dtype=np.int64)
    fate = np.where(in0[table_rows], "on_time", np.where(inlater[table_rows], "late_accepted", "dropped"))
    return pd.DataFrame({"row": table_rows, "fate": fate}, index=log.table.index)


def _watermarks(tl: WatermarkTimeline, res: PipelineResult, has_arr: bool) -> pd.DataFrame:
    rank = {"partition": 0, "subtask": 1, "operator": 2}
    rows = sorted(tl.log, key=lambda r: (r[2], rank[r[0]], r[1]))
    rows.append(("operator", 0, res.end_time, MAX_WATERMARK, "active"))
    cols = list(zip(*rows))
    return pd.DataFrame({
        "level": pd.array(cols[0], dtype=object),
        "id": np.asarray(cols[1], dtype=np.int64),
        "time": pd.array(list(cols[2]) if has_arr else [pd.NA] * len(rows), dtype="Int64"),
        "watermark": pd.array([pd.NA if w is None else int(w) for w in cols[3]], dtype="Int64"),
        "status": pd.array(cols[4], dtype=object),
    })


def _scenario_lines(s: ReplaySettings, tl: WatermarkTimeline, a: dict) -> list[str]:
    """Records and operator watermarks in the order the operator saw them (window-scenario format)."""
    from toolkit.engine.wm_scenario import dumps

    if s.assigner_config is None:
        raise ValueError("export needs a window given as a spec string or a built-in assigner")
    if s.function_name != "count_sum":
        raise ValueError("export supports the default count/sum function only")
    vals = a["vals"]
    if not np.issubdtype(np.asarray(vals).dtype, np.integer):
        v = np.asarray(vals, dtype=float)
        if not np.all(v == np.round(v)):
            raise ValueError("export needs integer values (the scenario format has integer values)")
    cfg = {
        "assigner": s.assigner_config,
        "trigger": s.trigger_config,
        "evictor": s.evictor_config,
        "allowed_lateness": s.lateness,
        "side_output_late": True,
        "function": "aggregate",
    }
    out = [dumps(cfg)]
    keys = a["keys"].tolist()
    ts = a["ts"].tolist()
    vl = [int(x) for x in np.asarray(vals).tolist()]
    cp = tl.change_pos.tolist()
    cw = tl.change_watermark.tolist()
    j = 0
    for i in range(len(ts)):
        while j < len(cp) and cp[j] <= i:
            out.append(dumps({"watermark": cw[j]}))
            j += 1
        out.append(dumps({"record": {"key": str(keys[i]), "ts": ts[i], "value": vl[i]}}))
    while j < len(cp):
        out.append(dumps({"watermark": cw[j]}))
        j += 1
    return out


def _stage2_lines(s: ReplaySettings, res: PipelineResult) -> list[str]:
    """What the second stage saw: stage-1 results (ts = max_timestamp, value = sum) and the
    watermarks stage 1 forwarded, in the window-scenario format."""
    from toolkit.engine.wm_scenario import dumps

    assert s.second is not None
    cfg = {"assigner": s.second["assigner_config"], "trigger": None, "evictor": None,
           "allowed_lateness": s.second["lateness"], "side_output_late": True, "function": "aggregate"}
    out = [dumps(cfg)]
    for ev in res.stage2_input:
        if ev[0] == "watermark":
            out.append(dumps({"watermark": int(ev[1])}))
        else:
            _, key, ts, value = ev
            if isinstance(value, float) and not value.is_integer():
                raise ValueError("export needs integer values (the scenario format has integer values)")
            out.append(dumps({"record": {"key": str(key), "ts": int(ts), "value": int(value)}}))
    return out


def oracle_lines(result: ReplayResult, stage: int = 1) -> list[dict]:
    """Emissions and late records as the window oracle prints them (function ``aggregate``),
    in emission order (``seq``)."""
    items: list[tuple[int, dict]] = []
    em = result.emissions if stage == 1 else result.second_emissions
    late = result.late if stage == 1 else result.second_late
    for r in em.itertuples(index=False):
        if r.kind != "fire":
            continue
        sm = r.sum
        if isinstance(sm, float) and sm.is_integer():
            sm = int(sm)
        items.append((int(r.seq), {
            "kind": "fire", "key": r.key,
            "start": None if pd.isna(r.window_start) else int(r.window_start),
            "end": None if pd.isna(r.window_end) else int(r.window_end),
            "max_ts": int(r.max_timestamp), "values": None, "count": int(r.count), "sum": sm,
            "watermark": int(r.watermark)}))
    for r in late.itertuples(index=False):
        v = r.value
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        items.append((int(r.seq), {"kind": "late", "key": r.key, "ts": int(r.event_time), "value": v}))
    items.sort(key=lambda x: x[0])
    return [d for _, d in items]


from toolkit._callable import make_module_callable  # noqa: E402

make_module_callable(__name__, "replay")
