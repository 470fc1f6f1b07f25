"""A replay's tables and figures as a person reads them (notebooks, the terminal).

The replay's own tables (``result.emissions``, ``late``, ``watermarks``, ``state``, ``fates``,
``drops()``) keep raw int64 milliseconds: they are data to compute with. :func:`readable` is the
one place that turns such a table into text a person reads, whatever table it is:

- **instants** (the columns of :data:`INSTANT_COLUMNS`) as UTC timestamps with milliseconds
  (``2023-11-14 22:13:21.092``) when the times are real epoch ms, else ``t=1.5 s`` (the worked
  examples' plain milliseconds); Flink's final watermark (``Long.MAX_VALUE``, the end of a
  bounded input) as ``end of input`` and its initial one (``Long.MIN_VALUE``) as ``no watermark
  yet``; a missing time (``<NA>``) as an empty cell;
- **durations** (a name ending in ``_ms``, or a setting name such as ``delay``) in their unit
  (``250 ms``, ``4.068 s``), under the name without ``_ms`` (unless the table already has a
  column of that name: then the raw one is left out, the readable one is already there); a
  missing idle timeout as ``no idleness``;
- **shares** (``completeness_first``, ``completeness_final``, ``exact_windows``, ``share``) as percentages,
  other numbers with thousands separators and 4 significant digits (``toolkit.viz._format``);
- **headers** in words, as the charts name them (:func:`header`): ``first-result completeness``,
  ``p99 result latency``, ``window start``.

It formats value by value: give it a slice of a long table (``.head()``, ``.tail()``, a filter).
A sweep's results read the same way: ``readable(results[["delay_ms", "completeness_first"]])``.

:func:`summary_table` shows ``result.summary()`` as a small table: fates with their share of
the records, completeness as percentages, latencies as durations, the settings as one line.
"""
from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

from toolkit.metrics.base import FATES, record_share, valid_records
from toolkit.replays.explain import instant_text
from toolkit.viz import _format as fmt
from toolkit.viz.sweep import METRIC_NAMES, name_of

INSTANT_COLUMNS = frozenset({
    "event_time", "arrival_time", "window_start", "window_end", "max_timestamp", "cleanup_time",
    "watermark", "emit_time", "time", "timestamp", "kafka_window_end", "holder_watermark",
})
"""Columns of the replay's tables that hold instants (int64 ms since the epoch, or plain ms)."""

_EPOCH_MS = 10**11  # below this, times read as plain ms (worked examples), above as UTC instants
_MARKER = 2**62     # at or beyond: Flink's Long.MIN_VALUE / Long.MAX_VALUE watermarks


