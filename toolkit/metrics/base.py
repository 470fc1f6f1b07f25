"""The one base of every share of records: the **valid** records, those replayed.

A replay's ``summary()`` counts ``records`` = every row read, quarantined ones included
(``records = on_time + late_accepted + dropped + invalid``). Every share a person reads (the
fates in the CLI, the summary tables, the notebooks, the report, ``compare``) is a share of the
valid records, ``records - invalid``, so the three fates add to 100 %; the quarantined rows are
counted apart, and the sentence that gives a share names its base ("of 39,940 valid records").
"""
from __future__ import annotations

from typing import Any, Mapping

#: the fates of a valid record; each valid record has exactly one
FATES = ("on_time", "late_accepted", "dropped")


def valid_records(summary: Mapping[str, Any]) -> int:
    """The records replayed: ``records - invalid`` of a summary (0 when it has none)."""
    return int(summary.get("records", 0) or 0) - int(summary.get("invalid", 0) or 0)


def record_share(n: Any, summary: Mapping[str, Any]) -> float | None:
    """``n`` records as a share of the valid records of ``summary`` (None when there are none)."""
    valid = valid_records(summary)
    return float(n) / valid if valid > 0 else None


def base_words(summary: Mapping[str, Any]) -> str:
    """The base named in the sentence that gives shares: ``of 39,940 valid records``."""
    valid = valid_records(summary)
    return f"of {valid:,} valid record{'' if valid == 1 else 's'}"


def quarantine_words(summary: Mapping[str, Any]) -> str:
    """The quarantined rows, counted apart: ``60 more rows of the 40,000 read were quarantined
    and are in no share``; empty when there are none."""
    invalid = int(summary.get("invalid", 0) or 0)
    if not invalid:
        return ""
    rows = int(summary.get("records", 0) or 0)
    return (f"{invalid:,} more row{'' if invalid == 1 else 's'} of the {rows:,} read "
            f"{'was' if invalid == 1 else 'were'} quarantined and {'is' if invalid == 1 else 'are'} in no share")


__all__ = ["FATES", "base_words", "quarantine_words", "record_share", "valid_records"]
