"""Numbers, durations and escaped HTML tables for what a person reads: the explorers and the report.

One style everywhere (the explorer's tables, the report's tables and headline):

- **Integers** with thousands separators: ``29,994``.
- **Other numbers** with 4 significant digits, never in exponent form from 0.0001 up, and whole
  from 1,000 up: ``0.9917``, ``84.68``, ``39,268``. A fraction is never rounded to a whole
  number it is not: 0.999967 shows as ``0.99997``, not ``1`` (a completeness of "1" must mean
  every record).
- **Durations** (values in milliseconds) in the unit a person reads: ``250 ms``, ``1.5 s``,
  ``39.27 s``, ``5 min 3 s``, ``2 h 5 min``, ``3 d 4 h``. A name says whether a value is a
  duration: ``delay``, ``lateness``, ``interval``, ``size`` ... or any name ending in ``_ms``
  (:func:`is_duration`).
- **Shares** as percentages with 2 decimals: ``12.34%``.
- Missing values (None, NaN, ``pd.NA``) show as an empty cell.

Every string that reaches HTML here (names, values, captions) goes through :func:`html.escape`:
keys such as ``<script>`` show as text. The tables come in two looks: ``inline=True`` carries
its own ``style`` attributes (a notebook output has no style sheet), ``inline=False`` leaves the
look to the page's CSS and marks numeric cells ``class="num"``.
"""
from __future__ import annotations

import html
import math
import numbers
from typing import Any, Iterable, Sequence

from toolkit.durations import readable

SIGNIFICANT = 4
"""Significant digits of a number that is not an integer (below 1,000)."""

DURATION_NAMES = frozenset({
    "delay", "lateness", "interval", "idleness", "idle_timeout", "size", "slide", "gap", "offset", "keep",
    "step", "initial_delay", "max_delay", "second_lateness", "max_out_of_orderness", "timeout",
})
"""Setting names whose values are durations in ms (besides every name ending in ``_ms``)."""


class Figure(str):
    """Text of a formatted figure (what :func:`number`, :func:`duration` and :func:`share` return):
    a table aligns it to the right like the number it shows."""

    __slots__ = ()


