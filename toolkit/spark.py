"""The Spark edge: one shared SparkSession, local by default, a cluster when asked.

``spark_session()`` returns the active session if there is one, otherwise starts an
embedded ``local[*]`` session (or connects to ``master`` / ``$SPARK_MASTER``). Spark
is imported only here and in the modules that run work on it.

On a cluster (any master that is not ``local``/``local[N]``), the executors' Python workers
must be able to run the sweep's code:

- **Which Python.** Locally the workers run this very interpreter. On a cluster they run the
  cluster's Python (Spark's default: ``python3`` on each worker's PATH) unless told otherwise:
  ``python=`` / ``$WATERMARK_LAB_EXECUTOR_PYTHON`` / Spark's own ``$PYSPARK_PYTHON`` name the
  executable on the workers. Spark fixes it when the SparkContext starts.
- **The package is shipped.** :func:`prepare_executors` zips the imported ``toolkit`` package
  (``toolkit-<content hash>.zip``) and adds it with ``SparkContext.addPyFile``, so workers need
  no install of Watermark Lab.
- **Libraries are checked first.** One tiny job asks every executor for its Python version and
  its pandas, numpy and pyarrow versions, and imports the shipped package there; anything
  missing or incompatible is a :class:`~toolkit.errors.SetupError` naming the executor, the
  library and what the driver has, instead of a worker's raw traceback in the middle of a sweep.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import zipfile
from pathlib import Path
from typing import IO, Any

from toolkit.errors import SetupError

JAVA_HELP = (
    "Java was not found. PySpark needs a Java 17 (or 21) runtime: install one, e.g. "
    "'sudo apt-get install openjdk-17-jre-headless' (Debian/Ubuntu), 'brew install openjdk@17' "
    "(macOS) or 'conda install -c conda-forge openjdk=17', then make sure 'java' is on PATH "
    "or JAVA_HOME is set."
)

#: the environment variable naming the executors' Python on a cluster (``python=`` wins)
EXECUTOR_PYTHON_ENV = "WATERMARK_LAB_EXECUTOR_PYTHON"
#: libraries a sweep's Python workers import, with PySpark 4's own minimum versions; numpy and
#: pandas must also have the driver's major version (the driver pickles arrays for them)
#: what every executor's Python needs (PySpark 4's minimums; numba compiles session windows on the fast path)
EXECUTOR_LIBRARIES = {"pandas": "2.2.0", "numpy": "1.23.2", "pyarrow": "18.0.0", "numba": "0.60.0"}
_SAME_MAJOR = ("numpy", "pandas")


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


JVM_NOISE = (b"WARNING: Using incubator modules:",)
"""Starts of the JVM's stderr lines that are left out: the JVM prints this one at every start, as
Spark's launcher adds ``--add-modules=jdk.incubator.vector``, and no Java option turns it off."""


def _forward(stream: IO[bytes]) -> None:
    """Copy the JVM's stderr to this process's, line by line, but for :data:`JVM_NOISE`."""
    for line in iter(stream.readline, b""):
        if not line.startswith(JVM_NOISE):
            sys.stderr.write(line.decode("utf-8", "replace"))
            sys.stderr.flush()


def launch_gateway(options: dict[str, str]) -> None:
    """Start PySpark's JVM (its gateway) with ``options``, its stderr read through :func:`_forward`,
    unless one is running or given (``$PYSPARK_GATEWAY_PORT``): the JVM's start-up warning would
    otherwise show in red in every notebook that starts Spark, while its later lines still show."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway as launch

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return
    gateway = launch(SparkConf(loadDefaults=False).setAll(list(options.items())),
                     popen_kwargs={"stderr": subprocess.PIPE})
    threading.Thread(target=_forward, args=(gateway.proc.stderr,), name="jvm-stderr", daemon=True).start()
    SparkContext._ensure_initialized(gateway=gateway)


def is_local(master: str) -> bool:
    """True for the embedded masters (``local``, ``local[N]``, ``local[*]``, ``local[N,F]``),
    whose Python workers run on this machine with this interpreter; ``local-cluster[...]``
    starts separate executors and counts as a cluster."""
    return master == "local" or master.startswith("local[")


def executor_python(master: str, python: str | None = None) -> str | None:
    """The Python executable the executors run, or None for Spark's default (``python3`` on the
    workers' PATH). Rule: ``python=``, then ``$WATERMARK_LAB_EXECUTOR_PYTHON``, then
    ``$PYSPARK_PYTHON``; with none of them, this interpreter for a local master and the
    cluster's own Python otherwise."""
    chosen = python or os.environ.get(EXECUTOR_PYTHON_ENV) or os.environ.get("PYSPARK_PYTHON")
    if chosen:
        return chosen
    return sys.executable if is_local(master) else None


