"""Errors raised while loading an event log.

All are ``ValueError`` subclasses (the CLI prints them as ``error: ...``, exit 2) and
their messages name the column, the row count and a sample of the offending values.
"""
from __future__ import annotations


class LogError(ValueError):
    """Base class: the event log cannot be loaded as given."""

    #: the role (event_time, key, ...) or the column the error is about, where one is known
    role: str | None = None
    column: str | None = None


class MissingColumnError(LogError):
    """A mapped column does not exist in the source."""


class DuplicateColumnError(LogError):
    """The source has two or more columns of the same name (which one is meant is unknown)."""


class ColumnTypeError(LogError):
    """A column has a type that cannot hold what it is mapped to (e.g. booleans as times)."""


class MixedUnitsError(LogError):
    """Epoch numbers in one column look like different units (e.g. seconds and milliseconds)."""


class EmptyLogError(LogError):
    """The source has no records, or no valid record is left after quarantine."""


class InvalidRecordsError(LogError):
    """The share of quarantined rows exceeds ``max_invalid_fraction``."""


class LogReadError(LogError):
    """A file (or one part of a folder) cannot be read."""


class LogWarning(UserWarning):
    """Loading changed something or suspects a mistake (floored fractions, a time unit that looks wrong).

    The same text is kept in ``log.warnings`` and shown by ``describe()``.
    """
