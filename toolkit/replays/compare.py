"""Engines side by side: one log, "the same" setting in each engine, record by record.

``toolkit.compare_engines(log, setting, semantics=["flink", "spark"])`` translates the setting
to every engine (:mod:`toolkit.replays.translate` states what maps and what does not), replays
the log once per engine and returns an :class:`EngineComparison`:

* ``fates``: one row per record (log row, key, partition, event and arrival time) with its
  fate in each engine (``fate_flink``, ``fate_spark`` ...);
* ``figures``: one row per engine with the replay's summary (drops, first-result
  completeness, latency, state) under the translated setting;
* ``kept_dropped``: for every ordered pair of engines, the records A keeps (on time or late
  but accepted) and B drops;
* :meth:`EngineComparison.differences` lists those records with readable times and why B
  dropped them (Flink: :func:`toolkit.replays.explain.drops`; Spark: the micro-batch whose late
  filter skipped it and the watermark it used), :meth:`EngineComparison.examples` the first
  few in words.

A record is *kept* by an engine when it is in some result (``on_time`` or ``late_accepted``)
and *dropped* when it is in none (``dropped``).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from toolkit.durations import readable
from toolkit.replays.explain import instant_text
from toolkit.replays.run import ReplayResult, replay
from toolkit.replays.translate import Translation, delay_setting, same_setting
from toolkit.settings import Session, Setting, SettingError, Sliding, Tumbling
from toolkit.sweeps.choose import engine_name, percent

KEPT = ("on_time", "late_accepted")

#: the figures of ``EngineComparison.figures`` (``replay(...).summary()``'s, in this order)
FIGURES = ("records", "on_time", "late_accepted", "dropped", "completeness_first", "completeness_final",
           "exact_windows", "latency_p50_ms", "latency_p99_ms", "firings", "peak_state_windows",
           "peak_state_records", "mean_state_records")

_EPOCH_MS = 10**11


def _instant(ms: Any) -> str:
    return instant_text(ms, abs(int(ms)) >= _EPOCH_MS)


# ------------------------------------------------------------------------ why an engine dropped
WhyDropped = Callable[[ReplayResult, np.ndarray], "tuple[list[str], list[Any]]"]
_WHY: dict[str, WhyDropped] = {}


def register_why(semantics: str, why: WhyDropped) -> None:
    """How an engine explains its drops: ``why(result, rows) -> (texts, delays_to_keep_ms)``,
    one sentence (and the smallest delay that keeps the record, or None) per log row."""
    _WHY[semantics] = why


def _why_flink(result: ReplayResult, rows: np.ndarray) -> tuple[list[str], list[Any]]:
    d = result.drops(fates=("dropped",)).set_index("row")
    texts, keep = [], []
    lateness = int(result.setting.lateness)
    for r in rows.tolist():
        x = d.loc[r]
        if not int(x["windows"]):
            texts.append("it is in no window (a gap between sliding windows)")
            keep.append(None)
            continue
        t = (f"the watermark was {x['watermark_at']} when it arrived, {x['missed_by']} past its window's "
             f"cleanup time (window end + {readable(lateness)} allowed lateness)")
        if x["held_by"]:
            t += f"; held by {x['held_by']}"
        texts.append(t)
        v = x["delay_to_keep_ms"]
        keep.append(None if pd.isna(v) else int(v))
    return texts, keep


def _last_window_end(s: Setting, ts: np.ndarray) -> np.ndarray:
    """End of the latest window holding each event time (Spark's epoch-aligned windows)."""
    w = s.window
    if isinstance(w, Session):
        return ts + w.gap
    slide = w.slide if isinstance(w, Sliding) else w.size
    return ts - np.mod(ts, slide) + w.size


def _why_spark(result: ReplayResult, rows: np.ndarray) -> tuple[list[str], list[Any]]:
    s = result.setting
    late = result.late.assign(row=result.late["row"].astype("int64")).set_index("row")
    interval = int(s.trigger_interval)
    texts, keep = [], []
    x = late.loc[rows.tolist()]
    ts = x["event_time"].to_numpy(np.int64)
    arr = x["arrival_time"].to_numpy(np.int64)
    wm = x["watermark"].to_numpy(np.int64)
    end = _last_window_end(s, ts)
    tick = -(-arr // interval) * interval  # trigger ticks are multiples of the interval
    what = "its session (event time + gap)" if isinstance(s.window, Session) else "its window"
    for e, a, w, k in zip(end.tolist(), arr.tolist(), wm.tolist(), tick.tolist()):
        texts.append(f"it arrived at {_instant(a)}, in the micro-batch of the trigger at {_instant(k)}, whose "
                     f"late filter used the previous batch's watermark {_instant(w)}; {what} ended at "
                     f"{_instant(e)}, {readable(w - e)} before it, so the aggregation skipped the row")
        keep.append(int(s.delay) + (w - e) + 1)
    return texts, keep


def _why_kafka(result: ReplayResult, rows: np.ndarray) -> tuple[list[str], list[Any]]:
    """Kafka Streams skips a record whose window closed: its task's stream time (the largest
    timestamp the task had seen, ``late.watermark``) reached window end + grace."""
    s = result.setting
    late = result.late.assign(row=result.late["row"].astype("int64")).set_index("row")
    x = late.loc[rows.tolist()]
    ts = x["event_time"].to_numpy(np.int64)
    st = x["watermark"].to_numpy(np.int64)
    fixed = isinstance(s.window, (Tumbling, Sliding))
    end = _last_window_end(s, ts) if fixed else ts
    grace = int(getattr(s, "grace", 0) or 0)
    texts, keep = [], []
    tasks = x["task"].tolist() if "task" in x else [None] * len(x)
    for a, e, t, task in zip(x["arrival_time"].tolist(), end.tolist(), st.tolist(), tasks):
        who = f"task {task}'s" if task is not None else "its task's"
        if fixed:
            texts.append(f"it arrived at {_instant(a)}, when {who} stream time (the largest timestamp it had seen) "
                         f"was {_instant(t)}: its window ended at {_instant(e)}, and with a {readable(grace)} grace it "
                         f"had closed at {_instant(e + grace)}, so the record was skipped")
            keep.append(t - e + 1)
        else:
            texts.append(f"it arrived at {_instant(a)}, when {who} stream time was {_instant(t)}, past its "
                         f"session's close (last event + {readable(grace)} grace), so the record was skipped")
            keep.append(None)
    return texts, keep


def _why_beam(result: ReplayResult, rows: np.ndarray) -> tuple[list[str], list[Any]]:
    """Beam drops an element from a window whose end + allowed lateness its watermark had passed
    (``expired``), ignores it in a window whose trigger had finished (``finished``), or keeps it
    in a window that never fires again (``never_fired``)."""
    s = result.setting
    late = result.late.assign(row=result.late["row"].astype("int64")).set_index("row")
    x = late.loc[rows.tolist()]
    ts = x["event_time"].to_numpy(np.int64)
    fixed = isinstance(s.window, (Tumbling, Sliding))
    end = _last_window_end(s, ts)
    lateness = int(s.lateness)
    texts, keep = [], []
    for a, e, w, reason in zip(x["arrival_time"].tolist(), end.tolist(), x["watermark"].tolist(), x["reason"].tolist()):
        if reason == "expired":
            what = "its window ended" if fixed else "its own session window [event time, + gap) ended"
            texts.append(f"it arrived at {_instant(a)}, when Beam's watermark was {_instant(w)}: {what} at "
                         f"{_instant(e)}, and with {readable(lateness)} allowed lateness it had expired at "
                         f"{_instant(e + lateness)}, so the element was dropped")
            keep.append(int(s.delay) + (w - (e + lateness)) if fixed else None)
        elif reason == "finished":
            texts.append(f"it arrived at {_instant(a)} in a window whose trigger ({s.beam_trigger}) had finished: Beam "
                         "ignores elements of a finished window")
            keep.append(None)
        else:
            texts.append(f"it was taken but its window never fired again (trigger {s.beam_trigger}): in Beam the "
                         "pipeline would stall")
            keep.append(None)
    return texts, keep


register_why("flink", _why_flink)
register_why("beam", _why_beam)
register_why("spark", _why_spark)
register_why("kafka_streams", _why_kafka)


# ------------------------------------------------------------------------------ the comparison
@dataclass
class EngineComparison:
    """One log under the same setting in several engines (see the module doc)."""

    translations: dict[str, Translation]
    results: dict[str, ReplayResult]
    fates: pd.DataFrame
    _log: Any = field(default=None, repr=False)

    @property
    def semantics(self) -> list[str]:
        return list(self.results)

    @property
    def settings(self) -> dict[str, Setting]:
        return {k: t.setting for k, t in self.translations.items()}

    @property
    def figures(self) -> pd.DataFrame:
        """One row per engine: its setting and ``FIGURES`` from its replay's summary."""
        rows = []
        for name, r in self.results.items():
            summ = r.summary()
            rows.append({"semantics": name, "setting": str(self.translations[name].setting),
                         **{k: summ.get(k) for k in FIGURES}})
        return pd.DataFrame(rows)

    def kept(self, semantics: str) -> pd.Series:
        """True for the records ``semantics`` keeps (in some result)."""
        return self.fates[f"fate_{self._name(semantics)}"].isin(KEPT)

    @property
    def kept_dropped(self) -> pd.DataFrame:
        """For every ordered pair (A, B): ``kept_by``, ``dropped_by``, ``records`` kept by A and
        dropped by B, and their ``share`` of the log's records."""
        n = max(len(self.fates), 1)
        rows = []
        for a, b in itertools.permutations(self.semantics, 2):
            k = int((self.kept(a) & ~self.kept(b)).sum())
            rows.append({"kept_by": a, "dropped_by": b, "records": k, "share": k / n})
        return pd.DataFrame(rows, columns=["kept_by", "dropped_by", "records", "share"])

    def _name(self, semantics: str) -> str:
        if semantics not in self.results:
            raise SettingError("semantics", f"semantics {semantics!r} was not compared; compared: "
                               f"{', '.join(self.results)}")
        return semantics

    def differences(self, kept_by: str, dropped_by: str, limit: int | None = None) -> pd.DataFrame:
        """Records ``kept_by`` keeps and ``dropped_by`` drops (arrival order, at most ``limit``):
        raw columns of ``fates``, readable ``event``/``arrival`` times, both fates, ``why`` the
        second engine dropped it and ``delay_to_keep`` (the smallest delay that keeps it there: its
        :func:`toolkit.replays.translate.delay_setting`, e.g. Kafka Streams' grace)."""
        a, b = self._name(kept_by), self._name(dropped_by)
        f = self.fates[self.kept(a) & ~self.kept(b)].sort_values(["arrival_time", "row"], kind="mergesort")
        if limit is not None:
            f = f.head(int(limit))
        f = f.reset_index(drop=True)
        why = _WHY.get(b)
        if why is not None and len(f):
            texts, keep = why(self.results[b], f["row"].to_numpy(np.int64))
        else:
            texts = [f"(no explanation is registered for {engine_name(b)}: toolkit.replays.compare.register_why)"] * len(f)
            keep = [None] * len(f)
        out = f.assign(event=[_instant(v) for v in f["event_time"].tolist()],
                       arrival=[_instant(v) for v in f["arrival_time"].tolist()],
                       late_by=[readable(v) for v in (f["arrival_time"] - f["event_time"]).tolist()],
                       why=texts, delay_to_keep=[readable(v) if v is not None else "" for v in keep])
        out["delay_to_keep_ms"] = pd.array(keep, dtype="Int64")
        return out

    def examples(self, n: int = 3) -> list[str]:
        """Up to ``n`` records per ordered pair of engines that one keeps and the other drops, in words."""
        out = []
        for a, b in itertools.permutations(self.semantics, 2):
            d = self.differences(a, b, limit=n)
            for r in d.itertuples(index=False):
                fate = "on time" if getattr(r, f"fate_{a}") == "on_time" else "late but accepted"
                knob = delay_setting(b)
                now = readable(getattr(self.translations[b].setting, knob) or 0)
                name_b = engine_name(b)
                article = "An" if name_b[:1].upper() in "AEIOU" else "A"
                keep = f" {article} {name_b} {knob} of {r.delay_to_keep} (now {now}) keeps it." if r.delay_to_keep else ""
                out.append(f"Row {r.row:,} (key {r.key}, partition {r.partition}, event time {r.event}, arrived "
                           f"{r.late_by} later) is kept by {engine_name(a)} ({fate}) and dropped by {engine_name(b)}: "
                           f"{r.why}.{keep}")
        return out

    def summary_text(self, examples: int = 2) -> str:
        """The comparison in words: the settings, each engine's figures, who keeps what the other
        drops, and up to ``examples`` examples per pair of engines."""
        lines = []
        for name, t in self.translations.items():
            lines.append(f"{name}: {t.setting}")
            lines += [f"  note: {n}" for n in t.notes]
        lines.append("")
        fig = self.figures
        for r in fig.itertuples(index=False):
            total = max(int(r.records), 1)
            lat = readable(r.latency_p99_ms) if not pd.isna(r.latency_p99_ms) else "n/a"
            lines.append(f"{r.semantics}: drops {_records_text(int(r.dropped))} ({percent(r.dropped / total)}), "
                         f"{percent(r.completeness_first)} complete in the first result, p99 latency {lat}, "
                         f"peak state {int(r.peak_state_records):,} records")
        lines.append("")
        for r in self.kept_dropped.itertuples(index=False):
            lines.append(f"kept by {r.kept_by}, dropped by {r.dropped_by}: {_records_text(r.records)} ({percent(r.share)})")
        ex = self.examples(examples) if examples else []
        if ex:
            lines += ["", "examples:"] + [f"- {e}" for e in ex]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary_text()

    def _repr_markdown_(self) -> str:
        return "```\n" + self.summary_text() + "\n```"

    def to_dict(self, examples: int = 5) -> dict:
        """JSON-ready: settings (text) and notes, figures, kept/dropped counts and examples."""
        return {
            "settings": {k: {"setting": str(t.setting), "notes": list(t.notes)} for k, t in self.translations.items()},
            "figures": _records(self.figures),
            "kept_dropped": _records(self.kept_dropped),
            "examples": self.examples(examples),
        }


def _records_text(n: int) -> str:
    return f"{n:,} record{'' if n == 1 else 's'}"


def _records(frame: pd.DataFrame) -> list[dict]:
    out = []
    for rec in frame.to_dict(orient="records"):
        out.append({k: (None if isinstance(v, float) and np.isnan(v) else v.item() if hasattr(v, "item") else v)
                    for k, v in rec.items()})
    return out


def _names(semantics: Any) -> list[str]:
    from toolkit.replays.translate import translatable

    if semantics is None:
        return list(translatable())
    if isinstance(semantics, str):
        return [n.strip().lower() for n in semantics.split(",") if n.strip()]
    return [str(n).strip().lower() for n in semantics]


def _base_setting(setting: Any, settings: dict, names: list[str]) -> Setting:
    """The setting as the user wrote it: in its own ``semantics`` when it names one, else in the
    first of ``names`` whose vocabulary it fits (Flink's lateness, Spark's trigger_interval ...)."""
    given = dict(settings)
    if isinstance(setting, Setting) or "semantics" in given or (isinstance(setting, dict) and "semantics" in setting) \
            or (isinstance(setting, str) and "semantics=" in setting):
        return Setting.parse(setting, **given)
    first: SettingError | None = None
    for name in names:
        try:
            return Setting.parse(setting, semantics=name, **given)
        except SettingError as exc:
            first = first or exc
    raise first if first is not None else SettingError("semantics", "semantics: give at least two engines")


def compare_engines(log: Any, setting: Any = None, /, semantics: Any = None, *, lateness_as: str = "drop",
                    **settings: Any) -> EngineComparison:
    """Replay ``log`` under ``setting`` (a :class:`Setting`, its text, a dict or keywords) as the
    same setting in each of ``semantics`` (a list or ``"flink,spark"``; default every engine
    with a translation). ``lateness_as``: ``"drop"`` or ``"delay"``, how an engine without
    allowed lateness reads it (:func:`toolkit.replays.translate.translate`)."""
    names = _names(semantics)
    base = _base_setting(setting, settings, names)
    translations = same_setting(base, names, lateness_as=lateness_as)
    if len(translations) < 2:
        raise SettingError("semantics", f"semantics: compare at least two engines, got {', '.join(translations)}")
    results = {name: replay(log, t.setting) for name, t in translations.items()}
    table = log.table
    fates = pd.DataFrame({"row": table["row"].to_numpy(np.int64), "key": table["key"].to_numpy(dtype=object),
                          "partition": table["partition"].to_numpy(np.int64),
                          "event_time": table["event_time"].to_numpy(np.int64),
                          "arrival_time": table["arrival_time"].to_numpy(np.int64)})
    for name, r in results.items():
        f = r.fates.set_index("row")["fate"]
        fates[f"fate_{name}"] = f.reindex(fates["row"]).to_numpy()
    return EngineComparison(translations, results, fates, log)


__all__ = ["EngineComparison", "FIGURES", "KEPT", "compare_engines", "register_why"]
