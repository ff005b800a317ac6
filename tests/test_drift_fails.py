"""The central promise: when a citation drifts, `verify` exits 1 and the site is not built.

Each kind of drift is tested alone in its run (one entry, one citation), so no other citation's
verdict can carry the exit code: `changed`, `missing` and `ambiguous`, and `moved` for
completeness. The map is pinned at 2 and every citation was checked at 1, as `bump` leaves it:
a plain `verify` (and `generator build`, which `make site` runs) resolves it from 1 to 2.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from conftest import DRIFT_V1 as V1, DRIFT_V2 as V2, entry_yaml, make_project, run_main


# status -> (entry ID, the cited range at 1)
DRIFT = {"moved": ("A1", "1-3"), "changed": ("A2", "5-8"), "missing": ("A3", "10-12"), "ambiguous": ("A4", "15")}
MKDOCS_YML = """site_name: Drift
theme:
  name: material
docs_dir: site_src
site_dir: site
plugins:
  - decision-map:
      decisions: decisions
"""


def one_citation_map(root: Path, status: str):
    """A map pinned at 2 with one entry whose one citation, checked at 1, is ``status`` at 2."""
    entry_id, lines = DRIFT[status]
    cites = f"  - file: src/lib.ts\n    lines: {lines}\n    version: \"1\"\n"
    project = make_project(root, {"1": {"src/lib.ts": V1}, "2": {"src/lib.ts": V2}},
                           {entry_id: entry_yaml(entry_id, cites)}, pin="2")
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    (root / "site_src").mkdir()
    return project


def build(capsys: pytest.CaptureFixture, root: Path):
    """`python -m generator build` (what `make site` runs) in this process, on ``root``/mkdocs.yml."""
    logger = logging.getLogger("mkdocs")
    handlers, level = list(logger.handlers), logger.level
    try:
        return run_main(capsys, "build", "--config", root / "mkdocs.yml", "--quiet")
    finally:
        logger.handlers[:] = handlers
        logger.setLevel(level)


@pytest.mark.parametrize("status", ["changed", "missing", "ambiguous", "moved"])
def test_verify_exits_1_when_the_only_citation_drifted(tmp_path: Path, capsys, status: str) -> None:
    project = one_citation_map(tmp_path, status)
    entry_id = DRIFT[status][0]

    report = run_main(capsys, "verify", "--decisions", project.decisions, "--format", "json", "--quiet")
    assert report.code == 1, (status, report.stdout, report.stderr)
    [row] = report.json()["citations"]
    assert (row["id"], row["status"]) == (entry_id, status)

    table = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert table.code == 1
    assert table.stdout.splitlines()[-1] == f"1 citations at 2: 1 {status}: drift found"

    github = run_main(capsys, "verify", "--decisions", project.decisions, "--format", "github", "--quiet")
    assert github.code == 1
    assert github.stdout.splitlines()[0].startswith(
        f"::error file={project.entry(entry_id)},line=6,title=citation {status}::{entry_id} src/lib.ts:")
    assert github.stdout.splitlines()[-1] == "0 of 1 citations ok"


@pytest.mark.parametrize("status", ["changed", "missing", "ambiguous", "moved"])
def test_the_site_is_not_built_when_the_only_citation_drifted(tmp_path: Path, capsys, status: str) -> None:
    project = one_citation_map(tmp_path, status)
    run = build(capsys, tmp_path)
    assert run.code != 0, (status, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    named = [line for line in run.stderr.splitlines() if str(project.entry(DRIFT[status][0])) in line]
    assert named and status in named[0], run.stderr
    assert not (tmp_path / "site").exists(), "a site was built from a drifted citation"


def test_the_same_map_verifies_and_builds_once_the_drift_is_accepted(tmp_path: Path, capsys) -> None:
    """The control: the failures above are the drift's, not the fixture's."""
    project = one_citation_map(tmp_path, "changed")
    assert run_main(capsys, "accept", "A2", "--decisions", project.decisions, "--quiet").code == 0
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--quiet").code == 0
    run = build(capsys, tmp_path)
    assert run.code == 0, run.stderr
    assert (tmp_path / "site" / "demo" / "map" / "index.html").is_file()
