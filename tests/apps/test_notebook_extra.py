"""Without the notebook extra (JupyterLab, ipywidgets, anywidget, ipykernel) the command line, the
API and the report work, and the explorer says in one line which extra to install. Run in a
fresh interpreter whose imports of those libraries fail as they do when they are not installed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# None in sys.modules is what an absent package looks like to import and to importlib.util.find_spec
HIDE = 'import sys\nfor _name in ("ipywidgets", "anywidget", "ipykernel", "jupyterlab", "IPython"):\n    sys.modules[_name] = None\n'


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", HIDE + code], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_importing_the_apps_names_the_extra_in_one_line():
    for statement in ("import toolkit.apps", "import toolkit.apps.explore", "from toolkit.apps import controls"):
        done = _run(statement + "\n")
        assert done.returncode == 1
        last = done.stderr.strip().splitlines()[-1]
        assert last == ('toolkit.errors.MissingExtraError: toolkit.apps (toolkit.explore, toolkit.explore_sweep) '
                        'needs the notebook extra: pip install "watermark-lab[notebook]" (missing: ipywidgets)'), done.stderr


def test_toolkit_explore_names_the_extra_and_is_an_import_error():
    done = _run("import toolkit\ntry:\n    toolkit.explore\nexcept ImportError as e:\n    print(type(e).__name__, e.extra)\n")
    assert done.stdout.strip() == "MissingExtraError notebook", done.stderr


def test_the_report_and_the_api_need_no_notebook_extra(tmp_path):
    out = tmp_path / "r.html"
    done = _run(f'''
import toolkit, toolkit.reports.report, toolkit.viz
log = toolkit.load_log("data/sample.csv", max_invalid_fraction=0.001)
r = toolkit.replay(log, window="tumbling:1s", delay="500ms", lateness="1s")
res = toolkit.sweep(log, window="tumbling:1s", delay=["0", "1s"], progress=False)
toolkit.report(log, replay=r, sweep=res, out={str(out)!r})
print("ok", len(res))
''')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "2"] and out.read_text().lstrip().lower().startswith("<!doctype html>")
