"""How a problem reads: ``path:line: what is wrong``, the path relative to where the command runs
(through a symlinked folder too), every problem of a refused input on a line of its own, in the
same order whatever order they were found in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.errors import DriftError, InputError, Problem, display_path


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder the command runs in, holding decisions/."""
    (tmp_path / "project" / "decisions").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "project")
    return tmp_path / "project"


def test_a_problem_names_its_file_and_line_relative_to_the_working_folder(here: Path) -> None:
    assert str(Problem(here / "decisions" / "D1.yaml", 7, "no answer")) == "decisions/D1.yaml:7: no answer"
    assert str(Problem(Path("decisions/D1.yaml"), 12, "x")) == "decisions/D1.yaml:12: x"


def test_a_problem_with_the_whole_file_has_no_line(here: Path) -> None:
    assert str(Problem(here / "map.yaml", 0, "not a mapping")) == "map.yaml: not a mapping"


def test_a_path_elsewhere_is_shown_whole(here: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "other" / "D2.yaml"
    assert display_path(elsewhere) == str(elsewhere)
    assert str(Problem(elsewhere, 3, "bad")) == f"{elsewhere}:3: bad"
    assert display_path("/not/here.yaml") == "/not/here.yaml", "a string path is taken too"


def test_a_path_through_a_symlink_to_the_working_folder_is_shown_relative(here: Path, tmp_path: Path) -> None:
    os.symlink(here, tmp_path / "link")
    assert display_path(tmp_path / "link" / "decisions" / "D1.yaml") == "decisions/D1.yaml"


def test_a_symlinked_working_folder_still_shows_paths_relative(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "real" / "decisions").mkdir(parents=True)
    os.symlink(tmp_path / "real", tmp_path / "link")
    monkeypatch.chdir(tmp_path / "link")
    monkeypatch.setattr(Path, "cwd", classmethod(lambda cls: cls(tmp_path / "link")))  # as $PWD names it
    assert display_path(tmp_path / "real" / "decisions" / "D1.yaml") == "decisions/D1.yaml"


def test_every_problem_of_an_input_is_a_line_in_file_line_message_order(here: Path) -> None:
    a, b = here / "decisions" / "A.yaml", here / "decisions" / "B.yaml"
    found = [Problem(b, 1, "first of B"), Problem(a, 9, "late in A"), Problem(a, 2, "zeta"), Problem(a, 2, "alpha"),
             Problem(a, 10, "later in A")]
    error = InputError(found)
    assert str(error).splitlines() == ["decisions/A.yaml:2: alpha", "decisions/A.yaml:2: zeta",
                                       "decisions/A.yaml:9: late in A", "decisions/A.yaml:10: later in A",
                                       "decisions/B.yaml:1: first of B"]
    assert [str(p) for p in error.problems] == str(error).splitlines()
    assert found[0].message == "first of B", "the caller's list is left as it was"


def test_drift_keeps_its_problems_and_the_version(here: Path) -> None:
    drift = DriftError([Problem(here / "decisions" / "D1.yaml", 4, "changed"), Problem(here / "map.yaml", 0, "x")],
                       "0.80.0")
    assert drift.version == "0.80.0"
    assert str(drift) == "decisions/D1.yaml:4: changed\nmap.yaml: x"
    assert isinstance(drift, InputError) and len(drift.problems) == 2


def test_a_problem_is_not_a_placeholder_unless_said() -> None:
    assert Problem(Path("x"), 1, "m").placeholder is False
    assert Problem(Path("x"), 1, "m", placeholder=True).placeholder is True
