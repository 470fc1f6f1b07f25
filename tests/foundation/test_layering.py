"""The house rules (docs/design.md, "Layers"): every module imports, no import cycles, arrows only
point down the layer table, and the engine imports only the standard library and numpy.

Imports inside functions count too: a lazy import hides an edge from Python, not from the
reader. Function-local imports are for heavy optional libraries only (pyspark, altair, ...),
plus the lazy public table in ``toolkit/__init__.py``.
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from pathlib import Path

import pytest

import toolkit

PKG = Path(__file__).resolve().parents[2] / "toolkit"
ENGINE_ALLOWED = {"numpy", "toolkit"}

#: package (first name under toolkit) -> layer; a module may import its own layer or lower ones
LAYERS = {
    "engine": 0, "durations": 0, "errors": 0, "spark": 0,
    "settings": 1, "log": 1,
    "fast": 2, "metrics": 2, "incidents": 2, "outputs": 2,
    "replays": 3, "sweeps": 3, "semantics": 3, "deployment": 3,
    "viz": 4,
    "apps": 5, "reports": 5,
    "commands": 6, "bench": 6, "cli": 6, "__main__": 6,
}
#: edges allowed although they point up (none: keep it that way)
UPWARD_ALLOWED: set[tuple[str, str]] = set()


def _modules() -> list[str]:
    names = ["toolkit"]
    for info in pkgutil.walk_packages([str(PKG)], prefix="toolkit."):
        names.append(info.name)
    return sorted(names)


def _path(module: str) -> Path:
    parts = module.split(".")[1:]
    p = PKG.joinpath(*parts)
    return p / "__init__.py" if p.is_dir() else p.with_suffix(".py")


def _resolve(name: str, modules: set[str]) -> str | None:
    """The toolkit module an import names (``from toolkit.x import y``: y if it is a module)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _edges(module: str, modules: set[str]) -> set[str]:
    tree = ast.parse(_path(module).read_text())
    pkg = module if _path(module).name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = pkg
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            # ``from pkg import sub`` names the submodule; ``from pkg import name`` the package
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for t in targets:
            if t.startswith("toolkit"):
                r = _resolve(t, modules)
                # a module's own packages are loaded before it anyway: not an edge
                if r and r != module and not module.startswith(r + "."):
                    out.add(r)
    return out


def _graph() -> dict[str, set[str]]:
    mods = set(_modules())
    return {m: _edges(m, mods) for m in mods}


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


@pytest.mark.parametrize("module", [m for m in _modules() if m != "toolkit.__main__"])
def test_every_module_imports(module):
    importlib.import_module(module)


def test_no_import_cycles():
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_check_can_fail(monkeypatch):
    """The check sees a cycle when there is one (two modules importing each other)."""
    fake = {"toolkit.a": {"toolkit.b"}, "toolkit.b": {"toolkit.a"}}
    monkeypatch.setattr(sys.modules[__name__], "_graph", lambda: fake)
    with pytest.raises(AssertionError, match="import cycles"):
        test_no_import_cycles()


def test_every_package_has_a_layer():
    missing = sorted({m.split(".")[1] for m in _modules() if m != "toolkit" and _layer(m) is None})
    assert not missing, f"add these to LAYERS (and docs/design.md's layer table): {missing}"


def test_the_design_doc_layer_table_is_layers():
    """docs/design.md's layer table names every package of ``LAYERS`` at its layer, and no other."""
    import re

    text = (PKG.parent / "docs" / "design.md").read_text()
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    documented = {}
    for row in [ln for ln in section.splitlines() if ln.startswith("|")][2:]:
        cells = row.split("|")
        for name in re.findall(r"`([a-z_]+)(?:/|\.py)`", cells[2]):
            documented[name] = int(cells[1])
    assert documented == LAYERS


def test_imports_point_down_the_layers():
    bad = []
    for module, deps in _graph().items():
        a = _layer(module)
        if a is None:
            continue
        for d in deps:
            b = _layer(d)
            if b is not None and b > a and (module, d) not in UPWARD_ALLOWED:
                bad.append(f"{module} (layer {a}) imports {d} (layer {b})")
    assert not bad, "\n".join(sorted(bad))


def _third_party(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", sorted((PKG / "engine").rglob("*.py")), ids=lambda p: str(p.relative_to(PKG)))
def test_engine_imports_only_stdlib_and_numpy(path):
    bad = {n for n in _third_party(path) if n not in sys.stdlib_module_names and n not in ENGINE_ALLOWED}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_import_toolkit_is_light():
    import subprocess

    code = "import sys, toolkit; print(sorted(m for m in ('pyspark', 'altair', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_public_functions_are_functions():
    """Packages are nouns, public functions verbs: importing the packages never hides the functions."""
    import subprocess

    code = (
        "import toolkit.replays, toolkit.sweeps, toolkit.reports.report, toolkit, types\n"
        "for name in ('replay', 'sweep', 'report', 'explore', 'frontier', 'recommend'):\n"
        "    assert isinstance(getattr(toolkit, name), types.FunctionType), name\n"
        "assert toolkit.sweeps.frontier is toolkit.frontier\n"
        "print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_public_exports_resolve():
    import toolkit.engine.flink as engine

    assert not [n for n in engine.__all__ if not hasattr(engine, n)]
    assert not [n for n in toolkit.__all__ if not hasattr(toolkit, n)]


def _module_swaps(source: str) -> list[str]:
    """What in ``source`` swaps a module for something else: assigning a ``__class__`` (e.g.
    ``sys.modules[__name__].__class__ = ...``, to make a module callable), ``setattr(...,
    "__class__", ...)``, or replacing an entry of ``sys.modules``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "__class__"):
            found.append(f"line {node.lineno}: setattr(..., '__class__', ...)")
        for t in targets:
            if isinstance(t, ast.Attribute) and t.attr == "__class__":
                found.append(f"line {node.lineno}: assigns {ast.unparse(t)}")
            elif isinstance(t, ast.Subscript) and ast.unparse(t.value) == "sys.modules":
                found.append(f"line {node.lineno}: replaces {ast.unparse(t)}")
    return found


def test_no_module_swaps_its_class():
    """A module is a module: a callable entry point is a function exported from its package
    (``toolkit.deploy`` is ``toolkit.deployment.deploy``), never a module whose class was
    swapped (that hides the module's names behind a call and surprises ``from x import y``)."""
    bad = [f"{m}: {w}" for m in _modules() for w in _module_swaps(_path(m).read_text())]
    assert not bad, "\n".join(bad)
    loaded = [m for m in _modules() if m in sys.modules and type(sys.modules[m]) is not type(sys)]
    assert not loaded, f"modules whose class is not ModuleType: {loaded}"


@pytest.mark.parametrize("source", [
    "import sys, types\nclass _M(types.ModuleType):\n    pass\nsys.modules[__name__].__class__ = _M\n",
    "import sys\nsetattr(sys.modules[__name__], '__class__', object)\n",
    "import sys\nsys.modules[__name__] = object()\n",
])
def test_the_module_swap_check_can_fail(source, monkeypatch):
    """The check sees each way of swapping a module (run on a fake module's source)."""
    monkeypatch.setattr(sys.modules[__name__], "_modules", lambda: ["toolkit.fake"])
    monkeypatch.setattr(sys.modules[__name__], "_path", lambda m: type("P", (), {"read_text": lambda self: source})())
    with pytest.raises(AssertionError, match="toolkit.fake: line"):
        test_no_module_swaps_its_class()