def _ints(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(values as int64, present?) of a numeric column that may hold ``<NA>``."""
    present = col.notna().to_numpy()
    values = np.zeros(len(col), dtype=np.int64)
    if present.any():
        values[present] = col[present].to_numpy(dtype=np.int64)
    return values, present


def is_epoch_frame(frame: pd.DataFrame) -> bool:
    """Whether the instants of ``frame`` are real epoch ms (then they show as UTC timestamps)."""
    for c in frame.columns:
        if c in INSTANT_COLUMNS and pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]):
            v, ok = _ints(frame[c])
            v = v[ok & (v > -_MARKER) & (v < _MARKER)]
            if v.size and np.abs(v).max() >= _EPOCH_MS:
                return True
    return False


def instants(values: Any, epoch: bool) -> list[str]:
    """Instants in ms as text (see the module doc); ``None``/``<NA>`` as ``""``."""
    col = pd.Series(values)
    v, present = _ints(col)
    out = ["" for _ in range(len(v))]
    ok = present & (v > -_MARKER) & (v < _MARKER)
    if epoch and ok.any():
        text = np.datetime_as_string(v[ok].astype("datetime64[ms]"), unit="ms")
        for i, t in zip(np.flatnonzero(ok).tolist(), text.tolist()):
            out[i] = t.replace("T", " ")
        rest = present & ~ok
    else:
        rest = present
    for i in np.flatnonzero(rest).tolist():
        out[i] = instant_text(int(v[i]), epoch)
    return out


def header(column: Any) -> Any:
    """A column's header in words: ``delay_ms`` -> ``delay``, ``completeness_first`` ->
    ``first-result completeness``, ``window_start`` -> ``window start`` (as the charts name them);
    a name that is not a string is kept."""
    return name_of(column) if isinstance(column, str) else column


class ReadableFrame(pd.DataFrame):
    """What :func:`readable` returns: a DataFrame whose notebook HTML keeps each value on one line
    (JupyterLab lets table cells wrap, so a narrow column broke ``100 ms`` into ``100`` / ``ms`` and
    a timestamp between its date and time); headers still wrap between words."""

    _CLASS = "wl-readable"

    @property
    def _constructor(self) -> type:
        return ReadableFrame

    def _repr_html_(self) -> str | None:
        shown = super()._repr_html_()
        if shown is None:
            return None
        style = f"<style>table.{self._CLASS} td {{ white-space: nowrap; }}</style>"
        return style + shown.replace('class="dataframe"', f'class="dataframe {self._CLASS}"', 1)


def readable(frame: pd.DataFrame, *, epoch: bool | None = None) -> pd.DataFrame:
    """A copy of ``frame`` (any of a replay's tables, or a slice of one: ``result.emissions.tail()``)
    with instants and durations as text a person reads (see the module doc). ``epoch``: whether
    instants are UTC epoch ms (default: guessed from the values, as the charts do)."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"readable: expected a pandas DataFrame (e.g. result.emissions), got {type(frame).__name__}")
    frame = frame.infer_objects()  # numbers in object columns (a transposed dict of summaries) are numbers
    if epoch is None:
        epoch = is_epoch_frame(frame)
    out: dict[Any, Any] = {}
    heads: dict[Any, Any] = {}  # shown name -> header in words, from the raw name
    names = set(map(str, frame.columns))
    for c in frame.columns:
        col = frame[c]
        numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
        if c in INSTANT_COLUMNS and numeric:
            out[c] = instants(col, epoch)
        elif numeric or (fmt.is_duration(c) and col.isna().all()):
            shown = fmt.label(c)
            if shown != c and shown in names:
                continue  # the table has the readable column already (drops(): delay_to_keep)
            heads[shown] = header(c)
            if c == "share":  # a share of records (compare_engines' kept_dropped)
                out[shown] = [fmt.share(x) for x in col.tolist()]
            else:
                out[shown] = [fmt.cell(c, x) for x in col.tolist()]
        else:
            out[c] = col.to_numpy()
    return ReadableFrame(out, index=frame.index).rename(columns=lambda c: heads.get(c) or header(c))


# -------------------------------------------------------------------------------------- summary
_NAMES = {**METRIC_NAMES, "records": "records", "dropped": "dropped", "invalid": "invalid (quarantined)",
          "never_fired": "never fired (of the dropped)", "late_side_output": "late side output",
          "at_end_firings": "firings at end of input"}
"""A figure's name in a summary table: the charts' names (``METRIC_NAMES``) and the fates'."""


def count_row(name: str, v: Any, summary: dict) -> tuple[str | None, str] | None:
    """A record count of ``summary`` on the one base of shares (:mod:`toolkit.metrics.base`):
    ``records`` as the valid records (the base), each fate with its share of them
    (``297 (0.99%)``), the quarantined rows counted apart. (name or None to keep the figure's
    own, text); None for a figure that is not a record count."""
    if name == "records":
        return "valid records", fmt.Figure(f"{valid_records(summary):,} (every share's base)")
    if name == "invalid":
        return "quarantined rows", fmt.Figure(f"{int(v or 0):,} (in no share)")
    if name in FATES or name == "never_fired":
        part = record_share(v, summary) if fmt.is_number(v) else None
        return None, fmt.Figure(f"{fmt.number(v)} ({fmt.share(part)})") if part is not None else fmt.cell(name, v)
    return None


def summary_rows(summary: dict) -> list[tuple[str, str]]:
    """(name, text) of every figure of ``summary`` (``result.summary()``) but ``settings``: the
    record counts by :func:`count_row` (fates with their share of the valid records),
    completeness as percentages, latencies as durations, yes/no for a flag (Beam's ``stalled``)."""
    rows = []
    for name, v in summary.items():
        if name in ("settings", "latency_tail"):  # the latency tail is a sentence: SummaryTable.note
            continue
        own = _NAMES.get(name) or fmt.label(name).replace("_", " ")
        counted = count_row(name, v, summary)
        text = ("yes" if v else "no") if isinstance(v, (bool, np.bool_)) else fmt.cell(name, v)
        rows.append((counted[0] or own, counted[1]) if counted else (own, text))
    return rows


class SummaryTable:
    """``result.summary()`` shown as a table (HTML in a notebook, aligned text in a terminal);
    ``.rows`` holds the (name, text) pairs, ``.summary`` the figures themselves."""

    def __init__(self, summary: dict, columns: int = 3, caption: str | None = None) -> None:
        self.summary = dict(summary)
        self.columns = columns
        self.rows = summary_rows(self.summary)
        settings = self.summary.get("settings")
        if caption is None and isinstance(settings, dict):  # the setting as the user wrote it
            caption = "replay: " + (str(settings["text"]) if settings.get("text") else fmt.settings_text(settings))
        self.caption = caption or ""
        #: what dominates the latency tail, in words (``toolkit.replays.latency``), under the table
        self.note = str(self.summary.get("latency_tail") or "")

    def _repr_html_(self) -> str:
        note = f"<p>{html.escape(self.note)}</p>" if self.note else ""
        return fmt.kv_grid(self.rows, columns=self.columns, caption=self.caption) + note

    def __str__(self) -> str:
        width = max((len(n) for n, _ in self.rows), default=0)
        lines = [self.caption] if self.caption else []
        lines += [f"{n.ljust(width)}  {t}" for n, t in self.rows]
        return "\n".join(lines + ([self.note] if self.note else []))

    def __repr__(self) -> str:
        return str(self)


def summary_table(result: Any, *, columns: int = 3, caption: str | None = None) -> SummaryTable:
    """The figures of a replay (a ``ReplayResult`` or its ``summary()`` dict) as a readable table:
    ``toolkit.viz.summary_table(result)`` in a notebook (see :func:`summary_rows`)."""
    summary = result.summary() if hasattr(result, "summary") else result
    if not isinstance(summary, dict):
        raise TypeError(f"summary_table: expected a replay result or its summary() dict, got {type(result).__name__}")
    return SummaryTable(summary, columns=columns, caption=caption)


__all__ = ["ReadableFrame", "readable", "header", "summary_table", "summary_rows", "SummaryTable", "instants", "is_epoch_frame", "INSTANT_COLUMNS"]
