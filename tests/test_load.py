"""Loading decisions/: one test per kind of error, asserting the file, the line and the wording."""

from __future__ import annotations

import os
from pathlib import Path

import git
import pytest

from conftest import entry_yaml, make_project, run_cli, run_main
from generator import InputError, load_maps

MAP = """title: Demo map
repo: https://example.org/demo
version: "1"
source:
  git:
    url: file:///nowhere
    ref: "v{version}"
"""

GOOD = entry_yaml("D1", [("src/a.ts", "1-2")])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """decisions/demo with a map.yaml and one good entry."""
    demo = tmp_path / "decisions" / "demo"
    demo.mkdir(parents=True)
    (demo / "map.yaml").write_text(MAP)
    (demo / "D1.yaml").write_text(GOOD)
    return demo


def problems(folder: Path) -> list[str]:
    """Every problem the loader finds, as 'file:line: message' (the file relative to the map)."""
    with pytest.raises(InputError) as caught:
        load_maps(folder.parent)
    return [f"{p.path.relative_to(folder).as_posix()}:{p.line}: {p.message}" for p in caught.value.problems]


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- what must load -----------------------------------------------------------------------------


def test_the_minimal_entry_of_the_design_loads(folder: Path) -> None:
    write(folder, "D2.yaml", """id: D2
kind: decision            # or: problem (default: decision)
question: Is a person asked before a tool call the model issued runs?
decided_by: code          # code | model | person
answer: No. pi has no confirmation step.
cites:
  - file: packages/coding-agent/src/core/agent-session.ts
    lines: 658-681        # or a single line: 42
  - file: ./packages/agent/src/agent-loop.ts
    lines: 42
""")
    [demo] = load_maps(folder.parent)
    entry = demo.entry("D2")
    assert entry is not None and entry.kind == "decision" and entry.decided_by == "code"
    first, second = entry.cites
    assert (first.file, first.start, first.end, first.line) == (
        "packages/coding-agent/src/core/agent-session.ts", 658, 681, 7)
    assert (second.file, second.start, second.end, second.line) == ("packages/agent/src/agent-loop.ts", 42, 42, 9)
    assert [e.id for e in demo.entries] == ["D1", "D2"]


def test_a_map_folder_given_as_the_decisions_folder_is_that_one_map(folder: Path) -> None:
    """`--decisions decisions/demo`: the folder holding map.yaml is the map, not a folder of maps."""
    [demo] = load_maps(folder)
    assert (demo.name, [e.id for e in demo.entries]) == ("demo", ["D1"])


def test_entries_are_ordered_by_group_then_number(folder: Path) -> None:
    for entry_id in ("D10", "A2", "D2"):
        write(folder, f"{entry_id}.yaml", entry_yaml(entry_id, [("a.ts", 1)]))
    [demo] = load_maps(folder.parent)
    assert [e.id for e in demo.entries] == ["A2", "D1", "D2", "D10"]


# --- one test per kind of error -------------------------------------------------------------------


def test_yaml_syntax_error(folder: Path) -> None:
    write(folder, "D2.yaml", "id: D2\nquestion: [unclosed\ndecided_by: code\n")
    assert problems(folder) == ["D2.yaml:3: YAML syntax error: did not find expected ',' or ']'"]


def test_tab_indentation(folder: Path) -> None:
    write(folder, "D2.yaml", entry_yaml("D2", "\t- file: a.ts\n\t  lines: 1\n"))
    [problem] = problems(folder)
    assert problem.startswith("D2.yaml:6: YAML syntax error: ")
    assert problem.endswith("(YAML does not allow tabs for indentation; indent with spaces)")


def test_wrong_types(folder: Path) -> None:
    write(folder, "D2.yaml", """id: D2
question: [a, list]
decided_by: robot
answer: {a: mapping}
cites:
  - file: a.ts
    lines: soon
failures:
  - issue: many
    title: T
upstream: 7
""")
    assert problems(folder) == [
        "D2.yaml:2: question must be a single value, not a list",
        "D2.yaml:3: decided_by must be one of code, model, person, not 'robot'",
        "D2.yaml:4: answer must be a single value, not a mapping",
        "D2.yaml:7: cites.0.lines must be a line (42) or a range (658-681), not 'soon'",
        "D2.yaml:9: failures.0.issue must be a whole number of at least 1, not 'many'",
        "D2.yaml:11: upstream must be a mapping of keys to values",
    ]


def test_wrong_form(folder: Path) -> None:
    write(folder, "D2.yaml", entry_yaml("D2", "  - file: a.ts\n    lines: 1\n    version: ~1.4\n",
                                        reviewed="{version: 1.4.0, date: yesterday}"))
    assert problems(folder) == [
        "D2.yaml:5: reviewed.date 'yesterday' does not have the expected form (YYYY-MM-DD)",
        "D2.yaml:9: cites.0.version '~1.4' does not have the expected form (a version such as 1.4.0)",
    ]


