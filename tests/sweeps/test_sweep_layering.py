"""The fast path imports only numpy/pandas; Spark is imported only where work runs on it."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "toolkit"


def _top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:  # module level only: imports inside functions are lazy
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_fast_imports_numpy_pandas_and_the_engine_only():
    """... and numba in the compiled session kernel and its ``njit`` wrapper only
    (``toolkit.fast.sessions`` imports the kernel lazily, on first use)."""
    for path in sorted((PKG / "fast").glob("*.py")):
        for name in _top_level_imports(path):
            root = name.split(".")[0]
            allowed = {"numpy", "pandas"} | ({"numba"} if path.name in ("_session_kernel.py", "_jit.py") else set())
            assert root in sys.stdlib_module_names or root in allowed or name.startswith(("toolkit.fast", "toolkit.engine")), (
                f"{path.name} imports {name}"
            )


def test_no_module_level_spark_import():
    for folder in ("fast", "metrics", "sweeps", "replays"):
        for path in sorted((PKG / folder).glob("*.py")):
            assert not any(n.startswith("pyspark") for n in _top_level_imports(path)), path.name


def test_importing_the_sweep_does_not_start_spark():
    code = "import sys, toolkit.sweeps, toolkit.settings, toolkit.metrics; print('pyspark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_importing_the_sweep_does_not_load_numba():
    """numba (the session kernel's compiler) loads when a session is first evaluated."""
    code = "import sys, toolkit.sweeps, toolkit.fast.sessions; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
