"""The README's two commands are the ones CI and users run."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    setup = text.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", setup, re.S)


def test_readme_gives_exactly_two_commands():
    commands = _readme_commands()
    assert len(commands) == 2, commands
    assert all("\n" not in c for c in commands)
    assert commands[0].endswith("-m toolkit demo")
    assert commands[1].endswith("-m pytest")


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert _readme_commands()[1] in ci


def test_pytest_runs_notebooks_under_nbval():
    text = (ROOT / "pyproject.toml").read_text()
    assert "--nbval" in text and '"notebooks"' in text


def test_readme_command_lines_parse():
    """Every ``python -m toolkit`` example in the README parses (options spelled as --help has them)."""
    import shlex

    from toolkit.cli import build_parser

    text = (ROOT / "README.md").read_text()
    section = text.split("## Use it from the command line", 1)[1].split("\n## ", 1)[0]
    lines = [ln.split("#")[0].strip() for ln in re.findall(r"^(?:\.venv/bin/)?python -m toolkit (.*)$", section, re.M)]
    lines = [ln for ln in lines if ln and "FILE" not in ln and "|" not in ln and ln != "--help"]
    assert len(lines) >= 6
    for line in lines:
        build_parser().parse_args(shlex.split(line))


def test_readme_settings_table_is_the_settings_model():
    from toolkit.settings import Setting

    text = (ROOT / "README.md").read_text()
    table = text.split("### Settings: one vocabulary", 1)[1].split("\n\n", 3)[2]
    named = set(re.findall(r"`([a-z_]+)`", "".join(row.split("|")[1] for row in table.splitlines()[2:])))
    assert named == set(Setting.__dataclass_fields__)