# ---------------------------------------------------------------------------------------- numbers
def is_missing(value: Any) -> bool:
    """None, NaN, ``pd.NA`` or ``NaT``."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    if type(value).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        try:
            return math.isnan(float(value))
        except (TypeError, ValueError):
            return False
    return False


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def is_number(value: Any) -> bool:
    """A real number that is not a boolean and not missing (Python or numpy)."""
    return isinstance(value, numbers.Real) and not _is_bool(value) and not is_missing(value)


def _significant(x: float, keep_fraction: bool = True) -> str:
    """``x`` (below 1,000 in size) with :data:`SIGNIFICANT` digits; with ``keep_fraction``, more
    digits when needed so that a fraction does not look whole (0.999967 -> 0.99997)."""
    for digits in range(SIGNIFICANT, 16):
        text = f"{x:.{digits}g}"
        if "e" in text and abs(x) >= 1e-4:  # rounded up to a power of ten: write it out
            text = f"{x:.{max(0, digits - 1 - math.floor(math.log10(abs(x))))}f}"
        if not keep_fraction or not float(text).is_integer():
            return text
    return repr(x)


def number(value: Any) -> str:
    """A number as a person reads it (see the module docstring); other values as ``str``."""
    if is_missing(value):
        return ""
    if _is_bool(value):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return Figure(f"{int(value):,}")
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isinf(x):
            return Figure("\u221e" if x > 0 else "-\u221e")
        if x.is_integer() or abs(x) >= 1000:
            return Figure(f"{x:,.0f}")
        return Figure(_significant(x))
    return str(value)


def share(value: Any, digits: int = 2) -> str:
    """A fraction as a percentage: ``0.1234`` -> ``12.34%``; more digits when it would read as 100% or
    0% without being it (``0.999967`` -> ``99.997%``)."""
    if is_missing(value):
        return ""
    x = float(value)
    text = f"{x:.{digits}%}"
    for more in range(digits + 1, digits + 7):  # never read as 100% or 0% when it is not
        if not ((text == f"{1:.{digits}%}" and x != 1.0) or (text == f"{0:.{digits}%}" and x != 0.0)):
            break
        text = f"{x:.{more}%}"
    return Figure(text)


# -------------------------------------------------------------------------------------- durations
def duration(ms: Any) -> str:
    """A duration in ms as a person reads it: 250 ms, 1.5 s, 39.27 s, 5 min 3 s, 2 h 5 min, 3 d 4 h."""
    if is_missing(ms):
        return ""
    if not is_number(ms):
        return str(ms)
    x = float(ms)
    if math.isinf(x):
        return number(x)
    return Figure(readable(x))


def seconds(s: Any) -> str:
    """A duration given in seconds (a measured time), as :func:`duration` shows it."""
    return "" if is_missing(s) else duration(float(s) * 1000)


def is_duration(name: Any) -> bool:
    """Whether a value named ``name`` is a duration in ms (``delay``, ``latency_p99_ms`` ...)."""
    name = str(name)
    return name.endswith("_ms") or name in DURATION_NAMES


def label(name: Any) -> str:
    """The name shown for a column: a duration column without its ``_ms`` (the value carries the unit)."""
    name = str(name)
    return name[:-3] if name.endswith("_ms") and len(name) > 3 else name


def value(name: Any, v: Any) -> str:
    """``v`` shown as the value of ``name``: a duration when the name says so, settings dicts
    as :func:`settings_text`, else :func:`number`."""
    if isinstance(v, dict):
        return settings_text(v)
    if is_duration(name) and is_number(v):
        return duration(v)
    return number(v)


def summary_rows(figures: dict, skip: Iterable[str] = ("settings",)) -> list[tuple[str, str]]:
    """A dict of figures (``ReplayResult.summary()``) as (name, shown value) rows for a table:
    ``{"late_accepted": 249, "latency_p99_ms": 39268}`` -> ``[("late accepted", "249"),
    ("latency p99", "39.27 s")]``."""
    skip = set(skip)
    return [(label(k).replace("_", " "), value(k, v)) for k, v in figures.items() if k not in skip]


def settings_text(settings: dict, sep: str = ", ") -> str:
    """``{"delay": 2000, "window": {"type": "tumbling", "size": 1000}}`` ->
    ``delay=2 s, window=tumbling(size=1 s)``; None values are left out."""
    parts = []
    for k, v in settings.items():
        if v is None or is_missing(v):
            continue
        if isinstance(v, dict):
            inner = {ik: iv for ik, iv in v.items() if ik != "type"}
            text = settings_text(inner)
            text = f"{v['type']}({text})" if "type" in v else f"({text})"
        else:
            text = value(k, v)
        parts.append(f"{k}={text}")
    return sep.join(parts)


# ------------------------------------------------------------------------------------------- HTML
_TABLE = "border-collapse:collapse;font-size:0.9em"
_CAPTION = "text-align:left;font-weight:bold;padding:2px 0"
_TH = "text-align:left;padding:2px 8px"
_TD = "text-align:left;padding:2px 8px"
_TD_NUM = "text-align:right;padding:2px 8px;font-variant-numeric:tabular-nums"


def _cell(name: Any, v: Any, *, durations: bool) -> tuple[str, bool]:
    """(escaped text, whether it is a figure) of one value; strings are shown as given."""
    if isinstance(v, str):
        return html.escape(v), isinstance(v, Figure)
    text = value(name, v) if durations else (settings_text(v) if isinstance(v, dict) else number(v))
    return html.escape(text), is_number(v)


def _td(text: str, numeric: bool, inline: bool, code: bool = False) -> str:
    if code and text:
        text = f"<code>{text}</code>"
    if inline:
        return f"<td style='{_TD_NUM if numeric else _TD}'>{text}</td>"
    return f"<td class=\"num\">{text}</td>" if numeric else f"<td>{text}</td>"


def _caption(caption: str, inline: bool) -> str:
    if not caption:
        return ""
    style = f" style='{_CAPTION}'" if inline else ""
    return f"<caption{style}>{html.escape(caption)}</caption>"


def _table(inner: str, inline: bool) -> str:
    return f"<table style='{_TABLE}'>{inner}</table>" if inline else f"<table>{inner}</table>"


def kv_table(rows: Iterable[tuple[Any, Any]], *, caption: str = "", inline: bool = True,
             durations: bool = False) -> str:
    """An HTML table of ``(name, value)`` rows, names as row headers.

    Values that are strings are shown as given; others through :func:`number`. Figures (numbers,
    and the :class:`Figure` texts that :func:`number`, :func:`duration`, :func:`share` return) are
    right-aligned, other text left-aligned.
    With ``durations=True`` a row whose name is a duration (:func:`is_duration`) shows its value
    as one and its name without ``_ms`` (``delay_ms``, 2000 -> ``delay``, ``2 s``)."""
    th = f"<th style='{_TH}'>" if inline else "<th>"
    body = []
    for name, v in rows:
        text, numeric = _cell(name, v, durations=durations)
        shown = label(name) if durations and is_duration(name) else str(name)
        body.append(f"<tr>{th}{html.escape(shown)}</th>{_td(text, numeric, inline)}</tr>")
    return _table(_caption(caption, inline) + "".join(body), inline)


def kv_grid(rows: Sequence[tuple[Any, Any]], *, columns: int = 3, caption: str = "", inline: bool = True) -> str:
    """``(name, value)`` rows laid out in ``columns`` name/value column pairs (a compact summary);
    values as in :func:`kv_table`."""
    rows = list(rows)
    per = -(-len(rows) // max(1, columns))
    th = f"<th style='{_TH};white-space:nowrap'>" if inline else "<th>"
    body = []
    for i in range(per):
        cells = []
        for j in range(columns):
            k = j * per + i
            if k < len(rows):
                name, v = rows[k]
                text, numeric = _cell(name, v, durations=False)
                td = _td(text, numeric, inline)
                if inline:  # a figure such as "8 (72.73%)" stays on one line
                    td = td.replace("style='", "style='white-space:nowrap;", 1)
                cells.append(f"{th}{html.escape(str(name))}</th>{td}")
            else:
                cells.append("<td></td><td></td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return _table(_caption(caption, inline) + "".join(body), inline)


def table(columns: Sequence[Any], rows: Iterable[Sequence[Any]], *, caption: str = "", inline: bool = True,
          code: Iterable[Any] = ()) -> str:
    """An HTML table with a header row of ``columns``; each row a sequence of values formatted as
    in :func:`kv_table` (numbers right-aligned). Cells of the ``code`` columns are set in
    ``<code>`` (raw input text)."""
    th = f"<th style='{_TH}'>" if inline else "<th>"
    columns = list(columns)
    code_at = {i for i, c in enumerate(columns) if c in set(code)}
    head = "<tr>" + "".join(f"{th}{html.escape(str(c))}</th>" for c in columns) + "</tr>"
    body = []
    for row in rows:
        cells = []
        for i, (c, v) in enumerate(zip(columns, row)):
            text, numeric = _cell(c, v, durations=False)
            cells.append(_td(text, numeric, inline, code=i in code_at))
        body.append("<tr>" + "".join(cells) + "</tr>")
    return _table(_caption(caption, inline) + head + "".join(body), inline)


__all__ = ["Figure", "number", "share", "duration", "seconds", "is_duration", "label", "value", "summary_rows", "settings_text",
           "cell", "text_table", "kv_grid", "SHARE_NAMES",
           "kv_table", "table", "is_missing", "is_number", "SIGNIFICANT", "DURATION_NAMES"]


# ------------------------------------------------------------------------------------------- text
SHARE_NAMES = frozenset({"completeness_first", "completeness_final", "exact_windows"})
"""Figures that are fractions of a whole (shown as percentages)."""


def cell(name: Any, v: Any) -> str:
    """One value of column ``name`` as a person reads it: durations, percentages, "no idleness"."""
    name = str(name)
    if is_missing(v):
        return "no idleness" if label(name) in ("idleness", "idle_timeout") else ""
    if name in SHARE_NAMES and is_number(v):
        return share(v)
    return value(name, v)


def text_table(frame: Any, columns: Sequence[str] | None = None) -> str:
    """A plain-text table of a pandas frame for a terminal: readable values, names without ``_ms``,
    figures right-aligned."""
    columns = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    heads = [label(c).replace("_", " ") for c in columns]
    rows = [[cell(c, v) for c, v in zip(columns, r)] for r in frame[columns].itertuples(index=False)]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(heads)]
    numeric = [all(isinstance(r[i], Figure) or r[i] == "" for r in rows) for i in range(len(columns))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric)).rstrip()

    return "\n".join([line(heads)] + [line(r) for r in rows])
