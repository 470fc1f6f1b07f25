"""The README's two commands are the ones CI and users run; the README stays short; every command,
Python block and relative link of the README and of ``docs/*.md`` is checked."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
#: the documents whose commands, Python blocks and links are checked
PAGES = [README, *DOCS, ROOT / "notebooks" / "README.md"]
MAX_README_LINES = 300


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _readme_commands() -> list[str]:
    text = README.read_text()
    setup = text.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", setup, re.S)


def _blocks(text: str, langs: tuple[str, ...]) -> list[str]:
    """The fenced code blocks of ``text`` whose info string is one of ``langs``."""
    return [m.group(2) for m in re.finditer(r"^```([a-z]*)\n(.*?)^```", text, re.S | re.M) if m.group(1) in langs]


def test_readme_gives_exactly_two_commands():
    commands = _readme_commands()
    assert len(commands) == 2, commands
    assert all("\n" not in c for c in commands)
    assert commands[0].endswith("-m toolkit demo")
    assert commands[1].endswith("-m pytest")


def test_ci_runs_the_readme_test_command_with_the_self_checks_first():
    """.ci/run runs the README's test command in its steps, verbatim: the venv and the install,
    then ruff and mypy, then the suite; under ``set -e`` a failing check stops CI before the tests."""
    venv, install, run = _readme_commands()[1].split(" && ")
    ci = (ROOT / ".ci" / "run").read_text()
    lines = [ln for ln in ci.splitlines() if not ln.lstrip().startswith("#")]

    def first(fragment: str) -> int:
        found = [i for i, ln in enumerate(lines) if fragment in ln]
        assert found, f".ci/run has no line with {fragment!r}"
        return found[0]

    setup, ruff, mypy, tests = first(f"{venv} && {install}"), first(".venv/bin/ruff check ."), first(".venv/bin/mypy"), first(run)
    assert setup < ruff < tests and setup < mypy < tests
    assert re.search(r"^set -euo pipefail$", ci, re.M)


def test_the_demo_command_installs_what_the_test_command_does_without_test_tools():
    demo, test = (c.split(" && ")[1] for c in _readme_commands())
    assert "-c requirements/constraints.txt" in demo and "-c requirements/constraints.txt" in test
    assert '".[notebook]"' in demo and '".[notebook,test,lint]"' in test


def test_pytest_runs_notebooks_under_nbval():
    text = (ROOT / "pyproject.toml").read_text()
    assert "--nbval" in text and '"notebooks"' in text


def test_readme_is_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; move detail to docs/ (at most {MAX_README_LINES})"


def test_docs_index_lists_every_document():
    index = (ROOT / "docs" / "README.md").read_text()
    listed = set(re.findall(r"\]\(([a-z_]+\.md)\)", index))
    missing = sorted(p.name for p in DOCS if p.name != "README.md" and p.name not in listed)
    assert not missing, f"docs/README.md does not list {missing}"


def _command_lines() -> list[tuple[str, str]]:
    """(page, arguments) of every ``python -m toolkit ...`` line in a shell block of the pages,
    continuation lines joined; placeholders (``FILE...``, ``a|b`` alternatives) left out."""
    out = []
    for page in PAGES:
        for block in _blocks(page.read_text(), ("sh", "bash", "")):
            for line in re.sub(r"\\\n\s*", " ", block).splitlines():
                m = re.match(r"^(?:\.venv/bin/)?python -m toolkit (.*)$", line.strip())
                if not m:
                    continue
                args = m.group(1).split(" #")[0].strip()
                args = re.sub(r"\[(--[^\]|]*)\]", r"\1", args)  # optional parts, written [--json]
                if args and "FILE" not in args and "|" not in args and args != "--help":
                    out.append((_rel(page), args))
    return out


COMMANDS = _command_lines()


def test_the_docs_have_command_examples():
    pages = {page for page, _ in COMMANDS}
    assert len(COMMANDS) >= 30, COMMANDS
    assert {"README.md", "docs/command_line.md", "docs/spark_semantics.md", "docs/beam_semantics.md",
            "docs/kafka_streams_semantics.md", "docs/pipelines.md"} <= pages, pages


@pytest.mark.parametrize("page,args", COMMANDS, ids=[f"{p}:{a[:60]}" for p, a in COMMANDS])
def test_command_lines_parse(page, args):
    """Every ``python -m toolkit`` example in the README and docs/ parses (options spelled as --help has them)."""
    import shlex

    from toolkit.cli import build_parser

    build_parser().parse_args(shlex.split(args))


PYTHON_BLOCKS = [(_rel(page), i, block) for page in PAGES
                 for i, block in enumerate(_blocks(page.read_text(), ("python",)))]


def test_the_docs_have_python_examples():
    assert len(PYTHON_BLOCKS) >= 10
    assert any(page == "README.md" for page, _, _ in PYTHON_BLOCKS)


@pytest.mark.parametrize("page,index,block", PYTHON_BLOCKS, ids=[f"{p}#{i}" for p, i, _ in PYTHON_BLOCKS])
def test_python_blocks_are_python(page, index, block):
    """Every ``python`` block of the README and docs/ is valid Python, and the names it imports from
    ``toolkit`` or calls as ``toolkit.NAME`` exist."""
    import importlib

    import toolkit

    tree = ast.parse(block, filename=f"{page} block {index}")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("toolkit"):
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{page}: {node.module} has no {alias.name}"
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "toolkit"):
            assert hasattr(toolkit, node.attr), f"{page}: toolkit has no {node.attr}"


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.S | re.M)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def _links() -> list[tuple[str, str]]:
    out = []
    for page in PAGES:
        text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if not re.match(r"[a-z]+:", target):
                out.append((_rel(page), target))
    return out


LINKS = _links()


def test_there_are_links_to_check():
    assert len(LINKS) >= 40
    assert ("README.md", "docs/README.md") in LINKS


@pytest.mark.parametrize("page,target", LINKS, ids=[f"{p}->{t}" for p, t in LINKS])
def test_relative_links_point_to_existing_files(page, target):
    """Every relative link of the README, docs/*.md and notebooks/README.md names a file or folder
    that exists, and a ``#section`` one of its headings."""
    path, _, anchor = target.partition("#")
    source = ROOT / page
    dest = (source.parent / path).resolve() if path else source
    assert dest.exists(), f"{page}: link to {target}: no {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}"
    assert dest.is_relative_to(ROOT), f"{page}: link to {target} leaves the repository"
    if anchor:
        assert dest.suffix == ".md", f"{page}: anchor {anchor} on a non-Markdown file"
        assert anchor in _anchors(dest), f"{page}: no section #{anchor} in {dest.relative_to(ROOT)}"


def test_no_absolute_paths_of_a_machine():
    for page in PAGES:
        assert not re.search(r"(?<![\w.])/(?:work|home|Users|tmp)/", page.read_text()), page


def test_engine_settings_rows_come_from_the_declarations():
    """docs/settings.md's rows of the engines' own settings are ``toolkit.semantics.options_table()``
    (their declarations); after changing a declaration, paste that function's output there."""
    from toolkit.semantics import options_table

    rows = options_table().splitlines()
    text = (ROOT / "docs" / "settings.md").read_text().splitlines()
    first = text.index(rows[0]) if rows[0] in text else -1
    assert text[first:first + len(rows)] == rows, "docs/settings.md: paste toolkit.semantics.options_table() there"


def test_settings_table_is_the_settings_model():
    """docs/settings.md's table names every common setting (a field of Setting) and every
    registered engine's own (its declarations), and nothing else."""
    from toolkit.semantics import all_semantics
    from toolkit.settings import Setting

    text = (ROOT / "docs" / "settings.md").read_text()
    section = text.split("## Settings: one vocabulary", 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("|")][2:]  # after the header and |---|
    named = set(re.findall(r"`([a-z_]+)`", "".join(row.split("|")[1] for row in rows)))
    declared = (set(Setting.__dataclass_fields__) - {"own"}) | {o.name for e in all_semantics() for o in e.options}
    assert named == declared
