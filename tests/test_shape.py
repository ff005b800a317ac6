"""The entry shape of issue 28: a short answer, then cited exceptions and levers as lists.

What the loader reads back (every citation of an entry stays in ``Entry.cites``, in file order),
what it refuses (an answer over 60 words, the old string `changed_by`, an item without citations),
and that `record` and `fix` edit a citation nested in an item in place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conftest import make_project, run_main
from generator import InputError, load_maps

MAP = """title: Demo map
repo: https://example.org/demo
version: "1"
source:
  git:
    url: file:///nowhere
    ref: "v{version}"
"""

# every kind of item, each citation on its own line so a test can name it by its line
NEW_SHAPE = """id: D1
question: Is a person asked before a tool call runs?
decided_by: code
answer: >-
  No. Once a call validates, it runs unless a handler blocks it.
cites:
  - file: src/a.ts
    lines: 1-3
exceptions:
  - text: A handler that throws stops the call too.
    cites:
      - file: src/b.ts
        lines: 4
      - {file: src/b.ts, lines: 6-7}
  - text: >-
      A reply that ended in an error runs none of its calls.
    cites:
      - file: src/a.ts
        lines: 5-7
overrides:
  - by: person
    when: The person can stop the run.
    cites:
      - file: src/c.ts
        lines: 9
changed_by:
  - text: An extension can ask the person.
    cites:
      - file: src/a.ts
        lines: 1-3
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    demo = tmp_path / "decisions" / "demo"
    demo.mkdir(parents=True)
    (demo / "map.yaml").write_text(MAP)
    (demo / "D1.yaml").write_text(NEW_SHAPE)
    return demo


def problems(folder: Path) -> list[str]:
    with pytest.raises(InputError) as caught:
        load_maps(folder.parent)
    return [f"{p.path.name}:{p.line}: {p.message}" for p in caught.value.problems]


# --- what loads -----------------------------------------------------------------------------------


def test_the_new_shape_reads_back_item_by_item(folder: Path) -> None:
    [demo] = load_maps(folder.parent)
    entry = demo.entry("D1")
    assert entry.answer == "No. Once a call validates, it runs unless a handler blocks it."
    assert [(c.file, c.start, c.end, c.line) for c in entry.main_cites] == [("src/a.ts", 1, 3, 7)]
    assert [(i.text, i.line) for i in entry.exceptions] == [
        ("A handler that throws stops the call too.", 10),
        ("A reply that ended in an error runs none of its calls.", 15)]
    first, second = entry.exceptions
    assert [(c.file, c.start, c.end, c.line) for c in first.cites] == [("src/b.ts", 4, 4, 12), ("src/b.ts", 6, 7, 14)]
    assert [(c.file, c.start, c.line) for c in second.cites] == [("src/a.ts", 5, 18)]
    [override] = entry.overrides
    assert (override.by, override.when, [(c.file, c.start, c.line) for c in override.cites]) == (
        "person", "The person can stop the run.", [("src/c.ts", 9, 24)])
    [lever] = entry.changed_by
    assert (lever.text, lever.line, [(c.file, c.line) for c in lever.cites]) == (
        "An extension can ask the person.", 27, [("src/a.ts", 29)])
    assert all(i.path == folder / "D1.yaml" for i in entry.exceptions + entry.changed_by)


def test_entry_cites_is_every_citation_in_file_order(folder: Path) -> None:
    """verify, fix, record and bump walk ``Entry.cites``: it must hold the nested ones too."""
    [demo] = load_maps(folder.parent)
    entry = demo.entry("D1")
    assert [c.line for c in entry.cites] == [7, 12, 14, 18, 24, 29]
    # one citation in two places (an exception and a lever) is two citations of the entry
    assert [(c.file, c.start) for c in entry.cites].count(("src/a.ts", 1)) == 2


def test_a_problem_has_exceptions_too(folder: Path) -> None:
    (folder / "P1.yaml").write_text("""id: P1
kind: problem
title: It breaks.
description: When piped, the output is cut.
exceptions:
  - text: Not when the pipe is a file.
    cites: [{file: src/a.ts, lines: 2}]
cites:
  - {file: src/a.ts, lines: 1}
""")
    [demo] = load_maps(folder.parent)
    problem = demo.entry("P1")
    assert [(i.text, [c.start for c in i.cites]) for i in problem.exceptions] == [("Not when the pipe is a file.", [2])]
    assert [c.start for c in problem.cites] == [2, 1]  # file order: the exception is written first
    assert [c.start for c in problem.main_cites] == [1]


def test_an_overlay_side_override_needs_no_citation(folder: Path) -> None:
    (folder / "extensions").mkdir()
    (folder / "extensions" / "ext.yaml").write_text("""extension: ext
changes:
  - decision: D1
    how: It asks.
    without: {decided_by: code, answer: Runs.}
    with:
      decided_by: person
      answer: Asks.
      overrides: [{by: code, when: At the limit.}]
""")
    [demo] = load_maps(folder.parent)
    [override] = demo.overlays[0].changes[0].with_.overrides
    assert (override.by, override.when, override.cites) == ("code", "At the limit.", ())