def test_unknown_key_says_what_was_meant(folder: Path) -> None:
    write(folder, "D2.yaml", entry_yaml("D2", "  - file: a.ts\n    line: 4\n", decidd_by="code").replace(
        "decided_by: code\n", ""))
    assert problems(folder) == [
        "D2.yaml:1: the file is missing required key: decided_by",
        "D2.yaml:4: unknown key 'decidd_by'; did you mean 'decided_by'?",
        "D2.yaml:6: cites.0 is missing required key: lines",
        "D2.yaml:7: unknown key 'line' in cites.0; did you mean 'lines'?",
    ]


def test_unknown_key_with_nothing_close_lists_the_allowed_ones(folder: Path) -> None:
    write(folder, "D2.yaml", entry_yaml("D2", "  - file: a.ts\n    lines: 4\n    zzz: 1\n"))
    assert problems(folder) == ["D2.yaml:8: unknown key 'zzz' in cites.0; allowed: file, lines, version, "
                                "note, record"]


def test_missing_fields(folder: Path) -> None:
    write(folder, "D2.yaml", "# a comment first\nid: D2\ncites:\n  - lines: 3\n")
    write(folder, "P1.yaml", "id: P1\nkind: problem\ntitle: T\ncites:\n  - file: a.ts\n    lines: 1\n")
    assert problems(folder) == [
        "D2.yaml:2: the file is missing required keys: question, decided_by, answer",
        "D2.yaml:4: cites.0 is missing required key: file",
        "P1.yaml:1: the file is missing required key: description",
    ]


def test_empty_list_of_citations(folder: Path) -> None:
    write(folder, "D2.yaml", entry_yaml("D2", "").replace("cites:\n", "cites: []\n"))
    assert problems(folder) == ["D2.yaml:5: cites must list at least 1 item(s)"]


def test_duplicate_ids_across_files(folder: Path) -> None:
    write(folder, "D2.yaml", GOOD)  # a copy of D1.yaml
    assert problems(folder) == ["D2.yaml:1: duplicate ID D1: D1.yaml has it too; give this entry a free ID "
                                "and name its file after it"]


def test_id_that_does_not_match_its_file(folder: Path) -> None:
    write(folder, "D2.yaml", entry_yaml("D3", [("a.ts", 1)]))
    assert problems(folder) == ["D2.yaml:1: the entry's id is D3 but its file is named D2.yaml; "
                                "name the file D3.yaml"]


def test_duplicate_keys(folder: Path) -> None:
    write(folder, "D2.yaml", entry_yaml("D2", "  - file: a.ts\n    lines: 1\n    lines: 2\n") + "answer: again\n")
    assert problems(folder) == [
        "D2.yaml:8: duplicate key 'lines' (first at line 7); keep one",
        "D2.yaml:9: duplicate key 'answer' (first at line 4); keep one",
    ]


@pytest.mark.parametrize(("lines", "message"), [
    ("0", "cites.0.lines '0': lines count from 1"),
    ("0-4", "cites.0.lines '0-4': lines count from 1"),
    ("9-3", "cites.0.lines '9-3' is reversed; write 3-9"),
    ("1-2-3", "cites.0.lines must be a line (42) or a range (658-681), not '1-2-3'"),
    ("yes", "cites.0.lines must be a line (42) or a range (658-681), not 'yes'"),
])
def test_bad_ranges(folder: Path, lines: str, message: str) -> None:
    write(folder, "D2.yaml", entry_yaml("D2", [("a.ts", lines)]))
    assert problems(folder) == [f"D2.yaml:7: {message}"]


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.ts", "src/../../outside.ts", "C:/pi/a.ts",
                                  "c:/pi/a.ts", "src\\a.ts"])
def test_cited_path_that_leaves_the_tree(folder: Path, path: str) -> None:
    write(folder, "D2.yaml", entry_yaml("D2", f"  - file: a.ts\n    lines: 1\n  - file: '{path}'\n    lines: 2\n"))
    assert problems(folder) == [f"D2.yaml:8: cited path '{path}' leaves the source tree; give a path relative "
                                "to the repository root, without '..'"]


def test_overlay_linking_to_a_missing_id(folder: Path) -> None:
    write(folder, "extensions/pi-demo.yaml", """extension: pi-demo
changes:
  - decision: D1
    how: It asks.
    without: {decided_by: code, answer: No one asks.}
    with: {decided_by: person, answer: A person answers.}
  - decision: D7
    how: It stops.
    without: {decided_by: model, answer: The model stops.}
    with: {decided_by: code, answer: A limit stops it.}
  - question: Is the budget spent?
    related: [D1, G4]
    overridden: [G5]
    how: It counts.
    without: {decided_by: none, answer: Nothing counts.}
    with: {decided_by: code, answer: A counter.}
""")
    assert problems(folder) == [
        "extensions/pi-demo.yaml:7: links to decision D7, which does not exist in demo/; use an existing ID",
        "extensions/pi-demo.yaml:11: links to decision G4, which does not exist in demo/; use an existing ID",
        "extensions/pi-demo.yaml:11: links to decision G5, which does not exist in demo/; use an existing ID",
    ]


