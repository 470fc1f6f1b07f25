"""The session kernel compiles once per machine, also from the zip Spark ships to executors
(issue 27, item 2): Python workers that start together wait for the first one's compile and load
it from numba's cache instead of compiling again (``toolkit.fast.sessions.warm_up``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_WORKER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from toolkit.fast import sessions
sessions.warm_up()
k = sessions._kernel()
s = k.simulate.stats
print(json.dumps({"file": sessions.__file__, "hits": sum(s.cache_hits.values()), "misses": sum(s.cache_misses.values())}))
"""


def _package_zip(path: Path) -> Path:
    """The package as ``toolkit.spark`` ships it: every source file of ``toolkit/`` in one zip."""
    with zipfile.ZipFile(path, "w") as z:
        for f in sorted((ROOT / "toolkit").rglob("*.py")):
            z.write(f, f.relative_to(ROOT).as_posix())
    return path


def test_workers_started_together_from_the_shipped_zip_compile_once(tmp_path):
    package = _package_zip(tmp_path / "toolkit.zip")
    # numba caches a zipped module's code in the user's cache folder: a fresh one here; the lock
    # file lives in the temporary folder, a fresh one too (other tests' workers are not waited for)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "TMPDIR": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    workers = [subprocess.Popen([sys.executable, "-c", _WORKER, str(package)], env=env, cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    got = []
    for w in workers:
        out, err = w.communicate(timeout=600)
        assert w.returncode == 0, err
        got.append(json.loads(out.strip().splitlines()[-1]))
    assert all(".zip" in g["file"] for g in got), got
    assert sorted((g["misses"], g["hits"]) for g in got) == [(0, 1), (1, 0)], got  # one compiled, one loaded
    assert any((tmp_path / "cache" / "numba").rglob("*.nbi"))
