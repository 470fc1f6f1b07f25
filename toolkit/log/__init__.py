"""Event logs: loading, canonical form, validation and quarantine, describe().

``toolkit.load_log(...)`` returns an :class:`EventLog`; see :mod:`toolkit.log.eventlog`
for the canonical columns every other part of the toolkit relies on.
"""
from toolkit.log.errors import (
    ColumnTypeError,
    EmptyLogError,
    InvalidRecordsError,
    LogError,
    LogReadError,
    MissingColumnError,
    MixedUnitsError,
)
from toolkit.log.describe import LogDescription, PartitionFigures
from toolkit.log.eventlog import CANONICAL_COLUMNS, EventLog
from toolkit.log.load import load_log

__all__ = [
    "CANONICAL_COLUMNS",
    "ColumnTypeError",
    "EmptyLogError",
    "EventLog",
    "InvalidRecordsError",
    "LogDescription",
    "LogError",
    "LogReadError",
    "MissingColumnError",
    "MixedUnitsError",
    "PartitionFigures",
    "load_log",
]
