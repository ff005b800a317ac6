"""`fix`: after a move, only the moved ranges are rewritten (and, with --target, the version they
were checked at); everything else in the YAML stays byte for byte, and verify is then ok."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from conftest import entry_yaml, make_project, run_cli, run_main

SESSION = """export class Session {
\tstart(): void {
\t\tthis.open = true;
\t}

\tstop(): void {
\t\tthis.open = false;
\t}

\tsend(text: string): void {
\t\tthis.queue.push(text);
\t}
}
"""
# Version 2: two lines above (everything moves by 2), `stop` deleted, `send` changed.
SESSION_2 = "import { Queue } from \"./queue\";\n\n" + SESSION.replace(
    "\tstop(): void {\n\t\tthis.open = false;\n\t}\n\n", "").replace("push(text)", "unshift(text)")
CONFIG = "export const CONFIG = {\n\tretries: 3,\n\ttimeout: 10,\n};\n"
CONFIG_2 = "// settings\n" + CONFIG
TWICE = "export function one(): number {\n\treturn 1;\n}\n"

D1 = """# yaml-language-server: $schema=../../schema/entry.schema.json
id: D1
question: Who starts a session?   # asked often
decided_by: code
answer: >-
  Plain code,
  at start.
cites:
  - file: src/session.ts
    lines: 2-4          # Session.start
    # the comment under it stays; checked at version: 1 by hand
  - file: src/session.ts
    lines: "10-12"
    note: send
  - file: src/session.ts
    lines: 6-8
  - {file: src/config.ts, lines: 3}   # flow style
  - {file: src/session.ts, lines: '2-4', version: "1"}
  - file: src/config.ts
    version: "1"
    lines: 2
"""

D2 = entry_yaml("D2", [("src/twice.ts", "1-3"), ("src/config.ts", "1-4")])


@pytest.fixture
def project(tmp_path: Path):
    return make_project(tmp_path, {
        "1": {"src/session.ts": SESSION, "src/config.ts": CONFIG, "src/twice.ts": TWICE},
        "2": {"src/session.ts": SESSION_2, "src/config.ts": CONFIG_2, "src/twice.ts": TWICE + "\n" + TWICE},
    }, {"D1": D1, "D2": D2})


def hidden(text: str) -> str:
    """The text with each record's digest blanked (digests are checked on their own below)."""
    return re.sub(r"digest: [0-9a-f]{12}", "digest: #", text)


BOTH = '"CONFIG.retries, CONFIG.timeout"'  # a range over two declarations names both


def record(symbol: str, length: int) -> str:
    return f"record: {{symbol: {symbol}, length: {length}, digest: #}}"


def statuses(capsys, project, *args) -> list[tuple[str, list | None]]:
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--format", "json", *args)
    return [(row["status"], row["resolved"]) for row in run.json()["citations"]]


def test_fix_rewrites_only_the_moved_ranges(project, capsys) -> None:
    assert statuses(capsys, project, "--target", "2") == [
        ("moved", [4, 6]), ("changed", [8, 10]), ("missing", None), ("moved", [4, 4]), ("moved", [4, 6]),
        ("moved", [3, 3]), ("ambiguous", None), ("moved", [2, 5])]
    before = {p.name: p.read_text() for p in project.folder.glob("*.yaml")}

    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2")
    assert run.code == 1  # some citations need a person
    assert run.stdout.splitlines() == [
        "D1: src/session.ts: 2-4 → 4-6",
        "D1: src/config.ts: 3-3 → 4-4",
        "D1: src/session.ts: 2-4 → 4-6",
        "D1: src/config.ts: 2-2 → 3-3",
        "D2: src/config.ts: 1-4 → 2-5",
        "D1: src/session.ts:10-12 is changed; left for a person",
        "D1: src/session.ts:6-8 is missing; left for a person",
        "D2: src/twice.ts:1-3 is ambiguous; left for a person",
        "fixed 5 moved citation(s) in 2 file(s); 3 need a person",
    ]
    # each moved citation is recorded where its code is now, and checked at 2 from now on
    assert hidden(project.entry("D1").read_text()) == D1.replace(
        "    lines: 2-4          # Session.start\n",
        f"    lines: 4-6          # Session.start\n    version: \"2\"\n    {record('Session.start', 3)}\n").replace(
        "  - {file: src/config.ts, lines: 3}   # flow style",
        f"  - {{file: src/config.ts, lines: 4, version: \"2\", {record('CONFIG.timeout', 1)}}}   # flow style").replace(
        "  - {file: src/session.ts, lines: '2-4', version: \"1\"}",
        f"  - {{file: src/session.ts, lines: '4-6', version: \"2\", {record('Session.start', 3)}}}").replace(
        "    version: \"1\"\n    lines: 2\n", f"    version: \"2\"\n    lines: 3\n    {record('CONFIG.retries', 1)}\n")
    assert hidden(project.entry("D2").read_text()) == before["D2.yaml"].replace(
        "    lines: 1-4\n", f"    lines: 2-5\n    version: \"2\"\n    {record('CONFIG', 4)}\n")
    assert (project.folder / "map.yaml").read_text() == before["map.yaml"]

    # The moved ones are now ok at 2; the others are as they were.
    assert statuses(capsys, project, "--target", "2") == [
        ("ok", [4, 6]), ("changed", [8, 10]), ("missing", None), ("ok", [4, 4]), ("ok", [4, 6]),
        ("ok", [3, 3]), ("ambiguous", None), ("ok", [2, 5])]
    # A second fix has nothing left to do, and leaves every file as the first one wrote it.
    fixed = {p.name: p.read_text() for p in project.folder.glob("*.yaml")}
    assert fixed != before
    again = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2")
    assert again.stdout.splitlines()[-1] == "fixed 0 moved citation(s) in 0 file(s); 3 need a person"
    assert {p.name: p.read_text() for p in project.folder.glob("*.yaml")} == fixed
    assert not list(project.folder.glob(".*.tmp")), "no temporary file is left behind"


