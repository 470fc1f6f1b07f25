"""toolkit/log imports one way: the model is a leaf, only the package imports the Spark backend."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

LOG = Path(__file__).resolve().parents[2] / "toolkit" / "log"


def _log_imports(path: Path) -> set[str]:
    """Modules of toolkit.log that ``path`` imports, at module level or inside functions
    (``__init__`` for a name taken from the package itself)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names] if node.module == "toolkit.log" else [node.module]
        else:
            continue
        for name in names:
            if name.startswith("toolkit.log."):
                stem = name.split(".")[2]
                out.add(stem if (LOG / f"{stem}.py").exists() else "__init__")
    return out


def _graph() -> dict[str, set[str]]:
    return {p.stem: _log_imports(p) for p in LOG.glob("*.py")}


def test_model_imports_nothing_from_log():
    assert _graph()["model"] == set()


def test_only_the_package_imports_the_spark_backend():
    importers = {m for m, deps in _graph().items() if "spark" in deps}
    assert importers == {"__init__"}


def test_log_modules_do_not_import_their_package():
    """Submodules import each other, never ``toolkit.log`` itself (no cycles anywhere is
    tests/foundation/test_layering.py's job)."""
    upward = {m for m, deps in _graph().items() if m != "__init__" and "__init__" in deps}
    assert not upward, f"{sorted(upward)} import from the toolkit.log package itself"


def test_eventlog_methods_work_through_the_package():
    code = (
        "import sys\n"
        "from toolkit.log.model import EventLog\n"
        "log = EventLog.from_arrays([5, 1, 9], [10, 20, 30], key='a')\n"
        "assert log.describe().behind == 1 and list(log.arrival_order()) == [0, 1, 2]\n"
        "assert log.to_pandas() is log.table and not log.is_spark and log.n_invalid == 0\n"
        "print('pyspark' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