# --- what is refused ------------------------------------------------------------------------------


def words(n: int) -> str:
    return " ".join(["word"] * n)


def test_an_answer_of_60_words_loads_and_61_is_refused_at_its_line(folder: Path) -> None:
    (folder / "D1.yaml").write_text(NEW_SHAPE.replace(
        "  No. Once a call validates, it runs unless a handler blocks it.", "  " + words(60)))
    load_maps(folder.parent)
    (folder / "D1.yaml").write_text(NEW_SHAPE.replace(
        "  No. Once a call validates, it runs unless a handler blocks it.", "  " + words(30) + "\n  " + words(31)))
    assert problems(folder) == [
        "D1.yaml:4: answer is 61 words, over the limit of 60; keep the main path, at most 40 words, and move "
        "each exception to an `exceptions` item with its citation"]


def test_a_problem_description_over_60_words_is_refused(folder: Path) -> None:
    (folder / "P1.yaml").write_text(f"id: P1\nkind: problem\ntitle: It breaks.\ndescription: {words(75)}\n"
                                    "cites: [{file: src/a.ts, lines: 1}]\n")
    assert problems(folder) == [
        "P1.yaml:4: description is 75 words, over the limit of 60; keep the main path, at most 40 words, and "
        "move each exception to an `exceptions` item with its citation"]


def test_the_word_limit_through_the_command_line_exits_2_without_a_traceback(folder: Path, capsys) -> None:
    (folder / "D1.yaml").write_text(NEW_SHAPE.replace(
        "  No. Once a call validates, it runs unless a handler blocks it.", "  " + words(206)))
    run = run_main(capsys, "verify", "--decisions", folder.parent)
    assert (run.code, run.stdout) == (2, "")
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [
        f"error: {folder / 'D1.yaml'}:4: answer is 206 words, over the limit of 60; keep the main path, at most "
        "40 words, and move each exception to an `exceptions` item with its citation",
        "1 problem(s) found; nothing was changed"]


def test_the_old_string_changed_by_is_refused_with_how_to_write_it(folder: Path) -> None:
    text = NEW_SHAPE[:NEW_SHAPE.index("changed_by:")] + "changed_by: An extension can ask the person.\n"
    (folder / "D1.yaml").write_text(text)
    assert problems(folder) == [
        "D1.yaml:26: changed_by must be a list; write changed_by as a list of items, each with text and cites"]


@pytest.mark.parametrize("field, line", [("exceptions", 10), ("changed_by", 27)])
def test_an_item_without_citations_is_refused(folder: Path, field: str, line: int) -> None:
    lines = NEW_SHAPE.splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"{field}:")) + 1  # the first item
    # keep the item's text, drop its `cites:` block (up to the next item or top-level key)
    end = next(i for i in range(start + 2, len(lines) + 1)
               if i == len(lines) or not lines[i].startswith("      "))
    (folder / "D1.yaml").write_text("".join(lines[:start + 1] + lines[end:]))
    assert problems(folder) == [f"D1.yaml:{line}: {field}.0 is missing required key: cites"]


def test_an_item_with_an_empty_citation_list_is_refused(folder: Path) -> None:
    (folder / "D1.yaml").write_text(NEW_SHAPE.replace(
        "    cites:\n      - file: src/a.ts\n        lines: 5-7\n", "    cites: []\n"))
    assert problems(folder) == ["D1.yaml:17: exceptions.1.cites must list at least 1 item(s)"]


def test_an_entry_override_without_citations_is_refused(folder: Path) -> None:
    (folder / "D1.yaml").write_text(NEW_SHAPE.replace(
        "    when: The person can stop the run.\n    cites:\n      - file: src/c.ts\n        lines: 9\n",
        "    when: The person can stop the run.\n"))
    assert problems(folder) == ["D1.yaml:21: overrides.0 is missing required key: cites"]


def test_an_unsafe_link_in_an_item_is_refused(folder: Path) -> None:
    (folder / "D1.yaml").write_text(NEW_SHAPE.replace(
        "A handler that throws stops the call too.", "See [this](javascript:alert(1))."))
    assert problems(folder) == ["D1.yaml:10: exceptions.0.text links to 'javascript:alert(1'; links may only "
                                "go to http(s)"]


# --- record and fix edit a nested citation in place ---------------------------------------------

CODE = "export function one(): number {\n  return 1;\n}\n\nexport function two(): number {\n  return 2;\n}\n"
NESTED = """id: D1
question: Who decides D1?
decided_by: code
answer: Plain code.
cites:
  - file: src/a.ts
    lines: 1-3
exceptions:
  - text: Two returns two.
    cites:
      - file: src/a.ts
        lines: 5-7
        # two: the second function
overrides:
  - by: person
    when: The person can stop it.
    cites:
      - {file: src/a.ts, lines: 1-3}
"""


