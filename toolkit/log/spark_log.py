"""The Spark edge of event logs (loading and describe stay distributed)."""
from __future__ import annotations

from typing import Any


def is_spark_dataframe(obj: Any) -> bool:
    """True for a pyspark DataFrame (checked without importing pyspark)."""
    cls = type(obj)
    return cls.__name__ == "DataFrame" and cls.__module__.startswith("pyspark.")


def load_spark(source, mapping, *, time_unit, max_invalid_fraction, format=None, spark=None):
    raise NotImplementedError("Spark loading is not implemented yet")


def spark_to_pandas(df, limit=None):
    raise NotImplementedError


def pandas_to_spark(table, spark=None):
    raise NotImplementedError