# An extension pinned on npm, every field written: its citations point into the package's own files.
PINNED = """extension: pi-demo
package: "@demo/pi-demo"
version: "2.1.0"
integrity: sha512-AAAA
checked_at: "2.1.0"
source: https://example.org/pi-demo
tagline: A budget for the loop.
summary: It counts, then stops.
levers:
  - lever: tool_call
    kind: event
    decisions: [D1]
    text: It counts each call.
    cites: [{file: index.ts, lines: 3}]
runs:
  - {text: It starts git., cites: [{file: index.ts, lines: 5}]}
connects:
  - {text: It posts the count., cites: [{file: net.ts, lines: 7-8}]}
unchanged:
  - {text: The model still picks the tool., cites: [{file: index.ts, lines: 9}]}
  - text: Nothing about the prompt.
changes:
  - question: Is the budget spent?
    overridden: [D1]
    how: It counts.
    without: {decided_by: none, answer: Nothing counts.}
    with: {decided_by: code, answer: A counter.}
"""


def test_a_pinned_overlay_reads_back_with_its_levers_items_tagline_and_source(folder: Path) -> None:
    """The extension's page shows each lever with its kind, what it runs, connects to and leaves
    unchanged, its source; the extensions index its tagline; `verify` names each citation's line."""
    path = write(folder, "extensions/pi-demo.yaml", PINNED)
    [demo] = load_maps(folder.parent)
    [overlay] = demo.overlays
    assert (overlay.tagline, overlay.source) == ("A budget for the loop.", "https://example.org/pi-demo")
    assert (overlay.integrity, overlay.checked_at) == ("sha512-AAAA", "2.1.0")
    assert [(lever.lever, lever.kind, lever.decisions, lever.text, lever.line) for lever in overlay.levers] == [
        ("tool_call", "event", ("D1",), "It counts each call.", 10)]
    assert [(i.text, [(c.file, c.start, c.end) for c in i.cites]) for i in overlay.runs + overlay.connects] == [
        ("It starts git.", [("index.ts", 5, 5)]), ("It posts the count.", [("net.ts", 7, 8)])]
    assert [(i.text, [c.start for c in i.cites]) for i in overlay.unchanged] == [
        ("The model still picks the tool.", [9]), ("Nothing about the prompt.", [])]
    assert [(c.path, c.line, c.file) for c in overlay.cites] == [
        (path, 14, "index.ts"), (path, 16, "index.ts"), (path, 18, "net.ts"), (path, 20, "index.ts")]
    [change] = overlay.changes
    assert (change.question, change.overridden, overlay.decisions) == ("Is the budget spent?", ("D1",), ("D1",))


def test_a_pinned_overlay_has_the_editions_beside_it_and_an_unpinned_one_none(folder: Path) -> None:
    """`bump --extension` writes a pinned extension's moves to extensions/<name>/editions/, which its
    pages list; an overlay no longer pinned has none, and what is left in that folder is not read."""
    write(folder, "extensions/pi-demo.yaml", PINNED)
    write(folder, "extensions/pi-demo/editions/2.0.0-to-2.1.0.yaml",
          'from: "2.0.0"\nto: "2.1.0"\ndate: 2026-11-20\ncitations: []\n')
    [overlay] = load_maps(folder.parent)[0].overlays
    assert [(e.from_version, e.to_version, e.date) for e in overlay.editions] == [("2.0.0", "2.1.0", "2026-11-20")]
    write(folder, "extensions/pi-demo.yaml", UNPINNED)
    write(folder, "extensions/pi-demo/editions/2.0.0-to-2.1.0.yaml", "from: 0.9\n")  # broken: not read
    [overlay] = load_maps(folder.parent)[0].overlays
    assert overlay.editions == ()


def test_a_pinned_overlays_lever_naming_a_missing_decision(folder: Path) -> None:
    write(folder, "extensions/pi-demo.yaml", PINNED.replace("decisions: [D1]", "decisions: [D1, D9]"))
    assert problems(folder) == ["extensions/pi-demo.yaml:10: lever tool_call names decision D9, which does not "
                                "exist in demo/; use an existing ID"]