def test_fix_with_nothing_but_moves_exits_0_and_verify_passes(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}},
                           {"D1": entry_yaml("D1", [("src/config.ts", "2"), ("src/config.ts", "1-4")])})
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2")
    assert run.code == 0
    assert run.stdout.splitlines()[-1] == "fixed 2 moved citation(s) in 1 file(s); 0 need a person"
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2").code == 0


def test_fix_at_the_pin_moves_a_citation_checked_at_an_older_version(tmp_path, capsys) -> None:
    # The map is pinned at 2; one citation was last checked at 1: plain `fix` brings it to 2.
    cites = "  - file: src/config.ts\n    lines: 2\n    version: \"1\"\n"
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}},
                           {"D1": entry_yaml("D1", cites)}, pin="2")
    assert run_main(capsys, "verify", "--decisions", project.decisions).code == 1
    assert run_main(capsys, "fix", "--decisions", project.decisions).code == 0
    assert hidden(project.entry("D1").read_text()) == entry_yaml(
        "D1", cites.replace("2\n", f"3\n    {record('CONFIG.retries', 1)}\n", 1).replace('"1"', '"2"'))
    assert run_main(capsys, "verify", "--decisions", project.decisions).code == 0


def test_fix_without_target_changes_nothing_at_the_pin(project, capsys) -> None:
    before = {p: p.read_bytes() for p in project.folder.glob("*.yaml")}
    run = run_main(capsys, "fix", "--decisions", project.decisions)
    assert run.code == 0
    assert run.stdout.splitlines() == ["fixed 0 moved citation(s) in 0 file(s); 0 need a person"]
    assert {p: p.read_bytes() for p in project.folder.glob("*.yaml")} == before


def test_fix_keeps_crlf_line_endings_and_a_byte_order_mark(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}})
    text = entry_yaml("D1", [("src/config.ts", "2-3")]).replace("\n", "\r\n")
    project.entry("D1").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2").code == 0
    expected = text.replace("lines: 2-3\r\n", f"lines: 3-4\r\n    version: \"2\"\r\n    {record(BOTH, 2)}\r\n")
    written = project.entry("D1").read_bytes()
    assert written.startswith(b"\xef\xbb\xbf") and b"\n" not in written.replace(b"\r\n", b"")
    assert hidden(written.decode()) == "\ufeff" + expected
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2").code == 0


def test_fix_keeps_the_file_mode(project, capsys) -> None:
    project.entry("D2").chmod(0o640)
    run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2")
    assert project.entry("D2").stat().st_mode & 0o777 == 0o640


def test_fix_refuses_bad_input_and_changes_nothing(project) -> None:
    before = {p: p.read_bytes() for p in project.folder.glob("*.yaml")}
    (project.folder / "D3.yaml").write_text("id: D3\n")
    run = run_cli("fix", "--decisions", project.decisions, "--target", "2")
    assert run.code == 2 and "Traceback" not in run.stderr
    assert run.stderr.splitlines()[-1] == "1 problem(s) found; nothing was changed"
    assert {p: p.read_bytes() for p in project.folder.glob("*.yaml") if p.name != "D3.yaml"} == before


HEAD = "id: {}\nquestion: q\ndecided_by: code\nanswer: a\n"


RETRIES, TIMEOUT, WHOLE = record("CONFIG.retries", 1), record("CONFIG.timeout", 1), record("CONFIG", 4)


