"""The Spark edge: one shared SparkSession, local by default, a cluster when asked.

``spark_session()`` returns the active session if there is one, otherwise starts an
embedded ``local[*]`` session (or connects to ``master`` / ``$SPARK_MASTER``). Spark
is imported only here and in the modules that run work on it.
"""
from __future__ import annotations

import os
import shutil
import sys

from toolkit.errors import SetupError

JAVA_HELP = (
    "Java was not found. PySpark needs a Java 17 (or 21) runtime: install one, e.g. "
    "'sudo apt-get install openjdk-17-jre-headless' (Debian/Ubuntu), 'brew install openjdk@17' "
    "(macOS) or 'conda install -c conda-forge openjdk=17', then make sure 'java' is on PATH "
    "or JAVA_HOME is set."
)


def java_available() -> bool:
    """True when a ``java`` executable can be found (PATH or JAVA_HOME)."""
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "java")):
        return True
    return shutil.which("java") is not None


def require_java() -> None:
    """Raise a SetupError that says how to install Java when it is missing."""
    if not java_available():
        raise SetupError(JAVA_HELP)


LOG_LEVEL_ENV = "WATERMARK_LAB_SPARK_LOG_LEVEL"
"""Spark's log level (ERROR by default: Spark's WARN lines are noise in a user's terminal)."""
LOG_LEVELS = ("ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF")


def log_level() -> str:
    """The Spark log level asked for in ``$WATERMARK_LAB_SPARK_LOG_LEVEL`` (default ERROR)."""
    level = os.environ.get(LOG_LEVEL_ENV, "ERROR").strip().upper() or "ERROR"
    if level not in LOG_LEVELS:
        raise SetupError(f"{LOG_LEVEL_ENV}={level!r} is not a log level; use one of {', '.join(LOG_LEVELS)}")
    return level


def _log4j_file(level: str) -> str:
    """A log4j2 configuration at ``level`` (to stderr), written once to the temp folder: given to the
    driver JVM at start, it also silences the WARN lines Spark logs before ``setLogLevel`` can run."""
    import tempfile

    path = os.path.join(tempfile.gettempdir(), f"watermark-lab-log4j2-{level.lower()}.properties")
    # Spark sets the level of a shell's (PySpark's gateway's) main class unless its logger is
    # configured, and prints "Setting default log level to WARN": configure it too
    text = (f"rootLogger.level = {level.lower()}\nrootLogger.appenderRef.stderr.ref = stderr\n"
            "logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer\n"
            f"logger.gateway.level = {level.lower()}\n"
            "appender.console.type = Console\nappender.console.name = stderr\nappender.console.target = SYSTEM_ERR\n"
            "appender.console.layout.type = PatternLayout\n"
            "appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex\n")
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return path
    except OSError:
        pass
    tmp = f"{path}.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


def spark_session(master: str | None = None, *, app_name: str = "watermark-lab", shuffle_partitions: int | None = None):
    """Return a SparkSession: the active one, or a new one on ``master``.

    ``master`` defaults to ``$SPARK_MASTER`` and then to ``local[*]`` (embedded).
    The UI is off and logging is quiet (ERROR, or ``$WATERMARK_LAB_SPARK_LOG_LEVEL``), so
    notebooks and terminals stay readable.
    """
    require_java()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        if shuffle_partitions is not None:
            active.conf.set("spark.sql.shuffle.partitions", str(shuffle_partitions))
        return active
    master = master or os.environ.get("SPARK_MASTER") or "local[*]"
    # Python workers must run this interpreter (same pandas/pyarrow/toolkit), not the PATH one
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Results come back to the driver over a local socket that both sides give 15 s by default
    # to connect: too short on a busy 2-core machine (a collect then fails with an unbound
    # ``sockfile``). Both ends get 2 minutes.
    os.environ.setdefault("SPARK_AUTH_SOCKET_TIMEOUT", "120")
    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", os.environ.get("WATERMARK_LAB_DRIVER_MEMORY", "2g"))
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions or 8))
        .config("spark.python.authenticate.socketTimeout", "120s")
    )
    level = log_level()
    if master.startswith("local") and "spark.driver.extraJavaOptions" not in os.environ.get("PYSPARK_SUBMIT_ARGS", ""):
        builder = builder.config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_log4j_file(level)}")
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(level)
    return session