def test_only_the_stray_files_of_extension_probes_are_named(folder: Path) -> None:
    """In extensions/probes/: the script of an overlay with `probe:`, the shared module it imports,
    a hidden file and a folder are left alone; a script no overlay runs and a shared module no probe
    imports are named, with what to do."""
    write(folder, "extensions/pi-demo.yaml", PINNED + "probe:\n  shows: It runs.\n  expect: {ran: true}\n")
    write(folder, "extensions/probes/pi-demo.mjs", 'import { run } from "./_run.mjs";\nrun();\n')
    write(folder, "extensions/probes/_run.mjs", "export function run() { console.log('{}'); }\n")
    write(folder, "extensions/probes/.DS_Store", "")
    write(folder, "extensions/probes/lib/x.mjs", "")
    write(folder, "extensions/probes/stray.mjs", "console.log('{}')\n")
    write(folder, "extensions/probes/_unused.mjs", "export const x = 1;\n")
    assert problems(folder) == [
        "extensions/probes/_unused.mjs:0: no probe imports this shared module: import it from a probe (`from "
        "\"./_unused.mjs\"`), or remove it",
        "extensions/probes/stray.mjs:0: no overlay runs this probe: add `probe:` (shows, expect) to "
        "extensions/stray.yaml, or name the script after an extension"]


UNPINNED = """extension: pi-demo
package: "@demo/pi-demo"
version: "2.1.0"
changes:
  - question: Is the budget spent?
    how: It counts.
    without: {decided_by: none, answer: Nothing counts.}
    with: {decided_by: code, answer: A counter.}
"""


@pytest.mark.parametrize(("key", "text"), [
    ("levers", "levers:\n  - {lever: tool_call, kind: event, decisions: [D1], text: It counts.,\n"
               "     cites: [{file: a.ts, lines: 3}]}\n"),
    ("runs", "runs:\n  - {text: It starts git., cites: [{file: a.ts, lines: 5}]}\n"),
    ("connects", "connects:\n  - {text: It posts the count., cites: [{file: a.ts, lines: 7}]}\n"),
    ("unchanged", "unchanged:\n  - {text: The model picks the tool., cites: [{file: a.ts, lines: 9}]}\n"),
    ("checked_at", 'checked_at: "2.1.0"\n'),
], ids=["levers", "runs", "connects", "unchanged", "checked_at"])
def test_an_unpinned_overlay_that_cites_code_is_refused_at_the_key(folder: Path, key: str, text: str) -> None:
    """Citations (or their records' release) need the package pinned, whichever list holds them; the
    problem is at the first citing item (at the key's own line for `checked_at`)."""
    write(folder, "extensions/pi-demo.yaml", UNPINNED + text)
    line = 9 if key == "checked_at" else 10
    assert problems(folder) == [f"extensions/pi-demo.yaml:{line}: `{key}` cites the extension's code, which needs "
                                "the package pinned: add `integrity` (npm view PACKAGE@VERSION dist.integrity)"]


def test_an_unpinned_overlay_may_say_what_it_leaves_unchanged_without_citing(folder: Path) -> None:
    write(folder, "extensions/pi-demo.yaml", UNPINNED + "unchanged:\n  - text: Nothing about the prompt.\n")
    [demo] = load_maps(folder.parent)
    assert [i.text for i in demo.overlays[0].unchanged] == ["Nothing about the prompt."]


def test_an_overlay_refused_for_its_pin_is_not_told_to_add_a_probe(folder: Path) -> None:
    """Its script waits for it: adding `probe:` to an overlay that is not pinned would be refused too."""
    write(folder, "extensions/pi-demo.yaml", UNPINNED + 'checked_at: "2.1.0"\n')
    write(folder, "extensions/probes/pi-demo.mjs", "console.log('{}')\n")
    write(folder, "extensions/probes/stray.mjs", "console.log('{}')\n")  # after it: still named
    assert problems(folder) == [
        "extensions/pi-demo.yaml:9: `checked_at` cites the extension's code, which needs the package pinned: add "
        "`integrity` (npm view PACKAGE@VERSION dist.integrity)",
        "extensions/probes/stray.mjs:0: no overlay runs this probe: add `probe:` (shows, expect) to "
        "extensions/stray.yaml, or name the script after an extension"]


def test_map_errors(folder: Path) -> None:
    write(folder, "map.yaml", MAP.replace('version: "1"\n', "").replace("source:", "sources:")
          + "sections:\n  - title: First\n    ids: [D1, D9]\n")
    assert problems(folder) == [
        "map.yaml:1: the file is missing required keys: version, source",
        "map.yaml:3: unknown key 'sources'; did you mean 'source'?",
    ]
    write(folder, "map.yaml", MAP + "  npm:\n    - package: pi\n      path: packages/pi\n"
          + "sections:\n  - title: First\n    ids: [D1, D9]\n")
    assert problems(folder) == [
        "map.yaml:5: source must have exactly one of: npm, git",
    ]
    write(folder, "map.yaml", MAP + "sections:\n  - title: First\n    ids: [D1, D9]\n")
    assert problems(folder) == ["map.yaml:9: section 'First' lists D9, which no entry has"]