DRIVER_MEMORY_ENV = "WATERMARK_LAB_DRIVER_MEMORY"
"""The driver JVM's heap (``spark.driver.memory``), when set; otherwise :func:`driver_memory`'s default."""
#: default heap of the driver JVM: a local master's JVM also hosts the executors and the shuffle,
#: and fills whatever heap it is given before it collects; with 1 GiB (Spark's own default) Python
#: driver + JVM stay under 2 GiB at 100 M records x 10 session configurations (docs/performance.md, "Scaling with the log size").
#: A cluster's driver only collects small tables; it keeps 2 GiB.
LOCAL_DRIVER_MEMORY, CLUSTER_DRIVER_MEMORY = "1g", "2g"


def driver_memory(master: str) -> str:
    """``spark.driver.memory`` for a new session on ``master``. Rule: ``$WATERMARK_LAB_DRIVER_MEMORY``
    when set, else 1g for a local master (its JVM is the whole of Spark), else 2g."""
    chosen = os.environ.get(DRIVER_MEMORY_ENV, "").strip()
    if chosen:
        import re

        if not re.fullmatch(r"[0-9]+[kmgtKMGT]?[bB]?", chosen):
            raise SetupError(f"{DRIVER_MEMORY_ENV}={chosen!r} is not a Spark memory size such as 1g or 1536m")
        return chosen
    return LOCAL_DRIVER_MEMORY if is_local(master) else CLUSTER_DRIVER_MEMORY


def spark_session(
    master: str | None = None,
    *,
    app_name: str = "watermark-lab",
    shuffle_partitions: int | None = None,
    python: str | None = None,
    conf: dict[str, str] | None = None,
    option: str = "python=",
):
    """Return a SparkSession: the active one, or a new one on ``master``.

    ``master`` defaults to ``$SPARK_MASTER`` and then to ``local[*]`` (embedded).
    The UI is off and logging is quiet (ERROR, or ``$WATERMARK_LAB_SPARK_LOG_LEVEL``), so
    notebooks and terminals stay readable. On a cluster master the
    package is shipped to the executors and their libraries are checked
    (:func:`prepare_executors`); ``python`` names the executors' Python there (see
    :func:`executor_python`). ``conf``: extra Spark settings (e.g. ``spark.executor.memory``).
    ``option`` is how errors name ``python`` (the CLI passes its own option name). The driver
    JVM's heap is :func:`driver_memory`'s (1g locally) unless ``conf`` sets ``spark.driver.memory``.
    """
    require_java()
    if python is not None and is_local(master or os.environ.get("SPARK_MASTER") or "local[*]") \
            and shutil.which(python) is None:
        raise SetupError(f"{option}{'' if option.endswith('=') else ' '}{python}: no such Python on this machine "
                         "(a local master runs the executors here)")
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None and python is None:
        if shuffle_partitions is not None:
            active.conf.set("spark.sql.shuffle.partitions", str(shuffle_partitions))
        return active
    master = master or os.environ.get("SPARK_MASTER") or "local[*]"
    exec_python = executor_python(master, python)
    if active is not None:
        have = active.sparkContext.master
        if have != master and not (is_local(have) and is_local(master)):
            raise SetupError(
                f"a Spark session on {have} is already running in this process and Spark allows one per "
                f"process, so master {master!r} cannot be used: stop it first (spark.stop())"
            )
        if python is not None and active.sparkContext.pythonExec != exec_python:
            raise SetupError(
                f"the running Spark session's executors use Python {active.sparkContext.pythonExec!r}; "
                f"{option}{'' if option.endswith('=') else ' '}{python} needs a new session: stop this one first (spark.stop())"
            )
    # Results come back to the driver over a local socket that both sides give 15 s by default
    # to connect: too short on a busy 2-core machine (a collect then fails with an unbound
    # ``sockfile``). Both ends get 2 minutes.
    os.environ.setdefault("SPARK_AUTH_SOCKET_TIMEOUT", "120")
    options = {
        "spark.master": master, "spark.app.name": app_name,
        "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC", "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.driver.memory": driver_memory(master),
        "spark.sql.shuffle.partitions": str(shuffle_partitions or 8),
        "spark.python.authenticate.socketTimeout": "120s",
    }
    options.update({k: str(v) for k, v in (conf or {}).items()})
    level = log_level()
    if is_local(master) and "spark.driver.extraJavaOptions" not in os.environ.get("PYSPARK_SUBMIT_ARGS", ""):
        options["spark.driver.extraJavaOptions"] = f"-Dlog4j2.configurationFile={_log4j_file(level)}"
    builder = SparkSession.builder
    for k, v in options.items():
        builder = builder.config(k, v)
    # PySpark reads the workers' Python from $PYSPARK_PYTHON when the SparkContext starts
    # (default "python3"); set it for that moment only, so a later session chooses afresh
    saved = os.environ.get("PYSPARK_PYTHON")
    try:
        if exec_python is None:
            os.environ.pop("PYSPARK_PYTHON", None)
        else:
            os.environ["PYSPARK_PYTHON"] = exec_python
        launch_gateway(options)
        session = builder.getOrCreate()
    finally:
        if saved is None:
            os.environ.pop("PYSPARK_PYTHON", None)
        else:
            os.environ["PYSPARK_PYTHON"] = saved
    session.sparkContext.setLogLevel(level)
    if not is_local(master):
        prepare_executors(session)
    return session


