"""pyproject.toml declares ranges; requirements/constraints.txt pins the exact versions that CI,
the README's commands and environment.yml install; requirements/lowest.txt pins the lower
bounds that CI's second environment installs. These tests keep the four in agreement."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / "requirements" / "constraints.txt"
LOWEST = ROOT / "requirements" / "lowest.txt"
#: the libraries an analyst's environment usually already holds, tested at their lowest versions
LOWEST_TESTED = {"numpy", "pandas", "pyarrow", "pyspark"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _requirements() -> dict[str, list[Requirement]]:
    """pyproject's requirements by extra ("" for the runtime ones), the package's own extras left out."""
    project = _project()
    out = {"": [Requirement(r) for r in project["dependencies"]]}
    for extra, reqs in project.get("optional-dependencies", {}).items():
        out[extra] = [Requirement(r) for r in reqs if _norm(Requirement(r).name) != _norm(project["name"])]
    return out


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep and version.strip(), f"{path.name}: {line!r} is not an exact pin (name==version)"
        pins[_norm(name.strip())] = version.strip()
    return pins


def test_pyproject_declares_ranges_not_pins():
    for extra, reqs in _requirements().items():
        for req in reqs:
            assert not any(s.operator in ("==", "===") for s in req.specifier), (
                f"pyproject.toml [{extra or 'dependencies'}]: {req} is a pin; pins belong in requirements/constraints.txt")
            assert any(s.operator == ">=" for s in req.specifier), f"pyproject.toml: {req} has no lower bound"


def test_the_notebook_libraries_are_an_extra():
    runtime = {_norm(r.name) for r in _requirements()[""]}
    notebook = {_norm(r.name) for r in _requirements()["notebook"]}
    assert {"jupyterlab", "ipywidgets", "anywidget", "ipykernel"} <= notebook
    assert not runtime & notebook


def test_constraints_pin_every_requirement_within_its_range():
    pins = _pins(CONSTRAINTS)
    for extra, reqs in _requirements().items():
        for req in reqs:
            name = _norm(req.name)
            assert name in pins, f"requirements/constraints.txt has no pin for {req.name} ([{extra or 'dependencies'}])"
            assert req.specifier.contains(pins[name], prereleases=True), (
                f"requirements/constraints.txt pins {req.name}=={pins[name]}, outside pyproject.toml's {req}")


def test_constraints_do_not_pin_the_package_itself():
    assert _norm(_project()["name"]) not in _pins(CONSTRAINTS)


def test_lowest_pins_are_the_lower_bounds():
    """requirements/lowest.txt pins exactly the lower bounds of numpy, pandas, pyarrow and pyspark."""
    lowest = _pins(LOWEST)
    assert set(lowest) == LOWEST_TESTED
    for req in _requirements()[""]:
        if _norm(req.name) in LOWEST_TESTED:
            (bound,) = [s.version for s in req.specifier if s.operator == ">="]
            assert Version(lowest[_norm(req.name)]) == Version(bound), (
                f"requirements/lowest.txt pins {req.name}=={lowest[_norm(req.name)]}; pyproject.toml says {req}")
            assert req.specifier.contains(lowest[_norm(req.name)])


def test_pandas_stays_below_3_for_pyspark():
    (pandas,) = [r for r in _requirements()[""] if _norm(r.name) == "pandas"]
    assert not pandas.specifier.contains("3.0.0") and Version(_pins(CONSTRAINTS)["pandas"]).major == 2


def test_environment_yml_installs_the_constraints():
    """conda brings Python and Java; pip installs the package and its extras at the constraints'
    versions. A package conda pins itself must be pinned at the constraints' version."""
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"^\s*-\s*openjdk=17\s*$", text, re.M)
    assert re.search(r"^\s*-\s*python=3\.11\s*$", text, re.M)
    assert re.search(r"^\s*-\s*-c requirements/constraints\.txt\s*$", text, re.M)
    (extras,) = re.findall(r"^\s*-\s*-e \.\[([a-z,]+)\]\s*$", text, re.M)
    assert set(extras.split(",")) == set(_requirements()) - {""}
    pins = _pins(CONSTRAINTS)
    for name, version in re.findall(r"^\s*-\s*([A-Za-z0-9_.\-]+)\s*==?\s*(\S+)\s*$", text, re.M):
        if _norm(name) not in ("python", "openjdk"):
            assert pins.get(_norm(name)) == version, f"environment.yml pins {name}={version}, the constraints {pins.get(_norm(name))}"


def test_readme_and_ci_install_with_the_constraints():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert readme.count("-c requirements/constraints.txt") >= 2
    assert "-c requirements/constraints.txt" in ci and "requirements/lowest.txt" in ci


def test_the_compat_files_exist():
    """The second environment's subset names test files that exist (tests/conftest.py COMPAT)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("tests_conftest", ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(module.COMPAT) >= 5
    missing = sorted(f for f in module.COMPAT_FILES if not (ROOT / f).is_file())
    assert not missing, missing
    for entry in module.COMPAT:
        file, _, test = entry.partition("::")
        assert not test or f"def {test}(" in (ROOT / file).read_text(), f"{file} has no test {test}"
