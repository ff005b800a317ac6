"""Every command's `--help` as a user reads it, against its golden text in tests/golden/help/: the
commands, their flags and what each says, the wrapped descriptions and the examples kept whole.
When a change to them is intended, regenerate them with

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_cli_help.py

which rewrites them and then fails, naming the files it changed; read the diff before committing it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import run_main

GOLDEN = Path(__file__).parent / "golden" / "help"
REGENERATE = "UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_cli_help.py"
COMMANDS = ["verify", "fix", "bump", "accept", "record", "new", "schema", "source", "probe", "leads", "levers",
            "build", "render"]


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_reads_as_its_golden_text(command: str, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps to the terminal: a fixed one, as in the file
    run = run_main(capsys, *([command] if command else []), "--help")
    assert run.code == 0 and not run.stderr
    golden = GOLDEN / f"{command or 'generator'}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        if not golden.is_file() or golden.read_text(encoding="utf-8") != run.stdout:
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(run.stdout, encoding="utf-8")
            pytest.fail(f"UPDATE_GOLDEN=1 rewrote tests/golden/help/{golden.name}. Read `git diff tests/golden`, "
                        "then run the tests without UPDATE_GOLDEN", pytrace=False)
        return
    assert run.stdout == golden.read_text(encoding="utf-8"), (
        f"`python -m generator {command} --help` differs from tests/golden/help/{golden.name}; if the change is "
        f"intended, regenerate it with: {REGENERATE}")