def test_other_file_level_errors(folder: Path) -> None:
    write(folder, "D2.yaml", "# only a comment\n")
    (folder / "D3.yaml").write_bytes(entry_yaml("D3", [("a.ts", 1)]).encode().replace(b"Plain", b"Pl\xe9in"))
    write(folder, "D4.yaml", GOOD.replace("D1", "D4") + "---\n" + GOOD)
    write(folder, "D5.yaml", entry_yaml("D5", "  - &b {file: a.ts, lines: 1}\n  - *b\n"))
    write(folder, "D6.yaml", "\ufeff\n  # an indented comment, after a byte order mark\n")
    write(folder, "D7.yaml", entry_yaml("D7", [("a.ts", 1)]).replace("answer: ", "answer: &a "))  # no alias
    write(folder, "D8.yaml", entry_yaml("D8", [("a.ts", 1)]).replace("answer: Plain code.", "answer: *a"))  # no anchor
    assert problems(folder) == [
        "D2.yaml:0: file is empty; write the entry's fields, or delete the file",
        "D3.yaml:4: is not UTF-8 text; save the file as UTF-8",
        "D4.yaml:0: holds 2 YAML documents; keep exactly one",
        "D5.yaml:6: YAML anchors and aliases (&, *) are not allowed; write the value out",
        "D6.yaml:0: file is empty; write the entry's fields, or delete the file",
        "D7.yaml:4: YAML anchors and aliases (&, *) are not allowed; write the value out",
        "D8.yaml:4: YAML anchors and aliases (&, *) are not allowed; write the value out",
    ]


def test_a_byte_order_mark_and_a_file_of_the_largest_size_load(folder: Path) -> None:
    from generator.map.load import MAX_FILE_BYTES

    write(folder, "D2.yaml", "\ufeff" + entry_yaml("D2", [("a.ts", 1)]))
    text = entry_yaml("D3", [("a.ts", 1)])
    write(folder, "D3.yaml", text + "#" * (MAX_FILE_BYTES - len(text) - 1) + "\n")
    assert (folder / "D3.yaml").stat().st_size == MAX_FILE_BYTES
    [demo] = load_maps(folder.parent)
    assert [e.id for e in demo.entries] == ["D1", "D2", "D3"]


def test_unsafe_prose(folder: Path) -> None:
    write(folder, "D2.yaml", entry_yaml("D2", [("a.ts", 1)]).replace(
        "answer: Plain code.", "answer: See [this](javascript:alert(1)).\nchanged_by:\n  - text: \"\\u202e hidden\"\n"
        "    cites: [{file: a.ts, lines: 1}]"))
    assert problems(folder) == [
        "D2.yaml:4: answer links to 'javascript:alert(1'; links may only go to http(s)",
        "D2.yaml:6: changed_by.0.text holds the invisible control character U+202E; remove it",
    ]


@pytest.mark.parametrize(("answer", "said"), [
    # a link's address is shown by its first 40 characters
    ("See [it](vbscript:msgbox(0123456789012345678901234567890123456789)).",
     "answer links to 'vbscript:msgbox(012345678901234567890123'; links may only go to http(s)"),
    # a bare address right after a code span is still outside backticks
    ("Run `x`data:text/html,hi there.",
     "answer holds a data: address outside backticks; links may only go to http(s)"),
])
def test_an_unsafe_address_is_named_in_the_message(folder: Path, answer: str, said: str) -> None:
    write(folder, "D2.yaml", entry_yaml("D2", [("a.ts", 1)]).replace("Plain code.", answer))
    assert problems(folder) == [f"D2.yaml:4: {said}"]


def test_all_problems_in_one_run_through_the_command_line(folder: Path) -> None:
    write(folder, "D2.yaml", "id: D2\nquestion: [unclosed\ndecided_by: code\n")
    write(folder, "D3.yaml", entry_yaml("D3", [("a.ts", "5-2")]))
    write(folder, "D4.yaml", entry_yaml("D4", [("/abs.ts", 1)]).replace("decided_by", "decidedby"))
    run = run_cli("verify", "--decisions", folder.parent, cwd=folder.parent.parent)
    assert run.code == 2
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [
        "error: decisions/demo/D2.yaml:3: YAML syntax error: did not find expected ',' or ']'",
        "error: decisions/demo/D3.yaml:7: cites.0.lines '5-2' is reversed; write 2-5",
        "error: decisions/demo/D4.yaml:1: the file is missing required key: decided_by",
        "error: decisions/demo/D4.yaml:3: unknown key 'decidedby'; did you mean 'decided_by'?",
        "error: decisions/demo/D4.yaml:6: cited path '/abs.ts' leaves the source tree; give a path relative to "
        "the repository root, without '..'",
        "5 problem(s) found; nothing was changed",
    ]