def package_zip(directory: str | os.PathLike | None = None) -> Path:
    """A zip of the imported ``toolkit`` package (every file but caches), named by a hash of its
    content so that an unchanged package is built and shipped once. Written to ``directory``
    (default: a ``watermark-lab`` folder in the temporary directory)."""
    import toolkit

    root = Path(toolkit.__file__).resolve().parent
    files = sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                   and p.suffix not in (".pyc", ".pyo"))
    digest = hashlib.sha256()
    for p in files:
        digest.update(str(p.relative_to(root)).encode())
        digest.update(p.read_bytes())
    out_dir = Path(directory) if directory is not None else Path(tempfile.gettempdir()) / "watermark-lab"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"toolkit-{digest.hexdigest()[:16]}.zip"
    if not out.exists():
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for p in files:
                z.write(p, Path("toolkit") / p.relative_to(root))
        os.replace(tmp, out)
    return out


def prepare_executors(session: Any) -> list[dict]:
    """Ship the package to a cluster's executors and check their Python libraries, once per
    SparkContext (a no-op for local masters). Returns what each executor reported."""
    sc = session.sparkContext
    if is_local(sc.master):
        return []
    done = getattr(sc, "_watermark_lab_executors", None)
    if done is not None:
        return done
    zip_path = package_zip()
    if zip_path.name not in (sc._python_includes or []):
        sc.addPyFile(str(zip_path))
    reports = probe_executors(sc)
    check_executors(reports, python=sc.pythonExec)
    sc._watermark_lab_executors = reports
    return reports


