"""`record` as a contributor runs it: which citations it writes a record for (the YAML they read
afterwards), which it leaves, and what it refuses with exit 1. Cases mutation testing showed no
other test pins; the records' promises are in test_records.py."""

from __future__ import annotations

import re

import pytest
import yaml

from conftest import entry_yaml, make_project, run_main

CODE = "export function one(): number {\n  return 1;\n}\n\nexport function two(): number {\n  return 2;\n}\n"


def records(project, entry_id: str) -> list[str | None]:
    cites = yaml.safe_load(project.entry(entry_id).read_text())["cites"]
    return [c["record"]["symbol"] if "record" in c else None for c in cites]


def project_of(tmp_path, **entries):
    return make_project(tmp_path, {"1": {"src/a.ts": CODE}}, {k: entry_yaml(k, v) for k, v in entries.items()})


def test_record_of_one_entry_leaves_the_others(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "1-3")], D2=[("src/a.ts", "5-7")], D3=[("src/a.ts", "1-3")])
    run = run_main(capsys, "record", "D2", "--decisions", project.decisions, "--quiet")
    assert run.code == 0, run.stderr
    assert [records(project, i) for i in ("D1", "D2", "D3")] == [[None], ["two"], [None]]


def test_a_citation_without_a_record_after_one_with_a_record_is_recorded(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "1-3")])
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    text = project.entry("D1").read_text() + "  - file: src/a.ts\n    lines: 5-7\n"
    project.entry("D1").write_text(text)
    run = run_main(capsys, "record", "--decisions", project.decisions, "--quiet")
    assert run.stdout == "recorded 1 citation(s) in 1 file(s)\n"
    assert records(project, "D1") == ["one", "two"]


def test_replace_takes_anew_only_the_ranges_changed_on_purpose(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "1-3"), ("src/a.ts", "1-3")])
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    first = re.findall(r"record: .*", project.entry("D1").read_text())[0]
    # the second citation now cites `two` on purpose
    text = project.entry("D1").read_text()
    at = text.rindex("lines: 1-3")
    project.entry("D1").write_text(text[:at] + "lines: 5-7" + text[at + len("lines: 1-3"):])
    run = run_main(capsys, "record", "--replace", "D1", "--decisions", project.decisions, "--quiet")
    assert (run.code, run.stdout) == (0, "recorded 1 citation(s) in 1 file(s)\n"), run.stderr
    assert records(project, "D1") == ["one", "two"]
    assert re.findall(r"record: .*", project.entry("D1").read_text())[0] == first


@pytest.mark.parametrize(("lines", "refused"), [
    ("6-9", "D1: src/a.ts:6-9 runs past the end of the file (7 lines at 1); fix the range first"),
    ("4", "D1: src/a.ts:4-4 holds only blank lines at 1; cite the code the entry is about"),
], ids=["past-the-end", "blank-lines"])
def test_replace_refuses_a_range_and_records_the_rest(tmp_path, capsys, lines: str, refused: str) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "1-3"), ("src/a.ts", "5-7")])
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    text = project.entry("D1").read_text()
    project.entry("D1").write_text(text.replace("lines: 1-3", f"lines: {lines}").replace("lines: 5-7", "lines: 1-3"))
    run = run_main(capsys, "record", "--replace", "D1", "--decisions", project.decisions, "--quiet")
    assert (run.code, run.stdout) == (1, "recorded 1 citation(s) in 1 file(s)\n")
    assert run.stderr.splitlines() == [refused]
    assert records(project, "D1") == ["one", "one"], "the second, changed on purpose, recorded anew"


def test_replace_refuses_a_range_of_blank_lines(tmp_path, capsys) -> None:
    """A record of blank lines would match any blank lines anywhere: what a citation records is code."""
    project = project_of(tmp_path, D1=[("src/a.ts", "1-3"), ("src/a.ts", "5-7")])
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    before = project.entry("D1").read_text()
    project.entry("D1").write_text(before.replace("lines: 5-7", "lines: 4"))
    run = run_main(capsys, "record", "--replace", "D1", "--decisions", project.decisions, "--quiet")
    assert (run.code, run.stdout) == (1, "recorded 0 citation(s) in 0 file(s)\n")
    assert run.stderr.splitlines() == ["D1: src/a.ts:4-4 holds only blank lines at 1; cite the code the entry is about"]
    assert project.entry("D1").read_text() == before.replace("lines: 5-7", "lines: 4")


def test_a_range_edited_by_hand_finds_its_code_on_the_first_line(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "1-3")])
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    project.entry("D1").write_text(project.entry("D1").read_text().replace("lines: 1-3", "lines: 2-4"))
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--format", "json", "--quiet")
    [row] = run.json()["citations"]
    assert (row["status"], row["resolved"], row["detail"]) == (
        "moved", [1, 3], "the range was edited by hand; the recorded code is at 1-3")


