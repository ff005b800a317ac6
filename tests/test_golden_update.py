"""`UPDATE_GOLDEN=1` rewrites the golden pages and then fails, naming each file it changed, so a
blessed change is always looked at; with nothing to change it passes.

Run on a copy of the test folder, so the real goldens are never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from conftest import ROOT, python_env

TESTS = ROOT / "tests"
GOLDEN_TEST = "test_render.py::test_pages_match_the_golden_files"


def run_golden_test(tests: Path, update: bool) -> subprocess.CompletedProcess:
    env = python_env()
    env.pop("UPDATE_GOLDEN", None)
    if update:
        env["UPDATE_GOLDEN"] = "1"
    # a base folder of its own: with pytest's default one (/tmp/pytest-of-<user>) the inner run would
    # remove the oldest numbered folders there, which other runs of the suite may still be using
    basetemp = tempfile.mkdtemp(prefix="pytest-", dir=tests.parent)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tests),
                           "--basetemp", basetemp, "-c", os.devnull, str(tests / GOLDEN_TEST)],
                          cwd=tests, env=env, capture_output=True, text=True, timeout=300)


def test_update_golden_rewrites_then_fails_listing_the_changed_files(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    shutil.copy2(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")  # the demo site starts from the real one
    for name in ("conftest.py", "browsing.py", "memory_root.py", "test_render.py"):  # the conftest needs the two after it
        shutil.copy2(TESTS / name, tests / name)
    for folder in ("golden", "site_fixtures"):
        shutil.copytree(TESTS / folder, tests / folder, ignore=shutil.ignore_patterns("__pycache__"))
    golden = tests / "golden"
    truth = {p: p.read_bytes() for p in golden.rglob("*.md")}

    # An unchanged golden: the update run passes and changes nothing.
    quiet = run_golden_test(tests, update=True)
    assert quiet.returncode == 0, quiet.stdout[-3000:]
    assert {p: p.read_bytes() for p in golden.rglob("*.md")} == truth

    # One golden out of date, one missing, one stale extra file: all three named, the run fails.
    (golden / "demo" / "map.md").write_text("out of date\n")
    (golden / "index.md").unlink()
    (golden / "demo" / "gone.md").write_text("no page renders this\n")
    loud = run_golden_test(tests, update=True)
    assert loud.returncode == 1, loud.stdout[-3000:]
    assert "UPDATE_GOLDEN=1 changed tests/golden/" in loud.stdout
    for said in ("rewrote demo/map.md", "added index.md", "removed demo/gone.md"):
        assert said in loud.stdout, loud.stdout[-3000:]
    assert {p: p.read_bytes() for p in golden.rglob("*.md")} == truth

    # The rewritten goldens now pass without the flag.
    assert run_golden_test(tests, update=False).returncode == 0