def probe_executors(sc: Any) -> list[dict]:
    """One tiny job, one task per core: each task reports its executor's Python, the versions
    of the required libraries and whether the shipped package imports there."""
    libraries = list(EXECUTOR_LIBRARIES)

    def probe(_):  # defined here so that it travels by value: the executor needs no toolkit
        import importlib
        import os as _os
        import socket
        import sys as _sys

        out = {"host": socket.gethostname(), "executor": _os.path.basename(_os.getcwd()),
               "python": ".".join(map(str, _sys.version_info[:3])), "executable": _sys.executable,
               "libraries": {}, "errors": {}, "toolkit": None}
        for name in libraries:
            try:
                out["libraries"][name] = importlib.import_module(name).__version__
            except Exception as exc:  # noqa: BLE001 - reported to the driver
                out["libraries"][name] = None
                out["errors"][name] = f"{type(exc).__name__}: {exc}"
        try:
            importlib.import_module("toolkit.semantics.flink.sweep")
            shipped = importlib.import_module("toolkit")
            out["toolkit"], out["toolkit_file"] = shipped.__version__, shipped.__file__
        except Exception as exc:  # noqa: BLE001
            out["errors"]["toolkit"] = f"{type(exc).__name__}: {exc}"
        yield out

    n_execs = max(1, sc._jsc.sc().getExecutorMemoryStatus().size() - 1)
    tasks = max(int(sc.defaultParallelism), n_execs)
    try:
        reports = sc.parallelize(range(tasks), tasks).mapPartitions(probe).collect()
    except Exception as exc:  # noqa: BLE001 - a worker that cannot even start Python
        raise SetupError(_start_failure(str(exc), sc.pythonExec)) from None
    unique: dict = {}
    for r in reports:
        unique.setdefault((r["host"], r["executor"]), r)
    return list(unique.values())


def _start_failure(text: str, python: str) -> str:
    where = f"the executors' Python ({python!r}; {_how_to_choose()})"
    if "PYTHON_VERSION_MISMATCH" in text or "different minor versions" in text:
        line = next((ln for ln in text.splitlines() if "minor versions" in ln), "").strip()
        return (f"{where} is not the driver's Python version (Python {sys.version_info[0]}.{sys.version_info[1]}); "
                f"PySpark needs the same minor version on both sides. {line}")
    if "Cannot run program" in text or "No such file" in text:
        return f"{where} could not be started on the executors: check that it exists on every worker"
    first = next((ln for ln in text.splitlines() if ln.strip()), text)[:500]
    return f"the check of the Spark executors failed before reporting ({where}): {first}"


def _how_to_choose() -> str:
    return (f"choose it with python=... / --executor-python, ${EXECUTOR_PYTHON_ENV} or $PYSPARK_PYTHON; "
            "by default the cluster's own 'python3'")


def check_executors(reports: list[dict], *, python: str = "python3") -> None:
    """Raise a SetupError listing every executor whose Python lacks a library, has one that is
    too old or of another major version than the driver's, or cannot import the shipped package."""
    import importlib

    driver = {}
    for name in EXECUTOR_LIBRARIES:
        try:
            driver[name] = importlib.import_module(name).__version__
        except ImportError:
            driver[name] = None
    problems = []
    for r in sorted(reports, key=lambda r: (r["host"], r["executor"])):
        who = f"executor {r['executor']} on {r['host']} (Python {r['python']} at {r['executable']})"
        issues = []
        for name, minimum in EXECUTOR_LIBRARIES.items():
            have = r["libraries"].get(name)
            if have is None:
                issues.append(f"{name} is missing ({r['errors'].get(name, 'not importable')})")
            elif _version(have) < _version(minimum):
                issues.append(f"{name} {have} is older than the {minimum} PySpark needs")
            elif name in _SAME_MAJOR and driver[name] and _version(have)[0] != _version(driver[name])[0]:
                issues.append(f"{name} {have} is not the driver's major version ({driver[name]})")
        if not issues and r.get("toolkit") is None:
            issues.append(f"the shipped toolkit package does not import ({r['errors'].get('toolkit')})")
        if issues:
            problems.append(f"{who}: " + "; ".join(issues))
    if problems:
        have = ", ".join(f"{k} {v}" for k, v in driver.items())
        raise SetupError(
            "Spark executors cannot run a sweep: " + " | ".join(problems)
            + f". Every worker's Python needs pandas, numpy, pyarrow and numba (the driver has {have}; "
            f"numpy and pandas of the same major version); Watermark Lab itself is shipped. "
            f"The executors' Python is {python!r}: {_how_to_choose()}."
        )


def _version(text: str) -> tuple[int, ...]:
    """Leading numeric parts of a version string (``2.3.3`` -> (2, 3, 3), ``2.0.0rc1`` -> (2, 0, 0))."""
    parts = []
    for piece in text.split(".")[:3]:
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        parts.append(int(digits or 0))
        if digits != piece:
            break
    return tuple(parts)