def test_renames_are_followed_from_each_citations_own_version(tmp_path, capsys) -> None:
    """a.ts was renamed b.ts at 2, then c.ts at 3: a citation checked at 1 and one checked at 2
    both follow the rename git saw between their version and 3."""
    project = make_project(tmp_path, {"1": {"src/a.ts": CODE}, "2": {"src/b.ts": CODE}, "3": {"src/c.ts": CODE}},
                           {"D1": entry_yaml("D1", [("src/a.ts", "1-3")]),
                            "D2": entry_yaml("D2", "  - file: src/b.ts\n    lines: 5-7\n    version: \"2\"\n")})
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "3", "--format", "json", "--quiet")
    assert [(r["resolved_file"], r["detail"]) for r in run.json()["citations"]] == [
        ("src/c.ts", "src/a.ts was renamed to src/c.ts"), ("src/c.ts", "src/b.ts was renamed to src/c.ts")]


def test_record_writes_checked_at_into_a_non_ascii_map_under_a_c_locale(tmp_path, capsys) -> None:
    import locale

    project = project_of(tmp_path, D1=[("src/a.ts", "1-3")])
    project.map_yaml.write_text(project.map_yaml.read_text().replace("Demo map", "Carte « démo »"), encoding="utf-8")
    previous = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")
        run = run_main(capsys, "record", "--decisions", project.decisions, "--quiet")
    finally:
        locale.setlocale(locale.LC_CTYPE, previous)
    assert run.code == 0, run.stderr
    text = project.map_yaml.read_text(encoding="utf-8")
    assert text.startswith('title: Carte « démo »\nrepo: https://example.org/demo\nversion: "1"\nchecked_at: "1"\n')


def test_replace_without_ids_is_refused_and_says_how_to_name_them(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "1-3")])
    run = run_main(capsys, "record", "--replace", "--decisions", project.decisions, "--quiet")
    assert run.code == 2 and "Traceback" not in run.stderr
    assert run.stderr == ("error: --replace takes the records anew from the ranges as they are, which would hide "
                          "every range edited by hand; name the entries you changed on purpose (record --replace D1)\n")
    assert records(project, "D1") == [None]


def test_record_records_every_map_in_the_folder(tmp_path, capsys) -> None:
    import shutil

    project = project_of(tmp_path, D1=[("src/a.ts", "1-3")])
    shutil.copytree(project.folder, project.decisions / "other")
    run = run_main(capsys, "record", "--decisions", project.decisions, "--quiet")
    # each map's entry, and each map.yaml, which now says where the records were taken
    assert run.stdout == "recorded 2 citation(s) in 4 file(s)\n"
    assert "record:" in (project.decisions / "other" / "D1.yaml").read_text()
    assert 'checked_at: "1"' in (project.decisions / "other" / "map.yaml").read_text()


def test_record_reports_what_it_refused_in_every_map(tmp_path, capsys) -> None:
    """A range changed on purpose past the end of its file is refused in each map of the folder."""
    import shutil

    project = project_of(tmp_path, D1=[("src/a.ts", "1-3")])
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    shutil.copytree(project.folder, project.decisions / "other")
    for folder, lines in ((project.folder, "6-9"), (project.decisions / "other", "5-8")):
        entry = folder / "D1.yaml"
        entry.write_text(entry.read_text().replace("lines: 1-3", f"lines: {lines}"))
    run = run_main(capsys, "record", "--replace", "D1", "--decisions", project.decisions, "--quiet")
    assert run.code == 1
    assert sorted(run.stderr.splitlines()) == [
        f"D1: src/a.ts:{lines} runs past the end of the file (7 lines at 1); fix the range first"
        for lines in ("5-8", "6-9")]


def test_fix_at_the_pin_renames_a_record_whose_symbol_is_stale(tmp_path, capsys) -> None:
    """The code is as recorded (length and digest), only the record's symbol is an old name (written
    by hand, or by an older naming): `fix` at the pin records the range anew, so the name is right."""
    project = project_of(tmp_path, D1=[("src/a.ts", "1-3")])
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    text = project.entry("D1").read_text()
    project.entry("D1").write_text(text.replace("symbol: one", "symbol: uno"))
    assert records(project, "D1") == ["uno"]
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--quiet")
    assert run.code == 0, run.stderr
    assert project.entry("D1").read_text() == text


def test_fix_at_the_pin_leaves_a_citation_it_cannot_place_as_written(tmp_path, capsys) -> None:
    """A record whose code is nowhere (its digest edited by hand) is `changed`: `fix` names it for a
    person and writes nothing into the entry, not even a `version:` (it is checked at the pin)."""
    project = project_of(tmp_path, D1=[("src/a.ts", "1-3")])
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    text = project.entry("D1").read_text()
    digest = yaml.safe_load(text)["cites"][0]["record"]["digest"]
    project.entry("D1").write_text(text.replace(digest, "0" * 12))
    before = project.entry("D1").read_text()
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--quiet")
    assert run.code == 1
    assert run.stdout.startswith("D1: src/a.ts:1-3 is changed; left for a person (the recorded code is not in "
                                  "src/a.ts at 1;"), run.stdout
    assert project.entry("D1").read_text() == before
