"""Quarantine: rows that cannot be used, kept with the column and the reason.

Nothing is dropped silently: every input row is either in ``log.table`` or in
``log.quarantine`` (one entry per row: its first fault, checked in the order
event_time, arrival_time, key, partition, value). Loading fails with
:class:`InvalidRecordsError` when the invalid share exceeds ``max_invalid_fraction``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit.log.errors import EmptyLogError, InvalidRecordsError

QUARANTINE_COLUMNS = ["row", "column", "reason", "raw"]
SAMPLE = 3


def empty_quarantine() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "row": pd.Series([], dtype=np.int64),
            "column": pd.Series([], dtype=object),
            "reason": pd.Series([], dtype=object),
            "raw": pd.Series([], dtype=object),
        }
    )


def raw_text(values: pd.Series) -> np.ndarray:
    """Cells as strings for the quarantine ("" for null)."""
    values = values.astype(object)
    out = values.map(str).to_numpy(dtype=object)
    out[values.isna().to_numpy()] = ""
    return out


class Faults:
    """Collects the first fault of each row (vectorized: one call per column and reason)."""

    def __init__(self, rows: np.ndarray):
        self.rows = np.asarray(rows, dtype=np.int64)
        n = len(self.rows)
        self.column = np.full(n, None, dtype=object)
        self.reason = np.full(n, None, dtype=object)
        self.raw = np.full(n, None, dtype=object)
        self._bad = np.zeros(n, dtype=bool)

    @property
    def valid(self) -> np.ndarray:
        return ~self._bad

    def add(self, reason: np.ndarray, column: str, raw: pd.Series) -> None:
        """Record per-row ``reason`` (None where fine) for ``column`` on rows not yet faulty."""
        reason = np.asarray(reason, dtype=object)
        new = ~pd.isna(reason) & ~self._bad
        if not new.any():
            return
        idx = np.flatnonzero(new)
        self._bad[idx] = True
        self.reason[idx] = reason[idx]
        self.column[idx] = column
        self.raw[idx] = raw_text(raw.reset_index(drop=True).iloc[idx])

    def frame(self) -> pd.DataFrame:
        bad = self._bad
        if not bad.any():
            return empty_quarantine()
        return pd.DataFrame(
            {
                "row": self.rows[bad],
                "column": self.column[bad],
                "reason": self.reason[bad],
                "raw": self.raw[bad],
            }
        ).reset_index(drop=True)


ColumnFaults = tuple  # (column, [(reason, count), ...] in first-seen order, [(row, raw), ...] sample)


EXCERPT = 60


def short(raw: str) -> str:
    """A raw cell for a message: long ones (a 1 MB key, say) cut to an excerpt with their length."""
    raw = str(raw)
    if len(raw) <= EXCERPT:
        return raw
    return f"{raw[:EXCERPT - 20]}... ({len(raw):,} characters)"


def fault_groups(quarantine: pd.DataFrame) -> list[ColumnFaults]:
    """Per column (in order of first fault): reasons with counts, and the first rows as a sample."""
    out = []
    for column, group in quarantine.groupby("column", sort=False):
        reasons = [(str(r), int(c)) for r, c in group["reason"].value_counts(sort=False).items()]
        sample = [(int(r), str(raw)) for r, raw in zip(group["row"].head(SAMPLE), group["raw"].head(SAMPLE))]
        out.append((str(column), reasons, sample))
    return out


def summarize(quarantine: pd.DataFrame | list) -> str:
    """One clause per column: count, reasons and a sample, e.g.
    ``event_time: 2 rows (null: 1, unparsable time: 1; e.g. row 3 'abc', row 5 null)``."""
    groups = fault_groups(quarantine) if isinstance(quarantine, pd.DataFrame) else quarantine
    parts = []
    for column, reasons, sample in groups:
        n = sum(c for _, c in reasons)
        why = ", ".join(f"{r}: {c}" for r, c in reasons)
        eg = ", ".join(f"row {r} " + (repr(short(raw)) if raw != "" else "null") for r, raw in sample[:SAMPLE])
        parts.append(f"{column}: {n} row{'s' if n != 1 else ''} ({why}; e.g. {eg})")
    return "; ".join(parts)


def enforce(quarantine: pd.DataFrame | None, n_total: int, max_invalid_fraction: float, source: str,
            *, n_bad: int | None = None, groups=None) -> None:
    """Raise when nothing valid is left or the invalid share exceeds the allowed fraction.

    Give ``quarantine`` (pandas), or ``n_bad`` and a callable ``groups()`` returning
    :func:`fault_groups`-like data (the Spark path computes them only when needed).
    """
    if n_bad is None:
        n_bad = len(quarantine)
    if n_bad == 0:
        return
    share = n_bad / n_total
    if n_bad < n_total and share <= max_invalid_fraction:
        return
    detail = summarize(quarantine if quarantine is not None else groups())
    if n_bad >= n_total:
        raise EmptyLogError(f"no valid record in {source}: all {n_total} rows are invalid; {detail}")
    raise InvalidRecordsError(
        f"{n_bad} of {n_total} rows ({share:.2%}) of {source} are invalid, above "
        f"max_invalid_fraction={max_invalid_fraction:g}: {detail}. "
        f"Fix the source, or pass max_invalid_fraction={_suggest(share)} to load the "
        f"rest and keep these rows in log.quarantine."
    )


def _suggest(share: float) -> str:
    # round up to 2 significant digits so that the suggestion actually admits the share
    exp = int(np.floor(np.log10(share))) - 1
    step = 10.0**exp
    return f"{np.ceil(share / step - 1e-9) * step:.{max(0, -exp)}f}"