@pytest.mark.parametrize(("before", "after"), [
    ("cites: [{file: src/config.ts, lines: 2}, {file: src/config.ts,\n    lines: '1-4'}]\n",
     f"cites: [{{file: src/config.ts, lines: 3, version: \"2\", {RETRIES}}}, {{file: src/config.ts,\n"
     f"    lines: '2-5', version: \"2\", {WHOLE}}}]\n"),
    ("cites:\n  - lines: 3\n    file: src/config.ts\n  -   file: src/config.ts\n      lines: 2 # x\n      note: n\n",
     f"cites:\n  - lines: 4\n    version: \"2\"\n    {TIMEOUT}\n    file: src/config.ts\n  -   file: src/config.ts\n"
     f"      lines: 3 # x\n      version: \"2\"\n      {RETRIES}\n      note: n\n"),
    ("cites:\n- file: src/config.ts\n  lines: 2\n- {file: src/config.ts, version: '1', lines: 3}",
     f"cites:\n- file: src/config.ts\n  lines: 3\n  version: \"2\"\n  {RETRIES}\n"
     f"- {{file: src/config.ts, version: \"2\", lines: 4, {TIMEOUT}}}"),
], ids=["flow-list", "keys-in-any-order", "unindented-list-no-final-newline"])
def test_fix_in_every_yaml_layout(tmp_path, capsys, before, after) -> None:
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}},
                           {"D1": HEAD.format("D1") + before})
    assert run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2").code == 0
    assert hidden(project.entry("D1").read_text()) == HEAD.format("D1") + after
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2").code == 0


def test_a_record_holds_the_digest_of_the_cited_text_without_whitespace(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}},
                           {"D1": entry_yaml("D1", [("src/config.ts", "2-3")])})
    assert run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2").code == 0
    expected = hashlib.sha256("retries:3,timeout:10,".encode()).hexdigest()[:12]
    assert f"record: {{symbol: \"CONFIG.retries, CONFIG.timeout\", length: 2, digest: {expected}}}" \
        in project.entry("D1").read_text()


def test_fix_moves_the_citations_of_every_map_in_the_folder(tmp_path, capsys):
    """A decisions folder can hold several maps; `fix` fixes each and counts them all."""
    import shutil

    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}},
                           {"D1": entry_yaml("D1", [("src/config.ts", "1-4")])})
    other = project.decisions / "other"
    shutil.copytree(project.folder, other)
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines() == ["D1: src/config.ts: 1-4 → 2-5", "D1: src/config.ts: 1-4 → 2-5",
                                       "fixed 2 moved citation(s) in 2 file(s); 0 need a person"]
    for folder in (project.folder, other):
        assert "lines: 2-5" in (folder / "D1.yaml").read_text()


def test_fix_at_the_pin_brings_every_map_of_the_folder_to_it(tmp_path, capsys):
    import shutil

    cites = "  - file: src/config.ts\n    lines: 2\n    version: \"1\"\n"
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}},
                           {"D1": entry_yaml("D1", cites)}, pin="2")
    other = project.decisions / "other"
    shutil.copytree(project.folder, other)
    assert run_main(capsys, "fix", "--decisions", project.decisions, "--quiet").code == 0
    for folder in (project.folder, other):
        assert hidden((folder / "D1.yaml").read_text()) == entry_yaml(
            "D1", cites.replace("2\n", f"3\n    {record('CONFIG.retries', 1)}\n", 1).replace('"1"', '"2"'))


def test_fix_at_the_version_the_map_was_checked_at_adds_no_version_line(tmp_path, capsys):
    """The pin was edited by hand to 2, so the map is still checked at 1: a range edited by hand
    is fixed at 1 from its record, and the map's `checked_at` still speaks for it."""
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}},
                           {"D1": entry_yaml("D1", [("src/config.ts", "2")])})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    recorded = project.entry("D1").read_text()
    project.entry("D1").write_text(recorded.replace("lines: 2", "lines: 3"))
    project.map_yaml.write_text(project.map_yaml.read_text().replace('version: "1"', 'version: "2"'))
    assert 'checked_at: "1"' in project.map_yaml.read_text()
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "1", "--quiet")
    assert run.stdout.splitlines() == ["D1: src/config.ts: 3-3 → 2-2",
                                       "fixed 1 moved citation(s) in 1 file(s); 0 need a person"]
    assert project.entry("D1").read_text() == recorded


def test_fix_says_why_a_citation_is_left_for_a_person(tmp_path, capsys):
    one = "export function one(): number {\n  return 1;\n}\n"
    project = make_project(tmp_path, {"1": {"src/a.ts": one + "const k = 0;\n"},
                                      "2": {"src/a.ts": "const k = 0;\n", "src/b.ts": one, "src/c.ts": one}},
                           {"D1": entry_yaml("D1", [("src/a.ts", "1-3")])})
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet")
    assert run.code == 1
    assert run.stdout.splitlines() == [
        "D1: src/a.ts:1-3 is ambiguous; left for a person (found in several files: src/b.ts, src/c.ts)",
        "fixed 0 moved citation(s) in 0 file(s); 1 need a person"]
