"""Spark running out of memory during a sweep, said in the toolkit's words.

The memory guard (``toolkit.settings.Limits``, ``max_memory``; ``toolkit.sweeps.spark.check_memory``
and ``check_whole_memory``) refuses a sweep whose estimate is too large before any work. When a
sweep still runs out (the estimate was too low, or the JVM's heap is smaller than ``max_memory``),
the JVM's ``java.lang.OutOfMemoryError`` comes back through py4j as a long Java trace; a Python
worker's ``MemoryError`` as a ``PythonException``. Rule: such an error becomes one
``SettingError("max_memory", ...)`` naming the heap that ran out (``spark.driver.memory``: in a
local master the executors run in the driver's JVM too; ``spark.executor.memory`` on a cluster's
executors, ``spark.executor.pyspark.memory`` for their Python workers), its value, how to raise
it, and ``max_memory``.
"""
from __future__ import annotations

import contextlib
import re
from typing import Any, Iterator

from toolkit.settings import SettingError

_JVM_OOM = ("java.lang.OutOfMemoryError", "Java heap space", "GC overhead limit exceeded")


def memory_error(exc: BaseException, session: Any = None) -> SettingError | None:
    """The :class:`SettingError` an out-of-memory error of Spark becomes, or None for any other error."""
    text = str(exc)
    jvm = any(s in text for s in _JVM_OOM)
    python = not jvm and "MemoryError" in text and type(exc).__name__ in ("PythonException", "Py4JJavaError")
    if not (jvm or python):
        return None
    conf, master = _conf(session)
    local = master.startswith("local")
    if python:
        name, how = "spark.executor.pyspark.memory", "spark_session(conf={'spark.executor.pyspark.memory': '4g'})"
        where = "a Spark executor's Python worker"
    elif local or "executor" not in text.lower():
        name, how = "spark.driver.memory", "$WATERMARK_LAB_DRIVER_MEMORY=4g before the session starts"
        where = "the Spark driver's JVM" + (" (a local master runs the executors in it too)" if local else "")
    else:
        name, how = "spark.executor.memory", "spark_session(master, conf={'spark.executor.memory': '8g'})"
        where = "a Spark executor's JVM"
    value = conf.get(name, "Spark's default")
    found = re.search(r"java\.lang\.OutOfMemoryError(: [^\n]*)?", text)
    cause = found.group(0).strip() if found else next((s for s in _JVM_OOM if s in text), "MemoryError")
    return SettingError("max_memory", f"{where} ran out of memory ({cause}) with {name}={value}: give it more "
                        f"({how}), or sweep fewer records or configurations at once; max_memory (--max-memory) is "
                        "what the memory guard lets a sweep's estimate reach before it starts, so keep it below what "
                        f"{name} gives")


@contextlib.contextmanager
def spark_memory_errors(session: Any = None) -> Iterator[None]:
    """Turn Spark's out-of-memory errors inside the block into :func:`memory_error`'s message."""
    try:
        yield
    except Exception as exc:
        error = memory_error(exc, session)
        if error is None:
            raise
        raise error from exc


def _conf(session: Any) -> tuple[dict, str]:
    """The running session's settings and master (empty when none is known)."""
    try:
        if session is None:
            from pyspark.sql import SparkSession

            session = SparkSession.getActiveSession()
        sc = session.sparkContext
        return dict(sc.getConf().getAll()), str(sc.master)
    except Exception:  # no session: the message names the setting without its value
        return {}, ""
