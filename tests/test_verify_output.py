"""What `verify` prints, whole: the table a person reads and the GitHub annotations CI shows, for
a run that holds every verdict (ok, moved, moved to another file, changed, changed at the top
level, missing). Run in this process, so mutation testing sees which lines these pin."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import entry_yaml, make_project, run_main

V1 = ('console.log("start");\n\nexport function steady(): number {\n  return 1;\n}\n\n'
      'export function drifting(): number {\n  return 2;\n}\n\nexport function doomed(): number {\n  return 3;\n}\n')
# Version 2: a header line on top, `drifting` and the top-level line edited, `doomed` deleted
V2 = "// header\n" + V1.replace("return 2;", "return 22;").replace('"start"', '"begin"').replace(
    "export function doomed(): number {\n  return 3;\n}\n", "")
STAYS = "export const limit = 3;\n"
WANDER = "export function wander(): number {\n  return 5;\n}\n"


@pytest.fixture
def project(tmp_path: Path):
    return make_project(tmp_path, {
        "1": {"src/a.ts": V1, "src/b.ts": STAYS, "src/old.ts": WANDER},
        "2": {"src/a.ts": V2, "src/b.ts": STAYS, "src/new.ts": "// moved here\n" + WANDER},
    }, {"D1": entry_yaml("D1", [("src/b.ts", 1), ("src/a.ts", 1), ("src/a.ts", "3-5")]),
        "D2": entry_yaml("D2", [("src/a.ts", "7-9"), ("src/a.ts", "11-13"), ("src/old.ts", "1-3")])})


def test_the_table_has_a_row_per_citation_and_the_verdict(project, capsys) -> None:
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2")
    assert run.code == 1
    assert run.stdout.splitlines() == [
        "ID  FILE                 RECORDED → RESOLVED  STATUS   SYMBOL",
        "D1  b.ts                 1-1 → 1-1            ok       limit",
        "D1  a.ts                 1-1 → 1-2            changed  (top level)",
        "D1  a.ts                 3-5 → 4-6            moved    steady",
        "D2  a.ts                 7-9 → 8-10           changed  drifting",
        "D2  a.ts                 11-13 → -            missing  doomed",
        "D2  old.ts → src/new.ts  1-3 → 2-4            moved    wander  [src/old.ts was renamed to src/new.ts]",
        "",
        "6 citations at 2: 1 ok, 2 moved, 2 changed, 1 missing: drift found",
    ]


def test_the_annotations_name_each_citation_that_is_not_ok(project, capsys) -> None:
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2", "--format", "github")
    assert run.code == 1
    d1, d2 = project.entry("D1"), project.entry("D2")
    assert run.stdout.splitlines() == [
        f"::error file={d1},line=8,title=citation changed::D1 src/a.ts:1-1 is changed now 1-2 at 2 (top level); "
        "re-read the code and update the entry",
        f"::error file={d1},line=10,title=citation moved::D1 src/a.ts:3-5 is moved now 4-6 at 2 (steady); "
        "run `python -m generator fix` to update it",
        f"::error file={d2},line=6,title=citation changed::D2 src/a.ts:7-9 is changed now 8-10 at 2 (drifting); "
        "re-read the code and update the entry",
        f"::error file={d2},line=8,title=citation missing::D2 src/a.ts:11-13 is missing at 2 (doomed); "
        "the cited code is gone; cite where the behaviour lives now",
        f"::error file={d2},line=10,title=citation moved::D2 src/old.ts:1-3 is moved now src/new.ts:2-4 at 2 (wander); "
        "src/old.ts was renamed to src/new.ts; run `python -m generator fix` to update it",
        "1 of 6 citations ok",
    ]


def test_a_run_with_every_citation_ok_says_so(project, capsys) -> None:
    for form, last in (("text", "6 citations at 1: 6 ok: all ok"), ("github", "6 of 6 citations ok")):
        run = run_main(capsys, "verify", "--decisions", project.decisions, "--format", form)
        assert run.code == 0 and run.stdout.splitlines()[-1] == last, run.stdout
    assert len(run.stdout.splitlines()) == 1, "no annotation for an ok citation"


def test_the_file_column_shows_the_file_name_of_any_path(tmp_path, capsys) -> None:
    """A file at the repository root and one three folders down: the FILE column holds each one's name."""
    code = "export const limit = 3;\n"
    project = make_project(tmp_path, {"1": {"root.ts": code, "src/deep/er/leaf.ts": code}},
                           {"D1": entry_yaml("D1", [("root.ts", 1), ("src/deep/er/leaf.ts", 1)])})
    run = run_main(capsys, "verify", "--decisions", project.decisions)
    assert run.code == 0, run.stderr
    assert [line.split()[1] for line in run.stdout.splitlines()[1:3]] == ["root.ts", "leaf.ts"]


def test_a_map_with_no_entries_yet_has_no_citations_to_count(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/a.ts": STAYS}})
    run = run_main(capsys, "verify", "--decisions", project.decisions)
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "0 citations at 1: none: all ok"
