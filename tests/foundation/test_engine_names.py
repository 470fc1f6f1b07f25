"""Shared code asks the engine interface (``toolkit.semantics``) and never an engine's name.

An AST scan of ``toolkit/`` finds every engine name (a registered ``semantics=`` value) that is
compared (``==``, ``!=``, ``in``), used as a dict key or subscript, or passed to a registry
lookup (``get("spark")``, ``register_why("beam", ...)``), outside that engine's own packages
(``toolkit/semantics/<engine>/``, ``toolkit/engine/<engine>/``). The registry's entry list is
the one exception. A comparison with the ``execution`` option (``execution == "spark"``: the
Spark execution backend, not the engine) is another concept and not counted.

``PENDING`` lists what the engine-interface work (issue 24) has not moved yet, file by file
with its count; the test fails when a file gains one, and when a file has fewer than listed (so
the list only shrinks, to empty).
"""
from __future__ import annotations

import ast
from pathlib import Path

import toolkit.semantics

PKG = Path(__file__).resolve().parents[2] / "toolkit"
NAMES = set(toolkit.semantics.BUILT_IN)
#: an engine's own packages, by registry name
OWN = {"flink": ("semantics/flink", "engine/flink"), "spark": ("semantics/structured_streaming", "engine/microbatch"),
       "kafka_streams": ("semantics/kafka_streams", "engine/kafka_streams"), "beam": ("semantics/beam", "engine/beam")}
EXCEPTED = {"semantics/__init__.py"}  # the registry's entry list
BACKEND = {"execution", "backend", "mode"}  # the Spark execution backend (a sweep's or a benchmark's mode)
LOOKUPS = {"get", "register", "register_why", "register_translation", "register_engine"}

#: file -> engine names still dispatched on there, to move into the engines' packages (empty since
#: issue 24; the mechanism stays so that a known exception can be listed, never silently added)
PENDING: dict[str, int] = {}


def _text(node: ast.AST) -> str:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def _names_in(node: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.Subscript) and _text(n.slice):
            out.add(_text(n.slice))
    return out


def _hits(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, engine name) of every comparison, key, subscript or lookup by an engine's name."""
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if _names_in(node) & BACKEND:
                continue
            for op in operands:
                for n in ([op] + (list(op.elts) if isinstance(op, (ast.Tuple, ast.List, ast.Set)) else [])):
                    if _text(n) in NAMES:
                        hits.append((node.lineno, _text(n)))
        elif isinstance(node, ast.Dict):
            hits += [(k.lineno, _text(k)) for k in node.keys if k is not None and _text(k) in NAMES]
        elif isinstance(node, ast.Subscript) and _text(node.slice) in NAMES:
            hits.append((node.lineno, _text(node.slice)))
        elif isinstance(node, ast.Call) and node.args and _text(node.args[0]) in NAMES:
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if func in LOOKUPS:
                hits.append((node.lineno, _text(node.args[0])))
    return hits


def _scan() -> dict[str, list[tuple[int, str]]]:
    found: dict[str, list[tuple[int, str]]] = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if rel in EXCEPTED:
            continue
        hits = [(line, name) for line, name in _hits(ast.parse(path.read_text()))
                if not any(rel.startswith(own + "/") for own in OWN.get(name, ()))]
        if hits:
            found[rel] = hits
    return found


def test_no_engine_name_is_dispatched_on_outside_its_packages():
    found = _scan()
    grown = {f: hits for f, hits in found.items() if len(hits) > PENDING.get(f, 0)}
    assert not grown, ("shared code names an engine; ask toolkit.semantics instead (a Semantics attribute or "
                       f"method): {grown}")


def test_pending_list_only_shrinks():
    found = _scan()
    stale = {f: (n, len(found.get(f, []))) for f, n in PENDING.items() if len(found.get(f, [])) < n}
    assert not stale, f"fewer engine names than PENDING lists (listed, found): lower PENDING: {stale}"


def test_the_scan_sees_a_comparison():
    tree = ast.parse('if s.semantics == "beam":\n    pass\nx = {"spark": 1}\nif execution == "spark":\n    pass\n'
                     'get("kafka_streams")\n')
    assert sorted(_hits(tree)) == [(1, "beam"), (3, "spark"), (6, "kafka_streams")]