def test_missing_decisions_folder(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run = run_main(capsys, "verify", "--decisions", tmp_path / "nope")
    assert run.code == 2
    assert run.errors[0].endswith("nope: no such folder; pass --decisions DIR with one folder per map, each "
                                  "holding a map.yaml")


def test_a_decisions_folder_without_a_map(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "decisions" / "pi").mkdir(parents=True)  # a map folder whose map.yaml is not written yet
    run = run_main(capsys, "verify", "--decisions", tmp_path / "decisions")
    assert run.code == 2
    assert run.errors[0] == (f"error: {tmp_path / 'decisions'}: holds no map: expected a folder with a map.yaml "
                             "(for example decisions/pi/map.yaml)")


# --- errors only the source tree at the pin can show ------------------------------------------------


def test_citations_that_do_not_fit_the_tree_at_the_pin(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    outside = tmp_path / "secret.ts"
    outside.write_text("export const SECRET = 1;\n")
    source = "export function f() {\n\treturn 1;\n}\n"
    project = make_project(tmp_path, {"1": {"src/a.ts": source}})
    # A symbolic link in the upstream repository, pointing out of the tree.
    repo_link = project.upstream / "src" / "evil.ts"
    os.symlink(outside, repo_link)
    (project.upstream / "src" / "b.ts").write_text("const a = 1;\n\n  \nconst b = 2;\n")
    repo = git.Repo(project.upstream)
    repo.git.add("--all")
    repo.git.commit("-m", "link", env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@l",
                                       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@l"})
    repo.git.tag("-f", "v1")
    project.write_entry("D1", entry_yaml("D1", [("src/a.ts", "2-4"), ("src/a.ts", "1-3")]))
    project.write_entry("D2", entry_yaml("D2", [("src/gone.ts", 1)]))
    project.write_entry("D3", entry_yaml("D3", [("src/evil.ts", 1)]))
    project.write_entry("D4", entry_yaml("D4", [("src", 1)]))
    # 2-3: blank lines only; 3-4 ends on code
    project.write_entry("D5", entry_yaml("D5", [("src/b.ts", "2-3"), ("src/b.ts", "3-4")]))
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert run.code == 2
    assert "Traceback" not in run.stderr
    assert [ln.replace(str(project.folder), "demo") for ln in run.errors] == [
        "error: demo/D1.yaml:7: lines 2-4 run past the end of src/a.ts, which has 3 lines at 1",  # the `lines:` line
        "error: demo/D2.yaml:6: cited file src/gone.ts does not exist at 1; fix the path (it is relative to the "
        "repository root)",
        "error: demo/D3.yaml:6: cited file src/evil.ts leaves the source tree (through a symbolic link); fix the "
        "path (it is relative to the repository root)",
        "error: demo/D4.yaml:6: cited file src is a folder, not a file; fix the path (it is relative to the "
        "repository root)",
        "error: demo/D5.yaml:7: lines 2-3 of src/b.ts are blank at 1; cite the code the entry is about",
        "5 problem(s) found; nothing was changed",
    ]


def test_an_overlay_reads_back_with_every_field(folder: Path) -> None:
    """What an extension's page shows comes from these values: each field as written, each change
    at its own line, who can overrule on both sides, and the second reading."""
    from generator.map.model import Overlay, OverlayChange, Override, Review, Side

    path = folder / "extensions" / "pi-demo.yaml"
    write(folder, "extensions/pi-demo.yaml", """extension: pi-demo
package: "@demo/pi-demo"
version: "2.1.0"
summary: It asks, then stops.
reviewed: {version: "1.0.0", date: 2026-11-20, by: a second reader, checked: every claim}
changes:
  - decision: D1
    how: It asks.
    without: {decided_by: code, answer: No one asks.}
    with:
      decided_by: code
      overrides: [{by: person, when: At the limit., can: raise the limit}]
      answer: A limit stops it.
  - question: Is the budget spent?
    related: [D1]
    how: It counts.
    without:
      decided_by: none
      overrides: [{by: model, when: Always.}, {by: code, when: Never.}]
      answer: Nothing counts.
    with: {decided_by: model, answer: The model counts.}
""")
    [demo] = load_maps(folder.parent)
    assert demo.overlays == (Overlay(
        "pi-demo", "@demo/pi-demo", "2.1.0", "It asks, then stops.", (
            OverlayChange("D1", None, (), "It asks.", Side("code", "No one asks."),
                          Side("code", "A limit stops it.", (Override("person", "At the limit.", can="raise the limit"),)), 7),
            OverlayChange(None, "Is the budget spent?", ("D1",), "It counts.",
                          Side("none", "Nothing counts.", (Override("model", "Always."), Override("code", "Never."))),
                          Side("model", "The model counts."), 14)),
        path, 1, Review("1.0.0", "2026-11-20", "a second reader", "every claim")),)


def test_a_probe_reads_back_and_its_missing_script_is_named_at_its_line(folder: Path) -> None:
    from generator.map.model import Probe

    text = GOOD.replace("cites:", "probe:\n  shows: It runs.\n  expect: {ran: true, exit_code: 0}\ncites:")
    write(folder, "D1.yaml", text)
    assert text.splitlines()[4] == "probe:"
    assert problems(folder) == ["D1.yaml:5: the probe's script demo/probes/D1.mjs does not exist; write it (see "
                                "CONTRIBUTING.md), or remove `probe:`"]
    write(folder, "probes/D1.mjs", "console.log('{}')\n")
    [demo] = load_maps(folder.parent)
    assert demo.entry("D1").probe == Probe("It runs.", (("ran", True), ("exit_code", 0)), folder / "D1.yaml", 5)


def test_a_citation_reads_back_with_its_note_version_record_and_lines(folder: Path) -> None:
    """A page shows a citation's note; `verify` checks its version and record; `fix` edits it at
    its spans, keeping the block or flow style it was written in."""
    from generator.map.model import CitationRecord

    text = GOOD.replace("cites:\n", """cites:
  - file: src/b.ts
    lines: 3-5
    version: "0.9.0"
    note: the loop's exit
    record: {symbol: Loop.run, length: 3, digest: 0123456789ab}
  - {file: src/c.ts, lines: 7}
""")
    write(folder, "D1.yaml", text)
    [demo] = load_maps(folder.parent)
    block, flow, plain = demo.entry("D1").cites
    assert (block.file, block.start, block.end) == ("src/b.ts", 3, 5)
    assert (block.version, block.note) == ("0.9.0", "the loop's exit")
    assert block.record == CitationRecord("Loop.run", 3, "0123456789ab")
    lines = text.splitlines()
    assert lines[block.line - 1] == "  - file: src/b.ts" and lines[block.lines_line - 1] == "    lines: 3-5"
    assert text[block.lines_span.start:block.lines_span.end] == "3-5"
    assert text[block.file_span.start:block.file_span.end] == "src/b.ts"
    assert text[block.record_span.start:block.record_span.end] == "{symbol: Loop.run, length: 3, digest: 0123456789ab}"
    assert block.mapping_indent == 4 and flow.mapping_indent is None
    assert (flow.file, flow.start, flow.end) == ("src/c.ts", 7, 7)
    assert (flow.version, flow.note, flow.record) == (None, None, None)
    assert text[flow.mapping_span.start:flow.mapping_span.end] == "{file: src/c.ts, lines: 7}"
    assert plain.file == "src/a.ts" and plain.record_span is None


def test_only_the_files_given_are_loaded_and_the_links_of_the_rest_are_not_checked(folder: Path) -> None:
    """`verify FILE…` (the pre-commit hook) loads the entries it was given: one that is broken but
    not given stops nothing, and a section listing an entry not loaded is no dangling link."""
    write(folder, "map.yaml", MAP + "sections:\n  - {title: All, ids: [D1, D2, D9]}\n")
    given = write(folder, "D2.yaml", entry_yaml("D2", [("src/b.ts", "3")]))
    write(folder, "D3.yaml", "id: D3\n")  # not given: its missing keys are not looked at
    [demo] = load_maps(folder.parent, only=[given])
    assert [e.id for e in demo.entries] == ["D2"]
    assert problems(folder) == ["D3.yaml:1: the file is missing required keys: cites, question, decided_by, answer",
                                "map.yaml:9: section 'All' lists D9, which no entry has"]


def test_a_yaml_file_named_after_the_map_in_the_alphabet_is_still_an_entry(folder: Path) -> None:
    write(folder, "notes.yaml", GOOD.replace("D1", "D2"))
    assert problems(folder) == ["notes.yaml:1: the entry's id is D2 but its file is named notes.yaml; name the "
                                "file D2.yaml"]


def test_the_map_reads_back_with_its_source_summary_records_and_shared_levers(folder: Path) -> None:
    from generator.map.model import GitPin, Group, NpmPackage, Section, Source

    write(folder, "map.yaml", MAP + 'summary: Who decides.\nchecked: "2026-11-20"\nchecked_at: "0.9"\n'
                              "shared_levers: D1\ngroups:\n  - {id: D, title: Decisions, about: The loop.}\n"
                              "  - {id: G, title: Gates}\nsections:\n  - {title: The loop, ids: [D1]}\n")
    [demo] = load_maps(folder.parent)
    assert demo.sections == (Section("The loop", ("D1",)),)
    assert demo.groups == (Group("D", "Decisions", "The loop."), Group("G", "Gates", None))
    assert (demo.summary, demo.checked, demo.checked_at, demo.shared_levers) == ("Who decides.", "2026-11-20",
                                                                                "0.9", "D1")
    assert demo.recorded_version == "0.9"
    assert demo.source == Source(git=GitPin("file:///nowhere", "v{version}", None))
    write(folder, "map.yaml", MAP.replace('    ref: "v{version}"\n', '    ref: "v{version}"\n    commit: 0123abc\n'))
    assert load_maps(folder.parent)[0].source.git == GitPin("file:///nowhere", "v{version}", "0123abc")
    npm = "source:\n  npm:\n    - {package: '@x/ai', path: /packages/ai/}\n    - {package: y, path: tools/X}\n"
    npm = MAP.split("source:")[0] + npm
    write(folder, "map.yaml", npm)
    packages = (NpmPackage("@x/ai", "packages/ai"), NpmPackage("y", "tools/X"))
    assert load_maps(folder.parent)[0].source == Source(npm=packages)


def test_edition_records_are_read_only_when_asked_for(folder: Path) -> None:
    """`verify` reads no edition record (only pages show them): a damaged one does not stop it."""
    write(folder, "editions/0.9-to-1.yaml", "from: 0.9\n")
    assert load_maps(folder.parent, editions=False)[0].editions == ()
    assert problems(folder)[0].startswith("editions/0.9-to-1.yaml:1: ")


def test_an_entry_reads_back_with_every_field(folder: Path) -> None:
    """What an entry's page shows: each field as written."""
    from generator.map.model import Failure, Review, Upstream

    write(folder, "D2.yaml", """id: D2
question: Who stops the loop?
decided_by: code
overrides: [{by: person, when: At the limit., can: raise the limit, cites: [{file: src/a.ts, lines: 3}]}]
answer: The code does.
exceptions: [{text: When piped., cites: [{file: src/a.ts, lines: 5}]}]
changed_by: [{text: An extension., cites: [{file: src/a.ts, lines: 4}]}]
checks: A test.
reviewed: {version: "1.0", date: 2026-11-20, by: a second reader, checked: every claim}
cites:
  - {file: src/a.ts, lines: 1}
""")
    write(folder, "P1.yaml", """id: P1
kind: problem
title: It breaks.
description: When piped.
upstream: {issue: 12, status: open, checked: 2026-11-21, fixed_in: "1.1"}
failures: [{issue: 7, title: Broken pipe, status: closed, checked: 2026-11-22}, {issue: 8, title: Again}]
reviewed: {version: "1.0", date: 2026-11-20}
cites:
  - {file: src/a.ts, lines: 2}
""")
    [demo] = load_maps(folder.parent)
    decision, problem = demo.entry("D2"), demo.entry("P1")
    assert (decision.kind, decision.question, decision.decided_by, decision.answer) == (
        "decision", "Who stops the loop?", "code", "The code does.")
    assert ([(i.text, [c.start for c in i.cites]) for i in decision.changed_by], decision.checks) == (
        [("An extension.", [4])], "A test.")
    assert [(o.by, o.when, o.can, [c.start for c in o.cites]) for o in decision.overrides] == [
        ("person", "At the limit.", "raise the limit", [3])]
    assert ([(i.text, [c.start for c in i.cites]) for i in decision.exceptions],
            [c.start for c in decision.main_cites]) == ([("When piped.", [5])], [1])
    # each citation, wherever it is in the entry, names its file and line: `verify` reports it there
    assert [(c.path.name, c.line, c.start) for c in decision.cites] == [
        ("D2.yaml", 4, 3), ("D2.yaml", 6, 5), ("D2.yaml", 7, 4), ("D2.yaml", 11, 1)]
    assert decision.reviewed == Review("1.0", "2026-11-20", "a second reader", "every claim")
    assert (decision.path, decision.line, decision.upstream, decision.failures) == (folder / "D2.yaml", 1, None, ())
    assert (problem.kind, problem.title, problem.description) == ("problem", "It breaks.", "When piped.")
    assert problem.upstream == Upstream(12, "open", "2026-11-21", "1.1")
    assert problem.failures == (Failure(7, "Broken pipe", "closed", "2026-11-22"), Failure(8, "Again", None, None))
    assert problem.reviewed == Review("1.0", "2026-11-20", None, None) and problem.overrides == ()


def test_an_entry_file_that_cannot_be_read_is_named(folder: Path) -> None:
    (folder / "D2.yaml").mkdir()  # a folder where a file was meant
    assert problems(folder) == ["D2.yaml:0: cannot read: Is a directory"]


def test_a_raw_control_character_is_named_at_its_first_line(folder: Path) -> None:
    text = entry_yaml("D2", [("a.ts", 1)])
    lines = text.splitlines(keepends=True)
    lines[3] = lines[3].replace("Plain", "Pl\x07ain")
    lines[4] = lines[4].rstrip("\n") + " \x07\n"
    write(folder, "D2.yaml", "".join(lines))
    assert problems(folder) == ["D2.yaml:4: holds the control character U+0007; remove it"]
