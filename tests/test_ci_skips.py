"""No silent skip in CI: a test whose browser, node or registry is missing skips on a developer's
machine, saying why, and fails when DECISION_MAP_CI=1 (.ci/run sets it); any other skip fails
the CI run as a whole. Run on a small test folder with the project's conftest, in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from conftest import ROOT, python_env

TESTS = '''
import pytest
from conftest import require


@pytest.mark.network
def test_needs_the_registry():
    pass


def test_needs_node():
    require("node", False, "no node on this machine")


def test_plain_skip():
    pytest.skip("skipped for some reason")


def test_runs():
    assert True
'''


def run_pytest(folder: Path, ci: bool, options: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    fake_npm = folder / "bin" / "npm"  # an npm whose registry does not answer
    fake_npm.parent.mkdir(exist_ok=True)
    fake_npm.write_text("#!/bin/sh\necho 'npm error code ECONNREFUSED' >&2\nexit 1\n")
    fake_npm.chmod(0o755)
    env = python_env(PATH=f"{fake_npm.parent}:{os.environ['PATH']}")
    env.pop("DECISION_MAP_CI", None)
    if ci:
        env["DECISION_MAP_CI"] = "1"
    # a base folder of its own: with pytest's default one (/tmp/pytest-of-<user>) the inner run would
    # remove the oldest numbered folders there, which other runs of the suite may still be using
    basetemp = tempfile.mkdtemp(prefix="pytest-", dir=folder.parent)
    # no Hypothesis plugin: the small suite has no property test, and each of its processes would rewrite
    # the asserts of Hypothesis's 73 modules (where PYTHONDONTWRITEBYTECODE is set, none is kept): this
    # file's tests took 9.2 s of CPU with it, 4.6 s without (measured)
    return subprocess.run([sys.executable, "-m", "pytest", "-rfEs", "-p", "no:cacheprovider",
                           "-p", "no:hypothesispytest", "-c", os.devnull,
                           "--rootdir", str(folder), "--basetemp", basetemp, "-o", "markers=network\nbrowser",
                           *options, str(folder)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def make_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    shutil.copy2(ROOT / "tests" / "conftest.py", folder / "conftest.py")
    for name in ("browsing.py", "memory_root.py"):  # a plugin the conftest names, a module it imports
        shutil.copy2(ROOT / "tests" / name, folder / name)
    (folder / "test_needs.py").write_text(TESTS)
    return folder


def test_a_missing_requirement_skips_with_its_reason_outside_ci(tmp_path: Path) -> None:
    run = run_pytest(make_folder(tmp_path), ci=False)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "1 passed, 3 skipped" in run.stdout
    assert "needs the npm registry: `npm ping` got no answer" in run.stdout
    assert "needs node: no node on this machine" in run.stdout


def test_in_ci_a_missing_requirement_fails_and_any_skip_fails_the_run(tmp_path: Path) -> None:
    run = run_pytest(make_folder(tmp_path), ci=True)
    assert run.returncode == 1, run.stdout[-3000:]
    assert "1 failed, 1 passed, 1 skipped, 1 error" in run.stdout, run.stdout[-3000:]
    assert "ERROR test_needs.py::test_needs_the_registry" in run.stdout  # before its fixtures start
    assert "FAILED test_needs.py::test_needs_node" in run.stdout
    assert "CI must provide it" in run.stdout
    assert "skipped in CI (DECISION_MAP_CI=1): each one fails the run" in run.stdout
    assert "test_needs.py::test_plain_skip: Skipped: skipped for some reason" in run.stdout


def test_in_ci_a_run_whose_only_fault_is_a_skip_fails_when_workers_run_the_tests(tmp_path: Path) -> None:
    """`make test` runs the suite on several workers (pytest-xdist): a skip in a worker reaches the run's
    own verdict and its summary all the same, and fails a run that has no other fault. (Outside CI
    the same skip passes: test_a_missing_requirement_skips_with_its_reason_outside_ci.)"""
    folder = make_folder(tmp_path)
    (folder / "test_needs.py").write_text("import pytest\n\n\ndef test_a():\n    pytest.skip('why')\n\n\n"
                                          "def test_b():\n    pass\n")
    run = run_pytest(folder, ci=True, options=("-n", "2"))
    assert run.returncode == 1 and "1 passed, 1 skipped" in run.stdout, run.stdout[-3000:]
    assert "2 workers" in run.stdout, run.stdout[-3000:]
    assert "skipped in CI (DECISION_MAP_CI=1): each one fails the run" in run.stdout
    assert "test_needs.py::test_a: Skipped: why" in run.stdout, run.stdout[-3000:]


def test_ci_run_sets_the_variable() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert "export DECISION_MAP_CI=1" in script
    assert script.index("export DECISION_MAP_CI=1") < script.index("make test")