def test_record_writes_the_record_of_a_nested_citation_at_its_indentation(tmp_path: Path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/a.ts": CODE}}, {"D1": NESTED})
    run = run_main(capsys, "record", "--decisions", project.decisions, "--quiet")
    assert run.code == 0, run.stderr
    text = project.entry("D1").read_text()
    digest = re.compile(r"digest: [0-9a-f]{12}")
    assert digest.sub("digest: #", text) == NESTED.replace(
        "    lines: 1-3\n", "    lines: 1-3\n    record: {symbol: one, length: 3, digest: #}\n").replace(
        "        lines: 5-7\n", "        lines: 5-7\n        record: {symbol: two, length: 3, digest: #}\n").replace(
        "{file: src/a.ts, lines: 1-3}", "{file: src/a.ts, lines: 1-3, record: {symbol: one, length: 3, digest: #}}")
    loaded = yaml.safe_load(text)
    assert loaded["exceptions"][0]["cites"][0]["record"]["symbol"] == "two"
    assert run_main(capsys, "verify", "--decisions", project.decisions).code == 0


def test_fix_moves_a_nested_citation_and_leaves_the_rest_byte_for_byte(tmp_path: Path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/a.ts": CODE}, "2": {"src/a.ts": "// moved\n\n" + CODE}},
                           {"D1": NESTED})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    recorded = project.entry("D1").read_text()
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2")
    assert run.code == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == ["D1: src/a.ts: 1-3 → 3-5", "D1: src/a.ts: 5-7 → 7-9",
                                       "D1: src/a.ts: 1-3 → 3-5", "fixed 3 moved citation(s) in 1 file(s); 0 need a person"]
    fixed = project.entry("D1").read_text()
    assert fixed == recorded.replace("    lines: 1-3\n", '    lines: 3-5\n    version: "2"\n').replace(
        "        lines: 5-7\n", '        lines: 7-9\n        version: "2"\n').replace(
        "{file: src/a.ts, lines: 1-3, record: {symbol: one, length: 3, digest: c251399c4ec2}}",
        '{file: src/a.ts, lines: 3-5, record: {symbol: one, length: 3, digest: c251399c4ec2}, version: "2"}')
    assert "        # two: the second function\n" in fixed  # the item's comment stays under its citation
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2").code == 0


def test_bump_shows_the_item_a_drifted_citation_backs(tmp_path: Path, capsys) -> None:
    """A person re-reading a changed citation sees the sentence it is the evidence for."""
    changed = CODE.replace("return 2;", "return 3;")
    project = make_project(tmp_path, {"1": {"src/a.ts": CODE}, "2": {"src/a.ts": changed}}, {"D1": NESTED})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    run = run_main(capsys, "bump", "2", "--decisions", project.decisions, "--quiet")
    block = next(b for b in run.stdout.split("\n\n") if b.startswith("── D1"))
    assert block.splitlines()[:4] == ["── D1 changed: Who decides D1?", "   claim: Plain code.",
                                      "   exception: Two returns two.", "--- src/a.ts:5-7 at 1"]


EDITION = """from: "1"
to: "2"
date: 2026-11-29
citations:
  - {id: D1, file: src/a.ts, old: "1-3", new: "3-5", checked_at: "1", status: moved, claim: 000000000000}
  - {id: D1, file: src/a.ts, old: "5-7", new: "9-11", checked_at: "1", status: changed, claim: 000000000000}
"""


def _settle(folder: Path):
    from generator.release.bump import settled_edition

    [demo] = load_maps(folder.parent)
    return settled_edition(demo, set())


def test_accept_keeps_a_settled_range_when_the_entry_s_citations_were_reordered(folder: Path) -> None:
    """Moving citations into items reorders an entry's citations of one file: the edition's rows
    must not take each other's ranges (they were paired by position)."""
    (folder / "map.yaml").write_text(MAP.replace('version: "1"', 'version: "2"'))
    (folder / "editions").mkdir()
    (folder / "editions" / "1-to-2.yaml").write_text(EDITION)
    reordered = ("id: D1\nquestion: Q?\ndecided_by: code\nanswer: A.\n"
                 "exceptions:\n  - text: E.\n    cites: [{file: src/a.ts, lines: 9-11}]\n"
                 "cites:\n  - {file: src/a.ts, lines: 3-5}\n  - {file: src/a.ts, lines: 20}\n")
    (folder / "D1.yaml").write_text(reordered)
    assert _settle(folder) is None  # 9-11 is still cited: nothing to settle, 20 is a new citation
    # a person re-ranged the drifted citation, and nothing else in the file is unaccounted for
    (folder / "D1.yaml").write_text(reordered.replace("lines: 9-11", "lines: 9-12").replace(
        "  - {file: src/a.ts, lines: 20}\n", ""))
    path, text = _settle(folder)
    assert 'old: "5-7"\n    new: "9-12"' in text and 'old: "1-3"\n    new: "3-5"' in text
    # with a new citation in the same file too, which one is the re-ranged one cannot be told: left as it is
    (folder / "D1.yaml").write_text(reordered.replace("lines: 9-11", "lines: 9-12"))
    assert _settle(folder) is None
