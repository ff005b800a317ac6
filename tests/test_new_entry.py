"""`new` as a contributor runs it, on a fixture map over a local git repository: the entry file it
writes (the declaration cited, its symbol recorded, the rest left as TODO), the ID and group it
picks, and every position it refuses without writing a file. The tests over pi's real tree are in
test_contributing.py (network); these are the ones mutation testing of generator/scaffold.py runs."""

from __future__ import annotations

import pytest
import yaml

from conftest import assert_clean_failure, entry_yaml, make_project, run_main

CODE = ("// the numbers\n"
        "export function one(): number {\n"
        "  return 1;\n"
        "}\n"
        "\n"
        "export function two(): number {\n"
        "  const a = 1;\n"
        "  return a + 1;\n"
        "}\n")


def project_of(tmp_path, **entries):
    return make_project(tmp_path, {"1": {"src/a.ts": CODE, "src/copy.ts": CODE, "src/b.ts": "export const b = 1;\n",
                                         "src/bin.dat": "a\0b\n", "src/dir/c.ts": "export const c = 1;\n"}},
                        {k: entry_yaml(k, v) for k, v in entries.items()})


def files_of(project) -> list[str]:
    return sorted(p.name for p in project.folder.iterdir())


def cites_of(path) -> list[dict]:
    return yaml.safe_load(path.read_text())["cites"]


