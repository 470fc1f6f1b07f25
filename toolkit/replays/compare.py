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
from typing import Any

import numpy as np
import pandas as pd

from toolkit.durations import glued, readable, readable_up
from toolkit.metrics.base import base_words, quarantine_words
from toolkit.replays.run import ReplayResult, replay
from toolkit.replays.translate import Translation, delay_setting, same_setting
from toolkit.replays.why import instant
from toolkit.semantics import get
from toolkit.settings import Setting, SettingError
from toolkit.sweeps.choose import engine_name, percent

KEPT = ("on_time", "late_accepted")

#: the figures of ``EngineComparison.figures`` (``replay(...).summary()``'s, in this order)
FIGURES = ("records", "on_time", "late_accepted", "dropped", "completeness_first", "completeness_final",
           "exact_windows", "latency_p50_ms", "latency_p99_ms", "firings", "peak_state_windows",
           "peak_state_records", "mean_state_records")



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
        dropped by B, and their ``share`` of the log's valid records (the records compared)."""
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
        engine = get(b)
        if engine.explains_drops and len(f):
            texts, keep = engine.why_dropped(self.results[b], f["row"].to_numpy(np.int64))
        else:
            texts = [f"(no explanation of {engine_name(b)}'s drops: its Semantics defines no why_dropped)"] * len(f)
            keep = [None] * len(f)
        out = f.assign(event=[instant(v) for v in f["event_time"].tolist()],
                       arrival=[instant(v) for v in f["arrival_time"].tolist()],
                       late_by=[readable(v) for v in (f["arrival_time"] - f["event_time"]).tolist()],
                       why=texts, delay_to_keep=[readable_up(v) if v is not None else "" for v in keep])
        out["delay_to_keep_ms"] = pd.array(keep, dtype="Int64")
        return out

    def examples(self, n: int = 1) -> list[str]:
        """Up to ``n`` records per ordered pair of engines that one keeps and the other drops, in
        words; a record several engines keep and one drops is one example that names them all."""
        found: dict[tuple[str, int], list] = {}  # (dropping engine, row) -> [record, keepers]
        for a, b in itertools.permutations(self.semantics, 2):
            for r in self.differences(a, b, limit=n).itertuples(index=False) if n else ():
                found.setdefault((b, int(r.row)), [r, []])[1].append(a)
        return [self._example(r, keepers, b) for (b, _), (r, keepers) in found.items()]

    def _example(self, r: Any, keepers: list[str], b: str) -> str:
        """One record kept by ``keepers`` and dropped by ``b``, why, and the delay that keeps it there."""
        def kept(a: str) -> str:
            return f"{engine_name(a)} ({'on time' if getattr(r, f'fate_{a}') == 'on_time' else 'late but accepted'})"

        knob = delay_setting(b)
        now = readable(getattr(self.translations[b].setting, knob) or 0)
        name_b = engine_name(b)
        article = "An" if name_b[:1].upper() in "AEIOU" else "A"
        keep = f" {article} {name_b} {knob} of {r.delay_to_keep} (now {now}) keeps it." if r.delay_to_keep else ""
        names = [kept(a) for a in keepers]
        by = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        part = self.results[b].partition_label(r.partition)
        return (f"Row {r.row:,} (key {r.key}, partition {part}, event time {r.event}, arrived {r.late_by} later) is "
                f"kept by {by} and dropped by {name_b}: {r.why}.{keep}")

    @property
    def valid_records(self) -> int:
        """The records compared (the log's valid records): the base of every share here."""
        return len(self.fates)

    def notes(self) -> list[str]:
        """What a reader of the figures needs besides them, per engine (``Semantics.figure_notes``)."""
        out = []
        for name, r in self.results.items():
            out += [f"{name}: {n}" for n in get(name).figure_notes(self.translations[name].setting, r.summary())]
        return out

    def summary_text(self, examples: int = 1, width: int = 100) -> str:
        """The comparison for a terminal ``width`` columns wide: the settings, a table of the
        engines' figures (kept and dropped, shares of the valid records), a table of who keeps
        what another drops, the notes the figures need, and up to ``examples`` examples per pair
        of engines."""
        first = next(iter(self.results.values())).summary()
        lines = ["settings (the same setting in each engine):"]
        for name, t in self.translations.items():
            lines += _wrap(f"{name}: {t.setting}", width, "    ")
            lines += [x for n in t.notes for x in _wrap(f"note: {n}", width, "      ", "  ")]
        invalid = quarantine_words(first)
        lines += ["", f"Figures {base_words(first)}" + (f" ({invalid})" if invalid else "") + ":"]
        lines += _table(*self._figures_table())
        lines += ["", f"Records kept by one engine (row) and dropped by another (column), of the {self.valid_records:,} "
                  "valid records:"]
        lines += _table(*self._kept_table())
        notes = self.notes()
        if notes:
            lines += ["", "notes:"] + [x for n in notes for x in _wrap(f"- {n}", width, "  ")]
        ex = self.examples(examples) if examples else []
        if ex:
            lines += ["", f"examples (up to {examples} per pair of engines; --examples N for more):"]
            lines += [x for e in ex for x in _wrap(f"- {e}", width, "  ")]
        return "\n".join(lines)

    def _figures_table(self) -> tuple[list[str], list[list[str]]]:
        head = ["engine", "kept", "share", "dropped", "share", "complete (first result)", "p99 latency",
                "peak state (records)"]
        rows = []
        for r in self.figures.itertuples(index=False):
            valid = max(int(r.on_time) + int(r.late_accepted) + int(r.dropped), 1)
            kept = int(r.on_time) + int(r.late_accepted)
            lat = readable(r.latency_p99_ms) if not pd.isna(r.latency_p99_ms) else "n/a"
            first = percent(r.completeness_first) if not pd.isna(r.completeness_first) else "n/a"
            rows.append([r.semantics, f"{kept:,}", percent(kept / valid), f"{int(r.dropped):,}",
                         percent(r.dropped / valid), first, lat,
                         f"{int(r.peak_state_records):,}" if not pd.isna(r.peak_state_records) else "n/a"])
        return head, rows

    def _kept_table(self) -> tuple[list[str], list[list[str]]]:
        kd = self.kept_dropped.set_index(["kept_by", "dropped_by"])
        rows = []
        for a in self.semantics:
            cells = []
            for b in self.semantics:
                if a == b:
                    cells.append("-")
                    continue
                r = kd.loc[(a, b)]
                cells.append(f"{int(r['records']):,} ({percent(r['share'])})" if r["records"] else "0")
            rows.append([a] + cells)
        return ["kept by \\ dropped by"] + list(self.semantics), rows

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
            "notes": self.notes(),
            "valid_records": self.valid_records,
        }


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    """Aligned text rows: the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [line(head)] + [line(r) for r in rows]


def _wrap(text: str, width: int, indent: str, first: str = "") -> list[str]:
    """``text`` wrapped to ``width`` columns, continuation lines indented by ``indent``."""
    import textwrap

    lines = textwrap.wrap(glued(text), width=max(40, width), initial_indent=first, subsequent_indent=indent,
                          break_long_words=False, break_on_hyphens=False) or [first + text]
    return [line.replace("\u00a0", " ") for line in lines]  # a number and its unit on one line


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


__all__ = ["EngineComparison", "FIGURES", "KEPT", "compare_engines"]
