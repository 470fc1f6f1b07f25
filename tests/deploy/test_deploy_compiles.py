"""The DataStream Java that ``deploy`` prints compiles against real Flink 2.3: each printed
snippet (``tests/fixtures/flink_deploy/NAME.java``) went unchanged into a method of a class
holding what a snippet asks the user to bring, and ``javac`` compiled it against
``flink-dist`` (``oracles/flink_datastream/compile_check.py``; ``compiled.json`` holds javac's
verdicts). Here: every case compiled, and ``deploy`` still prints what was compiled."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

import toolkit
from toolkit.cli import main

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "flink_deploy"
VERDICTS = json.loads((FIX / "compiled.json").read_text(encoding="utf-8"))


def test_every_printed_snippet_compiled_in_flink():
    assert len(VERDICTS) >= 15
    assert {name: v["javac"] for name, v in VERDICTS.items() if v["javac"] != "compiled"} == {}


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_deploy_still_prints_what_was_compiled(name, capsys):
    args = VERDICTS[name]["args"]
    if isinstance(args, dict):
        code = str(toolkit.deploy(**args))
    else:
        assert main(["deploy", *shlex.split(args)]) == 0
        code = capsys.readouterr().out
    assert code == (FIX / f"{name}.java").read_text(encoding="utf-8"), (
        "deploy prints other Java now: rerun oracles/flink_datastream/compile_check.py tests/fixtures/flink_deploy")