def test_a_line_cites_the_whole_declaration_around_it(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    run = run_main(capsys, "new", "src/a.ts:8", "--decisions", project.decisions, "--group", "D")
    assert run.code == 0, run.stderr
    assert run.stdout == (f"wrote {project.entry('D2')}: D2 cites two; fill in question, decided_by and answer, "
                          "then run `make verify`\n")
    assert run.stderr == f"fetching git: {project.url} at v1\n"  # the source not yet in the cache: its fetch shown
    text = project.entry("D2").read_text()
    assert text.startswith("# yaml-language-server: $schema=../../schema/entry.schema.json\nid: D2\nkind: decision\n")
    entry = yaml.safe_load(text)
    assert (entry["question"], entry["decided_by"], entry["answer"]) == ("TODO", "TODO", "TODO")
    assert entry["cites"] == [{"file": "src/a.ts", "lines": "6-9", "record": entry["cites"][0]["record"]}]
    assert entry["cites"][0]["record"]["symbol"] == "two"
    refused = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert refused.code == 2 and "placeholder" in refused.stderr
    # the first line of a declaration, after a blank line, cites that declaration too
    run = run_main(capsys, "new", "src/a.ts:6", "--decisions", project.decisions, "--group", "D")
    assert run.code == 0, run.stderr
    assert cites_of(project.entry("D3"))[0]["lines"] == "6-9"


def test_a_range_is_cited_as_given(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    run = run_main(capsys, "new", "src/a.ts:7-8", "--decisions", project.decisions, "--id", "D7")
    assert run.code == 0, run.stderr
    assert "D7 cites two;" in run.stdout
    assert [c["lines"] for c in cites_of(project.entry("D7"))] == ["7-8"]
    assert "version:" not in project.entry("D7").read_text()
    run = run_main(capsys, "new", "src/a.ts:8-8", "--decisions", project.decisions, "--id", "D8")
    assert run.code == 0, run.stderr
    assert [c["lines"] for c in cites_of(project.entry("D8"))] == [8]


def test_one_line_outside_every_declaration_is_cited_alone(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    run = run_main(capsys, "new", "src/a.ts:1", "--decisions", project.decisions, "--group", "D")
    assert run.code == 0, run.stderr
    assert "D2 cites (top level);" in run.stdout
    assert [c["lines"] for c in cites_of(project.entry("D2"))] == [1]


def test_the_group_is_guessed_from_the_entries_citing_the_file_and_overlaps_are_noted(tmp_path, capsys) -> None:
    project = project_of(tmp_path, A1=[("src/copy.ts", "6-9")], A2=[("src/copy.ts", "6-9")],
                         D1=[("src/a.ts", "2-4")], D2=[("src/a.ts", "6-9")], D3=[("src/a.ts", "8")],
                         D4=[("src/a.ts", "4-6")], D5=[("src/a.ts", "9")], E1=[("src/a.ts", "2-5")])
    run = run_main(capsys, "new", "src/a.ts:8", "--decisions", project.decisions)
    assert run.code == 0, run.stderr
    assert "note: group D guessed from the entries that cite a.ts; give --group or --id to choose" in run.stderr
    # the new entry cites 6-9: each entry citing a range that shares a line with it is named
    notes = [line for line in run.stderr.splitlines() if "already cites" in line]
    assert notes == ["note: D2 already cites a.ts:6-9: Who decides D2?", "note: D3 already cites a.ts:8: Who decides D3?",
                     "note: D4 already cites a.ts:4-6: Who decides D4?", "note: D5 already cites a.ts:9: Who decides D5?"]
    assert "wrote" in run.stdout and project.entry("D6").is_file()



def test_the_guessed_group_names_the_file_by_its_name_alone(tmp_path, capsys) -> None:
    project = project_of(tmp_path, E1=[("src/dir/c.ts", "1")])
    run = run_main(capsys, "new", "src/dir/c.ts:1", "--decisions", project.decisions)
    assert run.code == 0, run.stderr
    assert "note: group E guessed from the entries that cite c.ts; give --group or --id to choose" in run.stderr


def test_the_guessed_group_names_a_file_at_the_top_of_the_tree(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"index.ts": CODE}}, {"D1": entry_yaml("D1", [("index.ts", "2-4")])})
    run = run_main(capsys, "new", "index.ts:8", "--decisions", project.decisions)
    assert run.code == 0, run.stderr
    assert "note: group D guessed from the entries that cite index.ts; give --group or --id to choose" in run.stderr
    assert cites_of(project.entry("D2"))[0]["file"] == "index.ts"


def test_a_file_no_entry_cites_needs_a_group(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    run = run_main(capsys, "new", "src/b.ts:1", "--decisions", project.decisions)
    assert_clean_failure(run, "no entry cites src/b.ts yet, so its group cannot be guessed; give --group: "
                              "see map.yaml")
    assert files_of(project) == ["D1.yaml", "map.yaml"]
    # a map that declares its groups: they are offered, each with its title
    project.map_yaml.write_text(project.map_yaml.read_text() + "groups:\n  - id: A\n    title: Starting up\n"
                                "  - id: D\n    title: Doing\n")
    run = run_main(capsys, "new", "src/b.ts:1", "--decisions", project.decisions)
    assert_clean_failure(run, "no entry cites src/b.ts yet, so its group cannot be guessed; give --group: "
                              "A (Starting up), D (Doing)")
    assert files_of(project) == ["D1.yaml", "map.yaml"]


def test_the_next_id_counts_unfinished_entries_and_the_highest_number(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")], D9=[("src/a.ts", "2-4")], C12=[("src/a.ts", "2-4")])
    first = run_main(capsys, "new", "src/a.ts:8", "--decisions", project.decisions, "--group", "D")
    second = run_main(capsys, "new", "src/a.ts:2", "--decisions", project.decisions, "--group", "D")
    third = run_main(capsys, "new", "src/a.ts:2", "--decisions", project.decisions, "--group", "E")
    assert (first.code, second.code, third.code) == (0, 0, 0), second.stderr
    assert "D10 cites two" in first.stdout and "D11 cites one" in second.stdout and "E1 cites one" in third.stdout


@pytest.mark.parametrize(("position", "message"), [
    ("src/a.ts", "'src/a.ts': give FILE:LINE or FILE:A-B, e.g. packages/coding-agent/src/core/agent-session.ts:658"),
    ("src/a.ts:x", "'src/a.ts:x': give FILE:LINE or FILE:A-B"),
    ("src/a.ts:2-", "'src/a.ts:2-': give FILE:LINE or FILE:A-B"),
    ("src/a.ts:0", "'src/a.ts:0': lines count from 1, and a range goes from low to high"),
    ("src/a.ts:3-2", "'src/a.ts:3-2': lines count from 1"),
    ("src/a.ts:10", "src/a.ts has 9 lines at 1; 10 does not exist there"),
    ("src/a.ts:9-10", "src/a.ts has 9 lines at 1; 9-10 does not exist there"),
    ("src/a.ts:5", "src/a.ts:5 is blank at 1; point at the code that decides"),
    ("src/gone.ts:1", "src/gone.ts does not exist at 1"),
    ("src/dir:1", "src/dir is a folder, not a file"),
    ("src/bin.dat:1", "src/bin.dat is a binary file"),
])
def test_a_position_that_cannot_be_cited_is_refused_and_nothing_written(tmp_path, capsys, position, message) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    run = run_main(capsys, "new", position, "--decisions", project.decisions, "--group", "D")
    assert message in assert_clean_failure(run)
    assert files_of(project) == ["D1.yaml", "map.yaml"]


def test_a_range_ending_on_a_written_line_is_not_blank(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    run = run_main(capsys, "new", "src/a.ts:5-6", "--decisions", project.decisions, "--group", "D")
    assert run.code == 0, run.stderr
    assert [c["lines"] for c in cites_of(project.entry("D2"))] == ["5-6"]


@pytest.mark.parametrize(("option", "message"), [
    (["--id", "D1"], "D1 exists already; choose another --id"),
    (["--id", "d2"], "'d2' is not an ID: a capital letter and a number, e.g. D12"),
    (["--id", "D12345"], "'D12345' is not an ID"),
    (["--id", "D2x"], "'D2x' is not an ID"),
    (["--map", "other", "--group", "D"], "no map named 'other' under"),
])
def test_an_id_or_map_that_cannot_be_used_is_refused(tmp_path, capsys, option, message) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    run = run_main(capsys, "new", "src/a.ts:8", "--decisions", project.decisions, *option)
    assert message in assert_clean_failure(run)
    assert files_of(project) == ["D1.yaml", "map.yaml"]


def test_an_id_whose_file_exists_unfinished_is_refused(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    assert run_main(capsys, "new", "src/a.ts:8", "--decisions", project.decisions, "--id", "D2").code == 0
    before = project.entry("D2").read_text()
    run = run_main(capsys, "new", "src/a.ts:2", "--decisions", project.decisions, "--id", "D2")
    assert run.code == 2 and "error: D2 exists already; choose another --id" in run.errors, run.stderr
    assert project.entry("D2").read_text() == before


def test_the_map_is_chosen_by_name(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    run = run_main(capsys, "new", "src/a.ts:8", "--decisions", project.decisions, "--map", "demo", "--group", "D")
    assert run.code == 0, run.stderr
    assert project.entry("D2").is_file()


def test_a_map_whose_pin_was_moved_records_the_version_the_citation_was_checked_at(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/a.ts": CODE}, "2": {"src/a.ts": "\n\n" + CODE}},
                           {"D1": entry_yaml("D1", [("src/a.ts", "2-4")])})
    project.map_yaml.write_text(project.map_yaml.read_text().replace('version: "1"', 'version: "2"\nchecked_at: "1"'))
    run = run_main(capsys, "new", "src/a.ts:10", "--decisions", project.decisions, "--group", "D")
    assert run.code == 0, run.stderr
    assert cites_of(project.entry("D2"))[0]["lines"] == "8-11"
    assert cites_of(project.entry("D2"))[0]["version"] == "2"


def test_an_unfinished_entry_does_not_block_starting_another(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    assert run_main(capsys, "new", "src/a.ts:8", "--decisions", project.decisions, "--group", "D").code == 0
    run = run_main(capsys, "new", "src/a.ts:2", "--decisions", project.decisions, "--group", "D")
    assert run.code == 0, run.stderr
    assert "D3 cites one" in run.stdout


def test_an_entry_with_another_problem_still_blocks_new(tmp_path, capsys) -> None:
    project = project_of(tmp_path, D1=[("src/a.ts", "2-4")])
    assert run_main(capsys, "new", "src/a.ts:8", "--decisions", project.decisions, "--group", "D").code == 0
    project.write_entry("D3", "id: D3\nquestion: Who decides D3?\n")
    run = run_main(capsys, "new", "src/a.ts:2", "--decisions", project.decisions, "--group", "D")
    assert run.code == 2 and "D3.yaml" in run.stderr and "Traceback" not in run.stderr
    assert "D2.yaml" in run.stderr  # every problem is named at once, the unfinished entry's too
    assert not project.entry("D4").exists()
